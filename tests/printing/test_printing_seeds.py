"""The legacy outputs of seeds 000 and 001, with the column spacing legacy-format.md gives
(the blog copies collapsed runs of spaces).

Part one prints the seeds' objects as test doubles (values and autograd flags exactly as
the seeds have them); part two runs the seeds' code on gradshell's own torch.
"""

import io
import re

import numpy as np
import pytest
from printing_doubles import FakeNode, FakeTensor

from gradshell.core import dtypes
from gradshell.printing import node_repr

pytestmark = pytest.mark.usefixtures("legacy")

F32 = dtypes.float32
ADDRESS = r"0x[0-9a-f]+"

Z_2X2 = "Variable containing:\n 27  27\n 27  27\n[torch.FloatTensor of size 2x2]\n"
GRAD_4_5 = (
    "Variable containing:\n 4.5000  4.5000\n 4.5000  4.5000\n[torch.FloatTensor of size 2x2]\n"
)
OUT_27 = "Variable containing:\n 27\n[torch.FloatTensor of size 1]\n"
Y_444 = "Variable containing:\n 4\n 4\n 4\n[torch.FloatTensor of size 3]\n"
GRAD_0_2 = "Variable containing:\n  0.2000\n  2.0000\n 20.0000\n[torch.FloatTensor of size 3]\n"
GRAD_0_4 = "Variable containing:\n  0.4000\n  4.0000\n 40.0000\n[torch.FloatTensor of size 3]\n"
ZEROED_DATA = "\n 0\n 0\n 0\n[torch.FloatTensor of size 3]\n"
ZEROED_GRAD = "Variable containing:\n 0\n 0\n 0\n[torch.FloatTensor of size 3]\n"


def node(legacy_name: str) -> FakeNode:
    return FakeNode("unused", "torch.autograd.function." + legacy_name)


def result(values, legacy_name="MulConstantBackward"):
    return FakeTensor(np.asarray(values, np.float32), F32, grad_fn=node(legacy_name))


def grad(values):
    return FakeTensor(np.asarray(values, np.float32), F32, legacy_variable=True)


def printed(*objects) -> str:
    buf = io.StringIO()
    print(*objects, file=buf)
    return buf.getvalue()


# -- seed 000 (IPython session, 0.2 names) -------------------------------------------------------


def test_seed_000_grad_fn_reprs_in_ipython():
    for name in ("AddConstantBackward", "MulConstantBackward", "MeanBackward"):
        text = node_repr(node(name), ipython=True)
        assert re.fullmatch(rf"<torch\.autograd\.function\.{name} at {ADDRESS}>", text)


def test_seed_000_outputs():
    assert repr(result(np.full((2, 2), 27.0))) == Z_2X2
    assert repr(grad(np.full((2, 2), 4.5))) == GRAD_4_5
    assert repr(result(np.float32(27.0), "MeanBackward")) == OUT_27
    assert repr(result([4.0, 4.0, 4.0])) == Y_444
    g = np.float32([0.1, 1, 10]) * np.float32(2)
    assert repr(grad(g)) == GRAD_0_2
    assert repr(grad(g + g)) == GRAD_0_4
    assert repr(FakeTensor(np.zeros(3, np.float32), F32)) == ZEROED_DATA
    assert repr(grad(np.zeros(3))) == ZEROED_GRAD


# -- seed 001 (print() in a script) --------------------------------------------------------------


