# Deliberate mistakes in the legacy style: the blog's collapsed spacing.
>>> import torch
>>> from torch.autograd import Variable
>>> x = Variable(torch.ones(2, 2), requires_grad=True)
>>> z = (x + 2) * (x + 2) * 3
>>> z  # WRONG: collapsed spacing, as seed 000's blog copy shows it
Variable containing:
 27 27
 27 27
[torch.FloatTensor of size 2x2]
>>> z.mean()
Variable containing:
 27
[torch.FloatTensor of size 1]
