"""The layers of issue 14 — Conv2d, MaxPool2d, AvgPool2d, BatchNorm1d/2d, ParameterList,
ParameterDict — against PyTorch: printed reprs, initial weights after the same seed (bit
for bit), state_dict keys, forward values, running statistics in train and eval mode."""

from __future__ import annotations

import numpy as np
import pytest
from support.tutorials import printed

from gradshell import torch as gtorch

REPRS = """
nn = torch.nn
print(nn.Conv2d(1, 6, 5))
print(nn.Conv2d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False))
print(nn.Conv2d(2, 4, (3, 1), padding='same'))
print(nn.Conv2d(3, 3, 3, padding='valid'))
print(nn.Conv1d(16, 33, 3, stride=2), nn.Conv1d(2, 2, 3, padding=1))
print(nn.Conv1d(4, 4, 3, padding='same', groups=2, bias=False, dilation=2))
print(nn.MaxPool2d(2), nn.MaxPool2d(2, 2, 1, ceil_mode=True), nn.MaxPool2d((3, 2), dilation=2))
print(nn.AvgPool2d(2), nn.AvgPool2d(3, 1, 1, count_include_pad=False, divisor_override=2))
print(nn.BatchNorm2d(3))
print(nn.AdaptiveAvgPool2d((1, 1)), nn.AdaptiveAvgPool2d(3), nn.AdaptiveAvgPool2d((None, 2)))
print(nn.BatchNorm1d(3, affine=False, track_running_stats=False, momentum=None))
print(nn.BatchNorm1d(4, eps=1e-3, bias=False))
print(nn.ParameterList([nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(2, 3))]))
print(nn.ParameterDict({'b': nn.Parameter(torch.zeros(2)), 'a': torch.zeros(3)}))
print(nn.ParameterDict({'a': nn.Parameter(torch.zeros(2))}))
print(nn.ParameterList())
print(type(nn.Conv2d(1, 1, 1)), type(nn.MaxPool2d(1)), type(nn.BatchNorm1d(1)))
print(type(nn.ParameterList()), type(nn.ParameterDict()))
"""


def test_reprs_and_class_names(real_torch):
    assert printed(REPRS, gtorch) == printed(REPRS, real_torch)


INIT = """
torch.manual_seed(0)
c = torch.nn.Conv2d(3, 6, 5)
c2 = torch.nn.Conv2d(4, 4, (3, 2), groups=2, bias=False)
c1 = torch.nn.Conv1d(3, 2, 4)
lin = torch.nn.Linear(3, 2)
print(c.weight.shape, c.bias.shape, c2.weight.shape)
print(c.weight.flatten()[:8].tolist(), c.bias.tolist())
print(c2.weight.flatten()[-5:].tolist(), lin.weight.tolist(), c1.weight.shape, c1.bias.tolist())
"""


def test_conv2d_initialisation_draws_as_pytorch(real_torch):
    assert printed(INIT, gtorch) == printed(INIT, real_torch)


STATE = """
nn = torch.nn
net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.MaxPool2d(2), nn.Flatten(),
                    nn.BatchNorm1d(2, affine=False), nn.BatchNorm1d(2, track_running_stats=False))
print(list(net.state_dict().keys()))
print([n for n, _ in net.named_parameters()], [n for n, _ in net.named_buffers()])
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.ps = nn.ParameterList([nn.Parameter(torch.ones(2)) for _ in range(2)])
        self.pd = nn.ParameterDict({'w': nn.Parameter(torch.ones(1))})
        self.ps.append(torch.zeros(1))
        self.pd['v'] = torch.zeros(3)
print([n for n, _ in M().named_parameters()], list(M().state_dict()))
print(len(M().ps), list(M().pd.keys()), type(M().ps[2]).__name__, M().pd.get('z'))
"""


def test_state_dict_keys(real_torch):
    ours = printed(STATE, gtorch)
    assert ours == printed(STATE, real_torch)
    assert "Error" not in ours


TRAIN = """
torch.manual_seed(0)
bn = torch.nn.BatchNorm2d(3, momentum=0.3)
x = torch.randn(4, 3, 2, 2) * 2 + 1
y = bn(x)
print(y[0, :, 0, 0], y.grad_fn)
bn(x * 3)
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
bn.eval()
print(bn(x)[1, 1], bn.num_batches_tracked)
cma = torch.nn.BatchNorm1d(2, momentum=None)
cma(torch.randn(5, 2)); cma(torch.randn(5, 2))
print(cma.running_mean, cma.running_var, cma.num_batches_tracked)
nostat = torch.nn.BatchNorm1d(2, track_running_stats=False).eval()
print(nostat(torch.tensor([[1., 2.], [3., 5.]])))
try:
    torch.nn.BatchNorm1d(3)(torch.randn(1, 3))
except ValueError as e:
    print(e)
try:
    torch.nn.BatchNorm2d(3)(torch.randn(2, 3))
except ValueError as e:
    print(e)
"""


def test_batchnorm_training_and_eval(real_torch):
    assert printed(TRAIN, gtorch) == printed(TRAIN, real_torch)


NET = """
torch.manual_seed(1)
nn = torch.nn
net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                    nn.MaxPool2d(2), nn.Conv2d(4, 2, 3, padding='same'), nn.AvgPool2d(2),
                    nn.AdaptiveAvgPool2d((2, 2)), nn.Flatten(), nn.Linear(8, 3))
out = net(torch.randn(2, 1, 8, 8))
print(out, out.grad_fn)
(out ** 2).sum().backward()
print(net[0].weight.grad[0, 0], net[1].weight.grad, net[4].bias.grad)  # (conv1.bias.grad is 0 up to rounding: the batch norm removes its effect)
"""


def test_small_convnet_forward_and_gradients(real_torch):
    ours, theirs = printed(NET, gtorch), printed(NET, real_torch)
    assert ours == theirs


def test_module_errors():
    nn = gtorch.nn
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="strided"):
        nn.Conv2d(3, 3, 3, stride=2, padding="same")
    with pytest.raises(NotImplementedError, match="padding_mode='reflect'"):
        nn.Conv2d(3, 3, 3, padding_mode="reflect")
    with pytest.raises(RuntimeError, match="ParameterList should not be called"):
        nn.ParameterList()(1)


def test_conv2d_runs_unbatched():
    c = gtorch.nn.Conv2d(2, 3, 3)
    out = c(gtorch.tensor(np.ones((2, 5, 5), np.float32)))
    assert tuple(out.shape) == (3, 3, 3)
