# Seed 003 (../shared/seeds/003_160cdcb9db8362f9.txt): the ways to make a tensor require
# grad, y = w*x + b and its gradients, leaf tensors in a small network, the `gradient`
# argument of backward(), accumulation into .grad, retain_graph. Modern style.
#
# The seed's code is typed at `>>>` statement by statement, comments kept as written
# (a comment on a line of its own is a `>>>` line of its own). A value the seed's
# script computes but does not print is shown by the REPL where a statement is an
# expression (`x1.requires_grad_(True)` returns x1). Expected outputs are what PyTorch
# 2.13 prints (generated with real PyTorch; see tests/replay/replay_pysession.py).
# replay: style=modern prompt=python

# replay: session=ways to require grad
>>> # 三种设置需要自动计算梯度的方式。
>>> import torch
>>> import numpy as np
>>> # 方式一
>>> x = torch.randn(2,2, requires_grad=True)
>>> # 方式二
>>> x = torch.autograd.Variable(torch.Tensor([2,3]), requires_grad=True)
>>> x  # not in the seed: shows what each way made
tensor([2., 3.], requires_grad=True)
>>> #方式三
>>> x = torch.tensor([2,3], requires_grad=True, dtype=torch.float64)
>>> x  # not in the seed
tensor([2., 3.], dtype=torch.float64, requires_grad=True)
>>> # 方式四
>>> x = np.array([1,2,3] ,dtype=np.float64)
>>> x = torch.from_numpy(x)
>>> x.requires_grad = True
>>> # 或者 x.requires_grad_(True)
>>> x  # not in the seed
tensor([1., 2., 3.], dtype=torch.float64, requires_grad=True)

# replay: session=y = w*x + b and its gradients
>>> # Create tensors.
>>> import torch
>>> x = torch.tensor(3.) # 数字
>>> w = torch.tensor(4., requires_grad=True) # 数字
>>> b = torch.tensor(5., requires_grad=True) # 数字
>>> x, w, b
(tensor(3.), tensor(4., requires_grad=True), tensor(5., requires_grad=True))
>>> # Arithmetic operations
>>> y = w * x + b
>>> y
tensor(17., grad_fn=<AddBackward0>)
>>> # Compute derivatives
>>> y.backward()
>>> #相当于函数变为 y = 3 * w + b
>>> #求梯度：
>>> # Display gradients
>>> print('dy/dx:', x.grad)
dy/dx: None
>>> print('dy/dw:', w.grad)
dy/dw: tensor(3.)
>>> print('dy/db:', b.grad)
dy/db: tensor(1.)

# replay: session=举例2 a small network: backward with a gradient, accumulation
>>> import torch
>>> import numpy as np
>>> x1 = torch.from_numpy( 2*np.ones((2, 2), dtype=np.float32) )
>>> x1.requires_grad_(True)   #设置该tensor可被记录操作用于梯度计算
tensor([[2., 2.],
        [2., 2.]], requires_grad=True)
>>> w1 = torch.from_numpy( 5*np.ones((2, 2), dtype=np.float32) )
>>> w1.requires_grad_(True)
tensor([[5., 5.],
        [5., 5.]], requires_grad=True)
>>> print("x1 =", x1)
x1 = tensor([[2., 2.],
        [2., 2.]], requires_grad=True)
>>> print("w1 =", w1)
w1 = tensor([[5., 5.],
        [5., 5.]], requires_grad=True)
>>> x2 = x1 * w1
>>> w2 = torch.from_numpy( 6*np.ones((2,2), dtype=np.float32) )
>>> w2.requires_grad_(True)
tensor([[6., 6.],
        [6., 6.]], requires_grad=True)
>>> print("x2 =", x2)
x2 = tensor([[10., 10.],
        [10., 10.]], grad_fn=<MulBackward0>)
>>> print("w2 =", w2)
w2 = tensor([[6., 6.],
        [6., 6.]], requires_grad=True)
>>> y = x2 * w2
>>> Y = torch.from_numpy( 10*np.ones((2,2), dtype=np.float32) )
>>> print("y =", y)
y = tensor([[60., 60.],
        [60., 60.]], grad_fn=<MulBackward0>)
>>> print("Y =", Y)
Y = tensor([[10., 10.],
        [10., 10.]])
>>> L = Y - y
>>> L.backward(torch.ones(2, 2, dtype=torch.float))
>>> print(x1.grad) # 查看L对于x1的梯度
tensor([[-30., -30.],
        [-30., -30.]])
>>> print(w1.grad) # L对于w1的梯度
tensor([[-12., -12.],
        [-12., -12.]])
>>> print(w2.grad)
tensor([[-10., -10.],
        [-10., -10.]])

# 注意点 (2): a second backward into the same leaf adds to its .grad. The seed prints
# x1.grad = -26 before L2.backward() and -22 after: both are one L2.backward() (+2*x1 =
# +4) too far, as if that cell had been run twice. PyTorch prints -30 (the gradient
# from L alone, as above) and then -30 + 4 = -26.
>>> print("x1.grad =",x1.grad) # 原来x1的梯度 
x1.grad = tensor([[-30., -30.],
        [-30., -30.]])
>>> L2 = x1 * x1
>>> L2.backward(torch.ones(2, 2, dtype=torch.float))
>>> print("x1.grad =", x1.grad) # 计算L2的backward后梯度结果将累加到x1.grad中
x1.grad = tensor([[-26., -26.],
        [-26., -26.]])

# replay: session=注意点 (3) not in the seed: a computed x1 is no leaf and gets no .grad
>>> import torch
>>> x1 = 2 * torch.ones(2, 2, requires_grad=True, dtype=torch.float)
>>> x1.is_leaf
False
>>> (x1 * x1).sum().backward()
>>> print(x1.grad)
<stdin>:1: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)
None

# replay: session=例子说明 retain_graph
>>> import torch
>>> a = torch.tensor([2., 3.], requires_grad=True)    
>>> b = a + 3
>>> c = b * b * 3
>>> out = c.mean()
>>> out.backward(retain_graph=True)
>>> a.grad
tensor([15., 18.])

# replay: session=Note1 not in the seed: only floating point tensors can require grad
>>> import torch
>>> torch.tensor([2, 3], requires_grad=True)
Traceback (most recent call last):
  ...
RuntimeError: Only Tensors of floating point and complex dtype can require gradients
>>> torch.tensor([2., 3.], requires_grad=True)
tensor([2., 3.], requires_grad=True)
