"""The accumulation ledger: every change to a tensor's `.grad`, and its table (`%ledger x`).

An entry records one change: a backward pass adding into `.grad` (with the share of
each path when several paths added), `zero_()` (also through `.grad.data`), `.grad =
None`, an assignment, or an in-place change seen after the fact. Values are copies taken
at that moment; large tensors keep only their summarised text, so the ledger stays
small whatever the tensors' size.
"""

from __future__ import annotations

import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradshell.viz.common import Namer, compact, display_name, host_array

#: Snapshots with more elements count against LARGE_BUDGET.
KEEP_ARRAY_MAX = 4096
#: Entries kept per tensor (the oldest are dropped and counted).
MAX_ENTRIES = 256

KINDS = ("backward", "retain", "zero", "none", "assign", "inplace", "unseen")


#: Bytes of large snapshots kept as arrays; beyond it the oldest become text only.
LARGE_BUDGET = 64 * 2**20
_large: deque = deque()
_large_bytes = [0]


class Snap:
    """A copy of a gradient's values at one moment.

    Large snapshots stay whole while they fit in LARGE_BUDGET; beyond it the oldest keep
    only the elements a summarised print shows (the first and last `edgeitems` along each
    dimension) and the print options of that moment, so the printer can still write their
    text later while a long loop of backward passes costs neither memory nor formatting.
    """

    __slots__ = ("array", "text", "shape", "dtype", "floating", "edges", "__weakref__")

    def __init__(self, value: Any, fresh: bool = False) -> None:
        arr = host_array(value)
        self.shape = tuple(arr.shape)
        self.dtype = arr.dtype
        self.floating = arr.dtype.kind == "f"
        self.text: str | None = None
        self.edges: tuple | None = None  # (index per dim, kept block, threshold, edgeitems)
        # `fresh`: the core already copied these values for the event; no second copy.
        self.array: np.ndarray | None = arr if fresh else np.array(arr, copy=True)
        if arr.size > KEEP_ARRAY_MAX:
            _keep_large(self)

    def render(self) -> str:
        """The values on one line, PyTorch-formatted and summarised."""
        if self.text is not None:
            return self.text
        if self.array is not None:
            return compact(self.array, self.floating)
        index, block, threshold, edgeitems = self.edges
        # Unshown elements are never read by a summarised print: zeros stand in for them.
        full = np.zeros(self.shape, self.dtype)
        full[np.ix_(*index)] = block
        self.text = compact(full, self.floating, threshold=threshold, edgeitems=edgeitems)
        self.edges = None
        return self.text

    def shrink(self) -> None:
        """Keep only what a summarised print shows (or the text, if it is not summarised)."""
        from gradshell.printing.options import OPTS

        arr = self.array
        threshold, edgeitems = OPTS.threshold, OPTS.edgeitems
        if not isinstance(edgeitems, int) or arr.size <= threshold or edgeitems < 1:
            self.text = compact(arr, self.floating)
        else:
            index = [
                np.r_[0:edgeitems, n - edgeitems : n] if n > 2 * edgeitems else np.arange(n)
                for n in arr.shape
            ]
            self.edges = (index, arr[np.ix_(*index)].copy(), threshold, edgeitems)
        self.array = None

    def is_zero(self) -> bool:
        """True when every element is zero (unknown once shrunk: False)."""
        return self.array is not None and not bool(np.any(self.array))


def _keep_large(s: Snap) -> None:
    _large.append(s)
    _large_bytes[0] += s.array.nbytes
    while _large_bytes[0] > LARGE_BUDGET and len(_large) > 1:
        old = _large.popleft()
        if old.array is not None:
            _large_bytes[0] -= old.array.nbytes
            old.shrink()


def snap(value: Any, fresh: bool = False) -> Snap | None:
    """A Snap of a tensor, or None for None (`fresh`: the values are already a copy)."""
    return None if value is None else Snap(value, fresh)


