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

STDLIB = """
# the autograd-mechanics note's threads, and the standard library tutorials import
import threading, pprint, re, textwrap, heapq, bisect, statistics, operator, enum, abc, numbers, contextlib, datetime, weakref, io, csv, glob
from pathlib import Path
import torch

def train_fn(results, i):
    x = torch.ones(5, 5, requires_grad=True)
    y = (x + 3) * (x + 4) * 0.5
    y.sum().backward()
    results[i] = x.grad.sum().item()

results = [None] * 4
threads = []
for i in range(4):
    p = threading.Thread(target=train_fn, args=(results, i))
    p.start()
    threads.append(p)
for p in threads:
    p.join()
print(results)
lock = threading.Lock()
with lock:
    print('locked', lock.locked())
class Worker(threading.Thread):
    def __init__(self, n):
        super().__init__()
        self.n = n
    def run(self):
        print('worker', self.n)
w = Worker(3); w.start(); w.join()
pprint.pprint({'b': [1, 2, 3] * 10, 'a': {'x': 'y' * 30}})
print(re.sub(r'(\\w+)@(\\w+)', r'\\2 at \\1', 'me@host you@there'), re.findall(r'\\d+', 'a1b22'))
m = re.match(r'(\\d+)-(\\d+)', '12-34'); print(m.group(1), m[2], m.span())
print(re.compile('a+').sub(lambda mm: str(len(mm.group())), 'caaab'))
print(textwrap.fill('hello world ' * 5, width=20))
print(textwrap.dedent('   a\\n   b'), textwrap.indent('a\\nb', '> '))
h = [5, 1, 3]; heapq.heapify(h); heapq.heappush(h, 0); print(heapq.heappop(h), heapq.nlargest(2, h, key=lambda v: -v))
print(bisect.bisect([1, 3, 5], 4))
print(statistics.mean([1, 2, 3, 4]), statistics.stdev([1.0, 2.0, 4.0]), statistics.quantiles([1, 2, 3, 4, 5], n=4))
print(operator.itemgetter(1)([1, 2]), sorted([(1, 'b'), (0, 'a')], key=operator.itemgetter(1)), operator.mul(3, 4), operator.attrgetter('real')(3))
class Color(enum.Enum):
    RED = 1
    GREEN = enum.auto()
print(Color.RED, Color.GREEN.value, Color(1).name, list(Color), Color['GREEN'])
class Base(abc.ABC):
    @abc.abstractmethod
    def f(self): ...
try:
    Base()
except TypeError as e:
    print(e)
print(isinstance(3, numbers.Number))
@contextlib.contextmanager
def timer(name):
    print('start', name)
    yield 5
    print('stop', name)
with timer('t') as v:
    print(v)
with contextlib.suppress(ZeroDivisionError):
    1 / 0
print(datetime.timedelta(seconds=90), datetime.date(2024, 1, 2).isoformat())
p = Path('data_dir')
p.mkdir(exist_ok=True)
(p / 'a.txt').write_text('hello\\n')
print(p, repr(p / 'a.txt'), (p / 'a.txt').read_text(), (p / 'a.txt').exists(), sorted(x.name for x in p.iterdir()))
with open(p / 'b.csv', 'w', newline='') as f:
    wr = csv.writer(f)
    wr.writerow(['epoch', 'loss'])
    wr.writerow([1, 0.5])
with open('data_dir/b.csv') as f:
    print(list(csv.reader(f)))
with open('data_dir/b.csv') as f:
    for row in csv.DictReader(f):
        print(row)
print(sorted(glob.glob('data_dir/*')))
s = io.StringIO(); s.write('x'); print(s.getvalue())
(p / 'a.txt').unlink(); (p / 'b.csv').unlink(); p.rmdir()
print(type(p), p.suffix, Path('x/y.tar.gz').suffixes, Path('x/y.py').stem, Path('x/y.py').parent)
"""

PROGRAMS = {
    "micrograd": MICROGRAD,
    "protocols": PROTOCOLS,
    "torch-dicts": TORCH_DICTS,
    "stdlib": STDLIB,
}


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


@pytest.mark.parametrize(
    "source",
    [
        "import re\nre.sub('', 'x' * 10**6, 'y' * 10**6)",
        "import re\nre.compile('').sub('x' * 10**6, 'y' * 10**6)",
        "import re\nre.sub('y', lambda m: 'x' * 10**6, 'y' * 10**3)",
        "import textwrap\ntextwrap.indent('\\n' * 10**6, 'x' * 10**6)",
        "import statistics\nstatistics.quantiles([1, 2], n=10**12)",
    ],
)
def test_results_the_input_does_not_bound_are_size_checked(session, source):
    out = session.run_cell(source).output
    assert out.startswith("gradshell: ") and "over the limit" in out, out


