"""The front end's KernelSession: learner code runs in a child process that can be
interrupted, killed and replaced without the session losing its variables."""

from __future__ import annotations

import io
import os
import signal
import threading
import time

import pytest

from gradshell.kernel.client import KernelSession
from gradshell.shell.files import PathPolicy


@pytest.fixture
def kernel(tmp_path):
    k = KernelSession(viz=False, time_limit=5, grace=1.0, policy=PathPolicy(tmp_path))
    yield k
    k.close()


def out(k: KernelSession, source: str) -> str:
    return k.run_cell(source).output


def test_code_runs_in_another_process(kernel):
    assert out(kernel, "import torch\nx = torch.ones(2, requires_grad=True)") == ""
    assert out(kernel, "(x * 3).sum().backward()\nx.grad") == "tensor([3., 3.])\n"
    assert kernel._proc is not None and kernel._proc.pid != os.getpid()
    assert kernel.execution_count == 2


def test_errors_come_back_as_text_and_a_type(kernel):
    r = kernel.run_cell("1 / 0")
    assert r.output.endswith("ZeroDivisionError: division by zero\n")
    assert r.error is not None and r.error.type_name == "ZeroDivisionError"
    assert out(kernel, "40 + 2") == "42\n"


def test_live_output_streams_to_the_front_end(tmp_path):
    stream = io.StringIO()
    with KernelSession(viz=False, stream=stream, policy=PathPolicy(tmp_path)) as k:
        r = k.run_cell("for i in range(3):\n    print(i)\n")
    assert stream.getvalue() == "0\n1\n2\n" == r.output


def test_statement_over_its_limit_is_stopped_by_the_kernel_itself(tmp_path):
    with KernelSession(viz=False, time_limit=0.5, policy=PathPolicy(tmp_path)) as k:
        out(k, "a = 1")
        r = k.run_cell("while True:\n    a = a + 0\n")
        assert "the time limit for one statement" in r.output
        assert k.restarts == 0
        assert out(k, "a") == "1\n"


def _kill_later(k: KernelSession, sig: int, delay: float) -> threading.Thread:
    def fire() -> None:
        time.sleep(delay)
        assert k._proc is not None
        os.kill(k._proc.pid, sig)

    thread = threading.Thread(target=fire)
    thread.start()
    return thread


def test_a_crashed_kernel_is_replaced_and_variables_come_back(kernel):
    out(kernel, "import torch")
    out(kernel, "w = torch.tensor([1., 2.], requires_grad=True)")
    out(kernel, "(w * w).sum().backward()")
    thread = _kill_later(kernel, signal.SIGSEGV, 0.5)
    r = kernel.run_cell("while True:\n    pass\n")
    thread.join()
    assert "crashed (segmentation fault)" in r.output
    assert "re-running the 3 earlier inputs that finished without an error" in r.output
    assert kernel.restarts == 1
    assert out(kernel, "w.grad") == "tensor([2., 4.])\n"


def test_a_kernel_killed_by_the_system_is_reported(kernel):
    out(kernel, "n = 7")
    thread = _kill_later(kernel, signal.SIGKILL, 0.5)
    r = kernel.run_cell("while True:\n    pass\n")
    thread.join()
    assert "was killed (out of memory?)" in r.output
    assert out(kernel, "n") == "7\n"


def test_native_code_that_ignores_the_limit_is_killed_after_the_grace(tmp_path):
    with KernelSession(viz=False, time_limit=0.3, grace=0.5, policy=PathPolicy(tmp_path)) as k:
        out(k, "import numpy as np\nkeep = 5")
        start = time.monotonic()
        r = k.run_cell(
            "m = np.random.rand(2500, 2500)\nfor i in range(50):\n    np.linalg.eig(m)\n"
        )
        took = time.monotonic() - start
        assert "did not stop within 0.5 s" in r.output or "time limit" in r.output
        assert took < 20
        assert out(k, "keep") == "5\n"


