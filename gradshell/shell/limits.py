"""Resource guards: integer size, sequence length, array size, format widths, time.

The running session installs its limits in `CURRENT` before learner code runs; the
guards read them from there. Checks happen *before* the work is done, so that
`10**10**10` or `"x" * 10**10` is refused at once instead of exhausting the machine.
"""

from __future__ import annotations

import math
import operator
import re
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from gradshell.shell.errors import ResourceLimitError, StatementTimeout


@dataclass
class Limits:
    """The limits of one session."""

    max_elements: int = 10**8
    max_int_bits: int = 100_000
    max_format_width: int = 100_000


CURRENT = Limits()

_SEQUENCES = (str, bytes, list, tuple)


def install(limits: Limits) -> None:
    """Make `limits` the ones the guards enforce (and tell the core, once it is loaded)."""
    global CURRENT
    CURRENT = limits
    core = sys.modules.get("gradshell.core.limits")
    target = getattr(core, "limits", None)
    if target is not None and hasattr(target, "max_elements"):
        target.max_elements = limits.max_elements


def _too_big(what: str, n: int, limit: int, unit: str) -> ResourceLimitError:
    return ResourceLimitError(
        f"{what} would have about {n:,} {unit}, over the limit of {limit:,} {unit}"
    )


def check_int_bits(bits: float) -> None:
    """Refuse an integer result of more than `max_int_bits` bits."""
    limit = CURRENT.max_int_bits
    if bits > limit:
        raise _too_big("this integer", int(bits), limit, "bits")


def check_length(n: int, what: str = "this sequence") -> None:
    """Refuse a sequence (str, list, tuple, bytes) of more than `max_elements` items."""
    limit = CURRENT.max_elements
    if n > limit:
        raise _too_big(what, n, limit, "elements")


def check_elements(n: int, what: str = "this array") -> None:
    """Refuse an array of more than `max_elements` elements."""
    limit = CURRENT.max_elements
    if n > limit:
        raise _too_big(what, n, limit, "elements")


def numel_of(shape: Any) -> int:
    """The number of elements of an array of `shape` (an int or a sequence of ints)."""
    if shape is None:
        return 1
    if isinstance(shape, int):
        return max(int(shape), 0)
    try:
        dims = [int(d) for d in shape]
    except TypeError:
        return 0
    n = 1
    for d in dims:
        n *= max(d, 0)
    return n


def pow_bits(base: int, exp: int) -> float:
    """An estimate of the bit length of ``base ** exp`` (both ints, exp >= 0)."""
    a = abs(base)
    if a <= 1:
        return 1.0
    return exp * math.log2(a)


def check_pow(base: Any, exp: Any) -> None:
    """Refuse int ** int whose result would be too large."""
    if type(base) in (int, bool) and type(exp) in (int, bool) and exp > 0:
        if abs(base) > 1 and exp > CURRENT.max_int_bits:
            raise _too_big("this integer", exp, CURRENT.max_int_bits, "bits")
        check_int_bits(pow_bits(base, exp))


def check_repeat(seq: Any, times: Any) -> int | None:
    """Refuse ``seq * times`` beyond the length limit; returns `times` as the plain int
    the repetition must then use (None if `times` is not an integer)."""
    try:
        n = operator.index(times)
    except TypeError:
        return None
    if n > 0:
        check_length(len(seq) * n)
    return n


def as_shape(shape: Any) -> Any:
    """`shape` (an int or a sequence of ints) as plain ints, read once: what is checked is
    then what is allocated, whatever `__index__` or `__getitem__` would say next time.
    Anything else is returned as it is (the function called will reject it)."""
    if shape is None or type(shape) is int:
        return shape
    try:
        return operator.index(shape)
    except TypeError:
        pass
    if isinstance(shape, str | bytes):
        return shape
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        return shape


def dtype_elements(dtype: Any) -> int:
    """Elements per array item of `dtype`: more than 1 for a subarray dtype such as
    ``(float, (1000, 1000))``; 1 for None or anything that is not a dtype."""
    if dtype is None or isinstance(dtype, type):
        return 1
    import numpy as np

    try:
        shape = np.dtype(dtype).shape
    except (TypeError, ValueError):
        return 1
    return math.prod(shape) if shape else 1


#: The most digits a print precision may ask for.
MAX_PRINT_PRECISION = 1000


def check_print_precision(precision: Any) -> None:
    """Refuse `set_printoptions(precision=...)` beyond `MAX_PRINT_PRECISION` digits."""
    if type(precision) is int and precision > MAX_PRINT_PRECISION:
        raise ResourceLimitError(
            f"a print precision of {precision:,} digits is over the limit of "
            f"{MAX_PRINT_PRECISION:,} digits"
        )


