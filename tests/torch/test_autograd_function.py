"""torch.autograd.Function and gradcheck against PyTorch: the same outputs, grad_fn names
and reprs, gradients, saved-tensor rules, error messages and gradcheck verdicts.

Each program (its Function classes defined on real PyTorch's) runs whole in PyTorch and
what it printed is recorded by the oracle, so the comparisons also run without PyTorch."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from support.tutorials import printed, run_in_gradshell, run_in_pytorch

from gradshell import torch as gtorch

DEFS = """
class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, k=1):
        ctx.save_for_backward(input)
        return input.clamp(min=0) * k
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input, None

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a ** 2
    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return 2 * a * g

class WrongSquare(Square):
    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return 3 * a * g

class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a
    @staticmethod
    def backward(ctx, g):
        return g

class Double_(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.mark_dirty(a)
        return a.mul_(2)
    @staticmethod
    def backward(ctx, g):
        return g * 2

class TwoOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        mask = a > 0
        ctx.mark_non_differentiable(mask)
        return a * 2, mask
    @staticmethod
    def backward(ctx, g, g_mask):
        print('backward got', g, g_mask)
        return g * 2

class NoMaterialize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.set_materialize_grads(False)
        return a * 2, a * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print('backward got', g1, g2)
        return g1 * 2 if g2 is None else g1 * 2 + g2 * 3

class Mul(torch.autograd.Function):
    @staticmethod
    def forward(a, w):
        return a * w
    @staticmethod
    def setup_context(ctx, inputs, output):
        a, w = inputs
        ctx.save_for_backward(a, w)
    @staticmethod
    def backward(ctx, g):
        a, w = ctx.saved_tensors
        return g * w, g * a

class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        result, = ctx.saved_tensors
        return g * result

x = torch.tensor([-1., 2., 0.5], requires_grad=True)
"""

PROGRAMS = {
    "relu": """
y = MyReLU.apply(x, 3)
print(y, y.grad_fn.name(), y.grad_fn.next_functions, y.grad_fn.needs_input_grad)
print(type(y.grad_fn), y.grad_fn.saved_tensors)
y.sum().backward()
print(x.grad)
with torch.no_grad():
    print(MyReLU.apply(x))
print(MyReLU.apply(torch.ones(2)).requires_grad, MyReLU, MyReLU._backward_cls)
""",
    "double_backward": """
g, = torch.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
""",
    "identity_and_dirty": """
i = Id.apply(x)
print(i, i is x, i.is_leaf)
c = x.clone()
r = Double_.apply(c)
print(r is c, c, c._version)
r.sum().backward()
print(x.grad)
""",
    "non_differentiable": """
a, m = TwoOut.apply(x)
print(a, m, m.requires_grad)
a.sum().backward()
print(x.grad)
p, q = NoMaterialize.apply(x)
p.sum().backward()
print(x.grad)
""",
    "setup_context": """
w = torch.tensor([3., 4., 5.], requires_grad=True)
out = Mul.apply(x, w=w)
print(out)
out.sum().backward()
print(x.grad, w.grad)
""",
    "once_differentiable": """
e = Exp.apply(x)
g, = torch.autograd.grad(e.sum(), x, create_graph=True)
print(g, g.requires_grad)
h, = torch.autograd.grad(Exp.apply(x), x, torch.ones(3, requires_grad=True), create_graph=True)
print(h, type(h.grad_fn), h.grad_fn.name(), h.grad_fn.next_functions[0][0].name())
xx = torch.tensor([1.], requires_grad=True)
y = Exp.apply(xx * 2)
gg, = torch.autograd.grad(y, xx, create_graph=True)
print(gg.requires_grad)
""",
    "gradcheck": """
torch.manual_seed(0)
inp = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(Square.apply, (inp,)))
print(torch.autograd.gradcheck(Mul.apply, (inp, torch.randn(2, 2, dtype=torch.double, requires_grad=True))))
print(torch.autograd.gradcheck(torch.sigmoid, (inp,), eps=1e-6, atol=1e-4))
print(torch.autograd.gradcheck(WrongSquare.apply, (inp,), raise_exception=False))
print(torch.autograd.gradgradcheck(torch.sin, (inp,)))
print(torch.autograd.gradgradcheck(Square.apply, inp))
print(torch.rand(1))
""",
}

ERRORS = [
    "WrongSquare.apply(torch.tensor([[1., 2.], [3., 4.]], dtype=torch.double, requires_grad=True))\n"
    "torch.autograd.gradcheck(WrongSquare.apply, (torch.tensor([[1., 2.], [3., 4.]], dtype=torch.double, requires_grad=True),))",
    "torch.autograd.gradcheck(torch.sin, (torch.ones(2, dtype=torch.double),))",
    """
