"""Generated programs over the op library of issue 6: hypothesis chains several ops (each
keeps the tensor's shape), and gradshell must agree with PyTorch on every intermediate
graph node at the end of the chain, on the values, the gradients and a second backward."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support.op_checks import check

torch = pytest.importorskip("torch")

# Each step maps a (rows, cols) float tensor to another of the same shape.
STEPS = {
    "erf": lambda t, x: x.erf(),
    "sinh": lambda t, x: (x / 3).sinh(),
    "atan": lambda t, x: x.atan(),
    "softplus": lambda t, x: t.nn.functional.softplus(x),
    "clamp": lambda t, x: x.clamp(-1.0, 1.0),
    "clamp_t": lambda t, x: x.clamp(min=x.flip(0) * 0.5),
    "lerp": lambda t, x: t.lerp(x, x.flip(-1), 0.3),
    "maximum": lambda t, x: t.maximum(x, x.roll(1, -1)),
    "addcmul": lambda t, x: t.addcmul(x, x, x.flip(0), value=0.5),
    "atan2": lambda t, x: t.atan2(x, x.flip(0).abs() + 1),
    "cumsum": lambda t, x: x.cumsum(-1) / 4,
    "cumprod": lambda t, x: (x.tanh() * 0.9 + 1).cumprod(0),
    "lse": lambda t, x: x - x.logsumexp(-1, keepdim=True),
    "softmax": lambda t, x: t.nn.functional.softmax(x, -1),
    "log_softmax": lambda t, x: t.nn.functional.log_softmax(x, 0),
    "amax": lambda t, x: x - x.amax(-1, keepdim=True),
    "max_dim": lambda t, x: x * x.max(0, keepdim=True)[0],
    "std": lambda t, x: x / (x.std() + 1),
    "var": lambda t, x: x + x.var(0, keepdim=True),
    "prod": lambda t, x: x * (x.tanh() + 2).prod(-1, keepdim=True),
    "flip": lambda t, x: x.flip(0, 1),
    "roll": lambda t, x: x.roll(1, 0),
    "tril": lambda t, x: x.tril() + x.triu(1) * 0.5,
    "repeat": lambda t, x: x.repeat(1, 2)[:, : x.shape[1]],
    "cat": lambda t, x: t.cat([x, x * 2], 0)[1 : x.shape[0] + 1],
    "stack": lambda t, x: t.stack([x, -x], 0).sum(0) + x,
    "split": lambda t, x: t.cat(list(x.split(1, 1))[::-1], 1),
    "masked_fill": lambda t, x: x.masked_fill(x > 0.5, 0.5),
    "gather": lambda t, x: x.gather(1, t.zeros(x.shape, dtype=t.long)),
    "index_select": lambda t, x: x.index_select(0, t.arange(x.shape[0]).flip(0)),
    "adv_index": lambda t, x: x[t.arange(x.shape[0]).roll(1)],
    "einsum": lambda t, x: t.einsum("ij,kj->ik", x, x)[:, :1] * x,
    "leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x, 0.2),
    "gelu": lambda t, x: t.nn.functional.gelu(x),
    "elu": lambda t, x: t.nn.functional.elu(x),
    "silu": lambda t, x: t.nn.functional.silu(x),
    "linear": lambda t, x: t.nn.functional.linear(
        x, t.eye(x.shape[1], dtype=x.dtype) * 0.5, t.ones(x.shape[1], dtype=x.dtype)
    ),
}

ENDS = {
    "none": lambda t, x: x,
    "sum": lambda t, x: x.sum(),
    "mse": lambda t, x: t.nn.functional.mse_loss(x, t.zeros(x.shape, dtype=x.dtype)),
    "ce": lambda t, x: t.nn.functional.cross_entropy(x, t.zeros(x.shape[0], dtype=t.long)),
    "norm": lambda t, x: x.norm(),
}


def _program(names, end):
    def run(t, x):
        for n in names:
            x = STEPS[n](t, x)
        return ENDS[end](t, x)

    return run


@settings(max_examples=80, deadline=None)
@given(
    x=hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 4), st.integers(1, 4)),
        elements=st.floats(-2, 2, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-3),
    ),
    names=st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=4),
    end=st.sampled_from(sorted(ENDS)),
)
def test_generated_programs_match_pytorch(x, names, end):
    check(_program(names, end), x, rtol=1e-7, atol=1e-9, grad_rtol=1e-6, grad_atol=1e-8)
