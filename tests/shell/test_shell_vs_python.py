"""The shell adds nothing and loses nothing: seed programs run through the checked,
guarded evaluator print what plain Python with real PyTorch prints."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from gradshell.shell.session import Session

ADDR = re.compile(r"0x[0-9a-fA-F]+")

PROGRAMS = {
    "seed002-example1": """
import torch

def my_grad():
    x = torch.ones(2, 2, requires_grad=True)
    print(x)
    print(x.grad_fn)
    y = x + 2
    print(y)
    print(y.grad_fn)

if __name__ == "__main__":
    my_grad()
""",
    "seed002-examples2-3": """
import torch

def my_grad():
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    z_mean = z.mean()
    z_mean.backward()
    print(x.grad)

    z_sum1 = x.sum()
    z_sum1.backward()
    print(x.grad)

    z_sum2 = x.sum()
    x.grad.data.zero_()
    z_sum2.backward()
    print(x.grad)

if __name__ == "__main__":
    my_grad()
""",
    "seed002-examples5-6": """
import torch
x = torch.tensor(1.0, requires_grad=True)
y = x ** 2
with torch.no_grad():
    y2 = x ** 2
y3 = y + y2
print(x.requires_grad)
print(y, y.requires_grad)
print(y2, y2.requires_grad)
print(y3, y3.requires_grad)
y3.backward()
print(x.grad)
x = torch.tensor(1.0, requires_grad=True)
print(x.data)
print(x.data.requires_grad)
y = x * 2
x.data *= 100
y.backward()
print(x)
print(x.grad)
""",
    "seed003-numpy": """
import torch
import numpy as np
x1 = torch.from_numpy( 2*np.ones((2, 2), dtype=np.float32) )
x1.requires_grad_(True)
w1 = torch.from_numpy( 5*np.ones((2, 2), dtype=np.float32) )
w1.requires_grad_(True)
print("x1 =", x1)
x2 = x1 * w1
w2 = torch.from_numpy( 6*np.ones((2,2), dtype=np.float32) )
w2.requires_grad_(True)
y = x2 * w2
Y = torch.from_numpy( 10*np.ones((2,2), dtype=np.float32) )
L = Y - y
L.backward(torch.ones(2, 2, dtype=torch.float))
print(x1.grad)
print(w1.grad)
print(w2.grad)
x = np.array([1,2,3] ,dtype=np.float64)
x = torch.from_numpy(x)
x.requires_grad = True
print(x, f"{x.sum().item():.3f}", [round(v, 1) for v in x.tolist()])
""",
    "python-only": """
import math
data = {"a": [1, 2, 3], "b": (4.5, "x")}
for key, value in sorted(data.items()):
    print(key, value, len(value))
print(f"{math.pi:.3f} {2**10:,} {'centre':^10}|", "%5.1f%%" % 12.345)
squares = {n: n * n for n in range(5) if n % 2}
print(squares, sum(squares.values()), max(squares, key=squares.get))
class Counter:
    def __init__(self):
        self.n = 0
    def __call__(self, k=1):
        self.n += k
        return self.n
c = Counter()
print([c() for _ in range(3)], c(10))
try:
    {}["missing"]
except KeyError as e:
    print("KeyError", e)
""",
    "python-unpacking": """
log = []
def item(name, value):
    log.append(name)
    return value
def gen(name, n):
    for i in range(n):
        log.append(f"{name}{i}")
        yield i
print([*gen("a", 2), item("b", 9), *gen("c", 2)], log)
log.clear()
print((*gen("a", 1), *gen("b", 1)), {*gen("c", 2), *gen("d", 1)}, log)
def f(*args, **kwargs):
    return args, kwargs
print(f(1, *gen("e", 2), 2, *[3], k=4, **{"m": 5}, **{"n": 6}))
print({**{"a": 1}, "b": 2, **{"a": 3}}, [*"ab", *b"c"], f(*(), *[]))
def nested(n):
    return [*range(n), *(nested(n - 1) if n else [])]
print(nested(3))
try:
    [*[1], *1]
except TypeError as e:
    print(e)
try:
    f(*[1], *1)
except TypeError as e:
    print(e)
try:
    {*[1], *1}
except TypeError as e:
    print(e)
try:
    {**{}, **1}
except TypeError as e:
    print(e)
try:
    f(**{}, **1)
except TypeError as e:
    print(e)
try:
    f(**{"k": 1}, **{"k": 2})
except TypeError as e:
    print(e)
""",
}


def _real(program: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(program, "<real>", "exec"), {"__name__": "__main__"})
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_python_and_pytorch_print(name, real_torch):
    program = PROGRAMS[name]
    expected = _real(program)
    result = Session(viz=False).run_script(program, "<prog>")
    assert result.error is None, result.output
    assert ADDR.sub("0x…", result.output) == ADDR.sub("0x…", expected)
