"""Transcript text → sessions of examples.

Formats understood:

* doctest prompts: `>>> ` starts a statement, `... ` continues it;
* IPython prompts: `In [n]: ` starts a statement, `   ...: ` continues it, and displayed
  values follow `Out[n]: ` in the expected output;
* a mix of the two (seed 000 types at `>>>` and shows `Out[n]:` results).

The expected output of a statement is every line after it up to the next prompt, the
next blank line or the next directive line; `<BLANKLINE>` stands for an empty line inside it. Other lines
are prose and are ignored, except directive lines `# replay: key=value`
(`session=NAME` starts a new session, `style=modern|legacy`, `prompt=python|ipython`).
A statement line carrying `# replay: skip` is not run; `# replay: random` is run but
its output not compared. A file may open with a `---` front-matter block
(`style: legacy`). In Markdown, only fenced blocks tagged `pycon` or `gradshell` hold
sessions (one session per block; options may follow the tag: ```` ```pycon style=legacy ````).
"""

from __future__ import annotations

import codeop
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from gradshell.core.era import STYLES
from gradshell.replay.model import (
    Example,
    Transcript,
    TranscriptError,
    TranscriptSession,
)
from gradshell.shell.display import PROMPTS

MAX_BYTES = 4 * 1024 * 1024
"""Largest transcript accepted (transcripts are hand-sized; bigger files are refused)."""

MARKDOWN_SUFFIXES = (".md", ".markdown")
NOTEBOOK_SUFFIXES = (".ipynb",)
SESSION_TAGS = ("pycon", "gradshell")

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_PY_PROMPT = re.compile(r"^([ \t]*)>>>(?: (.*))?$")
_IPY_PROMPT = re.compile(r"^([ \t]*)In \[ *\d* *\]:(?: (.*))?$")
_IPY_CONT = re.compile(r"^[ \t]*\.{3,}:(?: (.*))?$")
_DIRECTIVE = re.compile(r"^#\s*replay:\s*(.*?)\s*$")
_MARKER = re.compile(r"#\s*replay:\s*([\w-]*)")
_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*(.*?)[ \t]*$")
_BAD_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]")


class NoSessionsError(TranscriptError):
    """The text holds no prompts (or, for Markdown, no session blocks) at all."""


@dataclass
class _Line:
    number: int  # 1-based line in the file
    text: str  # the line, with any Markdown fence indentation removed
    prefix: str = ""  # what was removed in front of `text`


@dataclass
class _Options:
    style: str | None = None
    prompt: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


