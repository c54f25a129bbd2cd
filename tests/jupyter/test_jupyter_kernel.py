"""The gradshell Jupyter kernel, driven as Jupyter drives it (jupyter_client, nbclient):
execute, display data, errors, interrupt, restart, completion, inspection, input, lessons,
and a notebook of a seed tutorial whose outputs equal the terminal's text."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel
from support.terminal_attacks import drives

from gradshell.jupyter.install import DISPLAY_NAME, install
from gradshell.jupyter.kernel import visual_bundle
from gradshell.jupyter.svg import ELEMENTS, SVG_NS
from gradshell.kernel.client import KernelSession
from gradshell.replay.matcher import compare
from gradshell.replay.parser import read_transcript
from gradshell.shell.files import PathPolicy

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "tests" / "transcripts" / "seed_003_modern.gsh"


@pytest.fixture(scope="module")
def jupyter_path(tmp_path_factory):
    """A private Jupyter data directory holding the gradshell kernelspec."""
    prefix = tmp_path_factory.mktemp("jupyter")
    where = install(prefix=str(prefix))
    saved = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = str(prefix / "share" / "jupyter")
    yield Path(where)
    if saved is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = saved


@pytest.fixture(scope="module")
def kernel(jupyter_path, tmp_path_factory):
    cwd = tmp_path_factory.mktemp("notebook-dir")
    km, kc = start_new_kernel(kernel_name="gradshell", startup_timeout=60, cwd=str(cwd))
    yield km, kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def run(kc, code: str, timeout: float = 60, **kwargs):
    """Execute a cell; (reply content, [(msg_type, content)] of its outputs)."""
    outputs = []
    reply = kc.execute_interactive(
        code, timeout=timeout, output_hook=lambda m: outputs.append(m), **kwargs
    )
    kept = [
        (m["msg_type"], m["content"])
        for m in outputs
        if m["msg_type"] in ("stream", "display_data", "execute_result", "error")
    ]
    return reply["content"], kept


def _replay(path: Path) -> subprocess.CompletedProcess:
    """`gradshell replay` of an executed notebook, run from its folder."""
    return subprocess.run(
        [sys.executable, "-m", "gradshell", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=path.parent,
    )


def stdout(outputs) -> str:
    return "".join(c["text"] for t, c in outputs if t == "stream" and c["name"] == "stdout")


def shown(outputs) -> str:
    """What the notebook shows as text, in order: printed text, the cell's result, its
    error's traceback."""
    parts = []
    for kind, content in outputs:
        if kind == "stream" and content["name"] == "stdout":
            parts.append(content["text"])
        elif kind == "execute_result":
            parts.append(content["data"]["text/plain"] + "\n")
        elif kind == "error":
            parts.append("\n".join(content["traceback"]) + "\n")
    return "".join(parts)


def test_kernelspec(jupyter_path):
    spec = json.loads((jupyter_path / "kernel.json").read_text())
    assert spec["display_name"] == DISPLAY_NAME == "gradshell (PyTorch autograd)"
    assert spec["argv"][1:3] == ["-m", "gradshell.jupyter"]


def test_install_command(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "gradshell", "kernel", "install", "--prefix", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "share/jupyter/kernels/gradshell/kernel.json").exists()


def test_execute_prints_pytorchs_text(kernel):
    _, kc = kernel
    reply, outputs = run(
        kc, "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\ny"
    )
    assert reply["status"] == "ok"
    assert shown(outputs) == "tensor(6., grad_fn=<SumBackward0>)\n"


def test_only_the_last_expression_is_shown(kernel):
    _, kc = kernel
    _, outputs = run(kc, "1 + 1\n2 + 2")
    assert shown(outputs) == "4\n"
    _, outputs = run(kc, "3 + 3;")
    assert shown(outputs) == ""


