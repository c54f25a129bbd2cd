"""Magics: `%help`, `%style`, `%prompt`, `%reset`, `%who`, `%history`, `%save`, `%load`,
`%time`, and a registry so other parts add their own (`%graph`, `%ledger`, `%device`...).

A magic is ``func(session, arg) -> str | None``: `arg` is the text after the magic's
name; a returned string is printed on the output channel (`session.write` does the
same mid-way, `session.show_visual` writes to the visual channel). Raise `MagicError`
for a usage problem: the shell prints its message as ``gradshell: ...``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gradshell.shell.session import Session


class MagicError(Exception):
    """A magic was used wrongly; the message says how to use it."""


@dataclass
class Magic:
    """A registered magic."""

    name: str
    func: Callable[[Session, str], str | None]
    help: str
    record: bool = True  # part of a %save'd transcript


_MAGICS: dict[str, Magic] = {}


def register_magic(
    name: str,
    func: Callable[[Session, str], str | None],
    help: str,
    *,
    record: bool = False,
) -> None:
    """Add (or replace) the magic `%name`.

    `help` is the one line `%help` shows. `record=True` keeps the magic in transcripts
    written by `%save` (for magics that change what later inputs print, like `%style`).
    """
    name = name.lstrip("%")
    if not name.isidentifier():
        raise ValueError(f"not a magic name: {name!r}")
    _MAGICS[name] = Magic(name, func, help, record)


def magic_names() -> list[str]:
    """The registered magics' names, sorted."""
    return sorted(_MAGICS)


def get_magic(name: str) -> Magic | None:
    """The magic `name` (without '%'), if registered."""
    return _MAGICS.get(name)


def run_magic(session: Session, line: str) -> tuple[bool, BaseException | None]:
    """Run one `%name args` line; returns (recorded in transcripts?, error)."""
    body = line[1:] if line.startswith("%") else line
    name, _, arg = body.partition(" ")
    name = name.strip()
    magic = _MAGICS.get(name)
    if magic is None:
        error = MagicError(f"unknown magic %{name} (type %help for the list)")
        session.write(f"gradshell: {error}\n")
        return False, error
    try:
        text = magic.func(session, arg.strip())
    except MagicError as exc:
        session.write(f"gradshell: {exc}\n")
        return False, exc
    if text:
        session.write(text if text.endswith("\n") else text + "\n")
    return magic.record, None


# --- the built-in magics ----------------------------------------------------------


def _help(session: Session, arg: str) -> str:
    width = max(len(n) for n in _MAGICS) + 2
    lines = [f"%{m.name:<{width}}{m.help}" for m in (_MAGICS[n] for n in magic_names())]
    return "\n".join(lines)


def _style(session: Session, arg: str) -> str | None:
    if not arg:
        return f"print style: {session.style}"
    if arg not in ("modern", "legacy"):
        raise MagicError("usage: %style modern|legacy")
    session.set_style(arg)
    return None


def _prompt(session: Session, arg: str) -> str | None:
    if not arg:
        return f"prompt style: {session.prompt}"
    if arg not in ("python", "ipython"):
        raise MagicError("usage: %prompt python|ipython")
    session.set_prompt(arg)
    return None


def _reset(session: Session, arg: str) -> str | None:
    if arg not in ("", "-f"):
        raise MagicError("usage: %reset")
    session.reset()
    return None


def _describe(value: Any) -> tuple[str, str, str, str]:
    """(type, shape, dtype, requires_grad) of a variable for %who."""
    import types

    from gradshell.shell.safe_modules import SafeModule

    if isinstance(value, types.ModuleType | SafeModule):
        return "module", "", "", ""
    kind = type(value).__name__
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if isinstance(shape, tuple) and dtype is not None and not isinstance(value, type):
        dims = "[" + ", ".join(str(d) for d in tuple(shape)) + "]"
        rg = getattr(value, "requires_grad", None)
        return kind, dims, str(dtype), "" if rg is None else str(rg)
    return kind, "", "", ""


def _who(session: Session, arg: str) -> str:
    names = sorted(session.variables())
    if not names:
        return "Interactive namespace is empty."
    wanted = arg.split()
    if wanted:  # `%who x y` names variables; `%who Tensor` a type, as in IPython
        names = [n for n in names if n in wanted or type(session.namespace[n]).__name__ in wanted]
        if not names:
            return "No variables match your requested type."
    rows = [("Variable", "Type", "Shape", "Dtype", "requires_grad")]
    for name in names:
        rows.append((name, *_describe(session.namespace[name])))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    out = []
    for i, row in enumerate(rows):
        out.append("   ".join(cell.ljust(widths[j]) for j, cell in enumerate(row)).rstrip())
        if i == 0:
            out.append("   ".join("-" * w for w in widths))
    return "\n".join(out)