def announced_length(value: Any) -> int:
    """How many items `value` says it holds (`len`, or `__length_hint__` for a `range`
    iterator, `itertools.repeat`...); 0 when it does not say. Callers keep learner
    objects away from it (their `__len__` could answer differently the next time)."""
    try:
        return operator.length_hint(value)
    except (TypeError, ValueError, OverflowError):
        return 0


def check_iterable(value: Any, what: str = "this sequence") -> None:
    """Refuse unpacking or collecting `value` when its announced length is over the limit
    (a `range`, `itertools.repeat`, a dict view...); see `announced_length`."""
    check_length(announced_length(value), what)


# --- format specifications -------------------------------------------------------

_SPEC = re.compile(r"^(?:.?[<>=^])?[-+ ]?z?#?0?(\d*)[_,]?(?:\.(\d+))?[a-zA-Z%]?$", re.S)
_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[a-zA-Z%]")


def check_format_spec(spec: str) -> None:
    """Refuse a format spec whose width or precision is over the limit."""
    if not spec:
        return
    m = _SPEC.match(spec)
    limit = CURRENT.max_format_width
    if m is None:
        # Let Python produce its own error, but never with a huge number in it.
        for digits in re.findall(r"\d+", spec):
            if len(digits) > 6 or int(digits) > limit:
                raise ResourceLimitError(f"format width {digits} is over the limit of {limit:,}")
        return
    for group in m.groups():
        if group and (len(group) > 7 or int(group) > limit):
            raise ResourceLimitError(f"format width {group} is over the limit of {limit:,}")


def check_percent_format(fmt: str | bytes, args: Any) -> None:
    """Refuse ``fmt % args`` whose widths or precisions are over the limit."""
    text = fmt.decode("latin-1") if isinstance(fmt, bytes) else fmt
    if "%" not in text:
        return
    limit = CURRENT.max_format_width
    star = False
    for m in _PERCENT.finditer(text):
        for group in m.groups():
            if group == "*":
                star = True
            elif group and (len(group) > 7 or int(group) > limit):
                raise ResourceLimitError(f"format width {group} is over the limit of {limit:,}")
    if star:
        values = args if isinstance(args, tuple) else (args,)
        for v in values:
            if type(v) is int and abs(v) > limit:
                raise ResourceLimitError(f"format width {v} is over the limit of {limit:,}")


# --- time limit ------------------------------------------------------------------


def _raise_timeout(signum: int, frame: Any) -> None:
    raise StatementTimeout()


#: The time limit of the statement running now (the threads it starts stop with it).
_ACTIVE: list[float | None] = [None]


def remaining_seconds() -> float | None:
    """The time the running statement has left (None: no limit)."""
    seconds = _ACTIVE[0]
    if seconds is None or not hasattr(signal, "getitimer"):
        return seconds
    left = signal.getitimer(signal.ITIMER_REAL)[0]
    return left if left > 0 else seconds


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise StatementTimeout in the running code after `seconds` (None: no limit).

    Uses SIGALRM on the main thread (and fires again every half second in case the
    first one is swallowed by library code); elsewhere a watchdog thread raises the
    exception asynchronously in the running thread.
    """
    if not seconds or seconds <= 0:
        yield
        return
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        _ACTIVE[0] = seconds
        previous = signal.signal(signal.SIGALRM, _raise_timeout)
        signal.setitimer(signal.ITIMER_REAL, seconds, 0.5)
        try:
            yield
        finally:
            while True:  # an alarm landing here must not leave the timer running
                try:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, previous)
                    _ACTIVE[0] = None
                    break
                except StatementTimeout:
                    continue
        return
    with _watchdog(seconds):
        yield


@contextmanager
def paused_time_limit() -> Iterator[None]:
    """Stop the statement's clock while it waits for the learner (`input()`): the time
    spent typing an answer is not the program's, and must not end it."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        yield
        return
    remaining, interval = signal.getitimer(signal.ITIMER_REAL)
    if remaining <= 0:
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, remaining, interval)


@contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    import ctypes

    target = threading.get_ident()
    done = threading.Event()

    def fire() -> None:
        while not done.wait(seconds if not fired else 0.5):
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(target), ctypes.py_object(StatementTimeout)
            )
            fired.append(True)

    fired: list[bool] = []
    thread = threading.Thread(target=fire, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if fired:  # clear an exception that may still be pending
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), None)
