# 中文教程风格：PyTorch 自动求导（Variable、grad_fn、backward 的 gradient 参数、梯度累加与清零、
# no_grad、detach、.data、叶子节点、retain_graph、from_numpy、哪些 dtype 可以求导）。
import numpy as np
import torch
from torch.autograd import Variable

x = Variable(torch.ones(2, 2), requires_grad=True)
y = x + 2
print(y.grad_fn)
z = y * y * 3
out = z.mean()
out.backward()  # out 是标量，所以 backward 不需要参数
print(x.grad)

x = Variable(torch.Tensor([2, 2, 2]), requires_grad=True)
y = x * 2
try:
    y.backward()  # y 不是标量
except RuntimeError as e:
    print("报错:", e)
y.backward(torch.FloatTensor([1, 0.1, 0.01]))  # 用同长度的序列标注每个元素的权重
print(x.grad)

# 梯度是累加的
for i in range(3):
    y = (x * 3).sum()
    y.backward()
    print("第%d次: %s" % (i + 1, x.grad))
x.grad.data.zero_()
print("清零后:", x.grad)

# 叶子节点
a = torch.randn(3, requires_grad=True)
b = a * 2
print(a.is_leaf, b.is_leaf, b.grad_fn.next_functions[0][0])
b.sum().backward()
print(b.grad)

# detach 与 .data 的区别
c = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = c.sigmoid()
d = out.detach()
d.zero_()
print(out)
try:
    out.sum().backward()
except RuntimeError as e:
    print("detach 后原地修改:", e)

c = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = c.sigmoid()
e = out.data
e.zero_()
out.sum().backward()
print(".data 后原地修改（梯度是错的，但不报错）:", c.grad)

# retain_graph
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w ** 2).sum()
loss.backward(retain_graph=True)
loss.backward()
print(w.grad)

# from_numpy 与共享内存
n = np.array([1.0, 2.0, 3.0])
t = torch.from_numpy(n)
t.requires_grad_()
print(t.dtype, t.requires_grad)
(t * t).sum().backward()
print(t.grad)

# 只有浮点（和复数）类型才能求导
for dtype in [torch.float32, torch.float64, torch.float16, torch.int64, torch.int32, torch.bool]:
    try:
        torch.ones(2, dtype=dtype, requires_grad=True)
        print(dtype, "可以")
    except RuntimeError as e:
        print(dtype, "不行:", e)

with torch.no_grad():
    k = w * 2
print(k.requires_grad, k.grad_fn)
