"""The kernel process: one learner `Session` behind the wire protocol, confined by the OS.

Started by the front end as `python -m gradshell.kernel` with the protocol on its
stdin/stdout pipes. It reads a start message (the session's settings and the sandbox
policy), imports what learner code will need, confines itself (`confine`), says
`ready`, then serves requests one at a time:

    run_cell / run_script  → stream messages while the code prints, then a result
    complete               → completions for the text before the cursor
    shutdown               → exit

While a cell runs, the kernel may ask the front end for things only the front end may
do (`service` messages: a line of input, reading or writing a file in the session
directory) and waits for the reply. Nothing the kernel sends can make the front end run
code: it is plain JSON data.
"""

from __future__ import annotations

import io
import os
import resource
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gradshell.kernel.protocol import (
    STYLED_STREAM,
    Closed,
    MessageTooLarge,
    Reader,
    write_message,
)

#: The CPU seconds a cell may use beyond its wall-clock limit before SIGXCPU ends the
#: kernel (a last resort for native loops that ignore the time-limit signal).
CPU_SLACK = 5

#: prctl(2): the signal a process gets when its parent dies.
PR_SET_PDEATHSIG = 1

#: The most characters one stream message carries.
STREAM_PIECE = 1 << 20

#: The most characters of text one result carries in each of its fields (the output, the
#: error's message): a cell that printed more streamed it already, piece by piece, and a
#: result over the wire's message limit could not be sent at all.
MAX_RESULT_TEXT = 4 << 20

#: The most characters of an input() prompt sent to the front end.
MAX_PROMPT = 1 << 16

#: The most variable names one state message carries.
MAX_NAMES = 2000


class Channel:
    """The kernel's end of the pipes to the front end."""

    def __init__(self, in_fd: int, out_fd: int) -> None:
        self.reader = Reader(in_fd)
        self.out_fd = out_fd
        # One message at a time: a large one is written in several pieces, and a thread
        # printing meanwhile must not cut into it.
        self._sending = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        """Send one message to the front end."""
        with self._sending:
            write_message(self.out_fd, message)

    def read(self) -> dict[str, Any]:
        """The next message from the front end (blocks)."""
        message = self.reader.read()
        assert message is not None  # no timeout given
        return message

    def ask(self, op: str, **args: Any) -> dict[str, Any]:
        """A service request to the front end, answered before the cell goes on."""
        self.send({"type": "service", "op": op, **args})
        while True:
            message = self.read()
            if message.get("type") == "reply":
                return message


class StreamSender(io.TextIOBase):
    """A text stream whose writes go to the front end as they happen."""

    def __init__(self, channel: Channel, name: str) -> None:
        self.channel = channel
        self.name = name

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        # Pieces well under the protocol's message limit, however long the text.
        for start in range(0, len(text), STREAM_PIECE):
            piece = text[start : start + STREAM_PIECE]
            self.channel.send({"type": "stream", "name": self.name, "text": piece})
        return len(text)

    def isatty(self) -> bool:
        return False


class RemoteFiles:
    """The session's file service inside the kernel: the front end does the I/O."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    def _ask(self, op: str, **args: Any) -> dict[str, Any]:
        from gradshell.shell.files import FileAccessError

        try:
            reply = self.channel.ask(op, **args)
        except MessageTooLarge:
            raise FileAccessError("the text is too large to write (the limit is 64 MiB)") from None
        if not reply.get("ok"):
            raise FileAccessError(str(reply.get("error", "the front end refused")))
        return reply

    def read_text(self, path: str) -> str:
        """The text of `path`, read by the front end."""
        return str(self._ask("read_file", path=path).get("text", ""))

    def write_text(self, path: str, text: str, *, force: bool = False) -> str:
        """Have the front end write `text` to `path` (it honours `force` only when the
        learner typed it: the kernel's word alone is not the learner's)."""
        reply = self._ask("write_file", path=path, text=text, force=force)
        return str(reply.get("shown", path))

    def write_svg(self, path: str, dot_text: str, *, force: bool = False) -> str:
        """Have the front end render DOT text to an SVG file."""
        reply = self._ask("write_svg", path=path, text=dot_text, force=force)
        return str(reply.get("shown", path))

    def show_graph(self, dot_text: str) -> None:
        """Send a graph's DOT to a front end that draws pictures (it answers at once)."""
        self.channel.ask("show_graph", text=dot_text)