def test_accumulation_panel_is_html_display_data(kernel):
    _, kc = kernel
    run(kc, "w = torch.ones(2, requires_grad=True)\n(w * 2).sum().backward()")
    reply, outputs = run(kc, "(w * 2).sum().backward()")
    assert reply["status"] == "ok"
    shown = [c for t, c in outputs if t == "display_data"]
    assert shown, outputs
    data = shown[-1]["data"]
    assert "w.grad" in data["text/plain"]
    assert data["text/html"].startswith("<!DOCTYPE html>") or "<pre" in data["text/html"]
    assert "w.grad" in data["text/html"]


def test_errors_print_the_traceback_and_report_error(kernel):
    _, kc = kernel
    reply, outputs = run(kc, "1 / 0")
    assert reply["status"] == "error" and reply["ename"] == "ZeroDivisionError"
    assert shown(outputs).endswith("ZeroDivisionError: division by zero\n")


def test_magics_work(kernel):
    _, kc = kernel
    run(kc, "%style legacy")
    _, outputs = run(kc, "torch.ones(2)")
    assert shown(outputs).startswith("\n 1\n 1\n[torch.FloatTensor of size 2]")
    run(kc, "%style modern")


def test_completion_and_inspection(kernel):
    _, kc = kernel
    run(kc, "weights = torch.zeros(3)")
    matches = kc.complete("weig", 4, reply=True, timeout=30)["content"]["matches"]
    assert "weights" in matches
    matches = kc.complete("weights.zer", 11, reply=True, timeout=30)["content"]["matches"]
    assert "zero_" in matches
    found = kc.inspect("weights", 7, reply=True, timeout=30)["content"]
    assert found["found"] and "tensor([0., 0., 0.])" in found["data"]["text/plain"]
    _, outputs = run(kc, "weights?")
    assert "String form: tensor([0., 0., 0.])" in shown(outputs)


def test_input_asks_the_notebook(kernel):
    _, kc = kernel
    msg_id = kc.execute("n = int(input('n? '))\nn * 2", allow_stdin=True)
    request = kc.get_stdin_msg(timeout=30)
    assert request["msg_type"] == "input_request"
    kc.input("21")
    outputs = []
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            outputs.append(msg["content"]["text"])
        if msg["msg_type"] == "execute_result":
            outputs.append(msg["content"]["data"]["text/plain"] + "\n")
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    assert "".join(outputs).endswith("42\n")


def test_interrupt_stops_a_loop_and_keeps_variables(kernel):
    km, kc = kernel
    run(kc, "keep = 41")
    msg_id = kc.execute("while True:\n    pass\n")
    time.sleep(1.5)
    km.interrupt_kernel()
    reply = kc.get_shell_msg(timeout=30)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=30)
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    _, outputs = run(kc, "keep + 1")
    assert shown(outputs) == "42\n"


def test_lesson_in_the_notebook(kernel, tmp_path, monkeypatch):
    _, kc = kernel
    _, outputs = run(kc, "%learn 1")
    text = shown(outputs)
    assert "Lesson 1" in text and "requires_grad" in text
    _, outputs = run(kc, "hint")
    assert "Hint 1/" in shown(outputs)
    _, outputs = run(kc, "bye")
    assert "Progress saved" in shown(outputs) or "progress" in shown(outputs).lower()
    _, outputs = run(kc, "40 + 2")
    assert shown(outputs) == "42\n"


def test_restart_gives_a_fresh_session(jupyter_path, tmp_path):
    km, kc = start_new_kernel(kernel_name="gradshell", startup_timeout=60, cwd=str(tmp_path))
    try:
        run(kc, "gone = 1")
        km.restart_kernel(now=True)
        kc.wait_for_ready(timeout=60)
        reply, outputs = run(kc, "gone")
        assert reply["status"] == "error" and reply["ename"] == "NameError"
        _, outputs = run(kc, "import torch\ntorch.ones(1)")
        assert shown(outputs) == "tensor([1.])\n"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _seed_notebook() -> tuple[dict, list]:
    """The first sessions of seed 003 as notebooks' cells (one statement a cell)."""
    transcript = read_transcript(SEED)
    session = transcript.sessions[0]
    cells = [
        {
            "id": f"cell-{number}",
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": example.source,
        }
        for number, example in enumerate(session.examples)
    ]
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "gradshell", "display_name": DISPLAY_NAME}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return notebook, session.examples


