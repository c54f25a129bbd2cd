"""The gradshell Jupyter kernel: notebooks talk to it, it talks to a sandboxed kernel.

Built on ipykernel's wrapper-kernel base (`ipykernel.kernelbase.Kernel`): Jupyter's
messaging, interrupts, restarts and input requests come from there. The learner's code
never runs in this process; each cell goes to a `KernelSession` (the same sandboxed
child process the terminal uses). What the code prints comes back as `stdout` stream
text, byte for byte what the terminal shows; the visual channel (accumulation panels,
`%explain`, `%graph`) comes back as display data, rich HTML with a plain-text fallback.

Nothing the learner's code controls reaches the notebook's page as markup: the text
shown has no escape codes (`gradshell.shell.terminal_text`), the panels' HTML is rich's,
which escapes the text, coloured only in the styles the front end keeps
(`gradshell.shell.restyle`), and a graph's SVG keeps only Graphviz's shapes and text
(`gradshell.jupyter.svg`).

`%learn [LESSON]` turns the following cells into a lesson's inputs (the lesson runs in
the sandboxed kernel and saves progress per user, as `gradshell learn` does) until the
learner types `bye` or the lesson ends.
"""

from __future__ import annotations

import io
import re
from typing import Any

from ipykernel.kernelbase import Kernel

import gradshell
from gradshell.shell.restyle import restyle
from gradshell.shell.terminal_text import visible

#: Columns the panels are drawn at in a notebook.
NOTEBOOK_WIDTH = 100

_LEARN = re.compile(r"^\s*%learn(?:\s+(\S+))?\s*$")


class _IOPubText(io.TextIOBase):
    """A text stream that publishes what is written as a Jupyter stream message."""

    def __init__(self, kernel: GradshellKernel, name: str) -> None:
        self.kernel = kernel
        self.name = name

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            self.kernel.publish_stream(self.name, text)
        return len(text)


def visual_bundle(text: str, width: int = NOTEBOOK_WIDTH) -> dict[str, str]:
    """A display-data bundle for visual-channel text with ANSI colours: HTML (colours
    kept, as rich renders them) and plain text."""
    from rich.console import Console
    from rich.text import Text

    # Only the colours the front end keeps (no hyperlinks: rich's HTML would put their
    # address in an attribute unescaped), and no control characters.
    rich_text = Text.from_ansi(restyle(text.rstrip("\n"), color=True))
    console = Console(
        record=True, file=io.StringIO(), width=width, force_terminal=True, color_system="truecolor"
    )
    console.print(rich_text)
    html = console.export_html(
        inline_styles=True,
        code_format="<pre style=\"font-family:Menlo,'DejaVu Sans Mono',consolas,monospace;"
        'line-height:1.2">{code}</pre>',
    )
    return {"text/html": html, "text/plain": rich_text.plain + "\n"}