class Kernel:
    """The request loop around one Session."""

    def __init__(self, channel: Channel, start: dict[str, Any]) -> None:
        from gradshell.shell.session import Session

        self.channel = channel
        self.busy = False
        self.out = StreamSender(channel, "out")
        self.err = StreamSender(channel, "err")
        #: gradshell's own styled text (a lesson's, %step's views): the front end keeps
        #: its colours, written by itself, where learner output ("out") keeps none.
        self.styled = StreamSender(channel, STYLED_STREAM)
        self.tutor: Any = None
        self._shell_session = Session(
            style=start.get("style", "modern"),
            prompt=start.get("prompt", "python"),
            viz=bool(start.get("viz", True)),
            time_limit=start.get("time_limit"),
            max_elements=int(start.get("max_elements", 10**8)),
            filename=start.get("filename", "<stdin>"),
            files=RemoteFiles(channel),
            unsafe=bool(start.get("unsafe", False)),
        )
        self.interactive = bool(start.get("interactive", False))
        self._shell_session.interactive = self.interactive
        self._shell_session.styled_stream = self.styled
        self._shell_session.rich_display = bool(start.get("rich_display", False))
        self._install_input(self._shell_session)
        device = start.get("device", "cpu")
        if device and device != "cpu":
            from gradshell.shell.device import set_default_device

            set_default_device(str(device))
        if self.session.viz:
            self.session.ensure_plugins()
        if start.get("mode") == "learn":
            self._start_tutor(dict(start.get("learn") or {}))

    @property
    def session(self) -> Any:
        """The shell session learner code runs in now (a lesson's, in a lesson)."""
        if self.tutor is not None and self.tutor.session is not None:
            return self.tutor.session
        return self._shell_session

    def _start_tutor(self, settings: dict[str, Any]) -> None:
        """Lesson mode: a Tutor whose text streams to the front end and whose progress
        the front end keeps."""
        from gradshell.kernel.remote_progress import RemoteProgressStore
        from gradshell.learn.lesson import load_course
        from gradshell.learn.tutor import Tutor

        extra = [Path(p) for p in settings.get("extra", []) if isinstance(p, str)]
        self.tutor = Tutor(
            load_course(extra=extra),
            lang=str(settings.get("lang", "en")),
            store=RemoteProgressStore(self.channel),
            out=self.styled,
            learner_out=self.out,
            time_limit=settings.get("time_limit"),
            color=bool(settings.get("color", False)),
        )
        self._tutor_sessions: set[int] = set()

    def open_files_within(self, start: dict[str, Any]) -> None:
        """torch.save/torch.load: relative paths in the workspace (a file to read that is
        not there is looked for in the session directory), every path inside the
        workspace or the session's directories (the sandbox enforces the same)."""
        from gradshell.shell.files import PathPolicy, make_opener
        from gradshell.torch import serialization

        files = dict(start.get("files") or {})
        session_dir = Path(files.get("session_dir") or os.getcwd())
        policy = PathPolicy(session_dir, [Path(p) for p in files.get("allowed", [])])
        self.workspace = Path(os.getcwd())
        self.opener = make_opener(policy, self.workspace)
        self.policy = policy
        serialization.file_opener = self.opener
        temp = start.get("temp_dir")
        self.replay_dir = Path(temp) / "replay" if temp else None

    @contextmanager
    def writes_thrown_away(self, replaying: bool) -> Iterator[None]:
        """While `replaying` (the quiet re-run of earlier inputs after a restart), the
        code's writes land in a throwaway folder, not the workspace: a `torch.save` or
        a file written by code that already ran once must not happen twice. Reads find
        what the re-run wrote, then the workspace's and the session's files as usual."""
        if not replaying or self.replay_dir is None:
            yield
            return
        from gradshell.shell.files import make_opener
        from gradshell.torch import serialization

        self.replay_dir.mkdir(exist_ok=True)
        scratch = make_opener(self.policy, self.replay_dir)
        usual = self.opener

        def replay_opener(path: str, mode: str) -> Any:
            relative = not Path(path).expanduser().is_absolute()
            if relative and "r" in mode and not (self.replay_dir / path).exists():
                return usual(path, mode)
            return scratch(path, mode)

        replay_opener.roots = [self.replay_dir, *usual.roots]  # type: ignore[attr-defined]
        replay_opener.session_dir = usual.session_dir  # type: ignore[attr-defined]
        serialization.file_opener = replay_opener
        os.chdir(self.replay_dir)
        try:
            yield
        finally:
            serialization.file_opener = usual
            os.chdir(self.workspace)

    # -- learner-facing services ---------------------------------------------------------
    def _install_input(self, session: Any) -> None:
        """`input()` asks the front end for a line, as Python's asks the terminal."""

        def read_input(prompt: Any = "") -> str:
            """Read a line from the learner (through the front end)."""
            from gradshell.shell.limits import paused_time_limit

            text = "" if prompt is None else str(prompt)
            with paused_time_limit():  # the learner's typing time is not the cell's
                reply = self.channel.ask("input", prompt=text[:MAX_PROMPT])
            if reply.get("ok"):
                return str(reply.get("line", ""))
            error = reply.get("error")
            if error == "KeyboardInterrupt":
                raise KeyboardInterrupt
            if isinstance(error, str) and error != "EOFError":
                raise EOFError(error)  # the line could not come (too large to send)
            raise EOFError("EOF when reading a line")

        from gradshell.shell import policy

        policy.expose(read_input)  # the kernel's own code is not learner API otherwise
        session.read_input = read_input  # type: ignore[method-assign]
        table = session.namespace.get("__builtins__")
        if isinstance(table, dict) and "input" in table:
            table["input"] = read_input

    def state(self) -> dict[str, Any]:
        """What the front end mirrors: prompts, style, counts (and the lesson's mode)."""
        s = self.session
        state: dict[str, Any] = {
            "style": s.style,
            "prompt": s.prompt,
            "viz": s.viz,
            "execution_count": s.execution_count,
            "time_limit": s.time_limit,
            # what came back after a restart is told by name (the first MAX_NAMES)
            "names": sorted(map(str, s.variables()))[:MAX_NAMES],
        }
        tutor = self.tutor
        if tutor is not None:
            state["tutor"] = {
                "mode": tutor.mode.value,
                "prompt": "" if tutor.finished else tutor.prompt(),
                "finished": tutor.finished,
                "in_session": tutor.session is not None,
                "lesson": tutor.lesson.id if tutor.lesson is not None else None,
            }
        return state

    def _tutor_ready(self) -> None:
        """Give a lesson's new shell session the kernel's input()."""
        session = self.tutor.session if self.tutor is not None else None
        if session is not None and id(session) not in self._tutor_sessions:
            self._tutor_sessions.add(id(session))
            session.interactive = self.interactive
            session.files = RemoteFiles(self.channel)  # the front end's rules, as the shell's
            session.styled_stream = self.styled
            self._install_input(session)

    # -- requests ------------------------------------------------------------------------
    def serve(self) -> None:
        """Answer requests until the front end says shutdown or hangs up."""
        while True:
            try:
                request = self.channel.read()
            except Closed:
                return
            op = request.get("op")
            if op == "shutdown":
                return
            handler = getattr(self, f"_op_{op}", None)
            if request.get("type") != "request" or handler is None:
                self.channel.send({"type": "error", "message": f"unknown request {op!r}"})
                continue
            try:
                reply = handler(request)
            except Exception as exc:  # a fault of gradshell's own: report, keep serving
                detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                reply = _internal_error(detail)
            try:
                self.channel.send(fit_result(reply))
            except MessageTooLarge as exc:  # a reply that no trimming could fit
                self.channel.send(_internal_error(str(exc)))

    def _op_run_cell(self, request: dict[str, Any]) -> dict[str, Any]:
        self._apply_display(request)
        if isinstance(request.get("filename"), str):  # a notebook names each cell
            self.session.filename = request["filename"]
        live = bool(request.get("live", True))
        self.session.stream = self.out if live else None
        self.session.error_stream = None
        with self.writes_thrown_away(bool(request.get("replay"))):
            return self._run(lambda: self.session.run_cell(request["source"], display=True))

    def _op_run_script(self, request: dict[str, Any]) -> dict[str, Any]:
        self._apply_display(request)
        live = bool(request.get("live", True))
        self.session.stream = self.out if live else None
        self.session.error_stream = self.err if live else None
        filename = str(request.get("filename", "<string>"))
        self.session.filename = filename
        with self.writes_thrown_away(bool(request.get("replay"))):
            return self._run(lambda: self.session.run_script(request["source"], filename))

    def _op_tutor_start(self, request: dict[str, Any]) -> dict[str, Any]:
        self._apply_display(request)
        name = request.get("name")
        return self._tutor_call(lambda: self.tutor.start(None if name is None else str(name)))

    def _op_tutor_handle(self, request: dict[str, Any]) -> dict[str, Any]:
        self._apply_display(request)
        text = str(request.get("text", ""))
        return self._tutor_call(lambda: self.tutor.handle(text))

    def _op_tutor_eof(self, request: dict[str, Any]) -> dict[str, Any]:
        return self._tutor_call(self.tutor.eof)

    def _tutor_call(self, body: Any) -> dict[str, Any]:
        if self.tutor is None:
            return {"type": "error", "message": "not in lesson mode"}
        self._tutor_ready()
        interrupted = False
        value = None
        try:
            value = self._interruptibly(body)
        except KeyboardInterrupt:
            interrupted = True
        self._tutor_ready()
        return {
            "type": "result",
            "value": value if isinstance(value, bool | int | str) else None,
            "interrupted": interrupted,
            "state": self.state(),
        }

    def _op_complete(self, request: dict[str, Any]) -> dict[str, Any]:
        from gradshell.shell.completion import complete

        try:
            items = complete(self.session, str(request.get("text", "")))
        except Exception:
            items = []
        return {"type": "completions", "items": [list(item) for item in items]}

    def _op_inspect(self, request: dict[str, Any]) -> dict[str, Any]:
        """What `x?` shows: the object's type, its printed form and its docstring."""
        from gradshell.shell.completion import describe_name

        try:
            text = describe_name(self.session, str(request.get("name", "")))
        except Exception:
            text = None
        return {"type": "completions", "items": [], "text": text}

    def _op_set(self, request: dict[str, Any]) -> dict[str, Any]:
        if "time_limit" in request:
            self.session.time_limit = request["time_limit"]
        if "filename" in request:
            self.session.filename = str(request["filename"])
        return {"type": "state", "state": self.state()}

    def _apply_display(self, request: dict[str, Any]) -> None:
        """The terminal's width and colour, for panels rendered in here."""
        width = request.get("width")
        if isinstance(width, int) and width > 0:
            os.environ["COLUMNS"] = str(width)
        color = request.get("color")
        if color is not None:
            os.environ["GRADSHELL_COLOR"] = "1" if color else "0"

    def _interruptibly(self, body: Any) -> Any:
        """Run learner-facing work: under the CPU limit, and where SIGINT interrupts it."""
        self._limit_cpu()
        self.busy = True
        try:
            return body()
        finally:
            self.busy = False

    def _run(self, body: Any) -> dict[str, Any]:
        result = self._interruptibly(body)
        return {
            "type": "result",
            "output": result.output,
            "visual": result.visual,
            "value": getattr(result, "value", ""),
            "error_text": getattr(result, "error_text", ""),
            "error": describe_error(result.error),
            "exit_code": result.exit_code,
            "state": self.state(),
        }

    def _limit_cpu(self) -> None:
        """Let SIGXCPU end the kernel if a cell burns CPU far past its time limit."""
        limit = self.session.time_limit
        try:
            soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
            if not limit:
                resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
                return
            usage = resource.getrusage(resource.RUSAGE_SELF)
            used = int(usage.ru_utime + usage.ru_stime) + 1
            want = used + int(limit) + CPU_SLACK
            if hard != resource.RLIM_INFINITY:
                want = min(want, hard)
            resource.setrlimit(resource.RLIMIT_CPU, (want, hard))
        except (ValueError, OSError):
            pass

    def on_interrupt(self, signum: int, frame: Any) -> None:
        """SIGINT from the front end: interrupt the running cell (idle: ignore)."""
        if self.busy:
            raise KeyboardInterrupt