def test_seed_notebook_outputs_equal_the_terminals_text(jupyter_path, tmp_path):
    import nbformat
    from nbclient import NotebookClient

    data, examples = _seed_notebook()
    notebook = nbformat.from_dict(data)
    NotebookClient(notebook, kernel_name="gradshell", timeout=120, allow_errors=True).execute(
        cwd=str(tmp_path)
    )
    from gradshell.replay.notebook import cell_output_text

    for cell, example in zip(notebook.cells, examples, strict=True):
        got = cell_output_text(cell.outputs)
        assert compare(example.want, got).ok, (example.source, example.want, got)
    path = tmp_path / "seed.ipynb"
    nbformat.write(notebook, str(path))
    # the executed notebook is a transcript: replaying it passes ...
    done = _replay(path)
    assert done.returncode == 0, done.stdout + done.stderr
    # ... and a changed output fails
    changed = json.loads(path.read_text())
    for cell in changed["cells"]:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "execute_result":
                plain = "".join(output["data"]["text/plain"])
                if "tensor" in plain:
                    output["data"]["text/plain"] = plain.replace("tensor", "tensr", 1)
                    break
        else:
            continue
        break
    path.write_text(json.dumps(changed))
    done = _replay(path)
    assert done.returncode == 1


def test_graph_is_drawn_inline_as_svg(jupyter_path, tmp_path):
    # A stand-in for Graphviz's dot: SVG naming what it was given.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "dot"
    fake.write_text(
        f"#!{sys.executable}\nimport sys\ntext = sys.stdin.read()\n"
        "print('<svg xmlns=\"http://www.w3.org/2000/svg\"><!--', len(text), '--></svg>')\n"
    )
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    km, kc = start_new_kernel(
        kernel_name="gradshell", startup_timeout=60, cwd=str(tmp_path), env=env
    )
    try:
        run(kc, "import torch\nx = torch.ones(2, requires_grad=True)\nout = (x * 2).sum()")
        reply, outputs = run(kc, "%graph out")
        assert reply["status"] == "ok"
        kinds = [list(c["data"]) for t, c in outputs if t == "display_data"]
        assert any("image/svg+xml" in k for k in kinds), kinds
        assert any("text/html" in k for k in kinds), kinds  # the text view too
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