@dataclass
class Share:
    """What one path of the graph added (several paths into one `.grad`)."""

    value: Snap
    src: Any = None  # the graph node the gradient came from (dropped once labelled)
    edge: int = 0  # its index in src.next_functions
    label: str = ""
    name: str = ""  # the learner's name for the node's output ('' when it has none)
    node: str = ""  # the node's class name, as PyTorch names it

    def finish(self, namer: Namer) -> None:
        """Turn the node into words with the learner's names, and drop the reference."""
        if self.src is None or self.label:
            self.src = None
            return
        self.name = namer.node_output(self.src) or ""
        self.node = display_name(self.src)
        self.relabel()
        self.src = None

    def relabel(self, number: int | None = None) -> None:
        """The label from the node's name and edge ('from b (AddBackward0, input 0)'),
        the node numbered when another path's node reads the same."""
        from gradshell.viz.words import word

        node = self.node if number is None else f"{self.node} #{number}"
        who = (
            f"{self.name} ({node}, input {self.edge})"
            if self.name
            else f"{node}, input {self.edge}"
        )
        self.label = word(None, "from", who=who)


def tell_apart(shares: list[Share]) -> None:
    """Number the paths whose labels read the same (two unnamed `AddBackward0` nodes of
    `(x + 2) * (x + 2)`, say), in the order the backward pass reached them, so that a
    panel never shows two identical lines for two different nodes."""
    from collections import Counter

    counts = Counter(share.label for share in shares)
    seen: Counter[str] = Counter()
    for share in shares:
        if counts[share.label] > 1 and share.node:
            key = share.label
            seen[key] += 1
            share.relabel(seen[key])


@dataclass
class Entry:
    """One change to a `.grad`."""

    kind: str
    cause: str = ""
    call: int | None = None
    before: Snap | None = None
    added: Snap | None = None
    after: Snap | None = None
    shares: list[Share] = field(default_factory=list)
    cell: int = 0

    def describe(self, lang: str = "en") -> str:
        """The cause column: 'backward #2: y.backward(...)', 'zeroed: ...'."""
        from gradshell.viz.words import word

        what = word(lang, f"cause_{self.kind}", n=self.call)
        return f"{what}: {self.cause}" if self.cause else what


class Book:
    """The entries of one tensor's `.grad`."""

    __slots__ = ("ref", "entries", "dropped", "grad_id", "__weakref__")

    def __init__(self, ref: weakref.ref) -> None:
        self.ref = ref
        self.entries: list[Entry] = []
        self.dropped = 0
        self.grad_id: int | None = None  # the live .grad object the last entry saw

    def add(self, entry: Entry) -> None:
        """Append an entry, dropping the oldest beyond MAX_ENTRIES."""
        self.entries.append(entry)
        if len(self.entries) > MAX_ENTRIES:
            del self.entries[0]
            self.dropped += 1

    def since_reset(self) -> tuple[list[Entry], int]:
        """The entries since `.grad` was last None, and how many came before."""
        start = 0
        for i, e in enumerate(self.entries):
            if e.kind == "none":
                start = i + 1
            elif e.before is None:  # .grad came into being here
                start = i
        return self.entries[start:], start + self.dropped

    def last_after(self) -> Snap | None:
        """What `.grad` held after the last recorded change."""
        return self.entries[-1].after if self.entries else None


class Ledger:
    """Books of every tensor whose `.grad` changed while recording was on."""

    def __init__(self) -> None:
        self.books: dict[int, Book] = {}

    def book(self, t: Any) -> Book:
        """The book of tensor `t` (opened on first use; closed when `t` dies)."""
        key = id(t)
        book = self.books.get(key)
        if book is not None and book.ref() is t:
            return book
        books = self.books

        def closed(_ref: Any, key: int = key) -> None:
            current = books.get(key)
            if current is not None and current.ref() is None:
                del books[key]

        book = Book(weakref.ref(t, closed))
        books[key] = book
        return book

    def find(self, t: Any) -> Book | None:
        """The book of `t` if it has one."""
        book = self.books.get(id(t))
        return book if book is not None and book.ref() is t else None

    def live(self) -> list[tuple[Any, Book]]:
        """(tensor, book) for every tensor still alive."""
        out = []
        for book in list(self.books.values()):
            t = book.ref()
            if t is not None:
                out.append((t, book))
        return out

    def total(self, t: Any) -> np.ndarray | None:
        """The ledger's value of `t.grad`: what the last entry left (None if none)."""
        book = self.find(t)
        if book is None or not book.entries:
            return None
        after = book.last_after()
        return None if after is None else after.array