def split_lines(text: str) -> list[str]:
    """Split text on `\\r\\n`, `\\r` or `\\n` (and nothing else); no empty last line."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_transcript(
    path: str | Path, *, max_bytes: int = MAX_BYTES, name: str | None = None
) -> Transcript:
    """Read and parse a transcript file; raises `TranscriptError` with a clear message.

    `name` is how reports call the file (default: `path` as given).
    """
    p = Path(path)
    name = name or str(path)
    try:
        size = p.stat().st_size
        if not p.is_file():
            raise TranscriptError("not a file", name)
        if size > max_bytes:
            raise TranscriptError(
                f"file is too large for a transcript ({_megabytes(size)}; the limit is "
                f"{_megabytes(max_bytes)})",
                name,
            )
        with p.open("rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise TranscriptError(f"cannot read the file: {exc.strerror or exc}", name) from None
    if len(data) > max_bytes:
        raise TranscriptError(
            f"file is too large for a transcript (over {_megabytes(max_bytes)})", name
        )
    text = decode(data, name)
    if p.suffix.lower() in NOTEBOOK_SUFFIXES:
        from gradshell.replay.notebook import parse_notebook

        transcript = parse_notebook(text, name)
        if not transcript.sessions:
            raise NoSessionsError("no code cells: nothing to replay", name)
        return transcript
    return parse_transcript(text, name, markdown=p.suffix.lower() in MARKDOWN_SUFFIXES)


def decode(data: bytes, path: str = "<transcript>") -> str:
    """Decode transcript bytes as UTF-8 (a BOM is allowed); refuse binary data."""
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise TranscriptError("binary data (a NUL byte): not a text transcript", path, line)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TranscriptError(
            f"not UTF-8 text (undecodable byte 0x{data[exc.start]:02x}): not a text transcript",
            path,
            line,
        ) from None


def parse_transcript(
    text: str, path: str = "<transcript>", *, markdown: bool = False, max_chars: int = MAX_BYTES
) -> Transcript:
    """Parse transcript text (plain or Markdown) into sessions of examples."""
    if len(text) > max_chars:
        raise TranscriptError(
            f"text is too large for a transcript ({len(text)} characters; the limit is {max_chars})",
            path,
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = split_lines(text)
    _refuse_control_characters(lines, path)
    options, body_start = _front_matter(lines, path)
    if markdown:
        sessions = _markdown_sessions(lines, body_start, options, path)
    else:
        body = [_Line(i + 1, lines[i]) for i in range(body_start, len(lines))]
        sessions = _parse_block(body, path, options, default_name="session {n}", first_line=1)
        if not sessions:
            raise NoSessionsError("no `>>>` or `In [n]:` prompts: not a transcript", path)
    _dedupe_names(sessions)
    return Transcript(path=path, text=text, sessions=sessions, markdown=markdown)


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def _refuse_control_characters(lines: list[str], path: str) -> None:
    for number, line in enumerate(lines, 1):
        bad = _BAD_CONTROL.search(line)
        if bad:
            raise TranscriptError(
                f"control character {bad.group()!r} in the text: not a text transcript",
                path,
                number,
            )


# ---------------------------------------------------------------------------
# Options: front matter, directive lines, fence info strings


def _set_option(opts: _Options, key: str, value: str, path: str, line: int) -> None:
    key = key.strip().lower()
    value = value.strip()
    if key == "style":
        if value not in STYLES:
            raise TranscriptError(f"unknown style {value!r} (use modern or legacy)", path, line)
        opts.style = value
    elif key == "prompt":
        if value not in PROMPTS:
            raise TranscriptError(f"unknown prompt {value!r} (use python or ipython)", path, line)
        opts.prompt = value
    else:
        raise TranscriptError(
            f"unknown replay option {key!r} (known: session, style, prompt)", path, line
        )


def _front_matter(lines: list[str], path: str) -> tuple[_Options, int]:
    opts = _Options()
    if not lines or lines[0].strip() != "---":
        return opts, 0
    for i in range(1, len(lines)):
        line = lines[i].strip()
        if line in ("---", "..."):
            return opts, i + 1
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in ("style", "prompt"):
            _set_option(opts, key, value.strip().strip("\"'"), path, i + 1)
        elif sep:
            opts.extra[key.strip()] = value.strip()
    raise TranscriptError("front matter opened here is never closed with `---`", path, 1)


def _parse_directive(text: str, line: int, path: str) -> list[tuple[str, str]]:
    """`session=Two words` or `style=legacy prompt=ipython` → [(key, value), ...]."""
    text = text.strip()
    if not text:
        raise TranscriptError("empty `# replay:` directive", path, line)
    if text.split("=", 1)[0].strip().lower() == "session":
        return [("session", text.split("=", 1)[1].strip() if "=" in text else "")]
    pairs = []
    for token in text.split():
        key, sep, value = token.partition("=")
        if not sep:
            if key in ("skip", "random"):
                raise TranscriptError(
                    f"`# replay: {key}` marks a statement: put it at the end of a `>>>` line",
                    path,
                    line,
                )
            raise TranscriptError(f"malformed replay option {token!r} (want key=value)", path, line)
        pairs.append((key, value))
    return pairs


# ---------------------------------------------------------------------------
# Markdown


def _markdown_sessions(
    lines: list[str], start: int, file_opts: _Options, path: str
) -> list[TranscriptSession]:
    sessions: list[TranscriptSession] = []
    i = start
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        close = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
        tokens = info.split()
        tag = tokens[0].lower() if tokens else ""
        body: list[_Line] = []
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            raw = lines[j]
            cut = len(raw) - len(raw.lstrip(" "))
            cut = min(cut, indent)
            body.append(_Line(j + 1, raw[cut:], raw[:cut]))
            j += 1
        if tag in SESSION_TAGS:
            if j >= len(lines):
                raise TranscriptError(
                    f"```{tag} code block opened here is never closed", path, i + 1
                )
            opts = _Options(file_opts.style, file_opts.prompt)
            name = None
            for token in tokens[1:]:
                key, sep, value = token.partition("=")
                if not sep:
                    continue
                if key.lower() == "session":
                    name = value
                else:
                    _set_option(opts, key, value, path, i + 1)
            label = (name or f"block at line {i + 1}").replace("{", "{{").replace("}", "}}")
            found = _parse_block(body, path, opts, default_name=label, first_line=i + 1)
            if not found:
                raise TranscriptError(
                    f"```{tag} code block has no `>>>` or `In [n]:` prompts", path, i + 1
                )
            sessions.extend(found)
        i = j + 1
    return sessions


# ---------------------------------------------------------------------------
# Blocks of prompts and output


def _needs_more(source: str) -> bool:
    """True while an interactive prompt would still wait for more lines."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return codeop.compile_command(source, "<transcript>", "single") is None
        except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
            return False


def _plainly_finished(source: str) -> bool:
    """A fast yes for one-line statements without strings, comments or open brackets."""
    if "\n" in source or source.rstrip().endswith((":", "\\", ",")):
        return False
    if "'" in source or '"' in source or "#" in source:
        return False
    depth = 0
    for char in source:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
    return depth == 0


def _unfinished(source: str) -> bool:
    """True if the statement cannot be finished by ending the input here."""
    if _plainly_finished(source):
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return codeop.compile_command(source + "\n", "<transcript>", "exec") is None
        except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
            return False


def _is_directive(text: str) -> bool:
    return "replay:" in text and bool(_DIRECTIVE.match(text.strip()))


