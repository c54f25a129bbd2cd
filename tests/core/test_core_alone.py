"""The core runs a backward pass on its own: hand-written nodes, no op library loaded.

Each check runs in a fresh interpreter (`python -c`), so that nothing the test session
imported (the op library installs itself on Tensor) can help, and it ends by asserting
that `gradshell.ops` was never imported.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

# A small graph built from the core alone: out = sum((x * w) + (x * w)), where w (a
# float64 row) is broadcast against x (float32), so the engine must reduce a broadcast
# gradient, cast it, and add gradients that meet along two edges.
_GRAPH = """
import sys
import numpy as np
from gradshell.core import dtypes, engine, grad_mode
from gradshell.core.autograd import Node, needs_grad, record
from gradshell.core.tensor import wrap


def t(a):
    return wrap(np.asarray(a, a.dtype if isinstance(a, np.ndarray) else np.float32))


class MulBackward(Node):
    def backward(self, g):
        a, b = self.saved("a"), self.saved("b")
        return (
            t((g._data * b._data).astype(np.float32)),
            t((g._data * a._data).astype(np.float32)),
        )


class AddBackward(Node):
    def backward(self, g):
        return g, g


class SumBackward(Node):
    def backward(self, g):
        return (t(np.broadcast_to(g._data, self.shape).copy()),)


def mul(a, b):
    out = t((a._data * b._data).astype(np.float32))
    if needs_grad(a, b):
        node = MulBackward()
        node.save("a", a)
        node.save("b", b)
        record(node, (a, b), out)
    return out


def add(a, b):
    out = t(a._data + b._data)
    if needs_grad(a, b):
        record(AddBackward(), (a, b), out)
    return out


def total(a):
    out = t(np.asarray(a._data.sum(), np.float32))
    if needs_grad(a):
        node = SumBackward()
        node.shape = a._data.shape
        record(node, (a,), out)
    return out


x = t(np.arange(6, dtype=np.float32).reshape(2, 3))
x.requires_grad = True
w = t(np.array([1.0, 2.0, 3.0]))
w.requires_grad = True


def forward():
    y = mul(x, w)
    return total(add(y, y))
"""


def _run(body: str) -> None:
    code = _GRAPH + textwrap.dedent(body) + "\nassert 'gradshell.ops' not in sys.modules\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_backward_reduces_casts_and_sums_gradients():
    _run(
        """
        out = forward()
        out.backward()
        assert x.grad.dtype is dtypes.float32 and w.grad.dtype is dtypes.float64
        assert x.grad.tolist() == [[2.0, 4.0, 6.0], [2.0, 4.0, 6.0]]
        assert w.grad.tolist() == [6.0, 10.0, 14.0]  # summed over the broadcast rows
        """
    )


def test_gradients_accumulate_across_passes_with_retain_graph():
    _run(
        """
        out = forward()
        out.backward(retain_graph=True)
        out.backward()
        assert x.grad.tolist() == [[4.0, 8.0, 12.0], [4.0, 8.0, 12.0]]
        assert w.grad.tolist() == [12.0, 20.0, 28.0]
        try:
            out.backward()
        except RuntimeError as e:
            assert "backward through the graph a second time" in str(e)
        else:
            raise AssertionError("a freed graph ran backward again")
        """
    )


def test_grad_returns_gradients_without_touching_dot_grad():
    _run(
        """
        (gx, gw) = engine.grad((forward(),), (x, w))
        assert x.grad is None and w.grad is None
        assert gw.tolist() == [6.0, 10.0, 14.0]
        assert gx.tolist() == [[2.0, 4.0, 6.0], [2.0, 4.0, 6.0]]
        """
    )


def test_retain_grad_and_hooks_run_in_the_core():
    _run(
        """
        y = mul(x, w)
        y.retain_grad()
        seen = []
        y.register_hook(lambda g: seen.append(g.tolist()))
        total(add(y, y)).backward()
        assert seen == [[[2.0] * 3] * 2]
        assert y.grad.tolist() == [[2.0] * 3] * 2
        """
    )