class Markup(HTMLParser):
    """The tags, attributes and text of an HTML document, as a browser would read them."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_data(self, data):
        self.text.append(data)

    @property
    def shown(self) -> str:
        return "".join(self.text)


def only_styled_text(html: str) -> Markup:
    """`html`'s markup, checked to be rich's and no more: <pre> and <span> with inline
    styles that name no address; what the learner controls is all in its text."""
    markup = Markup(html)
    assert set(markup.tags) <= {"pre", "code", "span"}, markup.tags
    assert {name for name, _ in markup.attrs} <= {"style"}, markup.attrs
    for _, value in markup.attrs:
        assert not re.search(r"url|javascript|expression|[<>]", value or "", re.I), value
    assert drives(markup.shown) == []
    return markup


HOSTILE_NAMES = ("<img src=x onerror=alert(1)>", '<script>alert(2)</script>" onclick="x')


def test_learner_strings_reach_the_page_as_text(kernel):
    _, kc = kernel
    names = "\n".join(f"m.add_module({n!r}, torch.nn.Linear(1, 1))" for n in HOSTILE_NAMES)
    run(kc, f"import torch\nm = torch.nn.Module()\n{names}")
    run(kc, "out = sum(p.sum() for p in m.parameters())\nout.backward()")
    for cell in ("out.backward()", "%graph out"):
        reply, outputs = run(kc, cell)
        assert reply["status"] == "ok"
        pages = [c["data"] for t, c in outputs if t == "display_data"]
        assert pages, outputs
        for data in pages:
            page_text = only_styled_text(data["text/html"]).shown
            assert all(name in page_text for name in HOSTILE_NAMES), page_text
            assert all(name in data["text/plain"] for name in HOSTILE_NAMES)
    # a repr and an error message are the notebook's text, with their escapes shown
    run(
        kc, "class Evil:\n    def __repr__(self):\n        return '<img src=x>' + chr(27) + '[8m'\n"
    )
    reply, outputs = run(kc, "Evil()")
    assert shown(outputs) == "<img src=x>\\x1b[8m\n"
    assert [t for t, _ in outputs] == ["execute_result"]
    reply, outputs = run(
        kc, "raise ValueError('<script>alert(3)</script>' + chr(27) + ']0;t' + chr(7))"
    )
    assert reply["status"] == "error" and reply["ename"] == "ValueError"
    assert reply["evalue"] == "<script>alert(3)</script>\\x1b]0;t\\x07"
    assert drives(shown(outputs)) == []


def test_a_panel_forged_by_a_kernel_without_the_checker_is_text_in_the_page(tmp_path):
    """Learner code owning the kernel writes its own panel text: markup, a hyperlink whose
    address would close rich's attribute, hidden text. The page gets text, styled by the
    front end."""
    panel = (
        "<img src=x onerror=alert(1)>"
        '\x1b]8;;" onmouseover="alert(2)\x1b\\link\x1b]8;;\x1b\\'
        "\x1b[8m<script>alert(3)</script>\x1b[0m \x1b[1;36mw.grad\x1b[0m\n"
    )
    forge = (
        "import gc\nfrom gradshell.shell.session import Session\n"
        "s = [o for o in gc.get_objects() if isinstance(o, Session)][0]\n"
        f"s.show_visual({panel!r})\n"
    )
    hints = {"width": 100, "color": True}  # as the notebook asks
    with KernelSession(
        viz=True, checker=False, display_hints=hints, policy=PathPolicy(tmp_path)
    ) as k:
        result = k.run_cell(forge)
    assert result.error is None, result.output
    for text in (result.visual, panel):  # what the kernel sent, and the same unfiltered
        bundle = visual_bundle(text)
        markup = only_styled_text(bundle["text/html"])
        assert "<img src=x onerror=alert(1)>link<script>alert(3)</script> w.grad" in markup.shown
        assert "color" in " ".join(value or "" for _, value in markup.attrs)  # ours stay
        assert drives(bundle["text/plain"]) == []


def test_a_graphs_svg_keeps_no_script_or_link(jupyter_path, tmp_path):
    # A stand-in for Graphviz's dot that draws a hostile picture, as a forged DOT could.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "dot"
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'onload="alert(1)"><script>alert(2)</script><a xlink:href="javascript:alert(3)">'
        "<text>&lt;img src=x onerror=alert(4)&gt;</text></a></svg>"
    )
    fake.write_text(f"#!{sys.executable}\nimport sys\nsys.stdin.read()\nprint({svg!r})\n")
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    km, kc = start_new_kernel(
        kernel_name="gradshell", startup_timeout=60, cwd=str(tmp_path), env=env
    )
    try:
        run(kc, "import torch\nx = torch.ones(2, requires_grad=True)\nout = (x * 2).sum()")
        reply, outputs = run(kc, "%graph out")
        assert reply["status"] == "ok"
        drawn = [
            c["data"]["image/svg+xml"] for t, c in outputs if "image/svg+xml" in c.get("data", {})
        ]
        assert len(drawn) == 1, outputs
        root = ET.fromstring(drawn[0])
        assert {e.tag.removeprefix("{" + SVG_NS + "}") for e in root.iter()} <= ELEMENTS
        assert not root.attrib and "alert(1)" not in drawn[0] and "javascript" not in drawn[0]
        assert "&lt;img src=x onerror=alert(4)&gt;" in drawn[0]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_cells_value_is_its_execute_result(kernel):
    """`y` at a cell's end is Jupyter's execute_result (Out[n]), not printed text."""
    _, kc = kernel
    reply, outputs = run(kc, "import torch\nprint('printed')\ntorch.ones(2)")
    results = [c for t, c in outputs if t == "execute_result"]
    assert stdout(outputs) == "printed\n"
    assert [r["data"]["text/plain"] for r in results] == ["tensor([1., 1.])"]
    assert results[0]["execution_count"] == reply["execution_count"]


def test_an_error_is_jupyters_error_message_naming_the_cell(kernel):
    _, kc = kernel
    reply, outputs = run(kc, "a = 1\n1 / 0")
    errors = [c for t, c in outputs if t == "error"]
    assert len(errors) == 1 and stdout(outputs) == ""
    error = errors[0]
    assert error["ename"] == "ZeroDivisionError" and error["evalue"] == "division by zero"
    assert error["traceback"] == [
        "Traceback (most recent call last):",
        f"  Cell In[{reply['execution_count']}], line 2",
        "    1 / 0",
        "ZeroDivisionError: division by zero",
    ]
    assert reply["status"] == "error" and reply["traceback"] == error["traceback"]


def test_magic_lines_run_in_order_with_the_code_around_them(kernel):
    """IPython's cell rules: `%style legacy` on a cell's first line, then its code."""
    _, kc = kernel
    _, outputs = run(kc, "%style legacy\nv = torch.ones(2)\nv")
    assert shown(outputs).startswith("\n 1\n 1\n[torch.FloatTensor of size 2]")
    _, outputs = run(kc, "w2 = torch.ones(2)\n%style modern\nw2")
    assert shown(outputs) == "tensor([1., 1.])\n"


def test_input_shows_its_prompt_in_the_notebook(kernel):
    _, kc = kernel
    msg_id = kc.execute("name = input('your name? ')", allow_stdin=True)
    request = kc.get_stdin_msg(timeout=30)
    assert request["content"]["prompt"] == "your name? "
    kc.input("Ada")
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    _, outputs = run(kc, "name")
    assert shown(outputs) == "'Ada'\n"


def test_learn_in_the_notebook_shows_no_terminal_prompt_and_opens_a_lesson_from_the_menu(
    kernel,
):
    _, kc = kernel
    _, outputs = run(kc, "%learn")
    _, outputs = run(kc, "%learn 1")
    text = shown(outputs)
    assert "Lesson 1" in text and "There is no lesson" not in text
    assert ">>>" not in text.strip().splitlines()[-1]
    _, outputs = run(kc, "hint")
    assert ">>>" not in shown(outputs)
    run(kc, "bye")


TEACHERS_NOTEBOOK = [
    "import torch\nx = torch.ones(2, 2, requires_grad=True)\nout = ((x + 2) * (x + 2) * 3).mean()\nout",
    "%xmode explain\ny2 = x * 2\ny2.backward()",
    "out.backward(retain_graph=True)\nx.grad",
    "%explain out",
    "%graph out",
    "%ledger x",
    "x?",
    "%lang zh\nout.backward()",
    "%lang en\n1 / 0",
    "name = input('your name? ')",
    "%style legacy\nfrom torch.autograd import Variable\nv = Variable(torch.ones(2), requires_grad=True)\nv",
    "v * 2",
    "%style modern\nv.sum()",
]


def test_a_teachers_notebook_runs_and_replays_with_no_failure(jupyter_path, tmp_path):
    """Magics mixed into code cells, an error, an input() nobody answers, the legacy style
    from a later cell on: executed with nbclient, the notebook shows Jupyter's standard
    outputs, and `gradshell replay` of it passes every cell."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in TEACHERS_NOTEBOOK]
    NotebookClient(notebook, kernel_name="gradshell", timeout=120, allow_errors=True).execute(
        cwd=str(tmp_path)
    )
    kinds = [[output["output_type"] for output in cell.outputs] for cell in notebook.cells]
    assert kinds[0] == ["execute_result"]
    assert "error" in kinds[1] and "display_data" in kinds[1]  # the error, then its panel
    assert "error" in kinds[8]
    legacy = notebook.cells[10].outputs[-1]["data"]["text/plain"]
    assert legacy.startswith("Variable containing:")
    path = tmp_path / "teacher.ipynb"
    nbformat.write(notebook, str(path))
    done = _replay(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(TEACHERS_NOTEBOOK)} passed, 0 failed" in done.stdout
