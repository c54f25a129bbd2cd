"""The front end's handle on a kernel: `KernelSession`, a shell session whose code runs
in a sandboxed child process.

It offers what the REPL, the batch runners and transcript replay use of a `Session`
(`run_cell`, `run_script`, `is_complete`, prompts, completion) and adds what a separate
process makes possible: a statement that ignores its time limit or Ctrl-C is killed
after a grace period, a kernel that crashes (segfault, out of memory) is replaced, and
in both cases the learner's variables come back by re-running, quietly, the inputs that
had finished before. The front end answers the kernel's service requests (a line of
`input()`, the session directory's files) under its own path policy.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from gradshell.core.era import STYLES
from gradshell.kernel.environment import kernel_environment
from gradshell.kernel.protocol import (
    STYLED_STREAM,
    Closed,
    MessageTooLarge,
    ProtocolError,
    Reader,
    write_message,
)
from gradshell.kernel.visible import visible_tree
from gradshell.kernel.workspace import (
    MAX_WORKSPACE_BYTES,
    MAX_WORKSPACE_FILES,
    WorkspaceError,
    default_workspace,
    prepare_workspace,
    private_temp_dir,
    sweep,
)
from gradshell.shell.files import (
    FileAccessError,
    FileService,
    LocalFiles,
    PathPolicy,
    answered_yes,
)
from gradshell.shell.restyle import restyle
from gradshell.shell.session import CellResult, Prompts, source_is_complete
from gradshell.shell.terminal_text import visible

#: Seconds a statement gets, after its time limit or a Ctrl-C, to stop by itself before
#: its kernel is killed.
GRACE_SECONDS = 2.0

#: Seconds a new kernel may take to import and confine itself.
START_TIMEOUT = 60.0

#: The most streamed text kept for a cell's result when its kernel is lost.
MAX_COLLECTED = 16 * 1024 * 1024

#: The longest all quiet re-runs after a restart may take together.
RECOVERY_BUDGET = 60.0


class KernelError(Exception):
    """An exception raised by learner code in the kernel, as the front end knows it."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(message)
        self.type_name = type_name


class KernelLost(Exception):
    """The kernel died or stopped answering while running a cell."""


class KernelStartError(RuntimeError):
    """A kernel could not be started (or could not confine itself)."""


@dataclass
class _Finished:
    """An input that ran to its end in the kernel, kept to rebuild state after a restart."""

    op: str
    source: str
    filename: str
    inputs: list[str] = field(default_factory=list)


SIGNAL_WORDS = {
    signal.SIGSEGV: "crashed (segmentation fault)",
    signal.SIGBUS: "crashed (bus error)",
    signal.SIGABRT: "aborted",
    signal.SIGFPE: "crashed (floating-point exception)",
    signal.SIGILL: "crashed (illegal instruction)",
    signal.SIGXCPU: "ran out of CPU time",
    signal.SIGXFSZ: "wrote a file over the size limit",
    signal.SIGSYS: "made a system call the sandbox forbids",
    signal.SIGKILL: "was killed (out of memory?)",
}


