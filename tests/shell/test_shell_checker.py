"""The teaching checker: every allowed construct runs, every refused one names itself at
its line, after the lines before it ran."""

from __future__ import annotations

import ast

import pytest

from gradshell.shell.checker import check

# Each program uses one construct of the DSL and prints what it computed.
ALLOWED = [
    ("x = 1\ny = x + 2\nprint(y)", "3\n"),
    ("a, b = 1, 2\na, b = b, a\nprint(a, b)", "2 1\n"),
    ("x = 5\nx += 2\nx *= 3\nx -= 1\nx //= 2\nprint(x)", "10\n"),
    ("first, *rest = [1, 2, 3]\nprint(first, rest)", "1 [2, 3]\n"),
    ("d = {'a': 1}\nd['b'] = 2\nd['a'] += 10\nprint(d)", "{'a': 11, 'b': 2}\n"),
    ("xs = [1, 2, 3, 4]\nprint(xs[1:3], xs[::-1], xs[-1])", "[2, 3] [4, 3, 2, 1] 4\n"),
    (
        "def f(a, b=2, *args, **kw):\n    return a + b + sum(args) + len(kw)\nprint(f(1), f(1, 1, 1, z=0))",
        "3 4\n",
    ),
    ("g = lambda x: x * 2\nprint(g(21))", "42\n"),
    (
        "x = 3\nif x > 5:\n    print('big')\nelif x > 2:\n    print('mid')\nelse:\n    print('small')",
        "mid\n",
    ),
    ("for i in range(3):\n    if i == 1:\n        continue\n    print(i)", "0\n2\n"),
    ("n = 0\nwhile True:\n    n += 1\n    if n == 3:\n        break\nprint(n)", "3\n"),
    ("print(f'{1 + 1} and {3.14159:.2f} {\"x\"!r}')", "2 and 3.14 'x'\n"),
    (
        "print([i * i for i in range(4)], {i % 2 for i in range(4)}, {i: i for i in range(2)})",
        "[0, 1, 4, 9] {0, 1} {0: 0, 1: 1}\n",
    ),
    ("print(sum(i for i in range(5)))", "10\n"),
    (
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print('caught', e)\nfinally:\n    print('done')",
        "caught division by zero\ndone\n",
    ),
    (
        "try:\n    raise ValueError('bad')\nexcept (TypeError, ValueError) as e:\n    print(e.args)",
        "('bad',)\n",
    ),
    ("assert 1 + 1 == 2\nprint('ok')", "ok\n"),
    (
        "class A:\n    def __init__(self, v):\n        self.v = v\n    def get(self):\n        return self.v\nprint(A(7).get())",
        "7\n",
    ),
    (
        "class A:\n    def __init__(self):\n        self.n = 1\nclass B(A):\n    def __init__(self):\n        super().__init__()\n        self.n += 1\nprint(B().n)",
        "2\n",
    ),
    (
        "class A:\n    def __init__(self):\n        self.n = 1\nclass B(A):\n    def __init__(self):\n        super(B, self).__init__()\nprint(B().n)",
        "1\n",
    ),
    ("class C:\n    def __call__(self, x):\n        return x + 1\nprint(C()(1))", "2\n"),
    (
        "class C:\n    count = 0\n    @staticmethod\n    def s():\n        return 's'\n    @classmethod\n    def k(cls):\n        return cls.count\nprint(C.s(), C.k())",
        "s 0\n",
    ),
    ("if __name__ == '__main__':\n    print('main')", "main\n"),
    ("import math\nprint(math.sqrt(16), math.pi > 3)", "4.0 True\n"),
    ("from math import floor as fl\nprint(fl(2.5))", "2\n"),
    ("import random\nrandom.seed(0)\nprint(0 <= random.random() < 1)", "True\n"),
    ("import numpy as np\na = np.ones((2, 3))\nprint(a.shape, a.sum())", "(2, 3) 6.0\n"),
    ("import numpy as np\nprint(np.arange(4).reshape(2, 2).T.tolist())", "[[0, 2], [1, 3]]\n"),
    (
        "import numpy as np\nprint(np.random.rand(2, 2).shape, np.linalg.norm(np.array([3.0, 4.0])))",
        "(2, 2) 5.0\n",
    ),
    (
        "def outer():\n    total = 0\n    def inner():\n        nonlocal total\n        total += 1\n    inner()\n    return total\nprint(outer())",
        "1\n",
    ),
    ("count = 0\ndef bump():\n    global count\n    count += 1\nbump()\nprint(count)", "1\n"),
    ("x = [1, 2]\ndel x[0]\nprint(x)", "[2]\n"),
    ("print((y := 5) + y)", "10\n"),
    ("def gen():\n    yield 1\n    yield 2\nprint(list(gen()))", "[1, 2]\n"),
    ("print('-'.join(['a', 'b']), 'x'.upper(), 'a b'.split())", "a-b X ['a', 'b']\n"),
    (
        "print('{} + {} = {}'.format(1, 2, 3), '%d%%' % 50, format(3.14159, '.1f'))",
        "1 + 2 = 3 50% 3.1\n",
    ),
    ("print(isinstance(1, int), type(1), len('abc'))", "True <class 'int'> 3\n"),
    (
        "print(sorted([3, 1, 2], key=lambda v: -v), list(zip('ab', range(2))))",
        "[3, 2, 1] [('a', 0), ('b', 1)]\n",
    ),
    ("x: int = 3\nprint(x)", "3\n"),
    ("for _ in range(2):\n    pass\nprint(_)", "1\n"),
    (
        "print(abs(-2), min(3, 1), max([4, 5]), round(2.567, 2), divmod(7, 2), pow(2, 10))",
        "2 1 5 2.57 (3, 1) 1024\n",
    ),
    (
        "print(hasattr('x', 'upper'), hasattr('x', '__class__'), callable(print))",
        "True False True\n",
    ),
    (
        "print(2 ** 10, 1 << 4, 7 % 3, 7 // 2, -3 & 0xF, 3 | 4, 6 ^ 3, 8 >> 1)",
        "1024 16 1 3 13 7 5 4\n",
    ),  # what real tutorials write
    (
        "class A:\n    def __init__(self):\n        self.v = 1\nclass B(A):\n    def __init__(self):\n        A.__init__(self)\nprint(B().v)",
        "1\n",
    ),
    ("def f():\n    pass\nprint(f.__name__, type(1).__name__)", "f int\n"),
    ("print(getattr(1, 'real'), getattr(1, 'nope', 'd'))", "1 d\n"),
    (
        "class P:\n    pass\np = P()\nsetattr(p, 'v', 3)\nprint(p.v)\ndelattr(p, 'v')\nprint(hasattr(p, 'v'))",
        "3\nFalse\n",
    ),
    ("_tmp = [1, 2]\nprint(_tmp)", "[1, 2]\n"),
    ("def _helper(_x):\n    return _x + 1\nprint(_helper(1))", "2\n"),
    ("def forward(ctx, input):\n    return input * 2\nprint(forward(None, 4))", "8\n"),
    ("import os.path\nprint(os.path.splitext('a.txt'))", "('a', '.txt')\n"),
    (
        "class R:\n    def __repr__(self):\n        return 'R!'\n    def __iter__(self):\n        return iter([1, 2])\nprint(R(), list(R()))",
        "R! [1, 2]\n",
    ),
    ("from __future__ import division\nprint(1 / 2)", "0.5\n"),
    ("import collections\nprint(collections.Counter('abca')['a'])", "2\n"),
    # Tutorial code that must keep working while callables handed to map/sorted/partial
    # and friends are checked, and properties and generators are used by hand.
    (
        "class Temp:\n    def __init__(self):\n        self._c = 0\n    @property\n"
        "    def c(self):\n        return self._c\n    @c.setter\n    def c(self, v):\n"
        "        self._c = v\nt = Temp()\nt.c = 5\nprint(t.c)",
        "5\n",
    ),
    (
        "def acc():\n    total = 0\n    while True:\n        x = yield total\n        total += x\n"
        "g = acc()\n_ = next(g)\nprint(g.send(5), g.send(2))\ng.close()",
        "5 7\n",
    ),
    (
        "from functools import cmp_to_key\nprint(sorted([3, 1, 2], key=cmp_to_key(lambda a, b: b - a)))",
        "[3, 2, 1]\n",
    ),
    (
        "words = ['pear', 'fig', 'apple']\n"
        "print(sorted(words, key=len), max(words, key=str.lower), min(words, key=lambda w: w[-1]))",
        "['fig', 'pear', 'apple'] pear apple\n",
    ),
    (
        "print(list(map(str, [1, 2])), list(filter(None, [0, 1, 2])), list(map(str.upper, 'ab')))",
        "['1', '2'] [1, 2] ['A', 'B']\n",
    ),
    ("print(list(map(type, [1, 'a'])))", "[<class 'int'>, <class 'str'>]\n"),
    (
        "from functools import partial, reduce\ndef power(b, e):\n    return b ** e\n"
        "print(partial(power, e=2)(5), reduce(lambda a, b: a * b, [1, 2, 3, 4]), partial(print, end='!\\n')('x'))",
        "x!\n25 24 None\n",
    ),
    (
        "from functools import lru_cache\n@lru_cache(maxsize=None)\ndef fib(n):\n"
        "    return n if n < 2 else fib(n - 1) + fib(n - 2)\nprint(fib(30))",
        "832040\n",
    ),
    (
        "from collections import defaultdict\nd = defaultdict(lambda: 'n/a')\nc = defaultdict(int)\n"
        "c['x'] += 1\ng = defaultdict(list)\ng['k'].append(1)\nprint(d['q'], dict(c), dict(g))",
        "n/a {'x': 1} {'k': [1]}\n",
    ),
    ("scores = {'a': 3, 'b': 5}\nprint(max(scores, key=scores.get))", "b\n"),
    (
        "import itertools\nprint(list(itertools.starmap(pow, [(2, 3)])), list(itertools.accumulate([1, 2, 3], max)),"
        " [k for k, _ in itertools.groupby('aab', key=str.upper)], list(itertools.takewhile(lambda v: v < 2, [1, 2])))",
        "[8] [1, 2, 3] ['A', 'B'] [1]\n",
    ),
    (
        "from dataclasses import dataclass, field\n@dataclass\nclass Cfg:\n    lr: float = 0.1\n"
        "    layers: list = field(default_factory=list)\nprint(Cfg())",
        "Cfg(lr=0.1, layers=[])\n",
    ),
    (
        "class C:\n    def get(self):\n        return 7\n    v = property(get)\nprint(C().v)",
        "7\n",
    ),
    (
        "n = [0]\ndef roll():\n    n[0] += 1\n    return n[0]\nprint(list(iter(roll, 4)), next(iter([9])))",
        "[1, 2, 3] 9\n",
    ),
    (
        "from dataclasses import dataclass\n@dataclass(slots=True, order=True)\nclass P:\n"
        "    x: int\nprint(P(1), P(1) < P(2))",
        "P(x=1) True\n",
    ),
    (
        "def roll():\n    roll.calls += 1\n    return roll.calls\nroll.calls = 0\n"
        "print(list(iter(roll, 3)), roll.calls)",
        "[1, 2] 3\n",
    ),
    (
        "xs = [3, 1, 2]\nxs.sort(key=lambda v: -v)\nys = ['b', 'A']\nlist.sort(ys, key=str.lower)\n"
        "print(xs, ys)",
        "[3, 2, 1] ['A', 'b']\n",
    ),
    (
        "import numpy as np\ndef f(a: np.ndarray) -> np.ndarray:\n    return a * 2\n"
        "print(f(np.ones(2)), isinstance(np.ones(1), np.ndarray))",
        "[2. 2.] True\n",
    ),
    (
        "import torch.nn as nn\nm = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\ndef init(layer):\n"
        "    if isinstance(layer, nn.Linear):\n        nn.init.zeros_(layer.weight)\n"
        "_ = m.apply(init)\nprint(m[0].weight.sum().item())",
        "0.0\n",
    ),
    (  # the char-RNN tutorial's alphabet and its unicodeToAscii
        'import string, unicodedata\nletters = string.ascii_letters + " .,;\'"\n'
        "s = unicodedata.normalize('NFD', 'Ślusàrski')\n"
        "print(len(letters), ''.join(c for c in s if unicodedata.category(c) != 'Mn'))",
        "57 Slusarski\n",
    ),
]