class GradshellKernel(Kernel):
    """A Jupyter kernel running PyTorch-style code in gradshell's sandboxed kernel."""

    implementation = "gradshell"
    implementation_version = gradshell.__version__
    language = "python"
    language_version = "3"
    language_info = {
        "name": "python",
        "mimetype": "text/x-python",
        "file_extension": ".py",
        "pygments_lexer": "ipython3",
        "codemirror_mode": {"name": "ipython", "version": 3},
    }
    banner = f"gradshell {gradshell.__version__} - PyTorch autograd, shown step by step"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shell: Any = None
        self._tutor: Any = None
        self._parent_for_output: Any = None

    # -- the sandboxed kernel -------------------------------------------------------------
    @property
    def learner(self) -> Any:
        """The learner's sandboxed session (started on first use)."""
        if self._shell is None:
            from gradshell.kernel.client import KernelSession

            self._shell = KernelSession(
                prompt="jupyter",
                viz=True,
                stream=_IOPubText(self, "stdout"),
                error_stream=_IOPubText(self, "stderr"),
                display_hints={"width": NOTEBOOK_WIDTH, "color": True},
                on_graph=self.publish_graph,
            )
            self._shell.ask_line = self._ask_line
        return self._shell

    def _ask_line(self, prompt: str) -> str | None:
        """A line for the learner's `input(prompt)`, through Jupyter's stdin channel:
        the notebook shows the prompt beside its input box, as IPython's kernel does."""
        try:
            return self.raw_input(visible(prompt))
        except Exception:  # StdinNotImplementedError: the front end cannot ask
            return None

    def publish_stream(self, name: str, text: str) -> None:
        """Send text to the notebook as stdout/stderr output."""
        self.send_response(self.iopub_socket, "stream", {"name": name, "text": text})

    def publish_visual(self, text: str) -> None:
        """Send visual-channel text as display data (HTML and plain text)."""
        if not text.strip():
            return
        self.send_response(
            self.iopub_socket, "display_data", {"data": visual_bundle(text), "metadata": {}}
        )

    def publish_graph(self, dot_text: str) -> None:
        """Draw a %graph as SVG under the cell, when Graphviz is installed."""
        from xml.etree.ElementTree import ParseError

        from gradshell.jupyter.svg import clean_svg
        from gradshell.shell.files import FileAccessError, render_svg

        try:
            svg = clean_svg(render_svg(dot_text))
        except (FileAccessError, ParseError, ValueError):
            return  # no Graphviz (or no picture): the HTML text view is what it shows
        self.send_response(
            self.iopub_socket,
            "display_data",
            {"data": {"image/svg+xml": svg, "text/plain": "<grad_fn graph>"}, "metadata": {}},
        )

    # -- messages -------------------------------------------------------------------------
    def do_execute(
        self,
        code: str,
        silent: bool,
        store_history: bool = True,
        user_expressions: dict | None = None,
        allow_stdin: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Run one cell (or feed it to the lesson in progress)."""
        self._allow_stdin = allow_stdin  # what raw_input() checks, as IPython's kernel does
        learn = _LEARN.match(code)
        if learn is not None and self._tutor is None:
            return self._start_lesson(learn.group(1))
        if self._tutor is not None:
            return self._lesson_input(code)
        source = code.rstrip("\n")
        if not source.strip():
            return self._ok()
        self.learner.filename = f"Cell In[{self.execution_count}]"  # IPython's name
        result = self.learner.run_cell(source)
        if not silent:
            self.publish_visual(result.visual)
        if result.exit_code is not None:
            self.publish_stream("stderr", "gradshell: exit() ends the notebook's kernel\n")
        if result.value and not silent:  # the cell's last expression: Out[n]
            self.send_response(
                self.iopub_socket,
                "execute_result",
                {
                    "execution_count": self.execution_count,
                    "data": {"text/plain": visible(result.value.rstrip("\n"))},
                    "metadata": {},
                },
            )
        if result.error is not None:
            name = str(getattr(result.error, "type_name", type(result.error).__name__))
            text = result.error_text or f"{name}: {result.error}\n"
            error = {
                "ename": visible(name),
                "evalue": visible(str(result.error)),
                "traceback": [visible(line) for line in text.rstrip("\n").split("\n")],
            }
            if not silent:
                self.send_response(self.iopub_socket, "error", error)
            return {"status": "error", "execution_count": self.execution_count, **error}
        return self._ok()

    def _ok(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "execution_count": self.execution_count,
            "payload": [],
            "user_expressions": {},
        }

    # -- lessons --------------------------------------------------------------------------
    def _start_lesson(self, name: str | None) -> dict[str, Any]:
        from gradshell.kernel.tutor_client import KernelTutor
        from gradshell.learn.i18n import default_lang
        from gradshell.learn.progress import ProgressStore

        self._tutor = KernelTutor(
            lang=default_lang(),
            out=_IOPubText(self, "stdout"),
            store=ProgressStore(),
            time_limit=None,
            color=False,
        )
        self._tutor.kernel.display_hints = {"width": NOTEBOOK_WIDTH, "color": False}
        if not self._tutor.start(name) or self._tutor.finished:
            self._end_lesson()
        return self._ok()

    def _lesson_input(self, code: str) -> dict[str, Any]:
        learn = _LEARN.match(code)
        if learn is not None:  # `%learn 1` from the menu or a lesson: open that lesson
            self._end_lesson()
            return self._start_lesson(learn.group(1))
        tutor = self._tutor
        try:
            tutor.handle(code.rstrip("\n"))
        except KeyboardInterrupt:
            self.publish_stream("stdout", tutor.t("interrupted") + "\n")
        if tutor.finished:
            self._end_lesson()
        # no terminal prompt after the cell: the next cell is the notebook's prompt
        return self._ok()

    def _end_lesson(self) -> None:
        if self._tutor is not None:
            self._tutor.close()
        self._tutor = None

    # -- completion, inspection ------------------------------------------------------------
    def do_complete(self, code: str, cursor_pos: int) -> dict[str, Any]:
        """Tab completion from the sandboxed kernel's namespace."""
        before = code[:cursor_pos]
        items = self.learner.complete(before.split("\n")[-1])
        matches = [text for text, _, _ in items]
        start = cursor_pos + (items[0][1] if items else 0)
        return {
            "status": "ok",
            "matches": matches,
            "cursor_start": start,
            "cursor_end": cursor_pos,
            "metadata": {},
        }

    def do_inspect(
        self, code: str, cursor_pos: int, detail_level: int = 0, omit_sections: Any = ()
    ) -> dict[str, Any]:
        """Shift-Tab / `x?`: the object's type, printed form and docstring."""
        name = _name_at(code, cursor_pos)
        text = self.learner.inspect(name) if name else None
        if not text:
            return {"status": "ok", "found": False, "data": {}, "metadata": {}}
        return {"status": "ok", "found": True, "data": {"text/plain": text}, "metadata": {}}

    def do_is_complete(self, code: str) -> dict[str, Any]:
        """Whether a console should run the input now or ask for more lines."""
        from gradshell.shell.session import source_is_complete

        if source_is_complete(code):
            return {"status": "complete"}
        return {"status": "incomplete", "indent": "    " if code.rstrip().endswith(":") else ""}

    def do_shutdown(self, restart: bool) -> dict[str, Any]:
        """Stop the sandboxed kernel (and the lesson) with this one."""
        self._end_lesson()
        if self._shell is not None:
            self._shell.close()
            self._shell = None
        return {"status": "ok", "restart": restart}


_NAME = re.compile(r"[A-Za-z_][\w.]*$")


def _name_at(code: str, cursor_pos: int) -> str:
    """The dotted name just before the cursor (`x.grad` in `print(x.grad`)."""
    match = _NAME.search(code[:cursor_pos].rstrip("?( "))
    return match.group(0).rstrip(".") if match else ""


__all__ = ["GradshellKernel", "visual_bundle"]