def _history(session: Session, arg: str) -> str:
    lines = []
    for entry in session.history:
        text = entry.source.rstrip("\n").split("\n")
        lines.append(f"{entry.count:>4}: {text[0]}")
        lines.extend(f"      {more}" for more in text[1:])
    return "\n".join(lines) if lines else "(no history yet)"


#: The words that let a file command write over a file gradshell did not write (IPython's
#: `%save -f` and the long form).
FORCE_WORDS = ("-f", "--force")


def take_force(arg: str) -> tuple[bool, str]:
    """(`--force` given?, the rest): the flag may come first or last, so that a file name
    with spaces in the middle stays whole."""
    words = arg.split()
    if words and words[0] in FORCE_WORDS:
        return True, arg.strip()[len(words[0]) :].strip()
    if words and words[-1] in FORCE_WORDS:
        return True, arg.strip()[: -len(words[-1])].strip()
    return False, arg.strip()


def _save(session: Session, arg: str) -> str:
    force, name = take_force(arg)
    if not name:
        raise MagicError("usage: %save [--force] FILE")
    from gradshell.shell.files import FileAccessError
    from gradshell.shell.transcript import session_transcript

    text = session_transcript(session)
    try:
        shown = session.files.write_text(name, text, force=force)
    except FileAccessError as exc:
        raise MagicError(str(exc)) from None
    count = sum(1 for e in session.history if e.record)
    return f"saved {count} inputs to {shown}"


def _load(session: Session, arg: str) -> str | None:
    if not arg:
        raise MagicError("usage: %load FILE")
    from gradshell.shell import inputsplit
    from gradshell.shell.files import FileAccessError

    try:
        text = session.files.read_text(arg)
    except FileAccessError as exc:
        raise MagicError(str(exc)) from None
    if inputsplit.is_transcript(text):
        sources = inputsplit.transcript_inputs(text)
    else:
        sources = [c.text for c in inputsplit.split_script(text) if c.kind != "blank"]
    for source in sources:
        session.write(inputsplit.echo(source, session.ps1(), session.ps2()))
        result = session.run_cell(source)
        if result.exit_code is not None:
            break
    return None


def format_time(seconds: float) -> str:
    """A duration as IPython's %time prints it (3 significant digits)."""
    if seconds >= 60:
        minutes, rest = divmod(seconds, 60)
        return f"{int(minutes)}min {rest:.0f}s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            value = seconds / scale
            return f"{value:.3g} {unit}"
    return f"{seconds:.3g} s"


def _time(session: Session, arg: str) -> str | None:
    if not arg:
        raise MagicError("usage: %time STATEMENT")
    wall0 = time.perf_counter()
    times0 = _cpu_split()
    session.run_code(arg)
    wall = time.perf_counter() - wall0
    user, system = (max(0.0, a - b) for a, b in zip(_cpu_split(), times0, strict=True))
    total = user + system  # one clock for all three, so that they add up
    return (
        f"CPU times: user {format_time(user)}, sys: {format_time(system)}, "
        f"total: {format_time(total)}\nWall time: {format_time(wall)}"
    )


def _cpu_split() -> tuple[float, float]:
    """(user, system) CPU seconds of this process, to the microsecond where the system
    says so (os.times() counts in 10 ms ticks)."""
    try:
        import resource

        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime, r.ru_stime
    except (ImportError, OSError):
        import os

        t = os.times()
        return t.user, t.system


def _sandbox(session: Session, arg: str) -> str:
    layers = getattr(session, "sandbox_layers", None)
    if not layers:
        return "this session runs in the shell's own process, without the sandboxed kernel"
    width = max(len(name) for name in layers)
    lines = ["your code runs in a sandboxed kernel process:"]
    lines += [f"  {name:<{width}}  {what}" for name, what in layers.items()]
    return "\n".join(lines)


register_magic("help", _help, "list the magics, one line each")
register_magic("style", _style, "modern|legacy: print as PyTorch 2.x or 0.3 does", record=True)
register_magic(
    "prompt", _prompt, "python|ipython: '>>> ' prompts or 'In [n]:'/'Out[n]:'", record=True
)
register_magic("reset", _reset, "forget all variables", record=True)
register_magic("who", _who, "list variables with their type, shape, dtype, requires_grad")
register_magic("history", _history, "list the inputs of this session")
register_magic(
    "save",
    _save,
    "[--force] FILE: save the session as a replayable transcript (--force: replace a "
    "file gradshell did not write)",
)
register_magic("load", _load, "FILE: run a script or a transcript's inputs in this session")
register_magic("sandbox", _sandbox, "show how the kernel running your code is confined")
register_magic("time", _time, "STATEMENT: run it and show how long it took")
