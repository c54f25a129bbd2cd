"""Real tutorial code runs: the constructs that official PyTorch tutorials and D2L write
(`input` as a name, `torch.__version__`, `self._modules`, `from __future__ import ...`,
`import os`/`time`/`collections`, `ndarray.astype`) run through `Session.run_script` and
`Session.run_cell` and print what Python with real PyTorch prints; a module that is not
there fails at its line, after the lines before it ran, as in Python."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import textwrap

import pytest
from support import oracle

from gradshell.shell.session import Session

LEGENDRE = """
from __future__ import print_function
import torch
import math
print(torch.__version__)


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 5, dtype=dtype)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
P3 = LegendrePolynomial3.apply
y_pred = a + b * P3(x)
loss = (y_pred - torch.sin(x)).pow(2).sum()
loss.backward()
print(a.grad, b.grad)
"""

MODULES = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(3, 2)
        self._hidden_size = 2

    def forward(self, input):
        return torch.relu(self.fc1(input))

    def _describe(self):
        return f"{self._get_name()} with {len(self._modules)} module(s)"


net = Net()
print(list(net._modules.keys()), list(net._parameters.keys()), net._hidden_size)
for name, module in net._modules.items():
    print(name, module)
print(net._describe(), torch.ones(2)._version, getattr(net, "fc1").out_features)
setattr(net, "scale", 2.0)
print(net.scale, hasattr(net, "_modules"))
input = torch.ones(1, 3)
print(net(input).shape)
"""

D2L = """
import collections
import functools
import itertools
import os
import sys
import time
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import numpy as np
import torch
from torch import nn


class Timer:
    \"\"\"Record multiple running times.\"\"\"

    def __init__(self):
        self.times = []
        self.start()

    def start(self):
        self.tik = time.time()

    def stop(self):
        self.times.append(time.time() - self.tik)
        return self.times[-1]


@dataclass
class Config:
    lr: float = 0.1
    num_epochs: int = 3
    layers: List[int] = field(default_factory=lambda: [4, 8])


def synthetic_data(w: torch.Tensor, b: float, n: int) -> Tuple[torch.Tensor, torch.Tensor]:
    X = torch.normal(0, 1, (n, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


@functools.lru_cache(maxsize=None)
def fib(n: int) -> int:
    return n if n < 2 else fib(n - 1) + fib(n - 2)


torch.manual_seed(0)
timer = Timer()
print(Config())
features, labels = synthetic_data(torch.tensor([2, -3.4]), 4.2, 10)
print(features.shape, labels.shape)
counter = collections.Counter("the time machine by h g wells the end".split())
print(counter.most_common(2))
print(list(itertools.islice(itertools.count(1), 3)), fib(30))
print(os.path.join("..", "data", "timemachine.txt"), os.path.basename("/a/b.txt"))
net = nn.Sequential(nn.Linear(2, 1))
print(net[0].weight.data.shape, type(net._modules).__name__)
sys.stdout.write("epoch 1, loss %.3f\\n" % 0.25)
print(f"{len(timer.times) + 1} timing(s), non-negative: {timer.stop() >= 0}")
arr = np.arange(6).reshape(2, 3).astype(np.float32)
print(arr.dtype, torch.from_numpy(arr).dtype)
Point = collections.namedtuple("Point", ["x", "y"])
p = Point(1, 2)
print(p, p.x + p.y, p._asdict())
window = collections.deque(maxlen=2)
for i in range(4):
    window.append(i)
print(window, Optional[int], [*range(3)])
"""

# The "Neural Networks" tutorial: `def forward(self, input)`, `input = torch.randn(...)`.
NEURAL_NETWORKS = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):

    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        output = self.fc3(f6)
        return output


torch.manual_seed(0)
net = Net()
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())
input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out.shape)
net.zero_grad()
out.backward(torch.randn(1, 10))
output = net(input)
target = torch.randn(10)
target = target.view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss.grad_fn)
print(loss.grad_fn.next_functions[0][0])
import torch.optim as optim
optimizer = optim.SGD(net.parameters(), lr=0.01)
optimizer.zero_grad()
output = net(input)
loss = criterion(output, target)
loss.backward()
optimizer.step()
print(sorted(net._modules), net.conv1._parameters['weight'].shape)
"""

# "Learning PyTorch with Examples": NumPy warm-up, nn.Sequential, optim, dynamic graphs.
WITH_EXAMPLES = """
import numpy as np
import math
import random
import torch

