"""torch.autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp) against PyTorch, on
the small functions a lesson about higher-order gradients uses."""

from __future__ import annotations

import numpy as np
import pytest

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")


def _same(ours, theirs):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            _same(a, b)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert ours.requires_grad == theirs.requires_grad


X = np.array([1.0, -2.0, 0.5], np.float32)
M = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32)

FUNCS = [
    (lambda t: lambda a: a**2, (X,)),
    (lambda t: lambda a: (a**3).sum(), (X,)),
    (lambda t: lambda a: a.exp() * a.sin(), (X,)),
    (lambda t: lambda a: a @ a, (M,)),
    (lambda t: lambda a, b: a * b, (X, X[::-1].copy())),
    (lambda t: lambda a, b: (a.sum(), (a * b).tanh()), (X, X * 2)),
    (lambda t: lambda a: (a, a * 2), (X,)),
    (lambda t: lambda a, b: a.sum() * 0 + b.sum(), (X, X)),
    (lambda t: lambda a: t.ones(2), (X,)),
]


def _inputs(lib, arrays):
    ins = tuple(lib.tensor(a) for a in arrays)
    return ins if len(ins) > 1 else ins[0]


@pytest.mark.parametrize("k", range(len(FUNCS)))
@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian(k, create_graph):
    make, arrays = FUNCS[k]
    ours = gtorch.autograd.functional.jacobian(
        make(gtorch), _inputs(gtorch, arrays), create_graph=create_graph
    )
    theirs = torch.autograd.functional.jacobian(
        make(torch), _inputs(torch, arrays), create_graph=create_graph
    )
    _same(ours, theirs)


SCALAR = [
    (lambda t: lambda a: (a**3).sum(), (X,)),
    (lambda t: lambda a: (a.sin() * a).sum(), (X,)),
    (lambda t: lambda a, b: (a**2 * b).sum(), (X, X * 3)),
    (
        lambda t: lambda a: (a @ a).trace() if hasattr(a, "trace") else (a @ a).diagonal().sum(),
        (M,),
    ),
]


@pytest.mark.parametrize("k", range(len(SCALAR)))
def test_hessian_and_products(k):
    make, arrays = SCALAR[k]
    _same(
        gtorch.autograd.functional.hessian(make(gtorch), _inputs(gtorch, arrays)),
        torch.autograd.functional.hessian(make(torch), _inputs(torch, arrays)),
    )
    vs = tuple(np.linspace(0.5, 1.5, a.size).reshape(a.shape).astype(np.float32) for a in arrays)
    for name in ("vhp", "hvp", "vjp"):
        ours = getattr(gtorch.autograd.functional, name)(
            make(gtorch), _inputs(gtorch, arrays), _inputs(gtorch, vs) if name != "vjp" else None
        )
        theirs = getattr(torch.autograd.functional, name)(
            make(torch), _inputs(torch, arrays), _inputs(torch, vs) if name != "vjp" else None
        )
        _same(ours, theirs)


def test_jvp():
    f = lambda lib: lambda a, b: (a * b).exp()  # noqa: E731
    v = (np.ones(3, np.float32), np.full(3, 2.0, np.float32))
    _same(
        gtorch.autograd.functional.jvp(f(gtorch), _inputs(gtorch, (X, X)), _inputs(gtorch, v)),
        torch.autograd.functional.jvp(f(torch), _inputs(torch, (X, X)), _inputs(torch, v)),
    )


def test_import_forms():
    import gradshell.torch.autograd.functional as functional
    from gradshell.torch.autograd.functional import hessian, jacobian

    assert functional.jacobian is jacobian and gtorch.autograd.functional.hessian is hessian
    from gradshell.torch.autograd import Variable, backward, grad

    assert callable(backward) and callable(grad) and Variable is not None


def test_strict_and_bad_hessian_output():
    def theirs_err(fn, *a, **k):
        with pytest.raises(RuntimeError) as e:
            fn(*a, **k)
        return str(e.value)

    msgs = []
    for lib in (gtorch, torch):
        x = lib.tensor(X)
        msgs.append(
            (
                theirs_err(
                    lib.autograd.functional.jacobian, lambda a, lib=lib: lib.ones(2), x, strict=True
                ),
                theirs_err(
                    lib.autograd.functional.jacobian,
                    lambda a, b: a * 2,
                    (x, x),
                    strict=True,
                ),
            )
        )
    assert msgs[0] == msgs[1]
    ours = theirs_err(gtorch.autograd.functional.hessian, lambda a: a * 2, gtorch.tensor(X))
    theirs = theirs_err(torch.autograd.functional.hessian, lambda a: a * 2, torch.tensor(X))
    assert ours == theirs
