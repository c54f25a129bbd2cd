"""A learner's session: namespace, settings, and `run_cell` (parse, check, guard, run).

`Session.run_cell(source)` never raises: bad input of any kind yields a clear message
in the result's `output`, and the session goes on with its variables intact.
"""

from __future__ import annotations

import ast
import builtins
import io
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any, TextIO

from gradshell.core.era import STYLES
from gradshell.shell import checker, display, learner_threads, limits, safe_stdlib, transform
from gradshell.shell.cellparts import CellPart, split_cell
from gradshell.shell.display import PROMPTS
from gradshell.shell.errors import Refused, SessionExit, StatementTimeout
from gradshell.shell.files import FileService, LocalFiles, PathPolicy
from gradshell.shell.inspection import inspect_request, inspect_text
from gradshell.shell.tracebacks import (
    SourceMap,
    WarningPrinter,
    format_exception,
    format_syntax_error,
    innermost_learner_line,
    install_warning_printer,
)

_LAST_ONLY = ("ipython", "jupyter")


@dataclass
class CellResult:
    """What one cell produced."""

    output: str
    """Exactly what the learner sees on the torch channel (prints, values, warnings, errors)."""
    visual: str
    """The visual channel (panels from gradshell.viz); never compared by transcripts."""
    error: BaseException | None
    """The exception the learner's code raised (or the refusal), if any."""
    exit_code: int | None = None
    """Set when the learner called `exit()` / `quit()`."""
    source: str = ""
    """The input that produced this result."""
    value: str = ""
    """A notebook cell's shown value (its last expression, as IPython shows it), kept out
    of `output` so a notebook can show it as the cell's result ("jupyter" prompt only)."""
    error_text: str = ""
    """A notebook cell's error as Python prints it, kept out of `output` so a notebook can
    show it as an error ("jupyter" prompt only)."""

    @property
    def shown(self) -> str:
        """Everything the cell showed as text, in order: its output, its value, its error."""
        return self.output + self.value + self.error_text


@dataclass
class HistoryEntry:
    """One input of the session and what it printed."""

    count: int
    source: str
    output: str
    record: bool = True  # part of a saved transcript


class _Capture(io.TextIOBase):
    """Collects what learner code prints, and mirrors it live to a stream if given.

    Errors and warnings are mirrored to `live_err` when given (scripts send them to
    stderr, as Python does); the collected text keeps everything in order.
    """

    #: The most text one cell keeps in its result (a runaway print loop must not eat
    #: the machine's memory); live streams still see everything.
    MAX_KEPT = 16 * 1024 * 1024

    def __init__(self, live: TextIO | None, live_err: TextIO | None = None) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.live = live
        self.live_err = live_err if live_err is not None else live

    def _keep(self, text: str) -> None:
        if self.size < self.MAX_KEPT:
            self.size += len(text)
            self.parts.append(text)
            if self.size >= self.MAX_KEPT:
                self.parts.append("\n[gradshell: output truncated here]\n")

    def write_error(self, text: str) -> None:
        """Record error text; mirror it to the error stream."""
        self._keep(text)
        if self.live_err is not None:
            self.live_err.write(text)
            self.live_err.flush()

    def write_styled(self, text: str, styled: TextIO | None) -> None:
        """Record gradshell's own styled text; mirror it live to `styled` if given (else
        to the output stream)."""
        self._keep(text)
        if self.live is not None:  # shown only where output is shown live
            target = styled if styled is not None else self.live
            target.write(text)
            target.flush()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._keep(text)
        if self.live is not None:
            self.live.write(text)
            self.live.flush()
        return len(text)

    def flush(self) -> None:
        if self.live is not None:
            self.live.flush()

    def getvalue(self) -> str:
        return "".join(self.parts)

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"


_set_print_style: Callable[[str], None] | None = None

#: Called with every new Session (plugins such as gradshell.viz subscribe here).
_SESSION_HOOKS: list[Callable[[Session], None]] = []
_PLUGINS_LOADED = False
#: Optional modules that extend the shell: each may define `setup_shell()`.
PLUGIN_MODULES = ("gradshell.shell.viz_plugin", "gradshell.shell.device")


def register_session_hook(hook: Callable[[Session], None]) -> None:
    """Call `hook(session)` for every Session created from now on."""
    _SESSION_HOOKS.append(hook)