@pytest.mark.parametrize("source,expected", ALLOWED)
def test_allowed_construct_runs(session, source, expected):
    result = session.run_cell(source)
    assert result.error is None, result.output
    assert result.output == expected


REFUSED = [
    ("__import__('os')", "'__import__' is not available here (names starting with '__'"),
    (
        "def f():\n    pass\ny = f.__globals__",
        "attribute '__globals__' is not available here (it reaches into Python's interpreter, "
        "which learner code here cannot use) (line 3)",
    ),
    ("().__class__.__bases__", "attribute '__bases__' is not available here (it reaches"),
    ("object.__subclasses__()", "attribute '__subclasses__' is not available here (it reaches"),
    ("f = lambda: 0\nf.__code__", "attribute '__code__' is not available here (it reaches"),
    ("import torch\ntorch.__dict__", "attribute '__dict__' of module 'torch' is not available"),
    ("import math\nmath.__dict__", "attribute '__dict__' of module 'math' is not available"),
    ("import torch\ntorch.ones.__dict__", "attribute '__dict__' of 'function' objects is not"),
    ("import torch\ntorch.Tensor.__dict__", "attribute '__dict__' of class 'torch.Tensor' is"),
    ("_gs_ga = 1", "'_gs_ga' is the shell's own name and not available here (line 1)"),
    ("import subprocess", "import of 'subprocess' is not available here"),
    (  # Formatter formats with attribute lookups ('{0.__class__}')
        "import string\nstring.Formatter",
        "'string.Formatter' is not available here (gradshell's string offers its constants",
    ),
    ("from subprocess import run", "import of 'subprocess' is not available here"),
    ("from . import x", "relative imports are not available here"),
    ("from torch import _ops", "'torch._ops' is not available here"),
    ("async def f():\n    pass", "'async def' is not available here (line 1)"),
    ("def f():\n    await g()\nf()", "'await' is not available here (line 2)"),
    ("match x:\n    case 1:\n        pass", "'match' statements are not available here (line 1)"),
    ("open(0)", "opening a file descriptor is not available here (open a path)"),
    ("eval('1')", "'eval' is not available here (line 1)"),
    ("exec('1')", "'exec' is not available here"),
    ("compile('1', 'f', 'eval')", "'compile' is not available here"),
    ("vars()", "'vars()' without an argument is not available here"),
    ("globals()", "'globals' is not available here"),
    (
        "class A:\n    def __getattr__(self, name):\n        return 1",
        "defining '__getattr__' is not available here (attribute lookup is the shell's to "
        "check) (line 2)",
    ),
    (
        "class A:\n    def __del__(self):\n        pass",
        "defining '__del__' is not available here (it would run at unpredictable times)",
    ),
    (
        "class A:\n    def __reduce__(self):\n        return (print, ('x',))",
        "defining '__reduce__' is not available here (saving objects may not run code",
    ),
    (
        "class A:\n    def __init_subclass__(cls):\n        pass",
        "defining '__init_subclass__' is not available here (classes here are made by",
    ),
    (
        "def __add__(a, b):\n    return 1",
        "defining '__add__' is not available here (special methods belong in a class body)",
    ),
    ("class A:\n    __dict__ = {}", "'__dict__' is not available here"),
    ("class A:\n    __module__ = 'torch'", "'__module__' is not available here"),
    (
        "class A:\n    def __index__(self):\n        return 1",
        "defining '__index__' is not available here (sizes and indices must be plain ints)",
    ),
    (
        "class A:\n    @property\n    def __array_interface__(self):\n        return {}",
        "defining '__array_interface__' is not available here",
    ),
    (
        "class A(metaclass=type):\n    pass",
        "class keywords (such as metaclass=) are not available here (line 1)",
    ),
    (
        "try:\n    pass\nexcept BaseException:\n    pass",
        "'BaseException' is not available here (catch Exception instead) (line 3)",
    ),
    ("class E(Exception):\n    pass\nE.mro()", "attribute 'mro' of class 'E' is not available"),
    (
        "while True:\n    try:\n        pass\n    finally:\n        continue",
        "'continue' inside 'finally' is not available here (line 5)",
    ),
    (
        "def f():\n    try:\n        pass\n    finally:\n        return 1\nf()",
        "'return' inside 'finally' is not available here (line 5)",
    ),
    (
        "for i in [1]:\n    try:\n        pass\n    finally:\n        if i:\n            break",
        "'break' inside 'finally' is not available here (line 6)",
    ),
    (
        "try:\n    pass\nfinally:\n    for i in x:\n        break",
        None,
    ),
    ("super = 1", "'super' cannot be reassigned here (line 1)"),
    ("f(__x=1)", "'__x' is not available here"),
    ("def f(__a):\n    pass", "'__a' is not available here"),
    ("x = [i async for i in y]", "'async for' is not available here"),
]