def test_a_threads_error_is_shown_and_the_statement_goes_on(session):
    source = (
        "import threading\ndef f():\n    1 / 0\n"
        "t = threading.Thread(target=f, name='worker')\nt.start()\nt.join()\nprint('after')"
    )
    out = session.run_cell(source).output
    assert out == (
        "Exception in thread worker:\nTraceback (most recent call last):\n"
        '  File "<stdin>", line 3, in f\n    1 / 0\n'
        "ZeroDivisionError: division by zero\nafter\n"
    )


def test_a_thread_runs_under_the_statements_time_limit():
    session = Session(viz=False, time_limit=1)
    source = (
        "import threading\ndef spin():\n    while True:\n        pass\n"
        "threading.Thread(target=spin).start()\n"
    )
    out = session.run_cell(source).output
    assert "gradshell: stopped after 1 s, the time limit for one statement" in out
    assert session.run_cell("print('still here')").output == "still here\n"


def test_files_outside_the_session_read_as_absent(session):
    out = session.run_cell(
        "import pathlib, glob, os\n"
        "print(pathlib.Path('/etc/passwd').exists(), glob.glob('/etc/*'), os.path.exists('/etc'))"
    ).output
    assert out == "False [] False\n"
    out = session.run_cell("open('/etc/passwd')").output
    assert out.splitlines()[-1].startswith("PermissionError: [Errno 13] /etc/passwd is outside")


def test_a_torch_objects_dict_leaves_out_gradshells_own_state(session):
    out = session.run_cell("import torch\nd = torch.ones(2).__dict__\nprint(d, '_data' in d)")
    assert out.output == "{} False\n"


def test_an_unclosed_files_resource_warning_stays_quiet_as_in_python(session):
    # pytorch/examples' time_sequence_prediction saves with torch.save(data, open(...))
    source = "import torch\ntorch.save(torch.ones(1), open('t.pt', 'wb'))\nprint('saved')"
    assert session.run_cell(source).output == "saved\n"


def test_a_weak_reference_callback_is_refused(session):
    source = "import weakref\nclass A:\n    pass\na = A()\nr = weakref.ref(a)\nprint(r() is a)"
    assert session.run_cell(source).output == "True\n"
    out = session.run_cell("weakref.ref(a, print)").output
    assert out.startswith("gradshell: weakref.ref's callback is not available here")


@pytest.mark.parametrize(
    "source,name,suggestion",
    [
        ("p = 1\nprint(P)", "P", ". Did you mean: 'p'?"),  # makemore part 1, out of order
        ("xs = [1]\nprint(xss)", "xss", ". Did you mean: 'xs'?"),
        ("prnt('x')", "prnt", ". Did you mean: 'print'?"),
        ("gs_ga = 1\nprint(gs_gaa)", "gs_gaa", ". Did you mean: 'gs_ga'?"),
        ("print(zzqqv)", "zzqqv", ""),
    ],
)
def test_a_name_error_suggests_a_name_as_python_does(session, source, name, suggestion):
    out = session.run_cell(source).output
    assert out.endswith(f"NameError: name '{name}' is not defined{suggestion}\n"), out


def test_pathlib_paths_within_the_workspace(session):
    source = (
        "from pathlib import Path\nimport torch, os\n"
        "print(Path.cwd() == Path(os.getcwd()), Path('a/b.txt').with_suffix('.pt'))\n"
        "d = Path('ckpt')\nd.mkdir(parents=True, exist_ok=True)\n"
        "torch.save(torch.ones(2), d / 'w.pt')\n"
        "print(torch.load(d / 'w.pt'), [p.name for p in d.glob('*.pt')])\n"
        "with (d / 'log.txt').open('w') as f:\n    f.write('epoch 1\\n')\n"
        "print((d / 'log.txt').read_text().strip(), (d / 'log.txt').stat().st_size)\n"
        "for p in sorted(d.iterdir()):\n    p.unlink()\n"
        "d.rmdir()\nprint(d.exists())"
    )
    out = session.run_cell(source).output
    # the REPL shows what f.write returns (8), as Python's does inside a with-block
    assert out == "True a/b.pt\ntensor([1., 1.]) ['w.pt']\n8\nepoch 1 8\nFalse\n", out
