"""In-place ops on views, against PyTorch: the base's history becomes CopySlices, the
views' becomes AsStridedBackward0, gradients (first and second order) flow through the
view's elements, and the errors for views that may not be written into."""

import numpy as np
import pytest
from support.differential import compare
from support.op_checks import check, gradcheck, gradgradcheck

from gradshell import torch as gtorch

A = np.arange(12, dtype=np.float32).reshape(3, 4) / 7 - 0.6
W = np.array([0.5, -1.5, 2.0, 0.25], dtype=np.float32)

# Each view kind, written into with mul_ by a tensor that requires grad.
VIEWS = {
    "int": lambda b: b[1],
    "column": lambda b: b[:, 0],
    "slice": lambda b: b[1:3],
    "step": lambda b: b[:, ::2],
    "view": lambda b: b.view(-1),
    "reshape": lambda b: b.reshape(12),
    "transpose": lambda b: b.transpose(0, 1),
    "T": lambda b: b.T,
    "unsqueeze": lambda b: b.unsqueeze(0),
    "narrow": lambda b: b.narrow(1, 1, 2),
    "select": lambda b: b.select(1, 2),
    "diagonal": lambda b: b.diagonal(),
    "chained": lambda b: b[1][0:2],
    "chained2": lambda b: b[1:3][:, 1],
    "squeeze": lambda b: b[0:1].squeeze(0),
    "permute": lambda b: b.permute(1, 0),
    "flatten": lambda b: b.flatten(),
    "ellipsis": lambda b: b[...],
    "none": lambda b: b[None],
    "unflatten": lambda b: b.unflatten(1, (2, 2)),
}


@pytest.mark.parametrize("kind", sorted(VIEWS))
def test_mul_into_each_view_kind(kind):
    make = VIEWS[kind]

    def fn(torch, x, w):
        b = x * 1
        v = make(b)
        other = w[: v.shape[-1]] if v.dim() and v.shape[-1] <= 4 else w[0]
        v.mul_(other)
        return b, v

    check(fn, A, W)