class KernelSession(Prompts):
    """A learner's session whose code runs in a sandboxed kernel process."""

    def __init__(
        self,
        *,
        style: str = "modern",
        prompt: str = "python",
        viz: bool = True,
        time_limit: float | None = None,
        max_elements: int = 10**8,
        filename: str = "<stdin>",
        policy: PathPolicy | None = None,
        stream: TextIO | None = None,
        error_stream: TextIO | None = None,
        sandbox: bool = True,
        grace: float = GRACE_SECONDS,
        memory_bytes: int | None = None,
        device: str = "cpu",
        mode: str = "shell",
        learn: dict[str, Any] | None = None,
        progress_store: Any = None,
        checker: bool = True,
        display_hints: dict[str, Any] | None = None,
        interactive: bool | None = None,
        on_graph: Callable[[str], None] | None = None,
        files: FileService | None = None,
        workdir: Path | str | None = None,
        workspace_bytes: int = MAX_WORKSPACE_BYTES,
        workspace_files: int = MAX_WORKSPACE_FILES,
    ) -> None:
        self.style = style
        self.prompt = prompt
        self.viz = viz
        self.unsafe = False
        self.time_limit = time_limit
        self.max_elements = max_elements
        self.device = device
        self.mode = mode
        #: False runs the kernel's code without the in-process checker (the OS sandbox
        #: still holds): for testing that the sandbox alone is a wall.
        self.checker = checker
        #: Width and colour for panels; None: this process's terminal's.
        self.display_hints = display_hints
        #: A learner at this process's terminal answers prompts (%step's Enter).
        self.interactive = _at_a_terminal() if interactive is None else interactive
        #: Called with a graph's DOT text by %graph (a notebook draws it); None: text only.
        self.on_graph = on_graph
        self.learn = dict(learn or {})
        #: The learner's real progress store (lesson mode): the kernel asks us to use it.
        self.progress_store = progress_store
        #: The lesson's state as the kernel last reported it (lesson mode).
        self.tutor_state: dict[str, Any] = {}
        self.filename = filename
        self.policy = policy if policy is not None else PathPolicy.here()
        #: Does the file magics' I/O for the kernel (replay passes one that writes nothing).
        self.files: FileService = (
            files if files is not None else LocalFiles(self.policy, confirm=self._confirm)
        )
        self.stream = stream
        self.error_stream = error_stream
        self.sandbox = sandbox
        self.grace = grace
        self.memory_bytes = memory_bytes if memory_bytes is not None else _default_memory()
        self.execution_count = 0
        #: What the kernel said about its sandbox layers (filled when it is ready).
        self.layers: dict[str, str] = {}
        #: The workspace asked for (`--workdir`; replay: a temporary one its caller makes
        #: and removes); None: `gradshell-files/` under the session directory, or a
        #: private one when that cannot be written.
        self.workdir = Path(workdir) if workdir is not None else None
        #: The workspace's caps: bytes and files together (checked after each input).
        self.workspace_bytes = workspace_bytes
        self.workspace_files = workspace_files
        #: Where learner code may write: its workspace (relative paths resolve there).
        self.writable_dir: Path = self.policy.session_dir
        #: The kernel's private temporary folder (TMPDIR; the re-run after a restart
        #: writes there); made with the first kernel, removed by close().
        self.temp_dir: Path | None = None
        #: Folders of the session directory too large to check for hidden names, left
        #: unreadable by the last kernel.
        self.unchecked_dirs: list[Path] = []
        #: The learner's variable names as the kernel last reported them.
        self.names: list[str] = []
        self.restarts = 0
        self._finished: list[_Finished] = []
        self._replaying = False
        self._replay_inputs: list[str] = []  # the recorded input() answers of a re-run
        self._inputs: list[str] = []
        #: The input being run was typed with --force (a file magic's flag the front end
        #: honours only when it is in what the learner typed, not on the kernel's word).
        self._typed_force = False
        self._scratch: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: Reader | None = None
        self._ready = False
        self._spawn()

    # -- the process ---------------------------------------------------------------------
    def _spawn(self) -> None:
        """Start a kernel process (it imports and confines itself while we go on).

        It starts clean: Python's isolated mode (no current or script directory on the
        import path, no PYTHON* variables, no user site), a working directory learner
        code cannot write, and an allow-listed environment. Files an earlier kernel
        planted (a `json.py`, a `gradshell/` package) are therefore never imported."""
        self.writable_dir = self._choose_writable_dir()
        if self.temp_dir is None:
            self.temp_dir = private_temp_dir()
        env = kernel_environment(
            os.environ, temp_dir=self.temp_dir, home=self.writable_dir, gpu=self.device != "cpu"
        )
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-m", "gradshell.kernel"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if os.environ.get("GRADSHELL_KERNEL_DEBUG") else subprocess.DEVNULL,
            cwd=os.path.abspath(os.sep),
            env=env,
            start_new_session=True,  # the terminal's Ctrl-C reaches the front end only
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._reader = Reader(self._proc.stdout.fileno())
        self._ready = False
        self._send(
            {
                "type": "start",
                "style": self.style,
                "prompt": self.prompt,
                "viz": self.viz,
                "time_limit": self.time_limit,
                "max_elements": self.max_elements,
                "filename": self.filename,
                "device": self.device,
                "mode": self.mode,
                "learn": self.learn,
                "unsafe": not self.checker,
                "interactive": self.interactive,
                "rich_display": self.on_graph is not None,
                "sandbox": self._sandbox_policy(),
                "files": self.policy.to_dict(),
                "workspace": str(self.writable_dir),
                "temp_dir": str(self.temp_dir),
            }
        )

    def _choose_writable_dir(self) -> Path:
        """The workspace: `--workdir`, else `gradshell-files/` under the session
        directory, else (a session directory that cannot be written) a private folder
        removed when the session ends."""
        wanted = self.workdir or default_workspace(self.policy.session_dir)
        if wanted is not None:
            try:
                return prepare_workspace(wanted)
            except WorkspaceError:
                if self.workdir is not None:
                    raise
        if self._scratch is None:
            self._scratch = private_temp_dir()
        return self._scratch

    def _sandbox_policy(self) -> dict[str, Any] | None:
        if not self.sandbox:
            return None
        reads: list[Path] = []
        self.unchecked_dirs = []
        for root in self.policy.roots():
            tree = visible_tree(root)
            reads += tree.paths
            self.unchecked_dirs += tree.unchecked
        # a teacher's lessons, named by the front end, are read where they are
        reads += [Path(p) for p in self.learn.get("extra", []) if isinstance(p, str)]
        assert self.temp_dir is not None
        return {
            "writable_dir": str(self.writable_dir),
            "write_dirs": [str(self.temp_dir)],
            "unchecked": len(self.unchecked_dirs),
            "read_dirs": [str(p) for p in reads],
            "memory_bytes": self.memory_bytes,
            "cpu_seconds": None,
            "max_file_bytes": 256 * 1024**2,
            "max_open_files": 256,
        }

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            write_message(self._proc.stdin.fileno(), message)
        except (BrokenPipeError, OSError) as exc:
            raise KernelLost(str(exc)) from None

    def wait_ready(self) -> None:
        """Wait until the kernel has started and confined itself."""
        if self._ready:
            return
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            message = self._next(deadline)
            if message is None:
                self._kill()
                raise KernelStartError("the kernel did not start in time")
            kind = message.get("type")
            if kind == "ready":
                self.layers = {str(k): str(v) for k, v in dict(message.get("layers", {})).items()}
                self._ready = True
                return
            if kind == "fatal":
                self._kill()
                raise KernelStartError(str(message.get("message", "unknown error")))

    def _next(self, deadline: float | None) -> dict[str, Any] | None:
        """The next message, None at the deadline; KernelLost if the kernel is gone."""
        assert self._reader is not None
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            return self._reader.read(timeout)
        except (Closed, ProtocolError, OSError) as exc:
            raise KernelLost(str(exc)) from None

    def _kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            try:
                proc.kill()
            except ProcessLookupError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for pipe in (proc.stdin, proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass

    def _start_fresh(self) -> None:
        """Start a replacement kernel and wait until it is ready. A Ctrl-C meanwhile is
        ignored: the start is bounded (START_TIMEOUT), and leaving it half done would
        lose the learner's variables without a word."""
        self._spawn()
        while True:
            try:
                self.wait_ready()
                return
            except KeyboardInterrupt:
                continue

    def _death_words(self) -> str:
        """How the kernel ended, in words."""
        proc = self._proc
        if proc is None:
            return "stopped"
        try:
            code = proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        if code < 0:
            sig = signal.Signals(-code) if -code in signal.Signals._value2member_map_ else None
            if sig is not None and sig in SIGNAL_WORDS:
                return SIGNAL_WORDS[sig]
            return f"was ended by signal {-code}"
        return f"exited unexpectedly (status {code})"

    def close(self) -> None:
        """Stop the kernel and remove its scratch directory."""
        if self._proc is not None and self._proc.poll() is None:
            try:
                self._send({"type": "request", "op": "shutdown"})
                self._proc.wait(timeout=2)
            except (KernelLost, subprocess.TimeoutExpired):
                pass
        self._kill()
        self._proc = None
        for folder in (self._scratch, self.temp_dir):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
        self._scratch = self.temp_dir = None

    def __enter__(self) -> KernelSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    # -- running -------------------------------------------------------------------------
    def is_complete(self, source: str) -> bool:
        """Is this input finished, as Python's REPL decides? (No kernel needed.)"""
        return source_is_complete(source)

    def run_cell(self, source: str, *, display: bool = True) -> CellResult:
        """Run one input in the kernel; never raises for anything the learner typed."""
        return self._run("run_cell", source, self.filename)

    def run_script(self, source: str, filename: str) -> CellResult:
        """Run a whole program (a file or `-c` text) in the kernel, as Python runs scripts."""
        self.filename = filename
        return self._run("run_script", source, filename)

    def _run(self, op: str, source: str, filename: str) -> CellResult:
        collected: list[str] = []
        self._inputs = []
        began = time.time()
        self._typed_force = typed_force(source)
        try:
            self.wait_ready()
            reply = self._exchange(
                {
                    "type": "request",
                    "op": op,
                    "source": source,
                    "filename": filename,
                    "live": self.stream is not None,
                    **self._hints(),
                },
                collected,
                self.time_limit,
            )
        except KernelStartError as exc:
            text = f"gradshell: the sandboxed kernel could not start: {exc}\n"
            self._show_error(text)
            return CellResult("".join(collected) + text, "", exc, None, source)
        except MessageTooLarge:
            text = "gradshell: this input is too long to run (the limit is 64 MiB)\n"
            self._show_error(text)
            error = KernelError("Refused", text.strip())
            return CellResult(text, "", error, None, source)
        except KernelLost as exc:
            text = self._sweep(began) + self._recover(str(exc))
            self._show_error(text)
            error = KernelError("KernelLost", text.strip())
            return CellResult("".join(collected) + text, "", error, None, source)
        swept = self._sweep(began)
        if swept:
            self._show_error(swept)
        state = reply.get("state") or {}
        self._mirror(state)
        error_data = reply.get("error")
        error = None
        if isinstance(error_data, dict):
            error = KernelError(str(error_data.get("type")), str(error_data.get("message", "")))
        if error is None:  # re-run after a restart: only what finished cleanly
            self._finished.append(_Finished(op, source, filename, list(self._inputs)))
        exit_code = reply.get("exit_code")
        return CellResult(
            str(reply.get("output", "")) + swept,
            restyle(str(reply.get("visual", "")), color=self._color()),
            error,
            exit_code if isinstance(exit_code, int) else None,
            source,
            str(reply.get("value", "")),
            str(reply.get("error_text", "")),
        )

    def _sweep(self, since: float) -> str:
        """Keep the workspace within its caps and its files plain data (no execute
        bits) after an input; what was removed, in words ('' when nothing was)."""
        try:
            report = sweep(self.writable_dir, since, self.workspace_bytes, self.workspace_files)
        except OSError:
            return ""
        return report.words(self.writable_dir, self.workspace_bytes, self.workspace_files)

    def call(self, op: str, **args: Any) -> dict[str, Any]:
        """Send a lesson request (`tutor_start`, `tutor_handle`, `tutor_eof`); a lost
        kernel is replaced and the lesson reopened at the learner's saved step."""
        self._typed_force = typed_force(str(args.get("text", "")))
        try:
            self.wait_ready()
            reply = self._exchange(
                {"type": "request", "op": op, **args, **self._hints()}, [], self.time_limit
            )
        except KernelStartError as exc:
            self._show_error(f"gradshell: the sandboxed kernel could not start: {exc}\n")
            self.tutor_state = {**self.tutor_state, "finished": True}
            return {}
        except MessageTooLarge:
            self._show_error("gradshell: this input is too long (the limit is 64 MiB)\n")
            return {}
        except KernelLost as exc:
            self._show_error(self._recover_lesson(str(exc)))
            return {"lost": True}
        self._mirror(reply.get("state") or {})
        return reply

    def _recover_lesson(self, why: str) -> str:
        words = self._death_words() if why != "did not stop in time" else "did not stop in time"
        lesson = self.tutor_state.get("lesson")
        self._kill()
        self.restarts += 1
        head = f"gradshell: the kernel running your code {words}; a new one was started"
        try:
            self._start_fresh()
            saved, self.stream = self.stream, None
            try:
                reply = self._exchange(
                    {"type": "request", "op": "tutor_start", "name": lesson, **self._hints()},
                    [],
                    RECOVERY_BUDGET,
                )
            finally:
                self.stream = saved
            self._mirror(reply.get("state") or {})
        except (KernelLost, KernelStartError, OSError) as exc:
            self.tutor_state = {**self.tutor_state, "finished": True}
            return f"{head}, but it could not start: {exc}\n"
        where = "at your saved step" if lesson else "at the lesson menu"
        return f"{head}, {where}; the failed input's work was lost.\n"

    def _hints(self) -> dict[str, Any]:
        return dict(self.display_hints) if self.display_hints is not None else _terminal_hints()

    def _color(self) -> bool:
        """May the kernel's styled text keep colour (the front end's decision, not its)?"""
        return bool(self._hints().get("color"))

    def _mirror(self, state: Any) -> None:
        """Take the kernel's reported state, keeping only values the front end knows:
        the kernel may run learner code unchecked and write what it likes on the wire."""
        if not isinstance(state, dict):
            return
        if isinstance(state.get("tutor"), dict):
            self.tutor_state = state["tutor"]
        if state.get("style") in STYLES:
            self.style = state["style"]
        if state.get("prompt") in ("python", "ipython"):
            self.prompt = state["prompt"]
        count = state.get("execution_count")
        if type(count) is int and count >= 0:
            self.execution_count = count
        names = state.get("names")
        if isinstance(names, list) and all(type(n) is str for n in names):
            self.names = [n for n in names if n.isidentifier()]

    def _exchange(
        self, request: dict[str, Any], collected: list[str], limit: float | None
    ) -> dict[str, Any]:
        """Send a request and serve the kernel until its answer; enforces the time limit
        (plus grace) and forwards Ctrl-C. Raises KernelLost if the kernel had to go."""
        self._send(request)
        deadline = None if not limit else time.monotonic() + limit + self.grace
        interrupted_at: float | None = None
        kept = 0
        while True:
            try:
                message = self._next(deadline)
            except KeyboardInterrupt:
                if interrupted_at is not None:  # a second Ctrl-C: stop it now
                    self._kill()
                    raise KernelLost("interrupted twice") from None
                interrupted_at = time.monotonic()
                self._signal(signal.SIGINT)
                grace_end = interrupted_at + self.grace
                deadline = grace_end if deadline is None else min(deadline, grace_end)
                continue
            if message is None:  # past the deadline: it did not stop by itself
                self._kill()
                raise KernelLost("did not stop in time")
            kind = message.get("type")
            if kind == "stream":
                text = str(message.get("text", ""))
                self._show_stream(str(message.get("name")), text)
                kept += len(text)
                if kept < MAX_COLLECTED:  # a runaway print loop must not fill memory
                    collected.append(text)
            elif kind == "service":
                began = time.monotonic()
                self._send_reply(self._serve(message), str(message.get("op")))
                if deadline is not None:  # the learner typing an answer is not the cell
                    deadline += time.monotonic() - began
            elif kind in ("result", "completions", "state", "error"):
                return message

    def _send_reply(self, reply: dict[str, Any], op: str) -> None:
        """Answer a service request; an answer too large for the wire (a huge file to
        %load, a huge line of input) becomes a refusal, so the kernel never waits for
        one that cannot come."""
        try:
            self._send(reply)
        except MessageTooLarge:
            what = "line of input" if op == "input" else "answer"
            error = f"the {what} is too large to send to the kernel (the limit is 64 MiB)"
            self._send({"type": "reply", "ok": False, "error": error})

    def _signal(self, sig: int) -> None:
        if self._proc is not None:
            try:
                os.kill(self._proc.pid, sig)
            except ProcessLookupError:
                pass

    def _show_stream(self, name: str, text: str) -> None:
        target = self.error_stream if name == "err" and self.error_stream else self.stream
        if target is not None:
            styled = name == STYLED_STREAM
            target.write(restyle(text, color=self._color()) if styled else visible(text))
            target.flush()

    def _show_error(self, text: str) -> None:
        target = self.error_stream or self.stream
        if target is not None:
            target.write(visible(text))
            target.flush()

    # -- services for the kernel -----------------------------------------------------------
    def _serve(self, message: dict[str, Any]) -> dict[str, Any]:
        """Answer a service request under the front end's own rules."""
        op = message.get("op")
        if op == "progress" and self.progress_store is not None:
            from gradshell.kernel.remote_progress import serve_progress

            return serve_progress(self.progress_store, message)
        try:
            if op == "input":
                return self._serve_input(str(message.get("prompt", "")))
            path = str(message.get("path", ""))
            text = str(message.get("text", ""))
            if op == "read_file":
                return {"type": "reply", "ok": True, "text": self.files.read_text(path)}
            force = bool(message.get("force")) and self._typed_force
            if op == "write_file":
                if self._replaying:  # re-running history must not rewrite files
                    return {"type": "reply", "ok": True, "shown": path}
                shown = self.files.write_text(path, text, force=force)
                return {"type": "reply", "ok": True, "shown": shown}
            if op == "show_graph":
                if self.on_graph is not None and not self._replaying:
                    self.on_graph(text)
                return {"type": "reply", "ok": True}
            if op == "write_svg":
                if self._replaying:
                    return {"type": "reply", "ok": True, "shown": path}
                shown = self.files.write_svg(path, text, force=force)
                return {"type": "reply", "ok": True, "shown": shown}
        except FileAccessError as exc:
            return {"type": "reply", "ok": False, "error": str(exc)}
        return {"type": "reply", "ok": False, "error": f"unknown service {op!r}"}

    def _serve_input(self, prompt: str) -> dict[str, Any]:
        if self._replaying:
            if self._replay_inputs:
                return {"type": "reply", "ok": True, "line": self._replay_inputs.pop(0)}
            return {"type": "reply", "ok": False, "error": "EOFError"}
        try:
            line = self.ask_line(prompt)
        except KeyboardInterrupt:
            return {"type": "reply", "ok": False, "error": "KeyboardInterrupt"}
        if line is None:
            return {"type": "reply", "ok": False, "error": "EOFError"}
        self._inputs.append(line)
        return {"type": "reply", "ok": True, "line": line}

    def ask_line(self, prompt: str) -> str | None:
        """A line for the learner's `input(prompt)`: the prompt shown where the output
        goes, the line read from stdin (a notebook asks through its own input box, and
        shows the prompt there, not among the cell's outputs)."""
        if self.stream is not None and self.prompt != "jupyter":
            self.stream.write(visible(prompt))
            self.stream.flush()
        return self.read_line()

    def _confirm(self, question: str) -> bool:
        """Ask the learner at this terminal whether to write over a file gradshell did
        not write; no at once where nobody can answer (a program, piped input, replay)."""
        if not self.interactive or self._replaying:
            return False
        if self.stream is not None:
            self.stream.write(question)
            self.stream.flush()
        try:
            return answered_yes(self.read_line())
        except KeyboardInterrupt:
            return False

    def read_line(self) -> str | None:
        """A line for the learner's `input()`: from stdin (None at its end)."""
        try:
            line = sys.stdin.readline()
        except (OSError, ValueError):
            return None
        if not line:
            return None
        return line.rstrip("\n")

    # -- completion ----------------------------------------------------------------------
    def _ask(self, op: str, limit: float, **args: Any) -> dict[str, Any]:
        """A short request between cells; {} (and a fresh kernel) if the kernel failed."""
        try:
            self.wait_ready()
            return self._exchange({"type": "request", "op": op, **args}, [], limit)
        except (KernelLost, KernelStartError):
            self._restart_quietly()
            return {}

    def complete(self, text: str) -> list[tuple[str, int, str]]:
        """Completions for the text before the cursor, from the kernel's namespace."""
        items = []
        found = self._ask("complete", 2.0, text=text).get("items", [])
        for item in found if isinstance(found, list) else []:
            if isinstance(item, list) and len(item) == 3 and type(item[1]) is int:
                items.append((visible(str(item[0])), item[1], visible(str(item[2]))))
        return items

    def inspect(self, name: str) -> str | None:
        """What `name?` shows, from the kernel (None when the name is unknown)."""
        text = self._ask("inspect", 2.0, name=name).get("text")
        return visible(text) if isinstance(text, str) else None

    def set_time_limit(self, limit: float | None) -> None:
        """Change the per-statement time limit (for the REPL after a program with -i)."""
        self.time_limit = limit
        self._ask("set", 5.0, time_limit=limit)

    # -- recovery ------------------------------------------------------------------------
    def _restart_quietly(self) -> None:
        self._recover("stopped answering")

    def _recover(self, why: str) -> str:
        """Replace a lost kernel and re-run the finished inputs; the message to show."""
        words = self._death_words() if why != "did not stop in time" else ""
        self._kill()
        self.restarts += 1
        if why == "did not stop in time":
            head = (
                f"gradshell: the statement did not stop within {self.grace:g} s of its "
                "time limit or Ctrl-C (it was probably inside native code), so its kernel "
                "was stopped and a new one started."
            )
        elif why == "interrupted twice":
            head = "gradshell: interrupted twice, so the kernel was stopped and a new one started."
        else:
            head = f"gradshell: the kernel running your code {words}; a new one was started."
        try:
            self._start_fresh()
        except (KernelLost, KernelStartError, OSError) as exc:
            return f"{head}\ngradshell: the new kernel could not start: {exc}\n"
        return head + "\n" + self._replay_finished() + "\n"

    def _replay_finished(self) -> str:
        """Re-run the inputs that had finished, quietly; says what came back."""
        history = list(self._finished)
        before = list(self.names)
        if not history:
            return "gradshell: no earlier inputs to restore; the failed statement's work was lost."
        saved_stream, saved_err = self.stream, self.error_stream
        self.stream = self.error_stream = None
        self._replaying = True
        self.names = []
        restored: list[_Finished] = []
        budget_end = time.monotonic() + RECOVERY_BUDGET
        try:
            for item in history:
                if time.monotonic() > budget_end:
                    break
                self._replay_inputs = list(item.inputs)
                try:
                    reply = self._exchange(
                        {
                            "type": "request",
                            "op": item.op,
                            "source": item.source,
                            "filename": item.filename,
                            "live": False,
                            "replay": True,
                        },
                        [],
                        self.time_limit or 30.0,
                    )
                except KernelLost:
                    self._kill()
                    try:
                        self._start_fresh()
                    except (KernelLost, KernelStartError, OSError):
                        pass
                    break
                self._mirror(reply.get("state") or {})
                # Only an input that finished cleanly again counts as restored (a Ctrl-C
                # or an error this time leaves what it made missing).
                if not reply.get("error"):
                    restored.append(item)
        finally:
            self._replaying = False
            self._replay_inputs = []
            self.stream, self.error_stream = saved_stream, saved_err
        self._finished = restored
        return _restored_words(len(restored), len(history), before, self.names)


def _restored_words(done: int, total: int, before: list[str], after: list[str]) -> str:
    """What the quiet re-run brought back, in words: how many inputs, which variables
    came back and which did not (its prints and file writes were not repeated)."""
    if done == total:
        head = (
            f"gradshell: your variables came back by re-running the {done} earlier "
            f"input{'s' if done != 1 else ''} that finished without an error "
            "(quietly: nothing printed or written again); what the failed statement did "
            "was lost."
        )
    else:
        head = (
            f"gradshell: {done} of the {total} earlier inputs that had finished could be "
            "re-run (quietly: nothing printed or written again); what the others made "
            "was lost."
        )
    back = [n for n in before if n in after]
    lost = [n for n in before if n not in after]
    lines = [head]
    if back:
        lines.append(f"gradshell: back: {_name_list(back)}")
    if lost:
        lines.append(f"gradshell: not back: {_name_list(lost)}")
    return "\n".join(lines)


def _name_list(names: list[str], most: int = 20) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def typed_force(source: str) -> bool:
    """Whether `source` is a magic line the learner typed with `--force` (or `-f`)."""
    line = source.strip()
    return line.startswith("%") and any(w in ("-f", "--force") for w in line.split()[1:])


def _at_a_terminal() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _terminal_hints() -> dict[str, Any]:
    """The front end's terminal width and colour, for panels the kernel renders."""
    from gradshell.shell.colour import color_wanted

    try:
        width = shutil.get_terminal_size((100, 24)).columns
    except (OSError, ValueError):
        width = 100
    return {"width": width, "color": color_wanted()}


def parse_size(text: str) -> int:
    """Bytes in a size such as '2G', '512M', '1.5GiB' or '1000000'; ValueError if not one."""
    units = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
    cleaned = text.strip().upper().removesuffix("IB").removesuffix("B")
    number, unit = cleaned, ""
    if cleaned and cleaned[-1] in units:
        number, unit = cleaned[:-1], cleaned[-1]
    value = float(number)
    if value <= 0:
        raise ValueError(f"not a positive size: {text!r}")
    return int(value * units[unit])


def _default_memory() -> int | None:
    """The kernel's address-space cap: GRADSHELL_KERNEL_MEMORY (e.g. '2G', as a
    JupyterHub sets per learner), else 80% of physical memory (at least 2 GiB)."""
    if os.environ.get("GRADSHELL_NO_MEMORY_CAP"):
        return None
    told = os.environ.get("GRADSHELL_KERNEL_MEMORY")
    if told:
        try:
            return parse_size(told)
        except ValueError:
            pass  # a bad setting falls back to the machine's default
    import importlib.util

    if importlib.util.find_spec("cupy") is not None:
        return None  # CUDA reserves far more address space than it uses
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    return max(int(total * 0.8), 2 * 1024**3)


__all__ = ["GRACE_SECONDS", "KernelError", "KernelSession", "KernelStartError"]
