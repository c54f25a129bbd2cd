"""torch.nn.init: after the same seed, gradshell fills tensors with exactly PyTorch's values
(uniform_, normal_, xavier_*, kaiming_*, and Linear's own initialisation); constant fills;
calculate_gain and fan computation with PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")


def seeded(seed: int) -> None:
    torch.manual_seed(seed)
    gtorch.manual_seed(seed)


FILLS = [
    ("uniform_", {}),
    ("uniform_", {"a": -2.0, "b": 0.5}),
    ("normal_", {}),
    ("normal_", {"mean": 1.0, "std": 0.1}),
    ("xavier_uniform_", {}),
    ("xavier_uniform_", {"gain": 2.0}),
    ("xavier_normal_", {}),
    ("kaiming_uniform_", {}),
    ("kaiming_uniform_", {"a": 5**0.5}),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", {}),
    ("constant_", {"val": 0.3}),
    ("zeros_", {}),
    ("ones_", {}),
    ("eye_", {}),
]


@pytest.mark.parametrize("name,kwargs", FILLS, ids=[f"{n}{k}" for n, k in FILLS])
@pytest.mark.parametrize("shape", [(3, 4), (20, 7)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fills_match_pytorch_bit_for_bit(name, kwargs, shape, dtype):
    seeded(11)
    t = torch.empty(shape, dtype=getattr(torch, dtype))
    getattr(torch.nn.init, name)(t, **kwargs)
    g = gtorch.empty(shape, dtype=getattr(gtorch, dtype))
    out = getattr(gtorch.nn.init, name)(g, **kwargs)
    assert out is g
    np.testing.assert_array_equal(g.numpy(), t.numpy())


def test_fills_on_parameters_do_not_record_graph():
    p = gtorch.nn.Parameter(gtorch.empty(3, 3))
    gtorch.nn.init.kaiming_uniform_(p)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


@pytest.mark.parametrize("layers", [[(1, 1)], [(2, 16), (16, 2)], [(784, 256), (256, 10)]])
def test_linear_initialisation_matches_pytorch(layers):
    seeded(0)
    theirs = [torch.nn.Linear(i, o) for i, o in layers]
    seeded(0)
    ours = [gtorch.nn.Linear(i, o) for i, o in layers]
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
        np.testing.assert_array_equal(a.bias.detach().numpy(), b.bias.detach().numpy())


@pytest.mark.parametrize(
    "args",
    [
        ("linear",),
        ("sigmoid",),
        ("tanh",),
        ("relu",),
        ("leaky_relu",),
        ("leaky_relu", 0.2),
        ("selu",),
        ("conv2d",),
    ],
)
def test_calculate_gain(args):
    assert gtorch.nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nn.init.calculate_gain("foo"),
        lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)),
        lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 3), mode="fan_up"),
        lambda lib: lib.nn.init.eye_(lib.empty(3)),
    ],
)
def test_errors(call):
    msgs = []
    for lib in (gtorch, torch):
        with pytest.raises(Exception) as e:
            call(lib)
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]


def test_generator_argument():
    g, t = gtorch.Generator().manual_seed(4), torch.Generator().manual_seed(4)
    a, b = gtorch.empty(5, 5), torch.empty(5, 5)
    gtorch.nn.init.normal_(a, generator=g)
    torch.nn.init.normal_(b, generator=t)
    gtorch.nn.init.uniform_(a[0], generator=g)
    torch.nn.init.uniform_(b[0], generator=t)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
