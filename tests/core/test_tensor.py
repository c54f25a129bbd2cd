"""The Tensor's non-op API: shape queries, conversions, memory sharing, views, errors —
each program run on gradshell and on PyTorch and compared."""

import numpy as np
import pytest
from support.differential import compare

from gradshell import torch as gtorch

PROGRAMS = [
    # shapes and sizes
    "x = torch.ones(2, 3); r = (tuple(x.shape), tuple(x.size()), x.size(1), x.size(-1), x.dim(), x.numel(), x.ndim, len(x))",
    "x = torch.zeros(2, 3, 4); r = (x.size(-3), x.element_size(), x.nelement(), x.ndimension())",
    "x = torch.ones(2); r = x.size(1)",
    "x = torch.tensor(5.); r = len(x)",
    # item / tolist / python conversions
    "r = (torch.tensor(2.5).item(), torch.tensor([7]).item(), torch.tensor(True).item())",
    "r = torch.ones(3).item()",
    "r = (torch.arange(6).view(2, 3).tolist(), torch.tensor(1.5).tolist())",
    "r = (float(torch.tensor([2.5])), int(torch.tensor(3.9)), bool(torch.tensor([0.])))",
    "r = float(torch.ones(2))",
    "r = bool(torch.ones(2))",
    "r = [i for i in range(5)][torch.tensor(2)]",
    # numpy sharing, both ways
    "a = np.ones(3); t = torch.from_numpy(a); t.add_(1); r = (a.tolist(), t.dtype)",
    "t = torch.ones(3); a = t.numpy(); a[0] = 7; r = t",
    "t = torch.from_numpy(np.array([1, 2], dtype=np.int32)); r = t.dtype",
    "x = torch.ones(2, requires_grad=True); r = x.numpy()",
    "x = torch.ones(2, requires_grad=True); r = x.detach().numpy().tolist()",
    # dtype conversions
    "x = torch.tensor([1.7, -2.2]); r = (x.long(), x.int(), x.double(), x.bool(), x.half(), x.float() is x)",
    "x = torch.tensor([1, 2]); r = (x.to(torch.float64), x.to(torch.float32).dtype, x.type(torch.DoubleTensor), x.type())",
    "x = torch.ones(2); r = (x.type('torch.LongTensor'), x.to(torch.ones(1, dtype=torch.int8)))",
    "x = torch.ones(2, requires_grad=True); y = x.double(); r = (y, x.to(torch.float32) is x)",
    "x = torch.ones(2, 3, requires_grad=True); y = x.long(); r = y",
    # clone / contiguous / views and strides
    "x = torch.arange(6.); y = x.clone(); y[0] = 9; r = (x, y)",
    "x = torch.arange(6).view(2, 3); t = x.t(); r = (t.is_contiguous(), t.stride(), x.stride(), t.contiguous().stride(), x.contiguous() is x)",
    "x = torch.arange(6).view(2, 3); r = x.t().view(6)",
    "x = torch.arange(6).view(2, 3); y = x.t().reshape(6); y[0] = 100; r = (x, y)",
    "x = torch.arange(6).view(2, 3); y = x.reshape(3, 2); y[0, 0] = 100; r = x",
    "x = torch.arange(6).view(2, 3); y = x.view(-1); y[1] = 50; r = (x, x.view(3, -1), x.view(-1, 1).shape)",
    "x = torch.arange(6); r = x.view(4)",
    "x = torch.arange(6); r = x.view(-1, -1)",
    "x = torch.arange(6); r = x.view(4, -1)",
    "x = torch.arange(12).view(3, 4); r = (x[:, 1].storage_offset(), x[1].stride(), x[1:, ::2].stride(), x[1:, ::2].storage_offset())",
    "x = torch.arange(6.); d = x.data; d[0] = 5; r = (x, d.requires_grad)",
    "x = torch.ones(2, requires_grad=True); d = x.detach(); d.add_(1); r = (x, d.requires_grad, d.is_leaf)",
    "x = torch.ones(3).t(); r = x",
    "x = torch.ones(2, 3, 4); r = x.t()",
    "x = torch.ones(2, 3); r = (x.transpose(0, 1).shape, x.transpose(-1, -2).shape, x.T.shape)",
    "x = torch.ones(2); r = x.transpose(0, 3)",
    "x = torch.ones(2, 2); r = x.sum(2)",
    # creation
    "r = (torch.ones(2, 3), torch.zeros((2,)), torch.full((2, 2), 7), torch.full((2,), 1.5), torch.eye(2, 3), torch.empty(2, 2).shape)",
    "r = (torch.arange(5), torch.arange(1, 4.), torch.arange(0, 1, 0.25), torch.arange(10, dtype=torch.float64))",
    "r = (torch.linspace(0, 1, 5), torch.linspace(-1, 1, 4, dtype=torch.float64), torch.linspace(0, 10, 1))",
    "x = torch.ones(2, 3, dtype=torch.int32); r = (torch.ones_like(x), torch.zeros_like(x, dtype=torch.float64), torch.full_like(x, 4), torch.empty_like(x).shape)",
    "r = (torch.tensor([1, 2.5]), torch.tensor([True, False]), torch.tensor([[1, 2], [3, 4]]), torch.tensor([]), torch.tensor(3), torch.tensor(3.5, dtype=torch.int32))",
    "r = torch.tensor([[1, 2], [3]])",
    "r = torch.tensor([1, 2], requires_grad=True)",
    "r = torch.tensor([1., 2.], requires_grad=True)",
    "r = (torch.Tensor(2, 3).shape, torch.Tensor([1, 2]), torch.Tensor(), torch.FloatTensor([0.1, 1, 10]), torch.LongTensor([1, 2]), torch.DoubleTensor([1]), torch.IntTensor(2).shape, torch.ByteTensor([1, 0]), torch.BoolTensor([True]))",
    "r = torch.FloatTensor(2.5)",
    "r = torch.ones(-1)",
    "r = torch.ones(2.5)",
    "x = torch.ones(2, 3); r = (x.new_ones(2), x.new_zeros((1, 2)), x.new_full((2,), 3.), x.new_tensor([1, 2]))",
    "r = torch.from_numpy(np.arange(4.).reshape(2, 2))",
    # devices
    "x = torch.ones(2); r = (str(x.device), x.device.type, x.is_cuda, x.get_device())",
    "r = (repr(torch.device('cpu')), str(torch.device('cuda:1')), torch.device('cuda', 0).index, torch.device('cpu') == torch.device('cpu'))",
    "r = torch.device('gpu')",
    "r = torch.ones(2).cuda()",
    # Size
    "r = (repr(torch.Size([2, 3])), torch.Size([2, 3]).numel(), repr(torch.Size([2, 3])[1:]), torch.Size([2]) == (2,))",
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_matches_pytorch(real_torch, program):
    compare(program, real_torch)


def test_from_numpy_shares_memory_without_torch():
    a = np.zeros(4, dtype=np.float32)
    t = gtorch.from_numpy(a)
    t[1] = 3
    assert a[1] == 3
    a[2] = 5
    assert t[2].item() == 5


def test_reshape_copies_only_when_it_must():
    x = gtorch.arange(6).view(2, 3)
    assert np.shares_memory(x.reshape(3, 2).numpy(), x.numpy())
    assert not np.shares_memory(x.t().reshape(6).numpy(), x.numpy())


def test_max_elements_guard():
    from gradshell.core.limits import limits

    old = limits.max_elements
    limits.max_elements = 1000
    try:
        with pytest.raises(MemoryError, match="over the limit"):
            gtorch.ones(10**6)
        with pytest.raises(MemoryError):
            gtorch.zeros(10**6, 10**6)
    finally:
        limits.max_elements = old


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize(
    "start,end,steps",
    [
        (-1, 1, 20),
        (0, 1, 5),
        (-3.3, 7.1, 33),
        (0, 10, 101),
        (0.1, 0.7, 17),
        (-1, 1, 1000),
        (2, -5, 77),
        (0, 1, 3),
        (1e-3, 1e3, 50),
        (5, 5, 4),
        (0, 1, 1),
        (0, 1, 0),
    ],
)
def test_linspace_bit_for_bit(real_torch, dtype, start, end, steps):
    ours = gtorch.linspace(start, end, steps, dtype=getattr(gtorch, dtype)).numpy()
    theirs = real_torch.linspace(start, end, steps, dtype=getattr(real_torch, dtype)).numpy()
    assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
