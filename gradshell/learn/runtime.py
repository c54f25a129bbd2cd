"""A lesson's shell session and what happened in it during the current step.

`LessonRuntime` wraps the real `gradshell.shell.Session` (same evaluator, visualisation
on, autograd errors explained in the learner's language). Every input goes through
`run_cell`, which also keeps the step's `StepLog`: the errors raised, the values shown,
the magics run, and — from the core's events — each backward pass and each gradient
added into a `.grad`, noting whether that `.grad` had been cleared first. The checks in
`gradshell.learn.checks` read the session's state and this log.

The runtime is also the replay engine's shell session when the tests replay a lesson's
reference solutions (it has `run_cell`), so the tests and the learner share one path.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from gradshell.core import events

if TYPE_CHECKING:
    from gradshell.learn.lesson import Lesson, Step
    from gradshell.shell.session import CellResult, Session


@dataclass
class Accumulation:
    """A gradient added into some tensor's `.grad` during the step."""

    tensor: weakref.ref
    cleared_first: bool
    """The `.grad` had held a non-zero gradient and was cleared (zeros or None) before this."""
    onto_gradient: bool
    """The gradient was added onto a non-zero `.grad` (it accumulated)."""


@dataclass
class StepLog:
    """What the learner's inputs did during one step."""

    errors: list[BaseException] = field(default_factory=list)
    shown: list[Any] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    magics: list[str] = field(default_factory=list)
    accumulations: list[Accumulation] = field(default_factory=list)
    backward_roots: list[tuple[weakref.ref, ...]] = field(default_factory=list)
    nodes_run: dict[int, weakref.ref] = field(default_factory=dict)
    """The graph nodes a backward pass ran through in this step, by id."""
    last_shown: list[Any] = field(default_factory=list)
    """The values the last input displayed."""
    looked: bool = False
    """The last input showed a value or printed something (the learner looked at a result)."""
    backwards_done: int = 0
    """Backward passes that finished without an error in this step."""
    cells: int = 0
    start_marks: dict[int, Any] = field(default_factory=dict)
    """Fingerprints of the checks' subjects when the step began (see checks.fingerprint)."""


def _nonzero(value: Any) -> bool:
    """True for a gradient copy that holds some non-zero element."""
    if value is None:
        return False
    from gradshell.viz.common import host_array

    arr = host_array(value)
    return bool(arr is not None and arr.size and np.any(arr != 0))


def _ref(obj: Any) -> weakref.ref:
    try:
        return weakref.ref(obj)
    except TypeError:
        return lambda: None  # type: ignore[return-value]