def _internal_error(detail: str) -> dict[str, Any]:
    """The result that reports a fault of gradshell's own (the kernel keeps serving)."""
    return {
        "type": "result",
        "output": f"gradshell: internal error in the kernel: {detail[:MAX_PROMPT]}\n",
        "visual": "",
        "error": {"type": "InternalError", "message": detail[:MAX_PROMPT]},
        "exit_code": None,
    }


def _trim(text: Any, what: str) -> Any:
    """`text` cut to MAX_RESULT_TEXT characters, saying so (anything else unchanged)."""
    if not isinstance(text, str) or len(text) <= MAX_RESULT_TEXT:
        return text
    half = MAX_RESULT_TEXT // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}\n… ({cut:,} characters of this {what} left out) …\n{text[-half:]}"


def fit_result(reply: dict[str, Any]) -> dict[str, Any]:
    """A reply whose long texts (output, picture, error message) are trimmed to fit the
    wire: a cell that printed 70 MB, or raised an error whose message is that long, still
    gets its answer instead of ending the kernel."""
    fitted = dict(reply)
    for key in ("output", "visual", "text", "value", "error_text"):
        if key in fitted:
            fitted[key] = _trim(fitted[key], "output")
    error = fitted.get("error")
    if isinstance(error, dict) and "message" in error:
        fitted["error"] = {**error, "message": _trim(error["message"], "message")}
    return fitted


