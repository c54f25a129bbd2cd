"""The API and messages issue 27 found missing or worded otherwise than PyTorch 2.13:
`volatile`, the deprecated `nn.init` names, `Tensor.resize_`, `set_grad_enabled`'s repr,
an inference tensor's `_version`, integer `.data` under a tensor that requires grad,
the legacy `Variable(..., requires_grad=True)` and `to(requires_grad=True)` errors, and
`torch.autograd.functional` as a module. Each is compared with PyTorch (recorded)."""

from __future__ import annotations

import warnings

import pytest

from gradshell import torch as gtorch


def _outcome(fn):
    """What `fn()` gives: its value's repr, or its error; and the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = repr(fn())
        except Exception as exc:  # noqa: BLE001 - the error is the answer compared
            value = f"{type(exc).__name__}: {exc}"
    return value, [f"{w.category.__name__}: {w.message}" for w in caught]


CASES = {
    "set_grad_enabled_repr": lambda t: t.set_grad_enabled(True),
    "set_grad_enabled_false_repr": lambda t: (t.set_grad_enabled(False), t.set_grad_enabled(True))[
        0
    ],
    "volatile_read": lambda t: t.autograd.Variable(t.ones(2), volatile=True).volatile,
    "volatile_write": lambda t: setattr(t.ones(1), "volatile", True),
    "inference_version": lambda t: _in_inference(t)._version,
    "int_data_under_grad": lambda t: setattr(
        t.nn.Embedding(4, 5).weight, "data", t.arange(0, 20).view(4, 5)
    ),
    "float_data_under_grad": lambda t: _set_data(t.nn.Linear(2, 2).weight, t.zeros(2, 2)),
    "variable_int_requires_grad": lambda t: t.autograd.Variable(
        t.arange(-2, 4), requires_grad=True
    ),
    "requires_grad_int": lambda t: t.arange(-2, 4).requires_grad_(),
    "to_requires_grad": lambda t: t.ones(2).to(requires_grad=True),
    "to_dtype_and_unknown": lambda t: t.ones(2).to(t.float64, "cpu", foo=None),
    "resize_shrink_grow": lambda t: _resized(t, (2,), (6,)),
    "resize_view": lambda t: _resized(t, (2, 2), None, view=True),
    "resize_requires_grad": lambda t: t.ones(2, requires_grad=True).resize_(3),
    "resize_negative": lambda t: t.ones(2).resize_(-1),
    "index_shapes_mismatch": lambda t: t.ones(5, 5)[t.tensor([0, 1]), t.tensor([0, 1, 2])],
    "index_shapes_mismatch_2d": lambda t: t.ones(5, 5, 5)[
        t.tensor([[0], [1]]), t.tensor([0, 1, 2]), t.tensor([[1, 2]])
    ],
}

INITS = ["uniform", "normal", "xavier_uniform", "xavier_normal", "kaiming_uniform"]
INITS += ["kaiming_normal", "eye"]


def _in_inference(t):
    with t.inference_mode():
        return t.ones(2)


def _set_data(p, value):
    p.data = value
    return p.data


def _resized(t, first, second, view=False):
    x = t.arange(6.0)
    if view:
        x = x[2:]
    x.resize_(*first)
    out = [x.tolist()]
    if second is not None:
        x.resize_(*second)
        out.append(x.tolist())
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(real_torch, name):
    assert _outcome(lambda: CASES[name](gtorch)) == _outcome(lambda: CASES[name](real_torch))


@pytest.mark.parametrize("name", INITS)
def test_deprecated_init_names_warn_and_work(real_torch, name):
    def run(t):
        t.manual_seed(0)
        w = t.empty(3, 3)
        getattr(t.nn.init, name)(w)
        return w.tolist()

    assert _outcome(lambda: run(gtorch)) == _outcome(lambda: run(real_torch))


def test_constant_and_unsupported_inits(real_torch):
    def run(t):
        w = t.empty(2, 2)
        t.nn.init.constant(w, 0.5)
        return w.tolist()

    assert _outcome(lambda: run(gtorch)) == _outcome(lambda: run(real_torch))
    with pytest.raises(NotImplementedError, match="does not support torch.nn.init.dirac"):
        gtorch.nn.init.dirac(gtorch.empty(2, 2, 3))


def test_autograd_functional_prints_under_its_public_name():
    """`print(torch.autograd.functional)` names the module as PyTorch does (PyTorch also
    shows its install path, which no recording can hold for every machine)."""
    from gradshell import torch as gtorch

    assert str(gtorch.autograd.functional).split()[1] == "'torch.autograd.functional'"