calls = [0]
class Flaky(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        calls[0] += 1
        return g * (2 + (1e-3 if calls[0] % 3 == 0 else 0))
torch.autograd.gradcheck(Flaky.apply, (torch.ones(2, dtype=torch.double, requires_grad=True),), atol=1e-2)""",
    """
class NotScaled(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return torch.full_like(g, 2.0)
torch.autograd.gradcheck(NotScaled.apply, (torch.ones(1, dtype=torch.double, requires_grad=True),))""",
    "y = MyReLU.apply(x); y.sum().backward(); y.sum().backward()",
    "z = x * 1; y = MyReLU.apply(z); z.add_(1); y.grad_fn.saved_tensors",
    "z = x * 1; y = MyReLU.apply(z); z.add_(1); y.sum().backward()",
    "Double_.apply(x)",
    "Id()(x)",
    """
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g, g
Bad.apply(x).sum().backward()""",
    """
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, n):
        return a * n
    @staticmethod
    def backward(ctx, g):
        return g, g
Bad.apply(x, 2).sum().backward()""",
    """
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return torch.ones(4)
Bad.apply(x).sum().backward()""",
    """
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a, 3)
        return a
Bad.apply(x)""",
    """
class NoBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
NoBackward.apply(x).sum().backward()""",
    """
class NoForward(torch.autograd.Function):
    pass
NoForward.apply(x)""",
    "e = Exp.apply(x); g, = torch.autograd.grad(e.sum(), x, create_graph=True); "
    "torch.autograd.grad(Exp.apply(g * 1).sum(), x)",
    "xx = torch.tensor([1.], requires_grad=True); g, = torch.autograd.grad(Exp.apply(xx * 2), xx, "
    "create_graph=True); g.backward()",
]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_prints_what_pytorch_prints(real_torch, name):
    source = DEFS + PROGRAMS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = printed(source, real_torch)
        got = printed(source, gtorch)
    assert "Error: " not in expected
    assert got == expected


@pytest.mark.parametrize("source", ERRORS)
def test_errors_match_pytorch(real_torch, source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = printed(DEFS + source, real_torch)
        got = printed(DEFS + source, gtorch)
    assert "Error: " in expected
    assert got == expected


def test_gradcheck_warns_for_single_precision_inputs():
    x = gtorch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match=r"Input #0 requires gradient and is not a double"):
        assert gtorch.autograd.gradcheck(gtorch.sin, (x,), eps=1e-3, atol=1e-2)


def test_gradcheck_error_is_a_runtime_error_named_as_pytorchs():
    error = gtorch.autograd.gradcheck.__globals__["GradcheckError"]
    assert issubclass(error, RuntimeError)
    assert repr(error) == "<class 'torch.autograd.gradcheck.GradcheckError'>"


def test_custom_function_without_torch():
    ns: dict = {"torch": gtorch}
    exec(DEFS + "y = MyReLU.apply(x, 2); y.sum().backward()", ns)  # noqa: S102
    y, x = ns["y"], ns["x"]
    assert repr(y) == "tensor([0., 4., 1.], grad_fn=<MyReLUBackward>)"
    assert repr(y.grad_fn).startswith("<torch.autograd.function.MyReLUBackward object at 0x")
    assert x.grad.tolist() == [0.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _ = y.grad_fn.saved_tensors


def test_imports_in_the_shell():
    from gradshell.shell.session import Session

    source = (
        "import torch\n"
        "from torch.autograd import Function\n"
        "from torch.autograd.function import once_differentiable, FunctionCtx\n"
        "from torch.autograd import gradcheck\n"
        "print(Function is torch.autograd.Function, callable(once_differentiable))\n"
    )
    result = Session(viz=False).run_script(source, "imports.py")
    assert result.error is None, result.output
    assert result.output == "True True\n"


def test_extending_autograd_tutorial_prints_what_pytorch_prints(real_torch):
    script = Path(__file__).parent / "tutorials" / "extending_autograd.py"
    expected = run_in_pytorch(script)
    assert "Result: y =" in expected
    assert run_in_gradshell(script) == expected


def test_saved_variables_is_the_deprecated_name_of_saved_tensors():
    ns: dict = {"torch": gtorch}
    exec(DEFS + "y = Square.apply(x)", ns)  # noqa: S102
    with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated"):
        (saved,) = ns["y"].grad_fn.saved_variables
    assert saved is ns["x"]