@pytest.mark.parametrize("source,message", REFUSED)
def test_refused_construct_names_itself(session, source, message):
    session.run_cell("keep = 41")
    result = session.run_cell(source)
    if message is None:  # allowed after all: a loop inside `finally` may break itself
        assert not result.output.startswith("gradshell: "), result.output
        return
    assert result.output.startswith("gradshell: "), result.output
    assert message in result.output
    assert result.output.count("\n") == 1  # one line
    assert result.error is not None
    # nothing ran and the session goes on with its variables
    assert session.run_cell("keep + 1").output == "42\n"


def test_refusal_happens_at_its_line_after_the_lines_before_it(session):
    result = session.run_cell("a = 1\nprint('ran')\nb = ().__mro__\nprint('not reached')")
    assert result.output == (
        "ran\ngradshell: attribute '__mro__' is not available here "
        "(it reaches into Python's interpreter, which learner code here cannot use) (line 3)\n"
    )
    assert session.namespace["a"] == 1 and "b" not in session.namespace


def test_class_of_an_object_is_type_of_it(session):
    # Dive into Deep Learning prints `layer.__class__.__name__`; it is `type(layer)`.
    out = session.run_cell("import torch\nx = torch.ones(1)\nprint(x.__class__.__name__)")
    assert out.output == "Tensor\n"
    assert session.run_cell("x.__class__ is type(x)").output == "True\n"
    assert "not available" in session.run_cell("x.__class__.__base__").output


