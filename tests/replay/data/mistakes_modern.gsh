# Deliberate mistakes (tests of the tester). Statements whose comment says WRONG have
# expected output that differs from what PyTorch prints; the others are right.
>>> import torch
>>> x = torch.ones(2, 2, requires_grad=True)
>>> y = x + 2
>>> y  # WRONG: one value
tensor([[3., 3.],
        [3., 4.]], grad_fn=<AddBackward0>)
>>> y.grad_fn  # WRONG: node name
<MulBackward0 object at 0x7f00deadbeef>
>>> out = (y * y * 3).mean()
>>> out.backward()
>>> x.grad
tensor([[4.5000, 4.5000],
        [4.5000, 4.5000]])
>>> x.grad.sum().backward()  # WRONG: exception message
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
RuntimeError: grad can be implicitly created only for scalar outputs
>>> x.requires_grad  # WRONG: no output expected
>>> print(x.is_leaf)
True
>>> print("two\nlines")  # WRONG: a missing line
two
