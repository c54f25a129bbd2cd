"""Tensor.storage(), Tensor.untyped_storage() and data_ptr against PyTorch: views share
their base's storage (same data_ptr, same size), fresh results own theirs, storages print
as PyTorch prints them (with its once-only TypedStorage deprecation warning), index and
write through to every tensor that shares them."""

from __future__ import annotations

import warnings
from pathlib import Path

from support.tutorials import printed, run_in_gradshell, run_in_pytorch

from gradshell import torch as gtorch

SHARING = """
a = torch.arange(6.)
print(a.storage().data_ptr() == a[1:].storage().data_ptr(), a.untyped_storage().nbytes())
print(a[2:].untyped_storage().nbytes(), a[2:].storage_offset(), a[::2].storage().size())
print(a.untyped_storage().data_ptr() == a.data_ptr(), a[3:].data_ptr() - a.data_ptr())
b = a.view(2, 3)
views = [b, b.t(), b[1], b[:, 1:], a.reshape(3, 2), b.unsqueeze(0), b.flatten(), a.expand(2, 6),
         b.transpose(0, 1), b.narrow(1, 1, 2), b.select(0, 1), a.unflatten(0, (3, 2)), b.T, a.detach(),
         b.squeeze()]
print([v.untyped_storage().data_ptr() == a.untyped_storage().data_ptr() for v in views])
fresh = [a + 1, a * a, a.clone(), b.t().contiguous(), b.t().reshape(6), a.sum(), b @ b.t(),
         torch.cat([a, a]), a[a > 2], a[[0, 2]], torch.zeros(4), a.double(), torch.stack([a, a]),
         b.mean(0), a.exp(), torch.ones(2, 3).t().flatten(), b.sum(1, keepdim=True),
         torch.nn.functional.relu(a), a.abs(), a.flip(0), torch.where(a > 2, a, -a)]
print([v.untyped_storage().data_ptr() == a.untyped_storage().data_ptr() for v in fresh])
print([v.untyped_storage().nbytes() for v in views + fresh])
print([v.storage().size() for v in fresh])
m = torch.nn.Linear(3, 2)
print(m.weight.untyped_storage().nbytes(), m(torch.ones(4, 3)).untyped_storage().nbytes())
x = torch.ones(4, 3, requires_grad=True)
(x * 2).sum().backward()
print(x.grad.untyped_storage().nbytes(), x.grad.storage().tolist()[:3])
"""


def test_views_share_and_results_own_their_storage(real_torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = printed(SHARING, gtorch)
        assert ours == printed(SHARING, real_torch)
    assert "Error" not in ours


PRINTING = """
a = torch.arange(6.)
s = a.storage()
print(s)
print(repr(s), type(s), type(a.untyped_storage()))
print(len(s), s.size(), s.dtype, s.device, s.nbytes(), s.element_size(), s.type(), s.is_cuda)
u = a.untyped_storage()
print(u)
print(len(u), u.nbytes(), u.device, u[4:8], u[7], u.tolist()[:8], list(u)[-1])
print(torch.tensor([1, 2], dtype=torch.int32).storage())
print(torch.tensor([True, False]).storage(), torch.empty(0).storage())
print(torch.tensor([[1, 2], [3, 4]]).t().storage().tolist(), s[0], s[-1])
s[0] = 5.0
u[4] = 0
print(a, a[1:].storage().tolist())
for bad in [lambda: s[6], lambda: s['x'], lambda: s[1:3], lambda: u[24],
            lambda: s.__setitem__(0, 'a')]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
print(s.untyped().nbytes(), s.is_shared(), [v for v in s][:2])
"""


def test_storages_print_and_write_as_pytorch(real_torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = printed(PRINTING, gtorch)
        assert ours == printed(PRINTING, real_torch)
    assert "TypedStorage(dtype=torch.float32, device=cpu) of size 6]" in ours


def _split(text: str) -> tuple[list[str], list[str]]:
    """(the printed lines, the warning lines with the source line each quotes): PyTorch's
    run prints its warnings after its output, the shell where they happen."""
    body: list[str] = []
    warned: list[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if ": UserWarning: " in line:
            warned.append(line)
        elif line.startswith("  ") and i and ": UserWarning: " in lines[i - 1]:
            warned.append(line)
        else:
            body.append(line)
    return body, warned


def test_the_deprecation_warning_is_pytorchs_given_once(real_torch):
    script = Path(__file__).parent / "tutorials" / "storage_sharing.py"
    expected = run_in_pytorch(script)
    assert expected.count("TypedStorage is deprecated") == 1
    assert _split(run_in_gradshell(script)) == _split(expected)