def describe_error(error: BaseException | None) -> dict[str, Any] | None:
    """An exception as plain data for the front end."""
    if error is None:
        return None
    from gradshell.shell.errors import StatementTimeout

    try:
        message = str(error)
    except Exception:  # a learner exception whose __str__ fails, as Python prints it
        message = "<exception str() failed>"
    if not isinstance(message, str):
        message = "<exception str() failed>"
    return {
        "type": type(error).__name__,
        "message": message,
        "timeout": isinstance(error, StatementTimeout),
        "interrupted": isinstance(error, KeyboardInterrupt),
    }


def _warm_up(session_viz: bool) -> None:
    """Import what learner code uses, before the sandbox narrows what can be read."""
    import numpy  # noqa: F401

    import gradshell.printing  # noqa: F401
    import gradshell.torch  # noqa: F401
    from gradshell.shell import completion  # noqa: F401

    if session_viz:
        import gradshell.viz  # noqa: F401


def _confine(start: dict[str, Any]) -> dict[str, str]:
    """Check where every module came from, apply the sandbox the start message asks for,
    and move into the workspace; the layers that hold, in words."""
    from gradshell.kernel.confine import default_read_dirs
    from gradshell.kernel.provenance import untrusted_imports

    writable = [Path(p) for p in (start.get("workspace"), start.get("temp_dir")) if p]
    found = untrusted_imports(default_read_dirs(), writable)
    if found:
        raise RuntimeError(
            "the kernel refuses to start: it loaded code from outside gradshell's and "
            f"Python's read-only folders ({'; '.join(found[:5])})"
        )
    policy_data = start.get("sandbox")
    if not policy_data:
        layers = {"sandbox": "off (the front end asked for none)"}
    else:
        from gradshell.kernel.confine import ConfinePolicy, confine

        reads = default_read_dirs() + [Path(p) for p in policy_data.get("read_dirs", [])]
        policy = ConfinePolicy(
            scratch_dir=Path(policy_data["writable_dir"]),
            read_dirs=reads,
            memory_bytes=policy_data.get("memory_bytes"),
            cpu_seconds=policy_data.get("cpu_seconds"),
            max_file_bytes=int(policy_data.get("max_file_bytes", 256 * 1024**2)),
            max_open_files=int(policy_data.get("max_open_files", 256)),
            write_dirs=[Path(p) for p in policy_data.get("write_dirs", [])],
        )
        layers = dict(confine(policy).layers)
    layers.update(_start_lines(start))
    if start.get("workspace"):
        os.chdir(start["workspace"])  # relative paths in learner code resolve there
    return layers