def _is_prompt(text: str) -> bool:
    return bool(_PY_PROMPT.match(text) or _IPY_PROMPT.match(text))


def _mode(source_lines: list[str], first_line: int, path: str) -> str:
    mode = "compare"
    for k, text in enumerate(source_lines):
        if "replay" not in text:
            continue
        for m in _MARKER.finditer(text):
            word = m.group(1)
            if word == "skip":
                mode = "skip"
            elif word == "random":
                mode = "random" if mode != "skip" else mode
            else:
                raise TranscriptError(
                    f"unknown statement marker `# replay: {word}` (use skip or random)",
                    path,
                    first_line + k,
                )
    return mode


def _parse_block(
    lines: list[_Line], path: str, defaults: _Options, *, default_name: str, first_line: int
) -> list[TranscriptSession]:
    sessions: list[TranscriptSession] = []
    file_defaults = _Options(defaults.style, defaults.prompt)
    current = TranscriptSession(
        name=default_name.format(n=1),
        line=first_line,
        style=file_defaults.style,
        prompt=file_defaults.prompt,
    )
    named_explicitly = False
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        py = _PY_PROMPT.match(line.text)
        ipy = None if py else _IPY_PROMPT.match(line.text)
        if not py and not ipy:
            d = _DIRECTIVE.match(line.text.strip())
            if d:
                for key, value in _parse_directive(d.group(1), line.number, path):
                    if key == "session":
                        if current.examples or named_explicitly:
                            sessions.append(current)
                        current = TranscriptSession(
                            name=value or default_name.format(n=len(sessions) + 1),
                            line=line.number,
                            style=file_defaults.style,
                            prompt=file_defaults.prompt,
                        )
                        named_explicitly = True
                    else:
                        opts = _Options(current.style, current.prompt)
                        _set_option(opts, key, value, path, line.number)
                        current.style, current.prompt = opts.style, opts.prompt
                        if not current.examples and not sessions and not named_explicitly:
                            file_defaults = _Options(opts.style, opts.prompt)
            i += 1
            continue
        example, i = _parse_example(lines, i, py, ipy, path)
        current.examples.append(example)
    if current.examples or named_explicitly:
        sessions.append(current)
    for s in sessions:
        if not s.examples:
            raise TranscriptError(f"session {s.name!r} has no prompts", path, s.line)
    return sessions


def _parse_example(
    lines: list[_Line], i: int, py: re.Match | None, ipy: re.Match | None, path: str
) -> tuple[Example, int]:
    start = lines[i]
    kind = "python" if py else "ipython"
    m = py or ipy
    assert m is not None
    indent = m.group(1)
    source = [m.group(2) or ""]
    n = len(lines)
    i += 1
    while i < n:
        text = lines[i].text
        if kind == "python":
            if not text.startswith(indent):
                break
            rest = text[len(indent) :]
            if rest.startswith("... "):
                source.append(rest[4:])
                i += 1
                continue
            if rest.rstrip() == "...":
                # A bare `...` is an empty continuation line while the statement is open
                # or when more continuation follows; otherwise it is ELLIPSIS output.
                more_follows = i + 1 < n and lines[i + 1].text.startswith(indent + "... ")
                if more_follows or _needs_more("\n".join(source)):
                    source.append("")
                    i += 1
                    continue
            break
        cont = _IPY_CONT.match(text)
        if not cont:
            break
        source.append(cont.group(1) or "")
        i += 1
    typed = start.text[len(indent) :]  # the first line: its prompt, then source[0]
    code = "\n".join(source)
    if _unfinished(code):
        raise TranscriptError(
            "this statement is never finished (an open bracket, string or block; "
            "continue it with `... ` lines)",
            path,
            start.number,
        )
    want_line = lines[i].number if i < n else start.number + len(source)
    want: list[str] = []
    while i < n:
        line = lines[i]
        if not line.text.strip() or _is_prompt(line.text) or _is_directive(line.text):
            break
        text = line.text
        if text.startswith(indent):
            text = text[len(indent) :]
        else:
            raise TranscriptError(
                f"expected output is indented less than its prompt (line {start.number})",
                path,
                line.number,
            )
        want.append("" if text.rstrip() == "<BLANKLINE>" else text)
        i += 1
    want_end = lines[i].number if i < n else (lines[-1].number + 1 if lines else want_line)
    if not want:
        want_end = want_line
    example = Example(
        source=code,
        want=tuple(want),
        line=start.number,
        want_line=want_line,
        want_end=want_end,
        indent=start.prefix + indent,
        mode=_mode(source, start.number, path),  # type: ignore[arg-type]
        prompt=kind,  # type: ignore[arg-type]
        source_lines=tuple(source),
        first_prompt=typed[: len(typed) - len(source[0])],
    )
    return example, i


def _dedupe_names(sessions: list[TranscriptSession]) -> None:
    seen: dict[str, int] = {}
    for s in sessions:
        base = s.name.replace("::", ":") or "session"
        count = seen.get(base, 0) + 1
        seen[base] = count
        s.name = base if count == 1 else f"{base} ({count})"
