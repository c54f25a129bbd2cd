"""torch.bfloat16: float32 storage holding bfloat16 numbers only (round to nearest even,
as c10::BFloat16 converts), printed, promoted and differentiated as PyTorch does."""

from __future__ import annotations

import numpy as np
from support.tutorials import printed

from gradshell import torch as gtorch
from gradshell.core.dtypes import bfloat16, round_bfloat16


def test_rounding_matches_pytorch_bit_for_bit(real_torch):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(50_000).astype(np.float32)
    a *= np.float32(10.0) ** rng.integers(-40, 38, a.size).astype(np.float32)
    a[:6] = [np.nan, np.inf, -np.inf, 3.4e38, -0.0, 1e-45]
    ours = round_bfloat16(a)
    theirs = real_torch.tensor(a).bfloat16().float().numpy()
    nan = np.isnan(theirs)  # (a NaN's sign and payload bits are not observable here)
    assert np.array_equal(np.isnan(ours), nan)
    np.testing.assert_array_equal(ours[~nan].view(np.uint32), theirs[~nan].view(np.uint32))


def test_rounding_ties_to_even():
    # 1 + 2^-8 lies halfway between bfloat16 neighbours 1 and 1 + 2^-7: even wins (1);
    # 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: even wins (1 + 2^-6)
    a = np.array([1 + 2**-8, 1 + 3 * 2**-8], np.float32)
    assert round_bfloat16(a).tolist() == [1.0, 1 + 2**-6]


PROGRAM = """
bf = torch.bfloat16
x = torch.tensor([1.1, 2.2, 3.3], dtype=bf)
print(x, x.dtype, x.element_size(), x.is_floating_point(), bf)
print(torch.tensor([1.1, 2.2], dtype=bf, requires_grad=True) * 2)
y = torch.tensor([[0.1, 100.7, -3.14159], [1e-3, 12345.678, 7.0]]).to(bf)
print(y, y.sum(), y.mean(), y * 3, y + 1, y / 3, y @ y.t())
print(y.float(), y.double(), y.half(), y.to(torch.float32).dtype)
print(torch.ones(2, 3, dtype=bf), torch.zeros(2, dtype=bf), torch.arange(5, dtype=bf) / 7)
print(x + torch.tensor([1.0, 2.0, 3.0]), (x + torch.tensor([1.0], dtype=torch.float16)).dtype)
print((x + 1).dtype, (x * 2.5).dtype, torch.tensor([1, 2]).to(bf) + 0.001)
w = torch.tensor([0.5, -1.25, 3.0], dtype=bf, requires_grad=True)
loss = (w * w * 1.1).sum()
loss.backward()
print(loss, w.grad, w.grad.dtype)
z = x.clone()
z.add_(0.01)
print(z)
z.mul_(1.7)
print(z)
z.fill_(0.1)
print(z)
z.copy_(torch.tensor([1.01, 2.02, 3.03]))
print(z)
print(torch.tensor(1.7, dtype=bf).item(), x.tolist(), x.type())
print(x.exp(), x.sigmoid(), torch.relu(x - 2), x.max(), x.argmax())
print(torch.tensor([[1e10, 1e-10]], dtype=bf), torch.linspace(0, 1, 5, dtype=bf))
try:
    x.numpy()
except TypeError as e:
    print(e)
"""


def test_bfloat16_program_prints_as_pytorch(real_torch):
    assert printed(PROGRAM, gtorch) == printed(PROGRAM, real_torch)


def test_every_write_rounds():
    t = gtorch.zeros(3, dtype=gtorch.bfloat16)
    for write in (
        lambda: t.fill_(0.1),
        lambda: t.copy_(gtorch.tensor([1.01, 2.02, 3.03])),
        lambda: t.add_(0.013),
        lambda: t.mul_(gtorch.tensor([1.7, 1.9, 2.1])),
    ):
        write()
        data = t._data
        assert np.array_equal(data, round_bfloat16(data)), write
    assert t.dtype is bfloat16 and t._data.dtype == np.float32


OPTIMISER = """
p = torch.nn.Parameter(torch.tensor([1.0, 2.0, -0.7], dtype=torch.bfloat16))
opt = torch.optim.SGD([p], lr=0.0123, momentum=0.9)
for _ in range(3):
    opt.zero_grad()
    (p * p).sum().backward()
    opt.step()
print(p, p.grad)
x = torch.tensor([1.1, 2.2, 3.3], dtype=torch.bfloat16)
x[0] = 0.123
x[1:] += 0.01
print(x, x.masked_fill(x > 2, 0.777))
y = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.bfloat16)
y[:, 0].add_(0.1)
y.t()[0].mul_(1.01)
y.view(4)[3:].sub_(0.3)
print(y)
print(torch.nn.functional.conv2d(torch.ones(1, 1, 3, 3, dtype=torch.bfloat16) * 1.01,
                                 torch.ones(1, 1, 2, 2, dtype=torch.bfloat16) * 0.33))
"""


def test_bfloat16_optimiser_steps_and_item_writes(real_torch):
    assert printed(OPTIMISER, gtorch) == printed(OPTIMISER, real_torch)


def test_random_numbers_and_byte_views_are_refused():
    import pytest

    with pytest.raises(NotImplementedError, match="random numbers in bfloat16"):
        gtorch.randn(3, dtype=gtorch.bfloat16)
    with pytest.raises(NotImplementedError, match="random numbers in bfloat16"):
        gtorch.nn.init.uniform_(gtorch.empty(2, dtype=gtorch.bfloat16))
    with pytest.raises(NotImplementedError, match="view"):
        gtorch.ones(2, dtype=gtorch.bfloat16).view(gtorch.int16)