def test_seed_001_outputs():
    x = FakeTensor(np.ones((2, 2), np.float32), F32, requires_grad=True)
    assert printed(x) == ("Variable containing:\n 1  1\n 1  1\n[torch.FloatTensor of size 2x2]\n\n")
    y = result(np.full((2, 2), 3.0), "AddConstantBackward")
    assert printed(y) == "Variable containing:\n 3  3\n 3  3\n[torch.FloatTensor of size 2x2]\n\n"
    assert printed(x.grad_fn) == "None\n"
    z, out = result(np.full((2, 2), 27.0)), result(np.float32(27.0), "MeanBackward")
    assert printed(z, out) == Z_2X2 + " " + OUT_27 + "\n"
    assert printed(grad(np.full((2, 2), 4.5))) == GRAD_4_5 + "\n"
    assert printed(result([-1296.5227, 499.0783, 778.8971])) == (
        "Variable containing:\n-1296.5227\n  499.0783\n  778.8971\n"
        "[torch.FloatTensor of size 3]\n\n"
    )
    assert printed(grad([102.4, 1024, 0.1024])) == (
        "Variable containing:\n  102.4000\n 1024.0000\n    0.1024\n"
        "[torch.FloatTensor of size 3]\n\n"
    )
    for values, text in [
        ([1, 4, 9], " 1\n 4\n 9\n"),
        ([2, 4, 6], " 2\n 4\n 6\n"),
        ([6, 8, 6], " 6\n 8\n 6\n"),
    ]:
        assert printed(grad(values)) == (
            "Variable containing:\n" + text + "[torch.FloatTensor of size 3]\n\n"
        )


# -- the same code on gradshell's own torch ------------------------------------------------------


def _variable_body(text: str) -> str:
    # The core decides which tensors are 0.3 Variables (x.grad is one); the printer's part
    # is everything after the header.
    return text.removeprefix("Variable containing:")


def test_seed_000_on_gradshell_torch():
    from gradshell import torch
    from gradshell.torch.autograd import Variable

    x = Variable(torch.ones(2, 2), requires_grad=True)
    y = x + 2
    assert re.fullmatch(
        rf"<torch\.autograd\.function\.AddConstantBackward at {ADDRESS}>",
        node_repr(y.grad_fn, ipython=True),
    )
    z = y * y * 3
    assert re.fullmatch(
        rf"<torch\.autograd\.function\.MulConstantBackward object at {ADDRESS}>", repr(z.grad_fn)
    )
    assert repr(z) == Z_2X2
    out = z.mean()
    assert re.fullmatch(
        rf"<torch\.autograd\.function\.MeanBackward object at {ADDRESS}>", repr(out.grad_fn)
    )
    out.backward()
    assert _variable_body(repr(x.grad)) == _variable_body(GRAD_4_5)
    assert repr(out) == OUT_27

    x = Variable(torch.Tensor([2, 2, 2]), requires_grad=True)
    y = x * 2
    assert repr(y) == Y_444
    gradient = torch.FloatTensor([0.1, 1, 10])
    y.backward(gradient, retain_graph=True)
    assert _variable_body(repr(x.grad)) == _variable_body(GRAD_0_2)
    y.backward(gradient, retain_graph=True)
    assert _variable_body(repr(x.grad)) == _variable_body(GRAD_0_4)
    assert repr(x.grad.data.zero_()) == ZEROED_DATA
    assert _variable_body(repr(x.grad)) == _variable_body(ZEROED_GRAD)
    y.backward(gradient)
    assert _variable_body(repr(x.grad)) == _variable_body(GRAD_0_2)


def test_seed_001_on_gradshell_torch():
    from gradshell import torch
    from gradshell.torch.autograd import Variable

    x = Variable(torch.ones(2, 2), requires_grad=True)
    assert printed(x) == ("Variable containing:\n 1  1\n 1  1\n[torch.FloatTensor of size 2x2]\n\n")
    y = x + 2
    assert printed(y) == "Variable containing:\n 3  3\n 3  3\n[torch.FloatTensor of size 2x2]\n\n"
    assert printed(x.grad_fn) == "None\n"
    z = y * y * 3
    out = z.mean()
    assert printed(z, out) == Z_2X2 + " " + OUT_27 + "\n"
    out.backward()
    assert _variable_body(printed(x.grad)) == _variable_body(GRAD_4_5 + "\n")

    for weights, expected in [([1, 1, 1], " 2\n 4\n 6\n"), ([3, 2, 1], " 6\n 8\n 6\n")]:
        x = Variable(torch.FloatTensor([1, 2, 3]), requires_grad=True)
        y = x * x
        assert printed(y) == "Variable containing:\n 1\n 4\n 9\n[torch.FloatTensor of size 3]\n\n"
        y.backward(torch.FloatTensor(weights))
        assert _variable_body(repr(x.grad)) == "\n" + expected + "[torch.FloatTensor of size 3]\n"