class LessonRuntime:
    """The shell session of one lesson, with the current step's log."""

    def __init__(
        self,
        lesson: Lesson,
        *,
        lang: str = "en",
        stream: TextIO | None = None,
        time_limit: float | None = None,
    ) -> None:
        from gradshell.shell.session import Session
        from gradshell.viz import configure

        self.lesson = lesson
        self.lang = lang
        self.stream = stream
        self.session: Session = Session(
            style=lesson.style, prompt="python", viz=True, time_limit=time_limit, stream=stream
        )
        self.session.ensure_plugins()
        configure(self.session, xmode="explain", lang=lang)
        self.log = StepLog()
        # id(tensor) -> (weakref, .grad holds a non-zero gradient) across the whole lesson
        self._dirty: dict[int, tuple[weakref.ref, bool]] = {}
        self._depth = 0
        self._unsubscribe: Any = None
        self.session.before_cell.append(self._before_cell)
        self.session.after_cell.append(self._after_cell)
        self._wrap_display()

    # -- wiring -----------------------------------------------------------------------------
    def _wrap_display(self) -> None:
        """Record each value the shell displays (what `_` would be set to)."""
        table = self.session.namespace.get("__builtins__")
        if not isinstance(table, dict) or "_gs_display" not in table:
            return
        original = table["_gs_display"]

        def display(value: Any) -> None:
            """The shell's display, noting the value in the step's log first."""
            if value is not None:
                self.log.shown.append(value)
            original(value)

        table["_gs_display"] = display

    def _before_cell(self, session: Session) -> None:
        self._depth += 1
        if self._unsubscribe is None:
            self._unsubscribe = events.subscribe(self._on_event)

    def _after_cell(self, session: Session, result: CellResult) -> None:
        self._depth = max(0, self._depth - 1)
        if self._depth == 0 and self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        return None

    def _on_event(self, event: Any) -> None:
        try:
            if isinstance(event, events.GradAccumulated):
                self._accumulated(event)
            elif isinstance(event, events.BackwardStarted):
                self.log.backward_roots.append(tuple(_ref(t) for t in event.roots))
            elif isinstance(event, events.NodeRun):
                if len(self.log.nodes_run) < 100_000:  # a huge graph: the first nodes do
                    self.log.nodes_run[id(event.node)] = _ref(event.node)
            elif isinstance(event, events.BackwardFinished) and event.error is None:
                self.log.backwards_done += 1
        except Exception:  # a bookkeeping slip must never break the learner's backward()
            pass

    def _accumulated(self, ev: events.GradAccumulated) -> None:
        t = ev.tensor
        key = id(t)
        known = self._dirty.get(key)
        dirty = known is not None and known[0]() is t and known[1]
        before_nonzero = _nonzero(ev.before)
        self.log.accumulations.append(
            Accumulation(
                _ref(t), cleared_first=dirty and not before_nonzero, onto_gradient=before_nonzero
            )
        )
        self._dirty[key] = (_ref(t), _nonzero(ev.after))
        if len(self._dirty) > 4096:  # forget tensors that are gone
            self._dirty = {k: v for k, v in self._dirty.items() if v[0]() is not None}

    # -- running ----------------------------------------------------------------------------
    def begin_step(self, step: Step | None = None) -> None:
        """Start a new step log (after moving to a step, or restoring one); with `step`,
        remember how its checks' subjects look now, so that feedback speaks only about
        what the learner changed."""
        self.log = StepLog()
        if step is not None:
            from gradshell.learn.checks import fingerprints

            self.log.start_marks = fingerprints(step, self)

    def run_cell(self, source: str) -> CellResult:
        """Run one input in the session and record it in the step's log."""
        shown_before = len(self.log.shown)
        result = self.session.run_cell(source)
        log = self.log
        log.last_shown = log.shown[shown_before:]
        log.looked = len(log.shown) > shown_before or (
            result.error is None and bool(result.output.strip())
        )
        log.cells += 1
        log.outputs.append(result.output)
        stripped = source.lstrip()
        if stripped.startswith("%"):
            name = stripped[1:].split(None, 1)[0] if stripped[1:].strip() else ""
            log.magics.append(name)
        elif result.error is not None:
            log.errors.append(result.error)
        return result

    def run_quietly(self, sources: Iterable[str]) -> list[CellResult]:
        """Run inputs without showing their output (restoring a step's starting state)."""
        saved = self.session.stream
        self.session.stream = None
        try:
            return [self.run_cell(source) for source in sources]
        finally:
            self.session.stream = saved

    def setup_sources(self) -> list[str]:
        """The lesson's setup code as inputs (one per statement, as a learner would type)."""
        from gradshell.shell.inputsplit import split_script

        if not self.lesson.setup:
            return []
        return [c.text for c in split_script(self.lesson.setup) if c.kind == "code"]

    def rebuild(self, upto: int) -> None:
        """Fresh variables, then the setup and the reference solutions of steps before
        `upto`, quietly: the state a learner has at the start of step `upto`."""
        from gradshell.shell import sessionstate

        self.session.reset()
        self.session.set_style(self.lesson.style)
        sessionstate.reset(self.session)  # print options, dtype, grad mode, RNG: fresh
        self._dirty.clear()
        self.run_quietly(self.setup_sources())
        for step in self.lesson.steps[:upto]:
            self.run_quietly(step.reference_code())
        self.begin_step(self.lesson.steps[upto] if upto < len(self.lesson.steps) else None)

    def check(self, step: Step) -> Any:
        """Evaluate `step`'s checks against the session now (a `checks.Verdict`)."""
        from gradshell.learn.checks import run_checks

        return run_checks(step, self, self.lang)

    def render(self, renderable: Any) -> str:
        """Text for the visual channel at the session's width and colour."""
        from gradshell.viz.magics import state_of

        return state_of(self.session).render(renderable)


__all__ = ["Accumulation", "LessonRuntime", "StepLog"]
