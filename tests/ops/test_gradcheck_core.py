"""Finite-difference checks (float64) of every op the core ships with."""

import numpy as np
import pytest
from support.gradcheck import gradcheck

rng = np.random.default_rng(1)
A = rng.uniform(0.5, 2.0, (2, 3))
B = rng.uniform(0.5, 2.0, (2, 3))
V = rng.uniform(0.5, 2.0, (3,))
M = rng.uniform(-1.0, 1.0, (3, 4))
S = np.array(1.7)

UNARY = {
    "neg": lambda x: -x,
    "exp": lambda x: x.exp(),
    "log": lambda x: x.log(),
    "sqrt": lambda x: x.sqrt(),
    "abs": lambda x: (x - 1.2).abs(),
    "sin": lambda x: x.sin(),
    "cos": lambda x: x.cos(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "relu": lambda x: (x - 1.1).relu(),
    "sum": lambda x: x.sum(),
    "sum_dim": lambda x: x.sum(1),
    "sum_keepdim": lambda x: x.sum(0, keepdim=True),
    "mean": lambda x: x.mean(),
    "mean_dim": lambda x: x.mean(-1),
    "norm": lambda x: x.norm(),
    "norm_dim": lambda x: x.norm(dim=1),
    "pow_scalar": lambda x: x**3,
    "pow_method": lambda x: x.pow(0.5),
    "rpow": lambda x: 2**x,
    "rsub": lambda x: 2 - x,
    "rdiv": lambda x: 2 / x,
    "view": lambda x: x.view(3, 2) * x.view(3, 2),
    "reshape_copy": lambda x: x.t().reshape(6) ** 2,
    "t": lambda x: x.t() ** 2,
    "transpose": lambda x: x.transpose(0, 1).exp(),
    "index_int": lambda x: x[1] ** 2,
    "index_slice": lambda x: x[:, 1:] ** 2,
    "index_step": lambda x: x[:, ::2] * 3,
    "index_adv": lambda x: x[[0, 0, 1]] ** 2,
    "index_mask": lambda x: x[x > 1.0] ** 2,
    "unsqueeze_expand": lambda x: x.unsqueeze(0).expand(4, 2, 3) ** 2,
    "squeeze": lambda x: x.view(1, 2, 3).squeeze() ** 2,
    "permute": lambda x: x.view(1, 2, 3).permute(2, 0, 1) ** 2,
    "flatten": lambda x: x.flatten() ** 2,
    "clone": lambda x: x.clone() ** 2,
    "contiguous": lambda x: x.t().contiguous() ** 2,
}

BINARY = {
    "add": lambda a, b: a + b,
    "add_alpha": lambda a, b: a.add(b, alpha=2.5),
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "broadcast_row": lambda a, b: a * b[0],
    "broadcast_col": lambda a, b: a + b[:, :1],
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    gradcheck(UNARY[name], A)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    gradcheck(BINARY[name], A, B)


def test_matmul_forms():
    gradcheck(lambda a, b: a @ b, A, M)
    gradcheck(lambda a, b: a.mm(b), A, M)
    gradcheck(lambda a, v: a.mv(v), A, V)
    gradcheck(lambda v, w: v.dot(w), V, V * 2)
    gradcheck(lambda v, m: v @ m, V, M)
    gradcheck(lambda a, b: a @ b, rng.uniform(-1, 1, (4, 2, 3)), M)
    gradcheck(lambda a, b: a @ b, A, rng.uniform(-1, 1, (4, 3, 2)))
    gradcheck(lambda a, b: a @ b, rng.uniform(-1, 1, (4, 2, 3)), rng.uniform(-1, 1, (4, 3, 5)))


def test_scalar_and_zero_dim():
    gradcheck(lambda s, a: s * a + s, S, A)


def test_inplace_on_non_leaf():
    def f(a, b):
        y = a * 1
        y.mul_(b)
        y.add_(b)
        return y

    gradcheck(f, A, B)


def test_index_assignment():
    def f(a, v):
        y = a * 1
        y[0, 1:] = v[1:] * 2
        return y

    gradcheck(f, A, V)


def test_second_derivative_by_finite_differences():
    from gradshell import torch as gtorch

    def first(x):
        (g,) = gtorch.autograd.grad((x**3).sin().sum(), x, create_graph=True)
        return g

    gradcheck(first, V)