def _start_lines(start: dict[str, Any]) -> dict[str, str]:
    """The layers around the OS wall, in words: how the kernel started, what it may
    write and read of the session directory, and whether the checker is on."""
    unchecked = (start.get("sandbox") or {}).get("unchecked", 0)
    files = (
        f"writes only in the workspace {start.get('workspace')} and a private temporary "
        "folder; reads the session directory's visible files, never a hidden one "
        "(a name starting with '.')"
    )
    if isinstance(unchecked, int) and unchecked:
        files += f"; {unchecked} folder(s) too large to check for hidden names left unreadable"
    checker = (
        "off (--checker off): plain Python, held by the layers above alone"
        if start.get("unsafe")
        else "on: refuses what a tutorial never needs before it runs"
    )
    return {
        "start": "isolated Python (no current directory or PYTHON* variables), started "
        "outside anything learner code can write, every import checked to come from a "
        "read-only folder; an environment of "
        f"{len(os.environ)} allowed variables (locale, gradshell's and the numeric "
        "libraries' settings), none of the host's others",
        "files": files,
        "checker": checker,
    }


def report_unraisable(hook: Any) -> None:
    """`sys.unraisablehook`: an error Python could not raise where it happened (a
    generator closed by the collector whose `finally:` ran into the time limit, say),
    told in the learner's words, without the frames of gradshell's own code."""
    exc = hook.exc_value
    try:
        where = f" in: {hook.object!r}" if hook.object is not None else ""
    except Exception:  # the object's own repr failed: name its type only
        where = f" in: <{type(hook.object).__name__} object>"
    from gradshell.shell.errors import StatementTimeout

    if isinstance(exc, StatementTimeout | KeyboardInterrupt):
        what = "it was stopped by the time limit or Ctrl-C"
    elif exc is None:
        what = getattr(hook.exc_type, "__name__", "an error")
    else:
        what = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    try:
        sys.stderr.write(f"Exception ignored{where[:200]}: {what[:1000]}\n")
    except Exception:  # nowhere to say it: stay quiet rather than fail again
        pass