def test_refusal_in_a_function_body_comes_when_that_line_runs(session):
    source = (
        "def f(flag):\n"
        "    print('start')\n"
        "    if flag:\n"
        "        return eval('1')\n"
        "    return 2\n"
        "print(f(False))\n"
        "print(f(True))\n"
    )
    result = session.run_script(source, "tutorial.py")
    assert result.output == ("start\n2\nstart\ngradshell: 'eval' is not available here (line 4)\n")


def test_checker_reports_every_problem_in_source_order():
    tree = ast.parse("ok = 1\neval('x')\n__import__('x')")
    refusals = check(tree)
    assert [r.lineno for r in refusals] == [2, 3]
    assert isinstance(tree.body[0], ast.Assign)  # allowed statements are kept as they are


def test_checker_leaves_allowed_code_alone():
    source = "import torch\ndef forward(ctx, input):\n    return input * 2\nx = input\n"
    tree = ast.parse(source)
    assert check(tree) == []
    assert ast.dump(tree) == ast.dump(ast.parse(source))


def test_deeply_nested_code_is_refused_not_crashing(session):
    source = "x = " + "(" * 200 + "1" + ")" * 200
    result = session.run_cell(source)
    assert result.error is not None or result.output == ""
    assert session.run_cell("1 + 1").output == "2\n"
    long_sum = "x = " + " + ".join(["1"] * 20000)
    result = session.run_cell(long_sum)
    assert session.run_cell("2 + 2").output == "4\n"