def test_interrupt_reaches_learner_code(kernel):
    out(kernel, "count = 0")
    timer = threading.Timer(0.5, kernel._signal, args=(signal.SIGINT,))
    timer.start()
    r = kernel.run_cell("while True:\n    count = count + 1\n")
    timer.join()
    assert r.output.endswith("KeyboardInterrupt\n")
    assert kernel.restarts == 0
    assert out(kernel, "count > 0") == "True\n"


def test_input_is_answered_by_the_front_end(kernel, monkeypatch):
    lines = iter(["3"])
    monkeypatch.setattr(kernel, "read_line", lambda: next(lines, None))
    r = kernel.run_cell("n = int(input('how many? '))\nn * 2")
    assert r.output == "6\n"
    r = kernel.run_cell("input()")
    assert r.output.endswith("EOFError: EOF when reading a line\n")


def test_file_magics_are_done_by_the_front_end_inside_the_session_dir(kernel, tmp_path):
    out(kernel, "x = 1")
    assert out(kernel, "%save s.gsh").startswith("saved ")
    assert ">>> x = 1\n" in (tmp_path / "s.gsh").read_text()
    refused = out(kernel, "%save /tmp/elsewhere.gsh")
    assert "outside the session directory" in refused
    assert "outside the session directory" in out(kernel, "%load /etc/passwd")


def test_completion_reads_the_kernels_namespace(kernel):
    out(kernel, "import torch\nweights = torch.ones(2)")
    names = [text for text, _, _ in kernel.complete("wei")]
    assert "weights" in names
    assert "zero_" in [text for text, _, _ in kernel.complete("weights.zer")]


def test_prompts_follow_the_kernel(tmp_path):
    with KernelSession(viz=False, prompt="ipython", policy=PathPolicy(tmp_path)) as k:
        assert k.ps1() == "In [1]: "
        k.run_cell("1")
        assert k.ps1() == "In [2]: "
        k.run_cell("%prompt python")
        assert k.ps1() == ">>> "


def test_sandbox_magic_lists_the_layers(kernel):
    text = out(kernel, "%sandbox")
    assert text.startswith("your code runs in a sandboxed kernel process:")
    assert kernel.layers


