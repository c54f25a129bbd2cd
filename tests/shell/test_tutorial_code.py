"""Code that tutorials and courses write runs as in Python (issue 27): learner classes
with operator and protocol methods (micrograd's `Value`), `with` blocks of the learner's
own context managers, `__dict__` of the learner's and of torch's objects. Each program
prints what plain Python with real PyTorch prints (recorded where PyTorch is absent)."""

from __future__ import annotations

import pytest
from support.tutorials import run_in_gradshell, run_in_pytorch

from gradshell.shell.session import Session

MICROGRAD = '''
class Value:
    """A scalar and its gradient (the micrograd exercise)."""

    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        assert isinstance(k, (int, float)), "only int/float powers"
        out = Value(self.data**k, (self,), f"**{k}")

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Value(max(self.data, 0), (self,), "relu")

        def _backward():
            self.grad += (out.data > 0) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        order, seen = [], set()

        def visit(v):
            if v not in seen:
                seen.add(v)
                for child in v._prev:
                    visit(child)
                order.append(v)

        visit(self)
        self.grad = 1
        for v in reversed(order):
            v._backward()

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other**-1

    def __rtruediv__(self, other):
        return other * self**-1

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


a, b = Value(-4.0), Value(2.0)
c = a + b
d = a * b + b**3
c += c + 1
c += 1 + c + (-a)
d += d * 2 + (b + a).relu()
d += 3 * d + (b - a).relu()
e = c - d
f = e**2
g = f / 2.0
g += 10.0 / f
g.backward()
print(f"{g.data:.4f} {a.grad:.4f} {b.grad:.4f}")
print(sorted(a.__dict__), a._op == "", 2 - Value(1.0), 1 / Value(4.0))

import torch

x = torch.tensor([-4.0], dtype=torch.double, requires_grad=True)
y = torch.tensor([2.0], dtype=torch.double, requires_grad=True)
print(((x * y + y**3) * 2).sum().item(), Value(2.0) * 3)
'''

PROTOCOLS = """
import copy


class Vec:
    __slots__ = ("xs",)

    def __init__(self, *xs):
        self.xs = list(xs)

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return self.xs[i]

    def __setitem__(self, i, v):
        self.xs[i] = v

    def __iter__(self):
        return iter(self.xs)

    def __contains__(self, v):
        return v in self.xs

    def __eq__(self, other):
        return isinstance(other, Vec) and self.xs == other.xs

    def __hash__(self):
        return hash(tuple(self.xs))

    def __lt__(self, other):
        return self.xs < other.xs

    def __bool__(self):
        return any(self.xs)

    def __matmul__(self, other):
        return sum(p * q for p, q in zip(self, other))

    def __abs__(self):
        return sum(v * v for v in self) ** 0.5

    def __neg__(self):
        return Vec(*(-v for v in self))

    def __iadd__(self, other):
        self.xs = [p + q for p, q in zip(self, other)]
        return self

    def __call__(self, k):
        return Vec(*(k * v for v in self))

    def __format__(self, spec):
        return "<" + ", ".join(format(v, spec) for v in self) + ">"

    def __repr__(self):
        return f"Vec{tuple(self.xs)}"

    __rmatmul__ = __matmul__


v = Vec(3, 4)
w = copy.deepcopy(v)
w[0] = 1
w += Vec(1, 1)
print(len(v), v[1], list(v), 4 in v, v == Vec(3, 4), {v, Vec(3, 4)}, abs(v), v @ w)
print(sorted([v, w]), bool(Vec(0, 0)), -v, v(2), f"{v:.1f}", v.__class__.__name__)


class Timer:
    def __enter__(self):
        print("enter")
        return self

    def __exit__(self, kind, value, tb):
        print("exit", kind.__name__ if kind else None, value)
        return kind is ZeroDivisionError


with Timer() as t:
    print(type(t).__name__)
with Timer():
    1 / 0
print("after")


class Config:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


cfg = Config(lr=0.1, epochs=3)
print(cfg.lr, cfg.__dict__, vars(cfg), sorted(Config.__dict__)[:3], Config.__name__)
"""

TORCH_DICTS = """
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)
        self.note = "mine"

    def forward(self, x):
        return self.fc(x)


net = Net()
print(list(net.__dict__))
print(nn.ReLU().__dict__)
print(net.fc.__dict__["_parameters"]["bias"].shape, net.__dict__["note"])
print(torch.ones(2).__dict__, vars(torch.zeros(1)))
t = torch.ones(1)
t.label = "x"
print(t.__dict__)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
print(list(opt.__dict__), opt.__dict__["_zero_grad_profile_name"])
print(type(net).__name__, net.__class__.__name__, net.fc.__class__.__name__)
"""

PROGRAMS = {"micrograd": MICROGRAD, "protocols": PROTOCOLS, "torch-dicts": TORCH_DICTS}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_python_prints(name, real_torch, tmp_path):
    path = tmp_path / f"{name.replace('-', '_')}.py"
    path.write_text(PROGRAMS[name], encoding="utf-8")
    assert run_in_gradshell(path) == run_in_pytorch(path)


def test_a_with_block_cannot_swallow_the_time_limit():
    session = Session(viz=False, time_limit=1)
    source = (
        "class S:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, *a):\n        return True\n\n"
        "while True:\n    with S():\n        while True:\n            pass\n"
    )
    out = session.run_cell(source).output
    assert out.startswith("gradshell: stopped after 1 s, the time limit for one statement")
    assert session.run_cell("print('still here')").output == "still here\n"


def test_a_torch_objects_dict_leaves_out_gradshells_own_state(session):
    out = session.run_cell("import torch\nd = torch.ones(2).__dict__\nprint(d, '_data' in d)")
    assert out.output == "{} False\n"