INPLACE = {
    "add_": lambda v, w: v.add_(w, alpha=2),
    "sub_": lambda v, w: v.sub_(w),
    "div_": lambda v, w: v.div_(w),
    "exp_": lambda v, w: v.exp_(),
    "tanh_": lambda v, w: v.tanh_(),
    "clamp_": lambda v, w: v.clamp_(-0.3, 0.3),
    "zero_": lambda v, w: v.zero_(),
    "fill_": lambda v, w: v.fill_(2.5),
    "fill_tensor": lambda v, w: v.fill_(w[0]),
    "copy_": lambda v, w: v.copy_(w),
    "setitem": lambda v, w: v.__setitem__(slice(1, 3), w[:2]),
    "setitem_number": lambda v, w: v.__setitem__(0, 3.0),
    "setitem_advanced": lambda v, w: v.__setitem__([0, 2], w[1:3]),
    "pow_": lambda v, w: v.pow_(2),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_each_inplace_op_on_a_view(name):
    op = INPLACE[name]

    def fn(torch, x, w):
        b = x * 1
        v = b[1]
        op(v, w)
        return b * b, v

    check(fn, A, W)


def test_views_made_before_the_write_get_a_new_history():
    def fn(torch, x, w):
        b = x * 2
        before = b[0]
        col = b[:, 1]
        b[1:].mul_(w)
        return b, before, col, before * 3

    check(fn, A, W)


def test_plain_base_written_with_an_operand_that_requires_grad():
    def fn(torch, w):
        d = torch.zeros(3, 4)
        earlier = d[2]
        d[1] += w * 2
        d[:, 0].mul_(w[:1])
        return d, earlier

    check(fn, W)


def test_a_view_of_a_non_leaf_written_in_place():
    def fn(torch, x):
        y = x * 3
        v = y.view(-1)
        v.add_(1)
        return y, v

    check(fn, A)


def test_base_written_in_place_regenerates_views():
    def fn(torch, x):
        b = x.exp()
        v = b[1:]
        b.mul_(2)
        return b, v, v * 2

    check(fn, A)


def test_two_writes_through_overlapping_views():
    def fn(torch, x, w):
        b = x * 1
        top = b[:2]
        top.mul_(w)
        bottom = b[1:]
        bottom.exp_()  # last: it saves its result, which a later write would change
        return b, top, bottom

    check(fn, A, W)


def test_gradient_by_finite_differences():
    x = gtorch.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    w = gtorch.tensor([0.3, -0.7, 1.1, 0.9], dtype=gtorch.float64, requires_grad=True)

    def fn(x, w):
        b = x * 1
        b.T[0].add_(w[:3] * w[1:])
        b[1].mul_(w)
        b[:, 2:].exp_()  # last: it saves its result, which a later write would change
        return b * b

    assert gradcheck(fn, x, w)
    assert gradgradcheck(fn, x, w)


def test_create_graph_through_copyslices_matches_pytorch():
    def fn(torch, x, w):
        b = x * 1
        b[1].mul_(w)
        (g,) = torch.autograd.grad((b * b).sum(), x, create_graph=True)
        return (g,)

    check(fn, A, W)


def test_create_graph_through_a_regenerated_view_matches_pytorch():
    def fn(torch, x):
        b = x * 1
        v = b[1:]
        b.mul_(2)
        (g,) = torch.autograd.grad((v * v).sum(), b, create_graph=True)
        return g, v

    check(fn, A)


@pytest.mark.parametrize("keep", [False, True])
def test_create_graph_through_a_saved_output_of_a_view(keep):
    def fn(torch, x):
        b = x * 1
        v = b[:, 2:]
        v.exp_()
        if not keep:
            del v  # PyTorch unpacks the saved output with exp_'s node once the view is gone
        (g,) = torch.autograd.grad((b * b).sum(), x, create_graph=True)
        return (g,)

    check(fn, A)


PROGRAMS = [
    # the base prints with CopySlices; the view with AsStridedBackward0
    "w = torch.ones(2, requires_grad=True)\nd = torch.zeros(3, 2)\nd[1] += w * 2\n"
    "s = str(d)\nv = d[1]\nt = str(d[0])\nd.sum().backward()\ng = w.grad\n"
    "nf = [type(f).__name__ for f, _ in d.grad_fn.next_functions]",
    "x = torch.arange(6.).requires_grad_()\nb = x * 1\nv = b[1:4]\nv.mul_(2)\n"
    "r = (b.grad_fn.name(), type(v.grad_fn).__name__, v.is_leaf, v.requires_grad)\n"
    "n = [type(f).__name__ if f is not None else None for f, _ in b.grad_fn.next_functions]",
    # the errors
    "x = torch.ones(3, 2, requires_grad=True)\nx[0].mul_(2)",
    "x = torch.ones(3, 2, requires_grad=True)\nx[0] = 1.",
    "x = torch.ones(3, 2, requires_grad=True)\nx.view(-1).zero_()",
    "x = torch.ones(3, 2, requires_grad=True)\nx[1].fill_(2)",
    "x = torch.ones(3, 2, requires_grad=True)\nx[1].copy_(torch.ones(2))",
    "a = torch.linspace(0.5, 2.5, 1).reshape(())\na.requires_grad_()\na.mul_(2)",
    "a = torch.zeros(4)[1:]\na.requires_grad_()\nb = a[0:2]\nb.mul_(2)",
    "x = torch.ones(3, 2, requires_grad=True)\nwith torch.no_grad():\n    v = x[0]\nv.mul_(2)",
    "x = torch.ones(3, 2, requires_grad=True)\nb = x * 1\nwith torch.no_grad():\n"
    "    v = b[0]\nv.mul_(torch.ones(2, requires_grad=True))",
    "d = torch.zeros(3, 2)\nwith torch.no_grad():\n    v = d[0]\nv.mul_(torch.ones(2, requires_grad=True))",
    "d = torch.zeros(3, 2)\nwith torch.no_grad():\n    v = d[0]\nv.mul_(2)\nr = (v, d)",
    "x = torch.ones(3, 2, requires_grad=True)\nb = x * 1\nwith torch.no_grad():\n"
    "    v = b[0]\n    v.mul_(2)\ns = str(v)\nf = v.grad_fn",
    "x = torch.ones(3, 2, requires_grad=True)\nb = x * 1\nu = b.unbind(0)\nu[0].mul_(2)",
    "x = torch.ones(3, 2, requires_grad=True)\nb = x * 1\nu = b.split(1)\nu[0].mul_(2)",
    "x = torch.ones(3, 2, requires_grad=True)\nb = x * 1\nu = b.chunk(3)\nu[1].add_(1)",
    "x = torch.ones(3, 2, requires_grad=True)\nu = x.unbind(0)\nu[2].mul_(2)",
    "x = torch.ones(3, 2, requires_grad=True)\nb = x * 1\nu = b.unbind(0)\nb.mul_(2)\n"
    "s = str(u[1])\nrg = u[1].requires_grad\nf = u[1].grad_fn",
    "x = torch.ones(3, 2, requires_grad=True)\nb = x * 1\nu = b.unbind(0)\nb.mul_(2)\ny = u[0] * 2",
    "x = torch.ones(3, 2, requires_grad=True)\nb = x * 1\nu = b.unbind(0)\nuu = u[0][1:]\nuu.mul_(2)",
    "d = torch.zeros(3, 2)\nu = d.unbind(0)\nu[0].mul_(torch.ones(2, requires_grad=True))",
    "d = torch.zeros(3, 2)\nu = d.unbind(0)\nu[0].mul_(2)\nr = d",
    "x = torch.ones(3, 2, requires_grad=True)\nb = x * 1\nu = b.unbind(0)\n"
    "with torch.no_grad():\n    u[0].mul_(2)\nf = u[1].grad_fn",
    # a view made in no_grad mode requires grad through its base, but no gradient reaches it
    "x = torch.ones(3, requires_grad=True)\nwith torch.no_grad():\n    v = x[1:]\n    s = str(v)\n"
    "t = str(v)\ny = v * 2\nn = [f for f, _ in y.grad_fn.next_functions]\ny.sum().backward()\n"
    "g = (v.grad, x.grad)",
    "x = torch.ones(3, requires_grad=True)\nb = x * 2\nwith torch.no_grad():\n    u = b[1:]\n"
    "w = u[0:1]\nf = type(w.grad_fn).__name__\nw.mul_(2)",
    "d = torch.zeros(2)\nwith torch.no_grad():\n    e = d[0:1]\ns = str(e)",
    # writing into an expanded tensor
    "x = torch.ones(3, 2, requires_grad=True)\nb = x * 1\ne = b[0:1].expand(3, 2)\ne.mul_(2)",
    "e = torch.zeros(1, 3).expand(2, 3)\ne.add_(1)",
    "e = torch.zeros(1, 3).expand(2, 3)\ne.copy_(torch.ones(2, 3))",
    "z = torch.zeros(1, 3)\ne = z.expand(2, 3)\ne.zero_()\ne.fill_(2)\ne[0] = 3.\nr = (z, e)",
    # saved tensors changed through a view: the version counter is shared
    "y = torch.tensor([1., 2., 3.], requires_grad=True)\nb = y * 1\nz = b * b\nb[1:].mul_(2)\n"
    "z.sum().backward()",
    "y = torch.tensor([1., 2., 3.], requires_grad=True)\nb = y * 1\nv = b[1:]\nz = v * v\n"
    "b.mul_(2)\nz.sum().backward()",
    "y = torch.tensor([1., 2., 3.], requires_grad=True)\nb = y * 1\nv = b[1:]\nz = v * v\n"
    "v.mul_(2)\nz.sum().backward()",
    "y = torch.tensor([1., 2., 3.], requires_grad=True)\nb = y * 1\nb[:2].exp_()\n"
    "b[1:].mul_(3)\nb.sum().backward()",
    "y = torch.tensor([1., 2., 3.], requires_grad=True)\nb = y * 1\nv = b[:2]\nv.exp_()\n"
    "w = b[1:]\nw.mul_(3)\nb.sum().backward()",
    "y = torch.tensor([1., 2., 3.], requires_grad=True)\nb = y * 1\nb.exp_()\nb[0].mul_(2)\n"
    "b.sum().backward()",
    "y = torch.tensor([1., 2., 3.], requires_grad=True)\nb = y.exp()\nz = b.exp()\n"
    "b[1:].mul_(2)\nz.sum().backward()\ng = y.grad",
    # no grad: plain views write through, the version counts
    "d = torch.zeros(3)\nv = d[1:]\nv.add_(1)\nr = (d, v, d._version, v._version)",
    # .grad of a tensor that retains it follows its new history; a view's does not
    "x = torch.linspace(-1, 1, 6).reshape(2, 3).requires_grad_()\nb = x * 2\nb.retain_grad()\n"
    "v = b[0]\nv.retain_grad()\nv.mul_(3)\n(b * b).sum().backward()\nr = (b.grad, v.grad, x.grad)",
    "x = torch.linspace(-1, 1, 6).reshape(2, 3).requires_grad_()\nb = x * 2\nb.retain_grad()\n"
    "b.mul_(3)\n(b * b).sum().backward()\nr = (b.grad, x.grad)",
    # a second backward through CopySlices
    "x = torch.ones(3, requires_grad=True)\nw = torch.ones(2, requires_grad=True)\nb = x * 1\n"
    "b[1:].mul_(w)\nb.sum().backward()\nb.sum().backward()",
    "x = torch.ones(3, requires_grad=True)\nb = x * 1\nb[1:].add_(1)\nb.sum().backward()\n"
    "b.sum().backward()\ng = x.grad",
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_matches_pytorch(real_torch, program):
    compare(program, real_torch)
