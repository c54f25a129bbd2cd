# Seed 001 (../shared/seeds/001_6ed475c5ebd97515.txt): Variable (data, grad, grad_fn),
# backward on a scalar, backward of a vector with a `gradients` argument, in the
# PyTorch 0.2/0.3 style.
#
# The seed is a blog copy that ran code lines and output lines together
# (`import torchfrom torch.autograd import Variable`); here the code is typed at `>>>`
# one statement a line as the seed wrote it, and the output is as legacy-format.md
# specifies: each tensor cell right-aligned in one width, cells joined by one space
# (` 1  1`, where the copy shows ` 1  1 1  1`; `  102.4000`, E6). `print` writes the
# repr plus a newline, so a printed Variable ends with an empty line (not compared).
# Each part of the seed runs in a fresh session that starts with the seed's imports.
# replay: style=legacy prompt=python

# replay: session=一、Variable and 二、Gradients
>>> import torch
>>> from torch.autograd import Variable
>>> x = Variable(torch.ones(2, 2), requires_grad=True)
>>> print(x)
Variable containing:
 1  1
 1  1
[torch.FloatTensor of size 2x2]
>>> y = x + 2
>>> print(y)
Variable containing:
 3  3
 3  3
[torch.FloatTensor of size 2x2]
>>> print(x.grad_fn)
None

# The seed shows nothing under print(y.grad_fn): the blog dropped the text between
# `<` and `>` (as an HTML tag). 0.2 prints the node of `x + 2` (legacy-format.md §8).
>>> print(y.grad_fn)
<torch.autograd.function.AddConstantBackward object at 0x7f5c7c0e8710>
>>> z = y * y * 3
>>> out = z.mean()

# print joins its arguments with one space, so the second Variable starts with it (E17).
>>> print(z, out)
Variable containing:
 27  27
 27  27
[torch.FloatTensor of size 2x2]
 Variable containing:
 27
[torch.FloatTensor of size 1]
>>> out.backward()
>>> print(x.grad)
Variable containing:
 4.5000  4.5000
 4.5000  4.5000
[torch.FloatTensor of size 2x2]

# replay: session=a vector output needs a gradients argument (random x)
>>> import torch
>>> from torch.autograd import Variable
>>> x = torch.randn(3)
>>> x = Variable(x, requires_grad=True)
>>> y = x * 2
>>> while y.data.norm() < 1000:
...     y = y * 2
...
>>> print(y)  # replay: random
Variable containing:
-1296.5227
  499.0783
  778.8971
[torch.FloatTensor of size 3]

# The seed shows the error and then `None` run together.
>>> y.backward()
Traceback (most recent call last):
  ...
RuntimeError: grad can be implicitly created only for scalar outputs
>>> print(x.grad)
None
>>> gradients = torch.FloatTensor([0.1, 1.0, 0.0001])
>>> y.backward(gradients)

# x.grad = gradients * 2**k, where k (10 in the seed) depends on the random x.
>>> print(x.grad)  # replay: random
Variable containing:
  102.4000
 1024.0000
    0.1024
[torch.FloatTensor of size 3]

# replay: session=参数1：[1,1,1]
>>> import torch
>>> from torch.autograd import Variable
>>> x=torch.FloatTensor([1,2,3])
>>> x = Variable(x, requires_grad=True)
>>> y = x * x
>>> print(y)
Variable containing:
 1
 4
 9
[torch.FloatTensor of size 3]
>>> gradients = torch.FloatTensor([1,1,1])
>>> y.backward(gradients)  
>>> print(x.grad)
Variable containing:
 2
 4
 6
[torch.FloatTensor of size 3]

# replay: session=参数2：[3,2,1]
>>> import torch
>>> from torch.autograd import Variable
>>> x=torch.FloatTensor([1,2,3])
>>> x = Variable(x, requires_grad=True)
>>> y = x * x
>>> print(y)
Variable containing:
 1
 4
 9
[torch.FloatTensor of size 3]
>>> gradients = torch.FloatTensor([3,2,1])
>>> y.backward(gradients)  
>>> print(x.grad)
Variable containing:
 6
 8
 6
[torch.FloatTensor of size 3]