# numpy warm-up
x = np.linspace(-math.pi, math.pi, 500)
y = np.sin(x)
a, b, c, d = np.random.randn(), np.random.randn(), np.random.randn(), np.random.randn()
learning_rate = 1e-6
for t in range(50):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = np.square(y_pred - y).sum()
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
print(type(loss).__name__)

dtype = torch.float
device = torch.device("cpu")
torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
loss_fn = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(100):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 50 == 49:
        print(t, round(loss.item(), 1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.3f} + {linear_layer.weight[:, 0].item():.3f} x')


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        y = self.a + x
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return f'y = {self.a.item():.1f} + ...'


random.seed(0)
m = DynamicNet()
print(m(torch.ones(3)).shape, len(list(m.parameters())), type(m).__name__)
"""

MISSING_MODULE = """
import torch
print("before", torch.ones(2).sum().item())
import matplotlib.pyplot as plt
print("after")
"""

PROGRAMS = {
    "legendre": LEGENDRE,
    "modules": MODULES,
    "d2l": D2L,
    "neural-networks": NEURAL_NETWORKS,
    "with-examples": WITH_EXAMPLES,
}
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _python(source: str, tmp_path) -> subprocess.CompletedProcess:
    """Run `source` as a script with real Python and real PyTorch."""
    script = tmp_path / "tutorial.py"
    script.write_text(source)
    env = {**os.environ, "PYTHONHASHSEED": "0"}

    def run(_torch) -> tuple:
        done = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            cwd=tmp_path,
            env=env,
            timeout=120,
        )
        # the temporary folder's name (in tracebacks) varies from run to run: not recorded
        folder = str(tmp_path)
        return done.returncode, done.stdout, done.stderr.replace(folder, "{tmp}")

    # recorded whole where PyTorch is not installed (support.oracle)
    what = f"python {hashlib.sha256(source.encode()).hexdigest()[:16]}"
    code, out, err = oracle.computed(what, run, oracle.torch())
    return subprocess.CompletedProcess([sys.executable, str(script)], code, out, err)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tutorial_script_prints_what_pytorch_prints(name, real_torch, tmp_path):
    source = PROGRAMS[name]
    real = _python(source, tmp_path)
    assert real.returncode == 0, real.stderr
    result = Session(viz=False).run_script(source, "tutorial.py")
    assert result.error is None, result.output
    assert ADDRESS.sub("0x…", result.output) == ADDRESS.sub("0x…", real.stdout)


def test_missing_module_fails_at_its_line_after_earlier_lines(real_torch, tmp_path):
    real = _python(MISSING_MODULE, tmp_path)
    result = Session(viz=False).run_script(MISSING_MODULE, "tutorial.py")
    assert isinstance(result.error, ModuleNotFoundError)
    assert result.output.startswith(real.stdout) and real.stdout == "before 2.0\n"
    error = result.output[len(real.stdout) :]
    assert error == (
        "Traceback (most recent call last):\n"
        '  File "tutorial.py", line 4, in <module>\n'
        "    import matplotlib.pyplot as plt\n"
        "ModuleNotFoundError: No module named 'matplotlib'\n"
    )
    assert real.stderr.endswith(error.splitlines()[-1] + "\n")


@pytest.mark.parametrize(
    "line,missing",
    [
        ("import torchvision", "torchvision"),
        ("from torchvision import datasets", "torchvision"),
        ("import matplotlib.pyplot as plt", "matplotlib"),
        ("import torch.no_such_part", "torch.no_such_part"),
    ],
)
def test_modules_that_are_not_there_raise_module_not_found(session, line, missing):
    result = session.run_cell(f"print('first')\n{line}")
    assert result.output.startswith("first\nTraceback (most recent call last):\n")
    assert result.output.endswith(f"ModuleNotFoundError: No module named '{missing}'\n")


def test_repl_shows_torch_version_as_pytorch_does(session):
    assert session.run_cell("import torch\ntorch.__version__").output == "'2.13.0+cpu'\n"
    assert session.run_cell("torch.__name__, torch.nn.__name__").output == (
        "('torch', 'torch.nn')\n"
    )
    assert session.run_cell("import numpy as np\nnp.__version__ > '1'").output == "True\n"


def test_repl_cells_with_future_imports_and_input_as_a_name(session):
    assert session.run_cell("from __future__ import print_function, division").output == ""
    assert session.run_cell("print(7 / 2)").output == "3.5\n"
    source = "import torch\ninput = torch.ones(2)\ndef f(input):\n    return input * 2\nf(input)"
    assert session.run_cell(source).output == "tensor([2., 2.])\n"


def test_future_annotations_keep_annotations_as_text(session):
    source = textwrap.dedent(
        """
        from __future__ import annotations

        class Node:
            def child(self) -> Node:
                return self

        value: Undefined = 3
        print(type(Node().child()).__name__, value)
        """
    )
    result = session.run_script(source, "t.py")
    assert result.output == "Node 3\n"  # no NameError for names that do not exist yet


def test_future_braces_is_python_syntax_error(session):
    result = session.run_cell("print('never')\nfrom __future__ import braces")
    assert isinstance(result.error, SyntaxError)
    assert result.output.endswith("SyntaxError: not a chance\n")


def test_builtin_input_ends_as_python_does_at_end_of_input(real_torch, tmp_path):
    source = "print('Hello')\nname = input('Your name: ')\nprint(name)\n"
    real = _python(source, tmp_path)
    result = Session(viz=False).run_script(source, "tutorial.py")
    assert isinstance(result.error, EOFError)
    assert result.output.startswith(real.stdout) and real.stdout == "Hello\nYour name: "
    assert result.output.endswith("EOFError: EOF when reading a line\n")
    assert real.stderr.endswith("EOFError: EOF when reading a line\n")


def test_builtin_input_asks_the_sessions_read_input(session):
    prompts = []

    def read_input(prompt):
        prompts.append(prompt)
        return "Ada"

    session.read_input = read_input
    result = session.run_cell("name = input('Your name: ')\nprint('Hello', name)")
    assert result.output == "Hello Ada\n" and prompts == ["Your name: "]


def test_refused_line_raises_after_the_lines_before_it(session):
    source = "print('step 1')\nimport subprocess\nprint('step 2')\n"
    result = session.run_script(source, "tutorial.py")
    assert result.output == (
        "step 1\ngradshell: import of 'subprocess' is not available here "
        "(programs cannot be started from here) (line 2)\n"
    )


def test_multiprocessing_is_refused_with_a_reason(session):
    out = session.run_cell("import multiprocessing").output
    assert out == (
        "gradshell: import of 'multiprocessing' is not available here (processes cannot "
        "be started from here; threading offers threads) (line 1)\n"
    )


def test_stdlib_views_name_what_they_do_not_offer(session):
    assert session.run_cell("import time\ntime.sleep(0)\nprint('ok')").output == "ok\n"
    out = session.run_cell("import sys\nsys.modules").output
    assert out.startswith("gradshell: 'sys.modules' is not available here (gradshell's sys")
    out = session.run_cell("from os import system").output
    assert out.startswith("gradshell: 'os.system' is not available here")
    out = session.run_cell("from os import nothing_here").output
    assert out.endswith("ImportError: cannot import name 'nothing_here' from 'os'\n")


def test_learner_private_names_work_but_shell_names_do_not(session):
    source = (
        "class Box:\n"
        "    def __init__(self):\n"
        "        self._items = []\n"
        "    def _add(self, x):\n"
        "        self._items.append(x)\n"
        "        return self\n"
        "_b = Box()._add(1)._add(2)\n"
        "print(_b._items)\n"
    )
    assert session.run_cell(source).output == "[1, 2]\n"
    out = session.run_cell("_gs_ga = None").output
    assert out.startswith("gradshell: '_gs_ga' is the shell's own name")
