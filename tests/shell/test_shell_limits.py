"""Resource guards: big integers, long sequences, huge arrays and tensors, format widths,
recursion, memory, time limit and Ctrl-C. Each leaves the session usable."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from gradshell.shell.errors import ResourceLimitError, StatementTimeout
from gradshell.shell.session import Session

REFUSED_WORK = [
    "10**10**10",
    "1 << 10**9",
    "str(10**100000)",
    "'x' * 10**10",
    "10**10 * 'x'",
    "[0] * 10**10",
    "(1,) * 10**9",
    "s = 'ab'\nfor i in range(64):\n    s = s + s",
    "s = 'ab'\nfor i in range(64):\n    s += s",
    "x = 3\nfor i in range(40):\n    x = x * x",
    "x = 3\nfor i in range(40):\n    x *= x",
    "pow(10, 10**8)",
    "'%0999999999d' % 1",
    "'{:>9999999999}'.format(1)",
    "f'{1:>9999999999}'",
    "format(1, '9999999999')",
    "'x'.center(10**10)",
    "'x'.ljust(10**10)",
    "'7'.zfill(10**10)",
    "('x' * 10**6).join(['a'] * 10**6)",
    "('x' * 10**4).replace('x', 'y' * 10**6)",
    "import math\nmath.factorial(10**7)",
    "import math\nmath.comb(10**7, 5 * 10**6)",
    "import random\nrandom.getrandbits(10**9)",
    "import numpy as np\nnp.zeros((10**6, 10**6))",
    "import numpy as np\nnp.ones(10**12)",
    "import numpy as np\nnp.arange(10**12)",
    "import numpy as np\nnp.random.randn(10**6, 10**6)",
    "import numpy as np\nnp.linspace(0, 1, 10**12)",
    "import numpy as np\nnp.eye(10**6)",
    "import numpy as np\na = np.ones(10**5)\nb = a[:, None] * a",
    "import numpy as np\na = np.ones(10**5)\nnp.outer(a, a)",
    "import numpy as np\nnp.random.default_rng(0).normal(size=10**12)",
    "import numpy as np\nnp.array(range(10**12))",
    # what is materialised, not what the arguments look like
    "import torch\nx = torch.ones(1, 1).expand(10**5, 10**5)\ny = x.contiguous()",
    "import torch\nx = torch.ones(1, 1).expand(10**5, 10**5)\ny = x.clone()",
    "import torch\nx = torch.ones(1, 1).expand(10**5, 10**5)\ny = x + 1",
    "import torch\na = torch.ones(10**5, 1)\nb = a * a.t()",
    "import torch\na = torch.ones(10**5, 1)\nb = a @ a.t()",
    "import torch\na = torch.ones(10**5)\nb = torch.outer(a, a)",
    "import torch\na = torch.ones(10**5)\nb = a.outer(a)",
    "import torch\nc = torch.ones(10**5, 1)\nd = torch.matmul(c, c.t())",
    "import torch\nc = torch.ones(10**5, 1)\nd = c.mm(c.t())",
    "import torch\nc = torch.ones(10**5, 1)\nd = torch.Tensor.mm(c, c.t())",
    "import torch\na = torch.ones(10**5)\nb = a.repeat(10**5)",
    "import torch\na = torch.ones(10**5)\nb = torch.cat([a] * 10**4)",
    "import torch\na = torch.ones(10**5)\nb = torch.stack([a] * 10**4)",
    "import torch\nbig = torch.ones(1, 1).expand(10**5, 10**5)\nb = torch.add(big, 1)",
    "import torch\nbig = torch.ones(1, 1).expand(10**5, 10**5)\nb = torch.zeros_like(big)",
    "import torch\np = torch.nn.Parameter(torch.ones(10**5))\nb = p.outer(p)",
    "import torch\na = torch.ones(10**5)\nb = list(map(torch.outer, [a], [a]))",
    "from torch import outer, ones\na = ones(10**5)\nb = outer(a, a)",
    "import numpy as np\nnp.zeros(10, dtype=(float, (10**8,)))",
    "import numpy as np\nnp.ones(3).astype((float, (10**8,)))",
    "import numpy as np\nnp.array([1, 2], dtype='(100000000,)f8')",
    "import numpy as np\nnp.full(4, 0.0, (np.float32, (10**4, 10**4)))",
    "[*range(10**9)]",
    "{*range(10**9)}",
    "(*range(10**9),)",
    "print(*range(10**9))",
    "import itertools\nlist(itertools.repeat(0, 10**9))",
    "import numpy as np\na = np.array([2], dtype=object)\na ** 10**7",
    "import numpy as np\na = np.array([2**50000], dtype=object)\na * a * a",
    "import numpy as np\na = np.array([3], dtype=object)\na << 10**7",
    "import numpy as np\nnp.power(np.array([2], dtype=object), 10**7)",
    "import numpy as np\nnp.multiply.reduce(np.array([2**1000] * 1000, dtype=object))",
    "import numpy as np\na = np.array([2**1000] * 1000, dtype=object)\na.prod()",
    "import numpy as np\nnp.prod(np.array([2**1000] * 1000, dtype=object))",
    "import torch\ntorch.set_printoptions(precision=10**6)",
    "import numpy as np\nnp.set_printoptions(precision=10**6)",
]


@pytest.mark.parametrize("source", REFUSED_WORK)
def test_big_work_is_refused_before_it_starts(source):
    session = Session(viz=False)
    session.run_cell("keep = 41")
    start = time.perf_counter()
    result = session.run_cell(source)
    assert time.perf_counter() - start < 5
    assert isinstance(result.error, ResourceLimitError), result.output
    assert result.output.startswith("gradshell: ")
    assert "over the limit" in result.output
    assert session.run_cell("keep + 1").output == "42\n"


def test_expanded_views_are_fine_until_materialised(session):
    source = (
        "import torch\n"
        "big = torch.ones(1, 1).expand(10**5, 10**5)\n"
        "print(big.shape, big.size(0), big.dim(), big[0, :2], big.t().shape)\n"
    )
    out = session.run_cell(source).output
    assert out == (
        "torch.Size([100000, 100000]) 100000 2 tensor([1., 1.]) torch.Size([100000, 100000])\n"
    )
    out = session.run_cell("big.sum()").output
    assert out.startswith("gradshell: 'sum' of this expanded view would have about ")


def test_power_towers_of_object_arrays_are_refused(session):
    out = session.run_cell(
        "import numpy as np\nnp.power.reduce(np.array([2, 2, 2, 2, 2, 2], dtype=object))"
    ).output
    assert out.startswith(
        "gradshell: this NumPy operation on an object array of Python ints is not available"
    )
    assert session.run_cell("np.power.reduce(np.array([2, 3]))").output == "np.int64(8)\n"


def test_counts_and_shapes_are_read_once(session):
    """A learner object's `__len__`/`__getitem__` cannot answer differently between the
    check and the allocation: the shell reads it once and uses what it read."""
    source = (
        "import numpy as np\n"
        "class Dims:\n"
        "    calls = 0\n"
        "    def __iter__(self):\n"
        "        Dims.calls += 1\n"
        "        n = 2 if Dims.calls == 1 else 10**6\n"
        "        return iter([n, n])\n"
        "print(np.zeros(Dims()).shape, Dims.calls)\n"
        "class Seq:\n"
        "    asked = 0\n"
        "    def __len__(self):\n"
        "        Seq.asked += 1\n"
        "        return 10**12\n"
        "    def __iter__(self):\n"
        "        return iter([1, 2])\n"
        "print(list(Seq()), [*Seq()], tuple(Seq()), Seq.asked)\n"
        "import torch\n"
        "x = torch.ones(1, 1)\n"
        "Dims.calls = 0\n"
        "print(x.repeat(Dims()).shape, Dims.calls)\n"
        "class Tensors:\n"
        "    calls = 0\n"
        "    def __iter__(self):\n"
        "        Tensors.calls += 1\n"
        "        return iter([x] * (2 if Tensors.calls == 1 else 10**6))\n"
        "print(torch.cat(Tensors()).shape, Tensors.calls)\n"
    )
    result = session.run_cell(source)
    assert result.output == (
        "(2, 2) 1\n[1, 2] [1, 2] (1, 2) 0\ntorch.Size([2, 2]) 1\ntorch.Size([2, 1]) 1\n"
    ), result.output


def test_limits_do_not_get_in_the_way_of_normal_work(session):
    source = (
        "import math\nimport numpy as np\n"
        "print(2**100 > 0, len('ab' * 1000), math.factorial(20), len([0] * 10**6))\n"
        "print(np.zeros((100, 100)).sum(), len('x'.center(50)), f'{3.14159:10.3f}')"
    )
    result = session.run_cell(source)
    assert result.error is None, result.output
    assert result.output == "True 2000 2432902008176640000 1000000\n0.0 50      3.142\n"


def test_huge_tensor_is_refused_with_a_clear_error(session):
    session.run_cell("import torch\nkeep = torch.ones(2)")
    result = session.run_cell("torch.ones(10**6, 10**6)")
    assert result.error is not None
    assert "1,000,000,000,000 elements" in result.output
    assert "tensor([2., 2.])" in session.run_cell("keep * 2").output


def test_max_elements_is_configurable():
    session = Session(viz=False, max_elements=1000)
    result = session.run_cell("import numpy as np\nnp.zeros(2000)")
    assert isinstance(result.error, ResourceLimitError)
    assert session.run_cell("np.zeros(999).shape").output == "(999,)\n"


UNPACKED_TOGETHER = [
    "[*x, *x]",
    "(*x, *y)",
    "{*x, *y}",
    "f(*x, *y)",
    "[*x, 0]",
    "f(0, *x)",
    "[*x] * 2",
    "{**a, **b}",
    "{**a, 'k': 0, **b}",
    "f(**a, **b)",
    "dict(**a, **b)",
    "build(1)",
]


def test_several_unpackings_in_one_display_or_call_count_together():
    """`[*x, *x]` is twice as long as `x`: each unpacking alone is under the limit,
    together they are not. The count runs as Python unpacks, item after item (the
    second `*x` is refused once the first is in), and a recursive call's own display
    keeps its own count."""
    session = Session(viz=False, max_elements=1000)
    setup = session.run_cell(
        "x = [0] * 1000\ny = list(range(1000))\n"
        "a = {str(i): i for i in range(600)}\nb = {str(-i): i for i in range(1, 600)}\n"
        "def f(*args, **kwargs):\n    return len(args) + len(kwargs)\n"
        "def build(n):\n    return [*x[:600], *(build(n - 1)[:500] if n else [])]\n"
    )
    assert setup.error is None, setup.output
    for source in UNPACKED_TOGETHER:
        result = session.run_cell(source)
        assert isinstance(result.error, ResourceLimitError), (source, result.output)
        assert "over the limit of 1,000 elements" in result.output, source
    allowed = {
        "len([*x[:500], *y[:500]])": "1000\n",
        "f(*x[:400], *y[:400], 1)": "801\n",
        "len({**a, 'k': 0})": "601\n",
        "len(build(0))": "600\n",
        "[*x] * 0": "[]\n",
    }
    for source, shown in allowed.items():
        assert session.run_cell(source).output == shown, source


def test_tensor_limit_follows_the_session():
    session = Session(viz=False, max_elements=1000)
    result = session.run_cell("import torch\nt = torch.zeros(2000)")
    assert result.error is not None and "over the limit" in result.output
    other = Session(viz=False)
    assert other.run_cell("import torch\ntorch.zeros(2000).shape").output == "torch.Size([2000])\n"


def test_recursion_error_is_caught(session):
    session.run_cell("def f(n):\n    return f(n + 1)\n")
    result = session.run_cell("f(0)")
    assert isinstance(result.error, RecursionError)
    assert "RecursionError: maximum recursion depth exceeded" in result.output
    assert "[Previous line repeated" in result.output
    assert session.run_cell("1 + 1").output == "2\n"


def test_memory_error_is_caught(session):
    session.run_cell("keep = 41")
    session.namespace["boom"] = _raiser(MemoryError)
    result = session.run_cell("boom()")
    assert isinstance(result.error, MemoryError)
    assert result.output.rstrip().endswith("MemoryError")
    assert session.run_cell("keep + 1").output == "42\n"


def _raiser(exc_type):
    from gradshell.shell import policy

    def boom():
        raise exc_type()

    return policy.expose(boom)


def test_time_limit_stops_a_runaway_statement():
    session = Session(viz=False, time_limit=0.5)
    session.run_cell("keep = 41")
    start = time.perf_counter()
    result = session.run_cell("while True:\n    pass")
    assert time.perf_counter() - start < 5
    assert isinstance(result.error, StatementTimeout)
    assert result.output in {
        f"gradshell: stopped after 0.5 s, the time limit for one statement (line {n})\n"
        for n in (1, 2)
    }
    assert session.run_cell("keep + 1").output == "42\n"


def test_time_limit_cannot_be_swallowed():
    session = Session(viz=False, time_limit=0.5)
    source = "while True:\n    try:\n        while True:\n            pass\n    except Exception:\n        pass"
    start = time.perf_counter()
    result = session.run_cell(source)
    assert time.perf_counter() - start < 5
    assert isinstance(result.error, StatementTimeout)
    source = "while True:\n    try:\n        pass\n    except:\n        pass"
    result = session.run_cell(source)
    assert isinstance(result.error, StatementTimeout)


def test_time_limit_off_thread():
    session = Session(viz=False, time_limit=0.5)
    box = {}

    def work():
        box["result"] = session.run_cell("while True:\n    pass")

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(10)
    assert not thread.is_alive()
    assert isinstance(box["result"].error, StatementTimeout)


def test_keyboard_interrupt_stops_a_loop_and_keeps_the_session(session):
    session.run_cell("keep = 41")
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    result = session.run_cell("while True:\n    pass")
    timer.join()
    assert isinstance(result.error, KeyboardInterrupt)
    assert result.output.endswith("KeyboardInterrupt\n")
    assert 'File "<stdin>", line' in result.output
    assert session.run_cell("keep + 1").output == "42\n"


def test_keyboard_interrupt_is_not_swallowed_by_except_exception(session):
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    source = "while True:\n    try:\n        pass\n    except:\n        pass"
    result = session.run_cell(source)
    timer.join()
    assert isinstance(result.error, KeyboardInterrupt)


def test_source_too_long_is_refused(session):
    result = session.run_cell("x = 1\n" * 200_000)
    assert result.output.startswith("gradshell: this input is too long")
