"""Listens to the core's events while a session runs learner code (visualisation on)
and turns them into ledger entries and traces of backward passes.

It subscribes right before a cell runs and unsubscribes right after, so other code and
sessions without visualisation never pay for it. A listener that failed is switched off
rather than break the learner's backward pass.
"""

from __future__ import annotations

import sys
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from gradshell.core import events
from gradshell.core.autograd import existing_accumulator
from gradshell.core.tensor import Tensor
from gradshell.viz.ledger import Entry, Ledger, Share, agrees, snap, tell_apart

if TYPE_CHECKING:
    from gradshell.shell.session import Session

_UNSET = object()

#: Backward passes kept for `%explain` after they ran.
TRACES_KEPT = 4


@dataclass
class Trace:
    """What one backward pass did: nodes run in order, with their gradients, and the
    saved values each node could read (taken before the pass freed them)."""

    call: int
    roots: tuple
    grad_roots: tuple
    retain_graph: bool
    create_graph: bool
    inputs: tuple | None = None
    cause: str = ""
    saved: dict = field(default_factory=dict)  # node -> (saved dict, legacy-kept dict)
    runs: list = field(default_factory=list)  # (node, grads in, grads out)
    error: BaseException | None = None
    finished: bool = False


@dataclass
class AccRun:
    """A gradient that went into a `.grad` during a pass (a leaf, or a retain_grad tensor)."""

    tensor: Any
    before: Any
    added: Any
    after: Any
    retain: bool = False


def graph_nodes(roots: tuple) -> list:
    """Every node reachable from the tensors `roots` (their grad_fn or leaf sink)."""
    stack = []
    for t in roots:
        if not isinstance(t, Tensor):
            continue
        fn = t.grad_fn
        if fn is None:
            fn = existing_accumulator(t)
        if fn is not None:
            stack.append(fn)
    seen: dict = {}
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen[node] = None
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                stack.append(nxt)
    return list(seen)


def _same_memory(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.may_share_memory(a, b))
    try:
        return a.data.ptr == b.data.ptr  # CuPy arrays
    except AttributeError:
        return False


