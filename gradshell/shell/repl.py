"""The interactive REPL: prompt_toolkit with Pygments highlighting, completion,
multi-line blocks with auto-indent, persistent searchable history (Ctrl-R).

Enter runs the input when it is complete (a block ends with an empty line, as in
Python's REPL) and otherwise opens a new, auto-indented line. Indentation typed at the
start of an auto-indented line replaces the automatic one (so a learner who indents by
hand does not get both), and Backspace in leading whitespace removes one level (four
spaces), as IPython does. Ctrl-C cancels the line being typed or interrupts the running
statement; Ctrl-D exits.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any, TextIO

from gradshell.shell.inspection import inspect_request, inspect_text

if TYPE_CHECKING:
    from gradshell.shell.session import CellResult, Session

_DEDENT_AFTER = re.compile(r"^\s*(return|pass|break|continue|raise)\b")


def next_indent(text: str) -> str:
    """The indentation for a new line after `text` (the input so far)."""
    last = text.split("\n")[-1]
    indent = last[: len(last) - len(last.lstrip())]
    code = last.split("#", 1)[0].rstrip()
    if code.endswith(":"):
        return indent + "    "
    if _DEDENT_AFTER.match(last) and indent:
        return indent[:-4] if indent.endswith("    ") else indent[:-1]
    return indent


def finished_input(session: Session, text: str) -> bool:
    """Should Enter run `text` now?"""
    if "\n" not in text:
        return session.is_complete(text) and not next_indent(text)
    lines = text.split("\n")
    if lines[-1].strip():
        # Inside a block: Enter on a non-empty line continues it (unless the
        # input is a complete one-liner pasted over several lines).
        return session.is_complete(text) and not lines[-1][:1].isspace() and not _opens(text)
    return session.is_complete("\n".join(lines[:-1]) + "\n")


def _opens(text: str) -> bool:
    return any(line.split("#", 1)[0].rstrip().endswith(":") for line in text.split("\n"))


INDENT = 4
"""Spaces in one level of indentation (what Backspace removes in leading whitespace)."""


def backspace_width(before: str) -> int:
    """How many characters Backspace deletes when `before` is the current line up to the
    cursor: back to the previous indentation level inside leading spaces, else one."""
    if not before or before.strip(" "):
        return 1
    return len(before) - ((len(before) - 1) // INDENT) * INDENT


def clean_input(text: str) -> str:
    """The input without trailing whitespace-only lines."""
    lines = text.split("\n")
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def build_prompt_session(session: Session, *, input: Any = None, output: Any = None) -> Any:
    """A prompt_toolkit PromptSession wired to `session` (input/output for tests)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.enums import DEFAULT_BUFFER
    from prompt_toolkit.filters import Condition, has_focus
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.lexers import PygmentsLexer
    from pygments.lexers.python import PythonLexer

    from gradshell.shell.completion import make_completer
    from gradshell.shell.history import history_path

    bindings = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER)  # not while searching history (Ctrl-R)

    @Condition
    def at_line_text() -> bool:
        """Something other than spaces stands before the cursor (then Tab completes)."""
        from prompt_toolkit.application import get_app

        before = get_app().current_buffer.document.current_line_before_cursor
        return bool(before.strip())

    @bindings.add("enter", filter=editing)
    def _enter(event: Any) -> None:
        buffer = event.current_buffer
        if buffer.complete_state is not None and buffer.complete_state.current_completion:
            buffer.apply_completion(buffer.complete_state.current_completion)
            return
        text = buffer.document.text
        at_end = buffer.document.is_cursor_at_the_end or "\n" not in text
        if at_end and finished_input(session, text):
            buffer.validate_and_handle()
            return
        indent = next_indent(buffer.document.text_before_cursor)
        buffer.insert_text("\n" + indent)
        auto[id(buffer)] = (buffer.document.cursor_position_row, indent)

    auto: dict[int, tuple[int, str]] = {}  # buffer -> (row, indent Enter put there)

    def _typed_indent(event: Any, text: str) -> None:
        """Whitespace typed where only the automatic indent stands replaces it."""
        buffer = event.current_buffer
        doc = buffer.document
        row, indent = auto.pop(id(buffer), (-1, ""))
        line_before = doc.current_line_before_cursor
        if (
            indent
            and row == doc.cursor_position_row
            and line_before == indent
            and not doc.current_line_after_cursor
        ):
            buffer.delete_before_cursor(len(indent))
        buffer.insert_text(text)

    @bindings.add(" ", filter=editing)
    def _space(event: Any) -> None:
        _typed_indent(event, " " * event.arg)

    @bindings.add("tab", filter=editing & ~at_line_text)
    def _tab(event: Any) -> None:
        _typed_indent(event, " " * INDENT)

    @bindings.add("backspace", filter=editing)
    def _backspace(event: Any) -> None:
        buffer = event.current_buffer
        auto.pop(id(buffer), None)
        before = buffer.document.current_line_before_cursor
        buffer.delete_before_cursor(backspace_width(before) if before else 1)

    @bindings.add("escape", "enter", filter=editing)
    def _force(event: Any) -> None:
        event.current_buffer.validate_and_handle()

    path = history_path()
    history = FileHistory(str(path)) if path is not None else InMemoryHistory()
    return PromptSession(
        message=lambda: session.ps1(),
        prompt_continuation=lambda width, line_number, is_soft_wrap: session.ps2(),
        multiline=True,
        key_bindings=bindings,
        lexer=PygmentsLexer(PythonLexer),
        completer=make_completer(session),
        complete_while_typing=False,
        history=history,
        enable_history_search=False,
        include_default_pygments_style=True,
        input=input,
        output=output,
    )


def show_result(session: Session, result: CellResult, out: TextIO) -> None:
    """Print the visual channel after a cell (the output was streamed live)."""
    if result.visual and session.viz:
        out.write(result.visual)
        out.flush()


def run_repl(session: Session, banner: str = "", *, input: Any = None, output: Any = None) -> int:
    """Read, run, print until Ctrl-D or exit(); returns the exit status."""
    out = sys.stdout
    session.stream = out
    if banner:
        out.write(banner)
        out.flush()
    prompt = build_prompt_session(session, input=input, output=output)
    first = True
    while True:
        sys.stdout = out  # in case an interrupt landed while a cell restored it
        try:
            if session.prompt == "ipython" and not first:
                out.write("\n")
            first = False
            try:
                text = prompt.prompt()
            except EOFError:
                out.write("\n")
                out.flush()
                return 0
            source = clean_input(text)
            if not source.strip():
                first = True
                continue
            name = inspect_request(source)
            if name is not None:
                out.write(inspect_text(session, name))
                out.flush()
                continue
            result = session.run_cell(source)
            show_result(session, result, out)
        except KeyboardInterrupt:
            # Ctrl-C on the line being typed, or between two steps of the shell itself.
            sys.stdout = out
            if session.prompt == "python":
                out.write("KeyboardInterrupt\n")
            continue
        if result.exit_code is not None:
            return result.exit_code