def _load_plugins() -> None:
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True
    import importlib

    for name in PLUGIN_MODULES:
        try:
            module = importlib.import_module(name)
        except Exception:
            continue
        setup = getattr(module, "setup_shell", None)
        if callable(setup):
            try:
                setup()
            except Exception:
                continue


class Prompts:
    """The REPL's prompts, from a session's `prompt` style and `execution_count`."""

    prompt: str
    execution_count: int

    def ps1(self) -> str:
        """The prompt for a new input."""
        if self.prompt == "ipython":
            return f"In [{self.execution_count + 1}]: "
        return ">>> "

    def ps2(self) -> str:
        """The prompt for a continuation line."""
        if self.prompt == "ipython":
            return " " * (len(self.ps1()) - 5) + "...: "
        return "... "


class Session(Prompts):
    """One learner's shell session."""

    def __init__(
        self,
        *,
        style: str = "modern",
        prompt: str = "python",
        unsafe: bool = False,
        viz: bool = True,
        time_limit: float | None = None,
        max_elements: int = 10**8,
        stream: TextIO | None = None,
        error_stream: TextIO | None = None,
        filename: str = "<stdin>",
        files: FileService | None = None,
    ) -> None:
        if style not in STYLES:
            raise ValueError(f"style must be one of {STYLES}, not {style!r}")
        if prompt not in PROMPTS:
            raise ValueError(f"prompt must be one of {PROMPTS}, not {prompt!r}")
        self.style = style
        self.prompt = prompt
        self.initial_style = style  # what a saved transcript starts with
        self.initial_prompt = prompt
        self.unsafe = unsafe
        self.viz = viz
        self.time_limit = time_limit
        self.limits = limits.Limits(max_elements=max_elements)
        self.stream = stream
        self.error_stream = error_stream
        #: Where gradshell's own styled views written mid-cell (%step) go live: the
        #: kernel's styled stream, which the front end re-colours (None: `stream`).
        self.styled_stream: TextIO | None = None
        self.filename = filename
        #: Where %save, %load and %graph --dot read and write (the session directory).
        self.files: FileService = (
            files
            if files is not None
            else LocalFiles(PathPolicy.here(), confirm=self.confirm_overwrite)
        )
        self.execution_count = 0
        #: Where learner code's files go (torch.save); None: the session directory.
        self.writable_dir: Path | None = None
        self._opener: Callable[[str, str], Any] | None = None
        #: The front end can show pictures (a notebook): %graph also sends the graph's DOT.
        self.rich_display = False
        #: A learner at a terminal answers prompts (%step waits for Enter between steps).
        self.interactive = False
        #: The sandbox layers confining this session's process (set by the kernel).
        self.sandbox_layers: dict[str, str] = {}
        self.history: list[HistoryEntry] = []
        self.sources = SourceMap()
        self.after_cell: list[Callable[[Session, CellResult], str | None]] = []
        #: Called before each run of learner code (gradshell.viz subscribes to events here).
        self.before_cell: list[Callable[[Session], None]] = []
        self._warning_registry: set[tuple] = set()
        self._visual: list[str] = []
        self._capture: _Capture | None = None
        self._value_text = ""  # a notebook cell's shown value ("jupyter" prompt)
        self._error_text = ""  # a notebook cell's error text ("jupyter" prompt)
        self._nested_errors: list[BaseException] = []
        self.namespace: dict[str, Any] = {}
        self._builtins = self._make_builtins()
        self._init_namespace()
        self._hooks_applied: set[int] = set()
        self._plugins_ready = False
        self._apply_session_hooks()

    # -- plugins -------------------------------------------------------------------
    def _apply_session_hooks(self) -> None:
        for hook in list(_SESSION_HOOKS):
            if id(hook) in self._hooks_applied:
                continue
            self._hooks_applied.add(id(hook))
            try:
                hook(self)
            except Exception:
                continue

    def ensure_plugins(self) -> None:
        """Load the shell's plugins (gradshell.viz: panels and magics) for this session.

        Deferred until the first input, so that the REPL's first prompt comes fast.
        """
        if self._plugins_ready:
            return
        self._plugins_ready = True
        _load_plugins()
        self._apply_session_hooks()

    # -- setup ---------------------------------------------------------------------
    def _make_builtins(self) -> dict[str, Any]:
        if self.unsafe:
            from gradshell.shell.imports import unsafe_import
            from gradshell.shell.safe_builtins import _Exit

            table = dict(vars(builtins))
            table["__import__"] = unsafe_import
            table["exit"] = _Exit("exit")
            table["quit"] = _Exit("quit")
        else:
            from gradshell.shell import imports, safe_builtins

            table = safe_builtins.base_builtins()
            table.update(imports.GUARD_NAMES)
            table["dir"] = safe_builtins.make_dir(self.namespace)
        table["_gs_display"] = self._display
        return table

    def _init_namespace(self) -> None:
        ns = self.namespace
        ns.clear()
        ns["__name__"] = "__main__"
        ns["__doc__"] = None
        ns["__builtins__"] = self._builtins
        ns["__gs_learner__"] = True

    def reset(self) -> None:
        """Forget every variable (`%reset`)."""
        self._init_namespace()

    def set_style(self, style: str) -> None:
        """Switch the print style ('modern' or 'legacy')."""
        if style not in STYLES:
            raise ValueError(f"style must be one of {', '.join(STYLES)}")
        self.style = style
        self._apply_style(force=True)

    def set_prompt(self, prompt: str) -> None:
        """Switch the prompt style ('python' or 'ipython')."""
        if prompt not in PROMPTS:
            raise ValueError(f"prompt must be one of {', '.join(PROMPTS)}")
        self.prompt = prompt

    def _apply_style(self, force: bool = False) -> None:
        global _set_print_style
        if _set_print_style is None:
            if "gradshell.printing" not in sys.modules and self.style == "modern" and not force:
                return  # the printers start in the modern style
            try:
                from gradshell.printing import set_print_style
            except ImportError:
                return
            _set_print_style = set_print_style
        _set_print_style(self.style)

    # -- channels ------------------------------------------------------------------
    def show_visual(self, text: str) -> None:
        """Add text to the visual channel of the running cell."""
        if text:
            self._visual.append(text if text.endswith("\n") else text + "\n")

    def write(self, text: str) -> None:
        """Add text to the output channel of the running cell (for magics and hooks)."""
        if self._capture is not None:
            self._capture.write(text)

    def write_styled(self, text: str) -> None:
        """Add gradshell's own styled text (a rendered view) to the output channel of the
        running cell, shown live through `styled_stream` when there is one."""
        if self._capture is not None:
            self._capture.write_styled(text, self.styled_stream)

    def read_input(self, prompt: str) -> str:
        """What the learner's `input(prompt)` returns: shows the prompt, then reads a line.

        In a session marked `interactive` (this process owns the learner's terminal) it
        reads the terminal; otherwise there is no input to read, so it ends as Python does
        at the end of input. The kernel overrides it to ask the learner's terminal.
        """
        if self.interactive:
            return builtins.input(prompt)
        self.write(prompt)
        raise EOFError("EOF when reading a line")

    def confirm_overwrite(self, question: str) -> bool:
        """Ask the learner at this terminal a y/N question (whether to write over a file
        gradshell did not write); no, without asking, where nobody is there to answer."""
        from gradshell.shell.files import answered_yes

        if not self.interactive:
            return False
        try:
            return answered_yes(self.read_input(question))
        except (EOFError, KeyboardInterrupt):
            return False

    def _display(self, value: Any) -> None:
        if value is None:
            return
        if self.prompt == "ipython":
            text = display.ipython_out(value, self.execution_count)
        elif self.prompt == "jupyter":  # the cell's result, not a print: kept apart
            self._value_text = display.ipython_form(value) + "\n"
            self.namespace["_"] = value
            return
        else:
            text = display.python_form(value) + "\n"
        self.write(text)
        self.namespace["_"] = value

    # -- completeness --------------------------------------------------------------
    def is_complete(self, source: str) -> bool:
        """Is this (possibly multi-line) input finished, as Python's REPL decides?"""
        return source_is_complete(source)

    # -- running -------------------------------------------------------------------
    def run_cell(self, source: str, *, display: bool = True) -> CellResult:
        """Run one input (a statement, a block, several statements, or a %magic); a cell
        with magic lines among its code runs them in order, as IPython does."""
        parts = split_cell(source)
        if len(parts) > 1:
            return self._run_parts(parts, source, display=display)
        asked = inspect_request(source)
        if asked is not None:  # `x?`: the object's help, in a notebook cell or a replay too
            return self._inspect(asked, source)
        if source.strip():
            self.execution_count += 1
        if self.viz and not self._plugins_ready:
            self.ensure_plugins()
        if source.lstrip().startswith("%"):
            self.ensure_plugins()  # magics may come from plugins
            return self._run_magic(source)
        rule = "none"
        if display:
            rule = "last" if self.prompt in _LAST_ONLY else "all"
            if rule == "last" and _ends_with_semicolon(source):
                rule = "none"
        result = self._execute(source, rule=rule, filename=self.filename)
        self.history.append(HistoryEntry(self.execution_count, source, result.output))
        return result

    def run_script(self, source: str, filename: str) -> CellResult:
        """Run a whole program (a file or `-c` text) as Python runs scripts: no displays.
        `-c` text may hold magic lines, run in order with its code (IPython's rule)."""
        self.execution_count += 1
        if self.viz:
            self.ensure_plugins()
        # the program's sys.argv, as Python sets it: the script, or '-c' for `-c CODE`
        safe_stdlib.LEARNER_ARGV[:] = ["-c" if filename == "<string>" else filename]
        parts = split_cell(source) if filename == "<string>" else []
        if len(parts) > 1:
            self.ensure_plugins()  # magics may come from plugins

            def run_part(index: int, part: CellPart) -> CellResult:
                if part.kind == "magic":
                    return self._run_magic(part.text)
                return self._execute(part.text, rule="none", filename=filename)

            return self._combine(source, parts, run_part)
        return self._execute(source, rule="none", filename=filename)

    def _inspect(self, name: str, source: str) -> CellResult:
        """`name?`: what IPython's object help shows, as the cell's output."""
        self.execution_count += 1
        text = inspect_text(self, name)
        if self.stream is not None:
            self.stream.write(text)
            self.stream.flush()
        self.history.append(HistoryEntry(self.execution_count, source, text))
        return CellResult(text, "", None, None, source)

    def _run_parts(self, parts: list[CellPart], source: str, *, display: bool) -> CellResult:
        """A cell of magic lines and code: each piece in order under the cell's one
        execution count, stopping at the first error; only the last piece's value is
        shown (IPython shows a cell's last expression)."""
        before = self.execution_count

        def run_part(index: int, part: CellPart) -> CellResult:
            self.execution_count = before  # each piece counts as the same cell
            return self.run_cell(part.text, display=display and index == len(parts) - 1)

        return self._combine(source, parts, run_part)

    def _combine(
        self, source: str, parts: list[CellPart], run_part: Callable[[int, CellPart], CellResult]
    ) -> CellResult:
        """Run the pieces one by one until one fails or exits; one result for them all."""
        output: list[str] = []
        visual: list[str] = []
        error: BaseException | None = None
        exit_code: int | None = None
        value = error_text = ""
        for index, part in enumerate(parts):
            result = run_part(index, part)
            output.append(result.output)
            visual.append(result.visual)
            error, exit_code = result.error, result.exit_code
            value, error_text = result.value, result.error_text
            if error is not None or exit_code is not None:
                break
        return CellResult(
            "".join(output), "".join(visual), error, exit_code, source, value, error_text
        )

    def _execute(self, source: str, *, rule: str, filename: str) -> CellResult:
        self._value_text = self._error_text = ""
        capture = _Capture(self.stream, self.error_stream)
        outer_capture, self._capture = self._capture, capture
        outer_visual, self._visual = self._visual, []
        error: BaseException | None = None
        exit_code: int | None = None
        for before in list(self.before_cell):
            try:
                before(self)
            except Exception:
                continue
        saved_out, saved_err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = capture  # type: ignore[assignment]
        try:
            try:
                with self._learner_files():
                    error = self._run_source(source, rule, filename, capture)
            except SessionExit as stop:
                exit_code = stop.code
            except KeyboardInterrupt as exc:  # arrived outside learner code
                capture.write_error("KeyboardInterrupt\n")
                error = exc
        finally:
            sys.stdout, sys.stderr = saved_out, saved_err
            self._capture = outer_capture
        result = CellResult(
            capture.getvalue(), "", error, exit_code, source, self._value_text, self._error_text
        )
        for hook in list(self.after_cell):
            try:
                text = hook(self, result)
            except Exception:
                continue
            if text:
                self.show_visual(text)
        result.visual = "".join(self._visual)
        self._visual = outer_visual
        if outer_capture is not None:  # a nested run (a magic running code): record it
            outer_capture.parts.append(result.output)  # already shown live, if live
            if result.visual:
                self._visual.append(result.visual)
            if error is not None:
                self._nested_errors.append(error)
            if exit_code is not None:
                raise SessionExit(exit_code)
        return result

    def run_code(self, source: str) -> CellResult:
        """Run code for a magic, inside the current cell (shown with the cell's rules)."""
        rule = "last" if self.prompt in _LAST_ONLY else "all"
        return self._execute(source, rule=rule, filename=self.filename)

    def _compile(self, source: str, rule: str, filename: str) -> list[CodeType]:
        """Parse, check, guard and compile `source`; raises SyntaxError or Refused.

        Compiler warnings (SyntaxWarning) are shown as Python's REPL shows them.
        """
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SyntaxWarning)
            try:
                return self._compile_quietly(source, rule, filename)
            finally:
                for w in caught:
                    if issubclass(w.category, SyntaxWarning) and self._capture is not None:
                        self._capture.write_error(
                            f"{filename}:{w.lineno}: {w.category.__name__}: {w.message}\n"
                        )

    def _compile_quietly(self, source: str, rule: str, filename: str) -> list[CodeType]:
        checker.check_source_size(source)
        tree = ast.parse(source, filename=filename)
        if not self.unsafe:
            checker.check(tree)
            transform.guard(tree)
        transform.add_displays(tree, rule)
        internal = self.sources.add(filename, source)
        codes = []
        for stmt in tree.body:
            module = ast.Module(body=[stmt], type_ignores=[])
            try:
                codes.append(compile(module, internal, "exec", dont_inherit=True))
            except SyntaxError as exc:
                exc.filename = filename
                if exc.lineno and not exc.text:
                    lines = source.splitlines()
                    if 0 < exc.lineno <= len(lines):
                        exc.text = lines[exc.lineno - 1] + "\n"
                raise
        return codes

    def _run_source(self, source: str, rule: str, filename: str, out: _Capture) -> Any:
        limits.install(self.limits)
        self._apply_style()
        try:
            codes = self._compile(source, rule, filename)
        except Refused as exc:
            self._report_error(out, exc.line() + "\n")
            return exc
        except SyntaxError as exc:
            self._report_error(out, format_syntax_error(exc))
            return exc
        except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
            # e.g. null bytes in the source, or code nested too deeply for the parser
            message = str(exc) or type(exc).__name__
            self._report_error(out, f"SyntaxError: {message}\n")
            return exc
        ns = self.namespace
        learner_threads.use_sources(self.sources)
        printer = WarningPrinter(self.sources, out.write_error, self._warning_registry)
        with install_warning_printer(printer):
            for code in codes:
                try:
                    with limits.time_limit(self.time_limit):
                        exec(code, ns)
                        learner_threads.wait()  # what they print is this statement's
                except SessionExit:
                    raise
                except SystemExit as exc:  # --unsafe code calling sys.exit()
                    status = exc.code
                    raise SessionExit(
                        status if isinstance(status, int) else (0 if status is None else 1)
                    ) from None
                except StatementTimeout as exc:
                    line = innermost_learner_line(exc, self.sources)
                    where = f" (line {line})" if line else ""
                    self._report_error(
                        out,
                        f"gradshell: stopped after {self.time_limit:g} s, the time limit "
                        f"for one statement{where}\n",
                    )
                    return exc
                except BaseException as exc:  # noqa: BLE001 - the learner's error, shown
                    if isinstance(exc, MemoryError | RecursionError):
                        _release_memory()
                    self._report_error(out, format_exception(exc, self.sources))
                    return exc
                finally:
                    if "gradshell.core.limits" in sys.modules:
                        limits.install(self.limits)
        return None

    def _report_error(self, out: _Capture, text: str) -> None:
        """Show an input's error: in the output, or for a notebook cell apart from it
        (the notebook shows it as the cell's error)."""
        if self.prompt == "jupyter":
            self._error_text += text
        else:
            out.write_error(text)

    @contextmanager
    def _learner_files(self) -> Iterator[None]:
        """While learner code runs, torch.save/torch.load open paths under this session's
        directories only (the kernel sets its own opener once, for its whole life), and
        see the session's namespace as the learner's `__main__` (for saved classes)."""
        from gradshell.torch import serialization

        previous_main, serialization.main_namespace = serialization.main_namespace, self.namespace
        try:
            with self._confined_files(serialization):
                yield
        finally:
            serialization.main_namespace = previous_main

    @contextmanager
    def _confined_files(self, serialization) -> Iterator[None]:
        policy = getattr(self.files, "policy", None)
        if self.unsafe or policy is None:
            yield
            return
        if self._opener is None:
            from gradshell.shell.files import make_opener

            self._opener = make_opener(policy, self.writable_dir or policy.session_dir)
        previous, serialization.file_opener = serialization.file_opener, self._opener
        try:
            yield
        finally:
            serialization.file_opener = previous

    def _run_magic(self, source: str) -> CellResult:
        from gradshell.shell import magics

        capture = _Capture(self.stream)
        outer, self._capture = self._capture, capture
        outer_visual, self._visual = self._visual, []
        error: BaseException | None = None
        exit_code = None
        record = True
        outer_errors, self._nested_errors = self._nested_errors, []
        try:
            # A magic's own work (%graph, %explain of a huge graph) has the statement's
            # time limit too.
            with limits.time_limit(self.time_limit):
                record, error = magics.run_magic(self, source.strip())
            if error is None and self._nested_errors:
                error = self._nested_errors[0]
        except SessionExit as stop:
            exit_code = stop.code
        except StatementTimeout as exc:
            capture.write(
                f"gradshell: stopped after {self.time_limit:g} s, the time limit for one "
                "statement\n"
            )
            error = exc
        except KeyboardInterrupt as exc:
            capture.write("KeyboardInterrupt\n")
            error = exc
        except Exception as exc:  # a broken magic must not end the session
            capture.write(f"gradshell: {source.strip().split()[0]} failed: {exc}\n")
            error = exc
        finally:
            self._capture = outer
            self._nested_errors = outer_errors
        result = CellResult(capture.getvalue(), "".join(self._visual), error, exit_code, source)
        self._visual = outer_visual
        self.history.append(HistoryEntry(self.execution_count, source, result.output, record))
        return result

    # -- introspection -------------------------------------------------------------
    def variables(self) -> dict[str, Any]:
        """The learner's variables (names not starting with '_')."""
        return {k: v for k, v in self.namespace.items() if not k.startswith("_")}