class Recorder:
    """A session's event listener, ledger and recent backward traces."""

    def __init__(self, session: Session) -> None:
        self._session = weakref.ref(session)
        self.ledger = Ledger()
        self.traces: deque[Trace] = deque(maxlen=TRACES_KEPT)
        self.pending: list[tuple[Any, Entry]] = []
        self.enabled = True
        self.broken: str | None = None
        self._unsubscribe = None
        self._depth = 0
        self._stack: list[Trace] = []
        self._flows: dict = {}
        self._cursor: dict = {}
        self.backward_count = 0
        self._added_in_pass = 0  # gradients added by the pass running now
        self._gap = False  # recording was off for a while: changes may be missing

    def set_enabled(self, on: bool) -> None:
        """Turn recording on or off (`%viz off` costs nothing: no subscription)."""
        if not on:
            self._gap = True
            if self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None
        self.enabled = on

    # -- subscription (one cell at a time) -----------------------------------------------
    def start(self) -> None:
        """Subscribe to the core's events (before learner code runs)."""
        self._depth += 1
        if self._unsubscribe is None and self.enabled and self.broken is None:
            self._unsubscribe = events.subscribe(self._on_event)

    def stop(self) -> None:
        """Unsubscribe when the outermost cell ends."""
        self._depth = max(0, self._depth - 1)
        if self._depth == 0 and self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    # -- helpers --------------------------------------------------------------------------
    def _cell(self) -> int:
        s = self._session()
        return s.execution_count if s is not None else 0

    def learner_line(self) -> str:
        """The learner's line running now ('' outside learner code): the statement typed,
        with the line inside a function of theirs when the change happened there."""
        s = self._session()
        if s is None:
            return ""
        sources = s.sources
        frame = sys._getframe(1)
        inner = outer = ""
        while frame is not None:
            name = frame.f_code.co_filename
            if name in sources:
                outer = sources.line(name, frame.f_lineno)
                inner = inner or outer
            frame = frame.f_back
        # the statement typed, and the line inside the learner's function that did it
        return outer if inner == outer else f"{outer} → {inner}"

    def _add(self, t: Any, entry: Entry, grad: Any, before: Any = _UNSET) -> None:
        entry.cell = self._cell()
        book = self.ledger.book(t)
        if before is not _UNSET and book.entries and not agrees(book.last_after(), before):
            # .grad changed between two recorded changes (while off, or in place)
            gap = Entry("unseen" if self._gap else "inplace", before=book.last_after())
            gap.after = snap(before)
            gap.cell = entry.cell
            book.add(gap)
            self.pending.append((weakref.ref(t), gap))
        book.add(entry)
        book.grad_id = None if grad is None else id(grad)
        self.pending.append((weakref.ref(t), entry))

    # -- events ---------------------------------------------------------------------------
    def _on_event(self, event: Any) -> None:
        try:
            handler = _HANDLERS.get(type(event))
            if handler is not None:
                handler(self, event)
        except Exception as exc:  # never break the learner's backward pass
            self.broken = f"{type(exc).__name__}: {exc}"
            if self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None

    def _started(self, ev: events.BackwardStarted) -> None:
        # Number the passes per session ("backward #2"), not by the engine's global count.
        self.backward_count += 1
        trace = Trace(
            self.backward_count,
            ev.roots,
            ev.grad_roots,
            ev.retain_graph,
            ev.create_graph,
            inputs=ev.inputs,
        )
        trace.cause = self.learner_line()
        for node in graph_nodes(ev.roots):
            # Copies taken before the pass frees them (release() empties the node's own).
            trace.saved[node] = (node.saved_values, node.kept_after_free)
        self._stack.append(trace)
        self._flows = {}
        self._cursor = {}
        self._added_in_pass = 0

    def _node_run(self, ev: events.NodeRun) -> None:
        if self._stack:
            self._stack[-1].runs.append((ev.node, ev.grad_inputs, ev.grad_outputs))
        self._cursor[ev.node] = 0

    def _flow(self, ev: events.GradFlow) -> None:
        src, dst, nr = ev.src, ev.dst, ev.input_nr
        nexts = src.next_functions
        j = self._cursor.get(src, 0)
        while j < len(nexts) and not (nexts[j][0] is dst and nexts[j][1] == nr):
            j += 1
        self._cursor[src] = j + 1
        self._flows.setdefault((id(dst), nr), []).append((src, j, ev.grad))

    def _finished(self, ev: events.BackwardFinished) -> None:
        if self._stack:
            trace = self._stack.pop()
            trace.error = ev.error
            trace.finished = True
            self.traces.append(trace)
            if ev.error is not None and not getattr(self, "_added_in_pass", 0):
                # a pass that failed before changing any .grad is not counted: the next
                # one that works is "backward #N" for the N-th pass that did something
                self.backward_count = max(0, self.backward_count - 1)
        self._flows = {}
        self._cursor = {}

    def _accumulated(self, ev: events.GradAccumulated) -> None:
        self._added_in_pass = getattr(self, "_added_in_pass", 0) + 1
        t = ev.tensor
        trace = self._stack[-1] if self._stack else None
        if t.grad_fn is None:
            key = (id(existing_accumulator(t)), 0)
            kind = "backward"
        else:
            key = (id(t.grad_fn), t.output_nr)
            kind = "retain"
        flows = self._flows.get(key, ())
        shares = [Share(snap(g), src, edge) for src, edge, g in flows] if len(flows) > 1 else []
        entry = Entry(  # the event's before/added/after are the core's own copies
            kind,
            cause=trace.cause if trace is not None else self.learner_line(),
            call=trace.call if trace is not None else None,
            before=snap(ev.before, fresh=True),
            added=snap(ev.added, fresh=True),
            after=snap(ev.after, fresh=True),
            shares=shares,
        )
        self._add(t, entry, ev.grad, ev.before)
        if trace is not None:
            trace.runs.append(AccRun(t, ev.before, ev.added, ev.after, kind == "retain"))

    def _owners(self, zeroed: Any) -> list:
        """Tensors whose live `.grad` is (an alias of) the tensor just zeroed."""
        data = zeroed._data
        found = []
        seen: set[int] = set()
        candidates = [t for t, _ in self.ledger.live()]
        s = self._session()
        if s is not None:
            candidates += [v for v in s.namespace.values() if isinstance(v, Tensor)]
        for t in candidates:
            if id(t) in seen:
                continue
            seen.add(id(t))
            g = t._grad
            if g is not None and _same_memory(g._data, data):
                found.append(t)
        return found

    def _zeroed(self, ev: events.GradZeroed) -> None:
        owners = self._owners(ev.tensor)
        if not owners:
            return
        cause = self.learner_line()
        for t in owners:
            entry = Entry(
                "zero", cause=cause, before=snap(ev.before, fresh=True), after=snap(t._grad)
            )
            self._add(t, entry, t._grad, ev.before)

    def _set(self, ev: events.GradSetToNone) -> None:
        if ev.before is None and ev.after is None:
            return
        kind = "none" if ev.after is None else "assign"
        entry = Entry(kind, cause=self.learner_line(), before=snap(ev.before), after=snap(ev.after))
        self._add(ev.owner, entry, ev.after, ev.before)

    # -- after a cell ---------------------------------------------------------------------
    def check_unseen(self) -> None:
        """Record changes no event announced (`x.grad.mul_(0)`, `x.grad.data = ...`)."""
        for t, book in self.ledger.live():
            if not book.entries:
                continue
            live = t._grad
            last = book.last_after()
            if last is None or live is None:
                continue  # a None change always comes with an event
            if not agrees(last, live):
                kind = "unseen" if self._gap else "inplace"
                entry = Entry(kind, before=last, after=snap(live))
                self._add(t, entry, live)
        if self.enabled:
            self._gap = False

    def take_pending(self, namer: Any) -> list[tuple[Any, Entry]]:
        """The changes since the last call (tensor, entry), with path labels filled in."""
        out = []
        for ref, entry in self.pending:
            for share in entry.shares:
                share.finish(namer)
            tell_apart(entry.shares)
            t = ref()
            if t is not None:
                out.append((t, entry))
        self.pending = []
        return out

    def trace_for(self, root: Any) -> Trace | None:
        """The latest backward pass that started at `root` and worked (else the latest
        that failed; None if none was recorded)."""
        failed = None
        for trace in reversed(self.traces):
            if any(r is root for r in trace.roots):
                if trace.error is None:
                    return trace
                failed = failed or trace
        return failed


_HANDLERS = {
    events.BackwardStarted: Recorder._started,
    events.NodeRun: Recorder._node_run,
    events.GradFlow: Recorder._flow,
    events.BackwardFinished: Recorder._finished,
    events.GradAccumulated: Recorder._accumulated,
    events.GradZeroed: Recorder._zeroed,
    events.GradSetToNone: Recorder._set,
}

__all__ = ["AccRun", "Recorder", "Trace", "graph_nodes"]
