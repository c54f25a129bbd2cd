"""The panels shown after a statement that changed a `.grad`: old + new = result for each
backward pass (with each path's share when several paths added), `→ zeros` after
`zero_()`, `→ None` after `.grad = None`.

`%viz on` draws one box per tensor with the cause as its subtitle; `%viz compact` one
line per change.
"""

from __future__ import annotations

from typing import Any

from gradshell.viz.common import Namer
from gradshell.viz.ledger import Entry

#: Longest `old + new = result` kept on one line (longer sums get a line per term).
ONE_LINE = 90
#: Changes of one tensor shown in full per statement (the rest are counted).
SHOWN_PER_TENSOR = 4


def change_text(entry: Entry, lang: str = "en") -> Any:
    """One change as styled text, without the tensor's name: `old + new = result`."""
    from rich.text import Text

    from gradshell.viz.words import word

    after = entry.after.render() if entry.after is not None else "None"
    before = entry.before.render() if entry.before is not None else None
    text = Text()
    if entry.kind in ("backward", "retain"):
        added = entry.added.render() if entry.added is not None else "?"
        if before is None:
            text.append("None", style="dim")
            text.append(" → ")
            text.append(after, style="bold")
            text.append(f"  ({word(lang, 'first_gradient')})", style="dim")
        elif len(before) + len(added) + len(after) + 6 <= ONE_LINE:
            text.append(before, style="dim")
            text.append(" + ")
            text.append(added, style="green")
            text.append(" = ")
            text.append(after, style="bold")
        else:  # long values: one per line, aligned like a written sum
            text.append("  " + before + "\n", style="dim")
            text.append("+ ")
            text.append(added + "\n", style="green")
            text.append("= ")
            text.append(after, style="bold")
        return text
    text.append(before if before is not None else "None", style="dim")
    long = len(text.plain) + len(after) > ONE_LINE
    text.append("\n→ " if long else " → ")
    if entry.kind == "zero" and entry.after is not None and entry.after.is_zero():
        text.append(word(lang, "zeros"), style="bold red")
    else:
        text.append(after, style="bold red" if entry.kind in ("zero", "none") else "bold")
    if entry.kind in ("assign", "inplace", "unseen"):
        text.append(f"  ({word(lang, 'note_' + entry.kind)})", style="dim")
    return text


def share_lines(entry: Entry) -> list[Any]:
    """'+ value  from b (AddBackward0, input 0)' for each path that added."""
    from rich.text import Text

    lines = []
    for share in entry.shares:
        line = Text("    + ")
        line.append(share.value.render(), style="green")
        line.append("  " + share.label, style="dim")
        lines.append(line)
    return lines


def _grouped(items: list[tuple[Any, Entry]]) -> list[tuple[Any, list[Entry]]]:
    groups: dict[int, tuple[Any, list[Entry]]] = {}
    for t, entry in items:
        groups.setdefault(id(t), (t, []))[1].append(entry)
    return list(groups.values())


def _elided(entries: list[Entry]) -> tuple[list[Entry], int]:
    if len(entries) <= SHOWN_PER_TENSOR:
        return entries, 0
    keep = SHOWN_PER_TENSOR - 1
    return entries[: keep - 1] + entries[-1:], len(entries) - keep


def changes_view(
    items: list[tuple[Any, Entry]], namer: Namer, mode: str = "on", lang: str = "en"
) -> Any:
    """The panels for the `.grad` changes of one statement (None if there were none)."""
    if not items:
        return None
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    from gradshell.viz.words import word

    parts: list[Any] = []
    groups = sorted(_grouped(items), key=lambda group: namer.rank(group[0]))
    for t, entries in groups:
        label = namer.grad_label(t)
        shown, hidden = _elided(entries)
        if mode == "compact":
            for i, entry in enumerate(shown):
                if hidden and i == len(shown) - 1:
                    more = word(lang, "more_changes_compact", n=hidden)
                    parts.append(Text(f"{label}  {more}", style="dim"))
                line = Text(f"{label}  ", style="bold cyan")
                line.append_text(change_text(entry, lang))
                parts.append(line)
            continue
        body: list[Any] = []
        for i, entry in enumerate(shown):
            if hidden and i == len(shown) - 1:
                body.append(Text(word(lang, "more_changes", n=hidden), style="dim"))
            body.append(change_text(entry, lang))
            body.extend(share_lines(entry))
            body.append(Text("  ← " + entry.describe(lang), style="dim italic"))
        parts.append(
            Panel(
                Group(*body),
                title=Text(label, style="bold cyan"),
                title_align="left",
                expand=False,
                padding=(0, 1),
            )
        )
    return Group(*parts)