def source_is_complete(source: str) -> bool:
    """Is this (possibly multi-line) input finished, as Python's REPL decides?

    Unclosed brackets, strings and block headers need more lines; a compound
    statement (`for`, `def`, ...) ends with an empty line; a syntax error is
    complete (it is reported when run); magics are one line.
    """
    if source.lstrip().startswith("%"):
        return True
    if not source.strip():
        return True
    import codeop

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            code = codeop.compile_command(source, "<stdin>", "exec")
        except (SyntaxError, ValueError, OverflowError):
            return True
    if code is None:
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return True
    if not tree.body:
        return True
    last_line = source.split("\n")[-1]
    compound = isinstance(
        tree.body[-1],
        ast.If | ast.For | ast.While | ast.With | ast.Try | ast.FunctionDef | ast.ClassDef,
    ) or (len(source.split("\n")) > 1 and last_line[:1] in (" ", "\t"))
    if compound:
        return not last_line.strip() and source.count("\n") >= 1
    return True


def _ends_with_semicolon(source: str) -> bool:
    lines = [line for line in source.rstrip().splitlines() if line.strip()]
    if not lines:
        return False
    last = lines[-1].split("#", 1)[0].rstrip()
    return last.endswith(";")


def _release_memory() -> None:
    import gc

    gc.collect()


__all__ = [
    "CellResult",
    "HistoryEntry",
    "Prompts",
    "Session",
    "register_session_hook",
    "source_is_complete",
]

# each session keeps PyTorch's process-wide settings (print options, default dtype, grad
# mode, RNG) as its own: gradshell.shell.sessionstate registers that as a session hook
from gradshell.shell import sessionstate as _sessionstate  # noqa: E402, F401