def test_memory_setting_parses_sizes():
    from gradshell.kernel.client import parse_size

    assert parse_size("2G") == 2 * 1024**3
    assert parse_size("512M") == 512 * 1024**2
    assert parse_size("1.5GiB") == int(1.5 * 1024**3)
    assert parse_size("1000") == 1000
    for bad in ("", "-1G", "lots"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_kernel_memory_cap_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADSHELL_KERNEL_MEMORY", "3G")
    with KernelSession(viz=False, policy=PathPolicy(tmp_path)) as k:
        assert k.memory_bytes == 3 * 1024**3
        text = k.run_cell("%sandbox").output
        assert "address space 3.0 GiB" in text or "address space 3 GiB" in text


def test_the_kernel_dies_with_its_front_end(tmp_path):
    import subprocess
    import sys

    front_end = (
        "import sys\n"
        "from pathlib import Path\n"
        "from gradshell.kernel.client import KernelSession\n"
        "from gradshell.shell.files import PathPolicy\n"
        f"k = KernelSession(viz=False, policy=PathPolicy(Path({str(tmp_path)!r})))\n"
        "k.wait_ready()\n"
        "print(k._proc.pid, flush=True)\n"
        "k.run_cell('while True:\\n    pass\\n')\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", front_end], stdout=subprocess.PIPE, text=True)
    kernel_pid = int(proc.stdout.readline())
    time.sleep(0.5)
    proc.kill()
    proc.wait()
    for _ in range(50):
        try:
            os.kill(kernel_pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(kernel_pid, signal.SIGKILL)
    raise AssertionError("the kernel outlived its front end")


def test_torch_save_and_load_stay_in_the_sessions_directories(kernel, tmp_path):
    out(kernel, "import torch\nw = torch.arange(3.)")
    assert out(kernel, "torch.save(w, 'w.pt')") == ""
    assert out(kernel, "torch.load('w.pt')") == "tensor([0., 1., 2.])\n"
    assert (kernel.writable_dir / "w.pt").exists()
    refused = out(kernel, "torch.save(w, '/tmp/elsewhere.pt')")
    assert "PermissionError" in refused and "outside the session directory" in refused
    assert not os.path.exists("/tmp/elsewhere.pt")


def test_torch_load_reads_the_session_directory(tmp_path):
    from gradshell import torch as gtorch

    gtorch.save(gtorch.ones(2), str(tmp_path / "given.pt"))
    with KernelSession(viz=False, policy=PathPolicy(tmp_path)) as k:
        assert out(k, "import torch\ntorch.load('given.pt')") == "tensor([1., 1.])\n"


def test_the_front_end_asks_before_replacing_a_file_the_kernels_save_names(tmp_path):
    """The question is the front end's: it owns the terminal, and the kernel's code
    cannot answer it."""
    (tmp_path / "mine.py").write_text("old\n")
    stream = io.StringIO()
    with KernelSession(
        viz=False, stream=stream, policy=PathPolicy(tmp_path), interactive=True
    ) as k:
        answers = iter(["n", "y"])
        k.read_line = lambda: next(answers)
        assert "was left as it is" in out(k, "%save mine.py")
        assert (tmp_path / "mine.py").read_text() == "old\n"
        assert out(k, "%save mine.py") == "saved 0 inputs to mine.py\n"
        assert (tmp_path / "mine.py").read_text().startswith("# A gradshell session")
        assert stream.getvalue().count("File `mine.py` exists") == 2
        k.read_line = lambda: pytest.fail("gradshell asked about its own file")
        assert out(k, "%save mine.py") == "saved 0 inputs to mine.py\n"


def test_without_a_terminal_a_file_is_replaced_only_with_force(kernel, tmp_path):
    (tmp_path / "mine.py").write_text("old\n")
    assert "add --force" in out(kernel, "%save mine.py")
    assert (tmp_path / "mine.py").read_text() == "old\n"
    assert out(kernel, "%save --force mine.py") == "saved 0 inputs to mine.py\n"


def test_force_counts_only_where_the_learner_typed_it(kernel, tmp_path):
    """A file %load runs is not the learner's typing: its --force is not honoured, nor
    one that code in the kernel forges on the wire."""
    (tmp_path / "mine.py").write_text("old\n")
    (tmp_path / "sent.txt").write_text("%save --force mine.py\n")
    out(kernel, "%load sent.txt")
    assert (tmp_path / "mine.py").read_text() == "old\n"
    reply = kernel._serve(
        {"type": "service", "op": "write_file", "path": "mine.py", "text": "forged", "force": True}
    )
    assert reply["ok"] is False and "add --force" in reply["error"]
    assert (tmp_path / "mine.py").read_text() == "old\n"


def test_torch_save_refuses_hidden_names_in_the_kernel(kernel, tmp_path):
    out(kernel, "import torch")
    for path in (".bashrc", "sub/../.profile", ".git/hooks/pre-commit"):
        refused = out(kernel, f"torch.save(torch.ones(1), {path!r})")
        assert "hidden files and folders" in refused, refused
        assert "hidden files and folders" in out(kernel, f"torch.load({path!r})")
    assert not (tmp_path / ".bashrc").exists() and not (kernel.writable_dir / ".bashrc").exists()


def test_a_workdir_given_is_the_kernels_writable_directory(tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    with KernelSession(viz=False, policy=PathPolicy(tmp_path), workdir=workdir) as k:
        assert k.writable_dir == workdir
        assert out(k, "import torch\ntorch.save(torch.ones(1), 'w.pt')") == ""
    assert (workdir / "w.pt").exists() and not (tmp_path / "w.pt").exists()
