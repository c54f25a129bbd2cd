"""0-d results (an element picked by indexing, a full reduction, a dot product) are
tensors like any other: backward through them, arithmetic with them, in-place updates of
them and of the element they came from agree with PyTorch in every dtype.

NumPy returns scalars (np.float64, ...) rather than 0-d arrays for such results; a
tensor holding one once broke backward with 'found at least two devices, cpu and cpu!'
and `t[i] += 1` with 'return arrays must be of ArrayType'."""

import pytest
from support.differential import compare

DTYPES = ["torch.float64", "torch.float32", "torch.int64", "torch.int32"]
FLOATS = DTYPES[:2]

# Ops whose result is a 0-d tensor, on a 2x3 tensor `x`.
ZERO_DIM = [
    "x[0, 1]",
    "x[1][2]",
    "x[-1, -1]",
    "x.sum()",
    "x.max()",
    "x.min()",
    "x.prod()",
    "x[0].dot(x[1])",
    "x.flatten()[3]",
    "x.amax()",
    "x.sum(dim=(0, 1))",
    "x.reshape(-1).max(0)[0]",
]
FLOAT_ZERO_DIM = ["x.mean()", "x.norm()", "x.std()", "x.var()", "x.logsumexp(dim=(0, 1))"]

# What a learner then does with the 0-d result `r`.
FOLLOW_UP = [
    "y = r + x",
    "y = r * r - 1",
    "y = x / r",
    "y = torch.stack([r, r])",
    "y = r.view(1)",
    "y = r.unsqueeze(0).expand(3)",
    "y = r.clone(); y += 1",
    "y = r.clone(); y.mul_(3)",
    "y = torch.where(x > r, x, r)",
    "y = r.item()",
]
FLOAT_FOLLOW_UP = [
    "y = r.log()",
    "y = r.exp().sqrt()",
    "y = r.abs().pow(0.5)",
    "y = torch.sigmoid(r) * x",
]


def _source(dtype: str, op: str, follow: str, grad: bool) -> str:
    lines = [f"x = torch.linspace(1., 4., 6, dtype=torch.float64).reshape(2, 3).to({dtype})"]
    if grad:
        lines.append("x.requires_grad_()")
    lines += [f"r = {op}", follow]
    if grad and "item" not in follow:
        lines.append("y.sum().backward()")
    return "\n".join(lines)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ZERO_DIM)
@pytest.mark.parametrize("follow", FOLLOW_UP)
def test_zero_dim_results_any_dtype(real_torch, dtype, op, follow):
    compare(_source(dtype, op, follow, grad=False), real_torch)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ZERO_DIM + FLOAT_ZERO_DIM)
@pytest.mark.parametrize("follow", FOLLOW_UP + FLOAT_FOLLOW_UP)
def test_zero_dim_results_backward(real_torch, dtype, op, follow):
    compare(_source(dtype, op, follow, grad=True), real_torch)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "update",
    [
        "x[1] += 1",
        "x[0, 2] += 1",
        "x[1, 1] *= 3",
        "x[-1, 0] -= 2",
        "x[0][1] += 5",
        "x[1, 2] = x[0, 0] + 7",
        "x[0, 0].add_(2)",
        "x[0, 0].zero_()",
    ],
)
def test_element_updates_in_place(real_torch, dtype, update):
    compare(
        f"x = torch.arange(6).reshape(2, 3).to({dtype})\nv = x[0, 0]\n{update}\ny = x.clone()",
        real_torch,
    )


@pytest.mark.parametrize("dtype", FLOATS)
def test_backward_after_indexing_float_leaf(real_torch, dtype):
    # The program from the issue, and its multi-step relatives.
    compare(
        f"x = torch.linspace(1., 4., 3, dtype={dtype}, requires_grad=True)\n"
        "x[0].log().sum().backward()\n"
        "g1 = x.grad.clone()\n"
        "(x[1] * x[2] + x[0].exp()).backward()\n"
        "g2 = x.grad.clone()\n"
        "gs = torch.autograd.grad(x.sum() * x[2], x, create_graph=True)",
        real_torch,
    )