# --- the %ledger table ----------------------------------------------------------------------


def _added_text(e: Entry, lang: str = "en") -> str:
    from gradshell.viz.words import word

    if e.kind in ("backward", "retain"):
        return "+ " + e.added.render() if e.added is not None else ""
    if e.kind == "zero":
        return word(lang, "wiped", value=e.before.render() if e.before is not None else "?")
    if e.kind == "none":
        return word(lang, "dropped", value=e.before.render() if e.before is not None else "None")
    if e.before is not None:
        return word(lang, "was", value=e.before.render())
    return ""


def ledger_table(
    name: str, book: Book, live: Any, *, everything: bool = False, lang: str = "en"
) -> Any:
    """The history of `name.grad` as a rich renderable (step, cause, added, result)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    if everything:
        entries, earlier = list(book.entries), book.dropped
    else:
        entries, earlier = book.since_reset()
    from gradshell.viz.words import word

    title = (
        f"{name}.grad — every change since it was created or reset"
        if lang != "zh"
        else f"{name}.grad：创建或重置以来的每一次改动"
    )
    table = Table(title=title, title_justify="left", expand=False, show_lines=False)
    table.add_column(word(lang, "col_step"), justify="right", no_wrap=True)
    table.add_column(word(lang, "col_cause"), overflow="fold")
    table.add_column(word(lang, "col_added"), overflow="fold")
    table.add_column(word(lang, "col_result"), overflow="fold")
    for i, e in enumerate(entries, start=earlier + 1):
        result = e.after.render() if e.after is not None else "None"
        table.add_row(str(i), e.describe(lang), _added_text(e, lang), result)
        for s in e.shares:
            table.add_row("", Text("  ↳ " + s.label, style="dim"), "+ " + s.value.render(), "")
    parts: list[Any] = [table]
    if earlier:
        parts.append(
            Text(f"({earlier} earlier change(s) before that; %ledger {name} --all shows them)")
        )
    now = "None" if live is None else compact(live)
    parts.append(Text(f"{name}.grad now: {now}" if lang != "zh" else f"{name}.grad 现在是：{now}"))
    last = book.last_after()
    if not agrees(last, live):
        parts.append(
            Text(
                f"note: {name}.grad changed while recording was off (%viz off or "
                "--no-viz), so the table misses that change.",
                style="yellow",
            )
        )
    return Group(*parts)


def agrees(last: Snap | None, live: Any) -> bool:
    """Does the ledger's last value match the live `.grad`? (Large tensors: unknown, True.)"""
    if live is None:
        return last is None
    if last is None:
        return False
    if last.array is None:
        return True
    arr = host_array(live)
    return arr.shape == last.array.shape and bool(
        np.array_equal(arr, last.array, equal_nan=arr.dtype.kind == "f")
    )


def summary_table(rows: list[tuple[str, Book, Any]], lang: str = "en") -> Any:
    """`%ledger` with no name: every tracked `.grad`, its number of changes and value."""
    from rich.table import Table

    from gradshell.viz.words import word

    table = Table(title=word(lang, "summary_title"), title_justify="left")
    table.add_column(word(lang, "col_tensor"))
    table.add_column(word(lang, "col_changes"), justify="right")
    table.add_column(word(lang, "col_last"), overflow="fold")
    table.add_column(word(lang, "col_now"), overflow="fold")
    for name, book, live in rows:
        last = book.entries[-1].describe(lang) if book.entries else ""
        table.add_row(
            f"{name}.grad",
            str(len(book.entries) + book.dropped),
            last,
            "None" if live is None else compact(live),
        )
    return table
