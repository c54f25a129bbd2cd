# MobileNet-style tutorial code: a depthwise-separable convolution block with BatchNorm
# and ReLU6, parameter counts against a plain convolution, and a forward/backward pass.
import torch
import torch.nn as nn


class DepthwiseSeparableConv(nn.Module):
    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__()
        self.depthwise = nn.Conv2d(in_ch, in_ch, kernel_size=3, stride=stride, padding=1, groups=in_ch, bias=False)
        self.bn1 = nn.BatchNorm2d(in_ch)
        self.pointwise = nn.Conv2d(in_ch, out_ch, kernel_size=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.act = nn.ReLU6()

    def forward(self, x):
        x = self.act(self.bn1(self.depthwise(x)))
        return self.act(self.bn2(self.pointwise(x)))


def count_params(m):
    return sum(p.numel() for p in m.parameters())


torch.manual_seed(0)
block = DepthwiseSeparableConv(8, 16, stride=2)
plain = nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1, bias=False)
print(block)
print("separable:", count_params(block), "plain:", count_params(plain))

x = torch.randn(2, 8, 10, 10)
y = block(x)
print(y.shape, y.grad_fn)
print(y.min().item() >= 0, y.max().item() <= 6)
print(y[0, 0, :2])

head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 3))
logits = head(y)
loss = nn.functional.cross_entropy(logits, torch.tensor([0, 2]))
loss.backward()
print(f"loss {loss.item():.4f}")
print(block.depthwise.weight.grad.shape, block.bn2.weight.grad[:4])
print(nn.functional.relu6(torch.tensor([-1.0, 3.0, 9.0])), nn.Hardtanh(-2, 2)(torch.tensor([-5.0, 0.5, 5.0])))
