# "Learning PyTorch with Examples" warm-up with NumPy, then the same net with torch tensors.
import numpy as np
import torch

np.random.seed(0)
N, D_in, H, D_out = 64, 100, 20, 10
x = np.random.randn(N, D_in)
y = np.random.randn(N, D_out)
w1 = np.random.randn(D_in, H)
w2 = np.random.randn(H, D_out)

learning_rate = 1e-6
for t in range(100):
    h = x.dot(w1)
    h_relu = np.maximum(h, 0)
    y_pred = h_relu.dot(w2)
    loss = np.square(y_pred - y).sum()
    if t % 25 == 0:
        print(t, loss)
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.T.dot(grad_y_pred)
    grad_h_relu = grad_y_pred.dot(w2.T)
    grad_h = grad_h_relu.copy()
    grad_h[h < 0] = 0
    grad_w1 = x.T.dot(grad_h)
    w1 -= learning_rate * grad_w1
    w2 -= learning_rate * grad_w2

dtype = torch.double
xt = torch.from_numpy(x)
yt = torch.from_numpy(y)
w1t = torch.from_numpy(np.random.randn(D_in, H)).requires_grad_()
w2t = torch.from_numpy(np.random.randn(H, D_out)).requires_grad_()
for t in range(100):
    y_pred = xt.mm(w1t).clamp(min=0).mm(w2t)
    loss = (y_pred - yt).pow(2).sum()
    if t % 25 == 0:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        w1t -= learning_rate * w1t.grad
        w2t -= learning_rate * w2t.grad
        w1t.grad.zero_()
        w2t.grad.zero_()
print(w1t.dtype, loss.dtype, loss.grad_fn)
