"""Chinese lesson text wrapped by display width, never inside a piece of code.

A terminal wraps English at spaces; Chinese has none, and may break between any two
characters (but not before `，。）` nor after `（`). Left to a word-based wrapper, a
Chinese paragraph breaks only at the spaces around inline code: lines end early, and
`y.backward(torch.tensor([0.1, 1.0, 10.0]))` is cut at its inner spaces. `prewrap`
breaks each Markdown paragraph itself — between Chinese characters, at spaces outside
code, never inside an inline code span — to the display width (a Chinese character
takes two columns), joining the lines with Markdown hard line breaks.
"""

from __future__ import annotations

import re

from rich.cells import cell_len

#: Characters a line may not start with / end with (Chinese line-breaking rules).
NO_START = set("，。、；：！？）》」』】〕…—,.;:!?)]}%")
NO_END = set("（《「『【〔([{")

_CODE = re.compile(r"`[^`]*`")
_BLOCK = re.compile(r"^\s*([-*+]|\d+[.)])\s+")


def _cjk(ch: str) -> bool:
    code = ord(ch)
    return (
        0x2E80 <= code <= 0x9FFF
        or 0xF900 <= code <= 0xFAFF
        or 0x3000 <= code <= 0x303F
        or 0xFF00 <= code <= 0xFFEF
    )


def units(text: str) -> list[str]:
    """The pieces a line may break between: an inline code span, a Chinese character,
    a run of other characters up to a space (the space kept with it)."""
    out: list[str] = []
    pos = 0
    for m in _CODE.finditer(text):
        out.extend(_plain_units(text[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.extend(_plain_units(text[pos:]))
    return _glue(out)


def _plain_units(text: str) -> list[str]:
    out: list[str] = []
    word = ""
    for ch in text:
        if _cjk(ch):
            if word:
                out.append(word)
                word = ""
            out.append(ch)
        elif ch == " ":
            word += ch
            out.append(word)
            word = ""
        else:
            word += ch
    if word:
        out.append(word)
    return out


def _glue(pieces: list[str]) -> list[str]:
    """Keep closing punctuation with what precedes it, opening with what follows."""
    out: list[str] = []
    for piece in pieces:
        if out and (piece[:1] in NO_START or out[-1][-1:] in NO_END):
            out[-1] += piece
        else:
            out.append(piece)
    return out


def _visible(text: str) -> str:
    """What the terminal shows of Markdown text: without backticks and bold marks."""
    return text.replace("`", "").replace("**", "")


def wrap_line(text: str, width: int, indent: str = "") -> list[str]:
    """`text` broken into lines of at most `width` columns (a unit wider than that stands
    alone on its line); continuation lines start with `indent`."""
    lines: list[str] = []
    line = ""
    for unit in units(text):
        candidate = line + unit
        if line and cell_len(_visible(candidate.rstrip())) > width:
            lines.append(line.rstrip())
            line = indent + unit.lstrip()
        else:
            line = candidate
    if line.strip():
        lines.append(line.rstrip())
    return lines


def prewrap(markdown: str, width: int) -> str:
    """Markdown with each paragraph and list item wrapped to `width` columns by the
    rules above (code blocks, tables and headings are left alone)."""
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            out.append(line)
            continue
        if (
            fenced
            or not stripped
            or stripped.startswith(("#", "|", ">"))
            or line.startswith("    ")
        ):
            out.append(line)
            continue
        m = _BLOCK.match(line)
        indent = " " * len(m.group(0)) if m else ""
        # a list item is drawn after its bullet: that many columns fewer
        wrapped = wrap_line(line, width - (len(indent) + 1 if m else 0), indent)
        # a Markdown hard line break (a backslash at the end): kept as it is
        out.append("\\\n".join(wrapped))
    return "\n".join(out)


__all__ = ["prewrap", "units", "wrap_line"]
