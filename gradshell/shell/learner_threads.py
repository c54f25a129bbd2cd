"""`import threading` in learner code: threads that run learner functions.

PyTorch's autograd-mechanics note runs `backward()` from several threads; learner code
gets `threading.Thread` (and subclasses of it), locks, events, conditions, semaphores,
barriers and thread-local records. Three things keep a thread as tame as a statement:

* the function a thread runs is checked as a call of learner code, when it is handed over;
* a thread stops when the statement that started it runs out of time, and at most
  `MAX_THREADS` run at once;
* a statement ends when the threads it started have ended (the session waits for them,
  within its time limit), so that what they print is that statement's output.

An exception in a thread is printed as Python prints it (``Exception in thread
Thread-1 (f):`` and the learner's traceback) and does not stop the statement.
"""

from __future__ import annotations

import sys
import threading
import weakref
from typing import Any

from gradshell.shell import guards, limits, policy
from gradshell.shell.errors import ResourceLimitError, StatementTimeout

#: The most learner threads alive at once.
MAX_THREADS = 64

#: The learner threads started and not yet waited for.
_LIVE: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
#: Where learner code's tracebacks come from (the session's source map), set per statement.
_SOURCES: list[Any] = [None]


def use_sources(sources: Any) -> None:
    """Tracebacks of learner threads show the learner's lines from `sources`."""
    _SOURCES[0] = sources


def wait() -> None:
    """Wait for every learner thread still running (the end of a statement)."""
    while _LIVE:
        for thread in list(_LIVE):
            thread.join()
            _LIVE.discard(thread)


def _report(thread: threading.Thread, exc: BaseException) -> None:
    from gradshell.shell.tracebacks import format_exception

    sources = _SOURCES[0]
    text = format_exception(exc, sources) if sources is not None else f"{exc!r}\n"
    sys.stderr.write(f"Exception in thread {thread.name}:\n{text}")


class Thread(threading.Thread):
    """`threading.Thread` for learner code (see the module's docstring)."""

    def __init__(
        self,
        group: None = None,
        target: Any = None,
        name: str | None = None,
        args: Any = (),
        kwargs: Any = None,
        *,
        daemon: bool | None = None,
    ) -> None:
        if target is not None:
            target = guards.c(target)
        super().__init__(group, target, name, args, kwargs, daemon=daemon)

    def start(self) -> None:
        """Start the thread: its `run` runs under the statement's time limit."""
        if len([t for t in _LIVE if t.is_alive()]) >= MAX_THREADS:
            raise ResourceLimitError(
                f"at most {MAX_THREADS} threads may run at once here; join some first"
            )
        seconds = limits.remaining_seconds()
        run = self.run  # the learner's own `run` when a subclass defines one

        def guarded() -> None:
            try:
                with limits.time_limit(seconds):
                    run()
            except StatementTimeout:
                pass  # the statement, waiting for this thread, reports its time limit
            except BaseException as exc:  # noqa: BLE001 - the learner's error, shown
                _report(self, exc)

        object.__setattr__(self, "run", guarded)
        _LIVE.add(self)
        super().start()


class Timer(Thread):
    """`threading.Timer`: call `function(*args, **kwargs)` after `interval` seconds,
    unless `cancel()` is called first."""

    def __init__(self, interval: float, function: Any, args: Any = None, kwargs: Any = None):
        super().__init__()
        self.interval = interval
        self.function = guards.c(function)
        self.args = args if args is not None else []
        self.kwargs = kwargs if kwargs is not None else {}
        self.finished = threading.Event()

    def cancel(self) -> None:
        """Stop the timer if it has not fired yet."""
        self.finished.set()

    def run(self) -> None:
        """Wait, then call the function (unless cancelled)."""
        self.finished.wait(self.interval)
        if not self.finished.is_set():
            self.function(*self.args, **self.kwargs)
        self.finished.set()


for _cls, _name in ((Thread, "Thread"), (Timer, "Timer")):
    _cls.__module__ = "threading"
    _cls.__name__ = _cls.__qualname__ = _name

_THREAD_API = frozenset(
    """start join run is_alive name ident native_id daemon getName setName isDaemon
    setDaemon""".split()
)
_LOCK_API = frozenset({"acquire", "release", "locked"})


def exports() -> dict[str, Any]:
    """The names `import threading` offers."""
    policy.allow_attributes(threading.Thread, _THREAD_API)
    policy.allow_attributes(Thread, _THREAD_API)
    policy.allow_attributes(
        Timer, _THREAD_API | {"cancel", "interval", "function", "args", "kwargs"}
    )
    policy.EXTRA_BASES.update({Thread})
    for cls in (Thread, Timer):  # `super().__init__()` in a learner subclass
        policy.expose(cls.__init__)
    lock_types = {type(threading.Lock()), type(threading.RLock())}
    for tp in lock_types:
        policy.EXTRA_ATTRS[tp] = _LOCK_API
    policy.allow_attributes(threading.Event, frozenset({"set", "clear", "is_set", "isSet", "wait"}))
    policy.allow_attributes(
        threading.Condition,
        frozenset({"acquire", "release", "wait", "wait_for", "notify", "notify_all"}),
    )
    policy.allow_attributes(threading.Semaphore, frozenset({"acquire", "release"}))
    policy.allow_attributes(threading.BoundedSemaphore, frozenset({"acquire", "release"}))
    policy.allow_attributes(
        threading.Barrier,
        frozenset({"wait", "reset", "abort", "parties", "n_waiting", "broken"}),
    )
    policy.OPEN_TYPES.add(threading.local)  # holds only what learner code puts there
    guards.CONTEXT_TYPES.update(
        {*lock_types, threading.Condition, threading.Semaphore, threading.BoundedSemaphore}
    )
    guards.check_calls_of(threading.Condition.wait_for, (1,), ("predicate",))
    policy.clear_caches()
    names = """Lock RLock Event Condition Semaphore BoundedSemaphore Barrier
        BrokenBarrierError local current_thread main_thread get_ident get_native_id
        active_count TIMEOUT_MAX""".split()
    out = {n: getattr(threading, n) for n in names}
    out.update(Thread=Thread, Timer=Timer)
    return out