def test_dunder_file_is_read_as_python_reads_it(session):
    out = session.run_cell("print(__file__)").output
    # as in Python's REPL, suggestion included
    assert out.endswith("NameError: name '__file__' is not defined. Did you mean: '__name__'?\n")
    session.namespace["__file__"] = "tutorial.py"
    assert session.run_cell("__file__").output == "'tutorial.py'\n"


def test_name_dunder_name_is_readable_but_not_writable(session):
    assert session.run_cell("__name__").output == "'__main__'\n"
    assert "'__name__' is not available here" in session.run_cell("__name__ = 'x'").output


def test_except_keyboard_interrupt_stops_a_loop_early_as_tutorials_do(session):
    source = (
        "losses = []\ntry:\n    for step in range(5):\n        losses.append(step)\n"
        "        if step == 2:\n            raise KeyboardInterrupt\n"
        "except KeyboardInterrupt:\n    print('stopped early at', losses[-1])"
    )
    assert session.run_cell(source).output == "stopped early at 2\n"


def test_catching_keyboard_interrupt_does_not_catch_the_time_limit():
    from gradshell.shell.session import Session

    session = Session(viz=False, time_limit=0.5)
    out = session.run_cell(
        "while True:\n    try:\n        pass\n    except KeyboardInterrupt:\n        pass"
    ).output
    assert "time limit" in out
    assert session.run_cell("print(1)").output == "1\n"
