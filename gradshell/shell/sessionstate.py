"""What PyTorch keeps per process, kept per shell session: print options, the default
dtype, grad mode, the print style, the CPU random generator and the warn-once warnings
already given.

In PyTorch these are process-wide; a learner's session is their process. One gradshell
process may hold several sessions (a lesson rebuilds its session, the tests make many),
so each session carries its own copy: it is put in place before the session runs code
and read back afterwards. A new session starts as a fresh PyTorch process does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class GlobalState:
    """One session's copy of PyTorch's process-wide settings."""

    printoptions: dict[str, Any] = field(default_factory=dict)
    default_dtype: Any = None
    grad_enabled: bool = True
    inference: bool = False
    rng: bytes | None = None
    warned_once: frozenset[str] = frozenset()


def _printing() -> Any:
    from gradshell.printing import options

    return options


def capture() -> GlobalState:
    """The process-wide settings as they are now."""
    from gradshell.core import dtypes, grad_mode, warn_once
    from gradshell.core.random import default_generator

    return GlobalState(
        printoptions=_printing().get_printoptions(),
        default_dtype=dtypes.get_default_dtype(),
        grad_enabled=grad_mode.state.enabled,
        inference=grad_mode.state.inference,
        rng=bytes(default_generator.get_state()),
        warned_once=warn_once.given(),
    )


def fresh() -> GlobalState:
    """The settings of a new PyTorch process (a fresh random seed, float32, grad on)."""
    from gradshell.core import dtypes
    from gradshell.core.random import Generator

    options = _printing()
    saved = options.get_printoptions()
    options.reset_printoptions()
    defaults = options.get_printoptions()
    options._restore(saved)
    rng = Generator()
    rng.seed()  # a new process seeds its generator non-deterministically, as PyTorch does
    return GlobalState(
        printoptions=defaults,
        default_dtype=dtypes.float32,
        grad_enabled=True,
        inference=False,
        rng=bytes(rng.get_state()),
    )


def apply(state: GlobalState, style: str | None = None) -> None:
    """Put `state` (and the print `style`) in place for the process."""
    from gradshell.core import dtypes, grad_mode, warn_once
    from gradshell.core.random import default_generator

    options = _printing()
    options._restore(state.printoptions)
    warn_once.restore(state.warned_once)
    if style is not None and options.get_print_style() != style:
        options.set_print_style(style)
    if state.default_dtype is not None:
        dtypes.set_default_dtype(state.default_dtype)
    grad_mode.state.enabled = state.grad_enabled
    grad_mode.state.inference = state.inference
    if state.rng is not None:
        default_generator.set_state(state.rng)


class _Keeper:
    """A session's settings. The process holds one session's settings at a time (the
    owner's): a session that runs code while another owns them saves the owner's and
    puts its own in place; the owner running again costs nothing."""

    def __init__(self) -> None:
        self.state: GlobalState | None = None  # made when the session first runs code
        self.depth = 0

    def before(self, session: Any) -> None:
        global _OWNER
        self.depth += 1
        if self.depth != 1 or not _loaded() or _OWNER is self:
            return  # not loaded: nothing has changed from a new process
        if _OWNER is not None:
            _OWNER.state = capture()
        if self.state is None:
            self.state = fresh()
        apply(self.state, getattr(session, "style", None))
        _OWNER = self

    def after(self, session: Any, result: Any) -> None:
        global _OWNER
        self.depth = max(0, self.depth - 1)
        if self.depth == 0 and _OWNER is None and _loaded():
            _OWNER = self  # the first statement loaded torch: what it set is this session's


#: The keeper whose settings are the process's now.
_OWNER: _Keeper | None = None


_MODULES = (
    "gradshell.printing.options",
    "gradshell.core.dtypes",
    "gradshell.core.grad_mode",
    "gradshell.core.random",
)


def _loaded() -> bool:
    """Are the modules holding the settings imported? (The hook imports nothing itself:
    a session's first statement stays as fast as without it.)"""
    import sys

    return all(name in sys.modules for name in _MODULES)


def keeper_of(session: Any) -> _Keeper | None:
    """The session's keeper (None before the hook ran)."""
    return getattr(session, "_gs_settings", None)


def reset(session: Any) -> None:
    """Give `session` a new process's settings (a lesson restoring a step's state)."""
    global _OWNER
    keeper = keeper_of(session)
    if keeper is not None and _loaded():
        if _OWNER is not None and _OWNER is not keeper:
            _OWNER.state = capture()
        keeper.state = fresh()
        apply(keeper.state, getattr(session, "style", None))
        _OWNER = keeper


def install(session: Any) -> None:
    """Session hook: give a new session its own settings, first among its hooks."""
    keeper = _Keeper()
    session._gs_settings = keeper
    session.before_cell.insert(0, keeper.before)
    session.after_cell.insert(0, keeper.after)


def _register() -> None:
    from gradshell.shell.session import register_session_hook

    register_session_hook(install)


_register()


__all__ = ["GlobalState", "apply", "capture", "fresh", "install", "keeper_of", "reset"]
