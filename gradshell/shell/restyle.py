"""The kernel's coloured text (panels, lesson text) re-coloured by the front end.

The kernel renders gradshell's panels and lesson text with rich and sends them as text
with ANSI colour codes. Learner code may run in that process, and without the in-process
checker it owns it, so those codes are only a description of the styles wanted: the
front end reads them (rich's `AnsiDecoder`), keeps the attributes that cannot hide or
fake anything, and writes the colour codes itself. Every other escape sequence is
dropped, and what is left of the text goes through `terminal_text.visible`.

Kept: bold, dim, italic, underline, strike-through, and the sixteen standard colours
(others are brought down to the nearest of them), foreground and background, except that
a background whose foreground would not stand out from it gets black or white text, and
that black or white text on the terminal's own background (which may be either) is
shown in the terminal's own colour. Dropped: hidden text, blinking, reverse video,
hyperlinks and everything else a terminal obeys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradshell.shell.terminal_text import line_ends, visible

if TYPE_CHECKING:
    from rich.color import Color
    from rich.style import Style

#: Below this contrast ratio (WCAG's measure) text does not stand out from its background.
MIN_CONTRAST = 2.0

#: Black, white and bright white: one of them is as good as hidden on a terminal's own
#: background, which may be dark or light.
_NEEDS_A_BACKGROUND = {0, 7, 15}


def restyle(text: str, *, color: bool) -> str:
    """`text` (ANSI-coloured by the kernel) with colour codes only from the front end,
    and none at all unless `color`."""
    if "\x1b" not in text:  # nothing styled: `gradshell -c` need not import rich
        return visible(text)
    from rich.ansi import AnsiDecoder

    decoder = AnsiDecoder()
    out: list[str] = []
    # line ends first: rich's decoder keeps only what follows a line's last \r
    for line in line_ends(text).split("\n"):
        styled = decoder.decode_line(line)
        out.append("".join(_pieces(styled.plain, styled.spans, color)))
    return "\n".join(out)


def _pieces(plain: str, spans: list, color: bool) -> list[str]:
    """The line's pieces, each written with its kept style (adjacent equal ones merged)."""
    from rich.color import ColorSystem
    from rich.style import Style

    runs: list[tuple[str, Style | None]] = []
    at = 0
    for span in sorted(spans, key=lambda s: s.start):
        if span.start > at:
            runs.append((plain[at : span.start], None))
        style = span.style if isinstance(span.style, Style) else Style.parse(str(span.style))
        runs.append((plain[span.start : span.end], kept_style(style)))
        at = max(at, span.end)
    if at < len(plain):
        runs.append((plain[at:], None))
    merged: list[tuple[str, Style | None]] = []
    for piece, style in runs:
        if merged and merged[-1][1] == style:
            merged[-1] = (merged[-1][0] + piece, style)
        elif piece:
            merged.append((piece, style))
    shown = []
    for piece, style in merged:
        piece = visible(piece)
        if color and style:
            shown.append(style.render(piece, color_system=ColorSystem.STANDARD))
        else:
            shown.append(piece)
    return shown


def kept_style(style: Style) -> Style | None:
    """The part of `style` the front end writes (None: nothing of it)."""
    from rich.color import Color
    from rich.style import Style

    black, white = Color.from_ansi(0), Color.from_ansi(15)
    fg, bg = _standard(style.color), _standard(style.bgcolor)
    if bg is not None and (fg is None or _contrast(fg, bg) < MIN_CONTRAST):
        fg = black if _contrast(black, bg) >= _contrast(white, bg) else white
    if bg is None and fg is not None and fg.number in _NEEDS_A_BACKGROUND:
        fg = None
    kept = Style(
        color=fg,
        bgcolor=bg,
        bold=style.bold or None,
        dim=style.dim or None,
        italic=style.italic or None,
        underline=style.underline or None,
        strike=style.strike or None,
    )
    return kept or None


def _standard(color: Color | None) -> Color | None:
    """One of the sixteen standard colours (None for none, or the terminal's default)."""
    from rich.color import ColorSystem, ColorType

    if color is None or color.type == ColorType.DEFAULT:
        return None
    return color.downgrade(ColorSystem.STANDARD)


def _luminance(color: Color) -> float:
    """WCAG's relative luminance of a standard colour, as rich's default theme draws it."""
    from rich.terminal_theme import DEFAULT_TERMINAL_THEME

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = color.get_truecolor(DEFAULT_TERMINAL_THEME)
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(a: Color, b: Color) -> float:
    """WCAG's contrast ratio of two colours (1: the same, 21: black and white)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


__all__ = ["kept_style", "restyle"]