def _die_with_parent(parent: int) -> None:
    """Be killed when the front end dies, even in the middle of a loop with no time limit.

    Set after confinement: changing the user clears the setting."""
    try:
        from gradshell.kernel import linux

        linux.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError, ImportError):
        return
    if os.getppid() != parent:  # the front end died before the setting took
        os._exit(1)


def main() -> int:
    """The kernel's entry point (`python -m gradshell.kernel`)."""
    # The protocol owns the original stdin/stdout; C code that prints must not corrupt it.
    in_fd, out_fd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    sys.stdout = io.TextIOWrapper(open(os.devnull, "wb"), encoding="utf-8")  # noqa: SIM115
    channel = Channel(in_fd, out_fd)
    parent = os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        start = channel.read()
    except Closed:
        return 0
    try:
        _warm_up(bool(start.get("viz", True)))
        kernel = Kernel(channel, start)
        layers = _confine(start)
        kernel.session.sandbox_layers = layers
        kernel.open_files_within(start)
    except BaseException as exc:  # noqa: BLE001 - reported to the front end, then exit
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        if start.get("device", "cpu") != "cpu" and start.get("sandbox"):
            # CUDA starts driver threads and needs the GPU's device files writable: the
            # sandbox cannot confine that process yet.
            detail = (
                f"{detail}\nThe GPU cannot be used inside the sandboxed kernel yet; "
                "start gradshell with --unsafe to use it without the sandbox."
            )
        channel.send({"type": "fatal", "message": detail})
        return 1
    _die_with_parent(parent)
    sys.unraisablehook = report_unraisable
    signal.signal(signal.SIGINT, kernel.on_interrupt)
    channel.send({"type": "ready", "layers": layers, "state": kernel.state(), "pid": os.getpid()})
    kernel.serve()
    return 0


__all__ = [
    "Channel",
    "Kernel",
    "RemoteFiles",
    "StreamSender",
    "describe_error",
    "fit_result",
    "main",
    "report_unraisable",
]
