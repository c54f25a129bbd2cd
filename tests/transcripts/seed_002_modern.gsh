# Seed 002 (../shared/seeds/002_9206209347e5e592.txt): requires_grad, grad_fn, leaf
# tensors, backward on a scalar and with a weight tensor, accumulation and zero_(),
# torch.no_grad(), tensor.data. Modern style (PyTorch 2.x).
#
# Each of the seed's six examples (示例1-6) is a script: `import torch`, a function
# `my_grad()` and `if __name__ == "__main__": my_grad()`. Here each runs in a fresh
# session, typed at `>>>` exactly as written (comments included); the output under
# the `if` statement is what the script prints ("运行结果"). The expected output is what
# PyTorch 2.13 prints (generated with real PyTorch; see tests/replay/replay_pysession.py).
# replay: style=modern prompt=python

# replay: session=示例1 leaf tensors and grad_fn
>>> import torch
>>> def my_grad():
...     x = torch.ones(2, 2, requires_grad=True)
...     print(x)
...     print(x.grad_fn)    #该tensor若为计算所得，则输出一个与这些计算相关的对象，否则为None
...     y = x + 2
...     print(y)
...     print(y.grad_fn)
...
>>> if __name__ == "__main__":
...     my_grad()
...
tensor([[1., 1.],
        [1., 1.]], requires_grad=True)
None
tensor([[3., 3.],
        [3., 3.]], grad_fn=<AddBackward0>)
<AddBackward0 object at 0x00000178B6D15C18>

# replay: session=示例2 the gradient of a scalar function
>>> import torch
>>> def my_grad():
...     x = torch.ones(2, 2, requires_grad=True)
...     y = x + 2
...     z = y * y * 3
...     z_mean = z.mean()
...     z_mean.backward()    #等价z_mean.backward(torch.tensor(1.))
...     print(x.grad)
...
>>> if __name__ == "__main__":
...     my_grad()
...
tensor([[4.5000, 4.5000],
        [4.5000, 4.5000]])

# replay: session=示例3 gradients accumulate; zero_() clears them
>>> import torch
>>> def my_grad():
...     x = torch.ones(2, 2, requires_grad=True)
...     y = x + 2
...     z = y * y * 3
...     z_mean = z.mean()
...     z_mean.backward()
...
...     z_sum1 = x.sum()
...     z_sum1.backward()
...     print(x.grad)
...
...     z_sum2 = x.sum()
...     x.grad.data.zero_()    #梯度清零
...     z_sum2.backward()
...     print(x.grad)
...
>>> if __name__ == "__main__":
...     my_grad()
...
tensor([[5.5000, 5.5000],
        [5.5000, 5.5000]])
tensor([[1., 1.],
        [1., 1.]])

# replay: session=示例4 backward of a non-scalar tensor with a weight tensor
>>> import torch
>>> def my_grad():
...     x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
...     y = x * 2
...     print(y)
...     z = torch.tensor([[1.0, 1.0], [1.0, 1.0]])    #传入与y同形的权重向量
...     y.backward(z)
...     print(x.grad)
...
>>> if __name__ == "__main__":
...     my_grad()
...
tensor([[2., 4.],
        [6., 8.]], grad_fn=<MulBackward0>)
tensor([[2., 2.],
        [2., 2.]])

# replay: session=示例5 torch.no_grad() stops tracking
>>> import torch
>>> def my_grad():
...     x = torch.tensor(1.0, requires_grad=True)
...     y = x ** 2
...     with torch.no_grad():
...         y2 = x ** 2
...     y3 = y + y2
...
...     print(x.requires_grad)
...     print(y, y.requires_grad)
...     print(y2, y2.requires_grad)
...     print(y3, y3.requires_grad)
...     y3.backward()
...     print(x.grad)
...
>>> if __name__ == "__main__":
...     my_grad()
...
True
tensor(1., grad_fn=<PowBackward0>) True
tensor(1.) False
tensor(2., grad_fn=<AddBackward0>) True
tensor(2.)

# replay: session=示例6 changing tensor.data is not recorded
>>> import torch
>>> def my_grad():
...     x = torch.tensor(1.0, requires_grad=True)
...
...     print(x.data)    #依旧是一个tensor
...     print(x.data.requires_grad)     #但不会影响反向传播
...
...     y = x * 2
...     x.data *= 100    #只是改变了值
...
...     y.backward()
...     print(x)    #更改data的值也会影响tensor的值
...     print(x.grad)
...
>>> if __name__ == "__main__":
...     my_grad()
...
tensor(1.)
False
tensor(100., requires_grad=True)
tensor(2.)
