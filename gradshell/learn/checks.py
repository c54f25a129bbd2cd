"""Checks: does the session's state show that the learner did the step's task?

Checks look at what the code did, never at how it was spelt: `x.grad.zero_()` and
`x.grad.data.zero_()` both leave `x.grad` zero, `torch.ones(2, 2)` and
`torch.tensor([[1., 1.], [1., 1.]])` make the same tensor, and variables may be made in
any order. Subjects are DSL expressions (`x`, `x.grad`, `model.weight`), evaluated with
the same checks and guards as the learner's code.

Each check gives an `Outcome`: PASS, PENDING (not there yet — say nothing, the learner
may still be typing the task's later lines) or WRONG (there, but different — say how).
A step passes when every check passes; the first check that does not is reported.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from gradshell.learn.lesson import Check, Step

if TYPE_CHECKING:
    from gradshell.learn.runtime import LessonRuntime

DEFAULT_RTOL = 1e-4
DEFAULT_ATOL = 1e-5


class Status(Enum):
    """How one check came out."""

    PASS = "pass"
    PENDING = "pending"
    WRONG = "wrong"


@dataclass(frozen=True)
class Outcome:
    """One check's result and, unless it passed, why (in the learner's language)."""

    status: Status
    message: str = ""
    check: Check | None = None
    late: bool | None = False
    """A wrong result that a later line of the task may still change (a gradient that a
    further backward() adds to): reported only once the learner looks at a result."""


@dataclass(frozen=True)
class Verdict:
    """All of a step's checks: passed, or the first one that did not pass."""

    outcomes: tuple[Outcome, ...]

    @property
    def passed(self) -> bool:
        """True when every check passed."""
        return all(o.status is Status.PASS for o in self.outcomes)

    @property
    def first_failure(self) -> Outcome | None:
        """The first check that did not pass (None when all did)."""
        for o in self.outcomes:
            if o.status is not Status.PASS:
                return o
        return None


_WORDS = {
    "en": {
        "missing": "{expr} does not exist yet",
        "broken": "{expr} cannot be evaluated ({error})",
        "not_tensor": "{expr} is not a tensor (it is {kind})",
        "type": "{expr} is {got}, but the task wants {want}",
        "shape": "{expr} has shape {got}; the task wants shape {want}",
        "values": "{expr} holds {got}; the task wants {want}",
        "values_hidden": "{expr} holds {got}, which is not what the task computes",
        "dtype": "{expr} has dtype {got}; the task wants {want}",
        "requires_grad": "{expr}.requires_grad is {got}; the task wants {want}",
        "is_leaf": "{expr}.is_leaf is {got}; the task wants {want}",
        "grad_fn": "{expr}.grad_fn is {got}; the task wants {want}",
        "no_grad_yet": "{expr}.grad is None: no backward() has reached it yet",
        "grad_shape": "{expr}.grad has shape {got}; the task wants shape {want}",
        "grad": "{expr}.grad holds {got}, which is not what the task's backward() gives",
        "grad_not_none": "{expr}.grad is {got}; the task wants it to be None",
        "grad_not_cleared": "{expr}.grad still holds {got}; the task wants it cleared",
        "equals": "{expr} is {got}, which is not what the task asks for",
        "not_raised": "no {want} has been raised in this step yet",
        "not_zeroed": "{expr}.grad has not been cleared and then filled by a new backward() yet",
        "accumulated": (
            "backward() added onto the old {expr}.grad: clear it before the next backward()"
        ),
        "not_shown": "{expr} has not been shown yet (type it at the prompt)",
        "not_ran": "%{want} has not been run in this step yet",
        "style": "the print style is {got}; the task wants {want} (%style {want})",
        "no_backward": "no backward() has started from {expr} in this step yet",
        "not_reached": "no backward() in this step has gone through {expr} yet",
        "not_warned": "no {want} has been shown in this step yet",
        "not_printed": "{expr} has not been printed yet",
    },
    "zh": {
        "missing": "{expr} 还不存在",
        "broken": "{expr} 无法求值（{error}）",
        "not_tensor": "{expr} 不是张量（它是 {kind}）",
        "type": "{expr} 是 {got}，但题目要的是 {want}",
        "shape": "{expr} 的形状是 {got}，题目要的是 {want}",
        "values": "{expr} 的值是 {got}，题目要的是 {want}",
        "values_hidden": "{expr} 的值是 {got}，和题目算出来的结果不一样",
        "dtype": "{expr} 的 dtype 是 {got}，题目要的是 {want}",
        "requires_grad": "{expr}.requires_grad 是 {got}，题目要的是 {want}",
        "is_leaf": "{expr}.is_leaf 是 {got}，题目要的是 {want}",
        "grad_fn": "{expr}.grad_fn 是 {got}，题目要的是 {want}",
        "no_grad_yet": "{expr}.grad 还是 None：还没有哪次 backward() 传到它",
        "grad_shape": "{expr}.grad 的形状是 {got}，题目要的是 {want}",
        "grad": "{expr}.grad 的值是 {got}，和题目里的 backward() 应该得到的结果不一样",
        "grad_not_none": "{expr}.grad 是 {got}，题目要求它是 None",
        "grad_not_cleared": "{expr}.grad 里还是 {got}，题目要求先把它清掉",
        "equals": "{expr} 是 {got}，和题目要的不一样",
        "not_raised": "这一步里还没有出现 {want}",
        "not_zeroed": "还没有先清空 {expr}.grad、再用一次新的 backward() 把它填上",
        "accumulated": "backward() 把梯度加到了旧的 {expr}.grad 上：下一次 backward() 之前要先清零",
        "not_shown": "还没有查看 {expr}（在提示符后输入它就行）",
        "not_ran": "这一步里还没有运行 %{want}",
        "style": "现在的打印风格是 {got}，题目要的是 {want}（%style {want}）",
        "no_backward": "这一步里还没有从 {expr} 开始的 backward()",
        "not_reached": "这一步里还没有哪次 backward() 经过 {expr}",
        "not_warned": "这一步里还没有出现 {want}",
        "not_printed": "还没有把 {expr} 打印出来",
    },
}


def _say(lang: str, key: str, **fields: Any) -> str:
    table = _WORDS.get(lang, _WORDS["en"])
    if lang != "zh":  # 'an int', 'a Linear': English needs the article
        from gradshell.viz.common import article

        for name in ("kind", "got", "want"):
            if name in fields and key in ("not_tensor", "type"):
                fields[name] = article(str(fields[name]))
    return table[key].format(**fields)


class _Missing(Exception):
    """The subject does not exist yet."""


class _Broken(Exception):
    """The subject exists but evaluating it failed."""


def _evaluate(runtime: LessonRuntime, expr: str) -> Any:
    """The value of a DSL expression in the learner's session (quietly, no warnings)."""
    from gradshell.viz.common import ExpressionError, evaluate

    namespace = runtime.session.namespace
    if expr.isidentifier():
        if expr not in namespace:
            raise _Missing(expr)
        return namespace[expr]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return evaluate(runtime.session, expr)
        except ExpressionError as exc:
            text = str(exc)
            if text.startswith(("NameError", "AttributeError")):
                raise _Missing(expr) from None
            raise _Broken(text) from None


def _tensor_type() -> type:
    from gradshell.core.tensor import Tensor

    return Tensor


def _array(value: Any) -> np.ndarray:
    from gradshell.viz.common import host_array

    arr = host_array(value)
    return np.asarray(arr)


#: Tensors with more elements than this are shown summarised, as PyTorch prints them.
SHOW_MAX = 12


def _plain(value: Any) -> str:
    """Numbers as short decimals in nested lists: `[0.2, 2, 20]`."""
    from gradshell.viz.common import number

    if isinstance(value, list):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    return number(value)


def _show(value: Any) -> str:
    """A short form of a value for feedback: `4.5`, `[0.2, 2, 20]`, `True`, `None`."""
    from gradshell.viz.common import compact, number

    if value is None:
        return "None"
    if isinstance(value, bool | str):
        return str(value)
    if isinstance(value, int | float):
        return number(value)
    arr = np.asarray(value if not isinstance(value, _tensor_type()) else _array(value))
    if arr.dtype == object:
        return str(value)
    if arr.ndim == 0:
        return number(arr.item())
    if arr.dtype.kind == "b":
        return str(arr.tolist())
    if arr.size > SHOW_MAX:
        return compact(arr)
    return _plain(arr.tolist())


def _shape(shape: Any) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _close(got: np.ndarray, want: Any, props: dict[str, Any]) -> bool | None:
    """True/False when shapes agree and values are (not) close; None on a shape mismatch.
    A single expected number stands for every element."""
    expected = np.asarray(want, dtype=np.float64)
    if expected.ndim == 0 and got.size:
        expected = np.broadcast_to(expected, got.shape)  # one number: every element
    if got.shape != expected.shape:
        return None
    try:
        actual = got.astype(np.float64)
    except (TypeError, ValueError):
        return False
    rtol = float(props.get("rtol", DEFAULT_RTOL))
    atol = float(props.get("atol", DEFAULT_ATOL))
    return bool(np.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True))


def _dtype_name(text: str) -> str:
    return text if text.startswith("torch.") else f"torch.{text}"


def _node_names(node: Any) -> set[str]:
    names = {node.name()} if hasattr(node, "name") else {type(node).__name__}
    legacy = getattr(node, "legacy_name_02", None)
    if legacy:
        names.add(legacy)
    return names


def _type_names(value: Any) -> set[str]:
    return {cls.__name__ for cls in type(value).__mro__}


# --- the kinds ----------------------------------------------------------------------------


def _check_tensor(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    expr, props = check.subject, check.props
    t = _evaluate(runtime, expr)
    Tensor = _tensor_type()
    if "type" in props and props["type"] not in _type_names(t):
        return _wrong(lang, "type", expr=expr, got=type(t).__name__, want=props["type"])
    if not isinstance(t, Tensor):
        return _wrong(lang, "not_tensor", expr=expr, kind=type(t).__name__)
    if "shape" in props and list(t.shape) != list(props["shape"]):
        return _wrong(lang, "shape", expr=expr, got=_shape(t.shape), want=_shape(props["shape"]))
    if "dtype" in props and str(t.dtype) != _dtype_name(props["dtype"]):
        return _wrong(lang, "dtype", expr=expr, got=str(t.dtype), want=_dtype_name(props["dtype"]))
    if "values" in props:
        arr = _array(t)
        same = _close(arr, props["values"], props)
        want = props["values"]
        if same is None:
            return _wrong(
                lang, "shape", expr=expr, got=_shape(arr.shape), want=_shape(np.shape(want))
            )
        if not same:
            # a computed tensor's values are the step's answer: never give them away
            key = "values" if t.grad_fn is None else "values_hidden"
            outcome = _wrong(lang, key, expr=expr, got=_show(arr), want=_show(want))
            # late only where the task itself changes the tensor in place later
            return Outcome(outcome.status, outcome.message, late=None)
    if "requires_grad" in props and t.requires_grad != props["requires_grad"]:
        if props["requires_grad"] and not t.requires_grad:
            # switched on by a later line of the task (`requires_grad_()`): not wrong yet
            return _pending(
                lang, "requires_grad", expr=expr, got=False, want=props["requires_grad"]
            )
        return _wrong(
            lang, "requires_grad", expr=expr, got=t.requires_grad, want=props["requires_grad"]
        )
    if "is_leaf" in props and t.is_leaf != props["is_leaf"]:
        return _wrong(lang, "is_leaf", expr=expr, got=t.is_leaf, want=props["is_leaf"])
    if "grad_fn" in props:
        want = props["grad_fn"]
        node = t.grad_fn
        if want == "None":
            if node is not None:
                return _wrong(lang, "grad_fn", expr=expr, got=node.name(), want="None")
        elif node is None or want not in _node_names(node):
            got = "None" if node is None else node.name()
            return _wrong(lang, "grad_fn", expr=expr, got=got, want=want)
    grad = t._grad
    if props.get("grad_none") is True and grad is not None:
        return _wrong(lang, "grad_not_none", expr=expr, got=_show(grad))
    if props.get("grad_none") is False and grad is None:
        return _pending(lang, "no_grad_yet", expr=expr)
    if props.get("grad_cleared") and grad is not None and np.any(_array(grad) != 0):
        outcome = _wrong(lang, "grad_not_cleared", expr=expr, got=_show(grad))
        return Outcome(outcome.status, outcome.message, late=True)  # a later line clears it
    if "grad" in props:
        if grad is None:
            return _pending(lang, "no_grad_yet", expr=expr)
        arr = _array(grad)
        same = _close(arr, props["grad"], props)
        if same is None:
            return _wrong(
                lang,
                "grad_shape",
                expr=expr,
                got=_shape(arr.shape),
                want=_shape(np.shape(props["grad"])),
            )
        if not same:
            # a further backward() of the task may still add to it: say so only when
            # the learner looks at a result, and never say what it should be
            outcome = _wrong(lang, "grad", expr=expr, got=_show(arr))
            return Outcome(outcome.status, outcome.message, late=True)
    return Outcome(Status.PASS)


def _check_value(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    expr, props = check.subject, check.props
    value = _evaluate(runtime, expr)
    if "type" in props and props["type"] not in _type_names(value):
        return _wrong(lang, "type", expr=expr, got=type(value).__name__, want=props["type"])
    if "equals" in props:
        want = props["equals"]
        if not _equal(value, want, props):
            return _wrong(lang, "equals", expr=expr, got=_show_any(value), want=_show(want))
    return Outcome(Status.PASS)


def _show_any(value: Any) -> str:
    try:
        return _show(value)
    except Exception:  # an odd object: its type is enough
        return type(value).__name__


def _equal(value: Any, want: Any, props: dict[str, Any]) -> bool:
    """Does a learner's value equal a lesson's expected value (numbers within tolerance)?"""
    if isinstance(want, bool) or isinstance(value, bool):
        return isinstance(value, bool | np.bool_) and bool(value) == want
    if isinstance(want, str):
        return isinstance(value, str) and value == want
    Tensor = _tensor_type()
    try:
        if isinstance(value, Tensor):
            arr = _array(value)
        elif isinstance(value, int | float | list | tuple | np.ndarray | np.number):
            arr = np.asarray(value, dtype=np.float64)
        else:
            return False
    except (TypeError, ValueError):
        return False
    return bool(_close(np.asarray(arr), want, props))


def _check_raised(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    want = check.subject
    match = check.props.get("match", "")
    for error in runtime.log.errors:
        if want in _type_names(error) and match.lower() in str(error).lower():
            return Outcome(Status.PASS)
    return _pending(lang, "not_raised", want=want)


def _check_zeroed(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    t = _evaluate(runtime, check.subject)
    if not isinstance(t, _tensor_type()):
        return _wrong(lang, "not_tensor", expr=check.subject, kind=type(t).__name__)
    mine = [a for a in runtime.log.accumulations if a.tensor() is t]
    if any(a.cleared_first for a in mine):
        return Outcome(Status.PASS)
    if any(a.onto_gradient for a in mine):
        return _wrong(lang, "accumulated", expr=check.subject)
    return _pending(lang, "not_zeroed", expr=check.subject)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    Tensor = _tensor_type()
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return False  # a tensor is shown when that very tensor is
    if isinstance(a, bool | int | float | str | tuple | type(None)) and type(a) is type(b):
        try:
            return bool(a == b)
        except Exception:
            return False
    return False


def _shown_values(shown: list[Any]) -> list[Any]:
    """The values displayed, and the items of displayed tuples and lists
    (`y.is_leaf, y.requires_grad` on one line shows both)."""
    out: list[Any] = []
    for v in shown:
        out.append(v)
        if isinstance(v, tuple | list) and len(v) <= 64:
            out.extend(v)
    return out


def _check_shown(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    value = _evaluate(runtime, check.subject)
    if any(_same(v, value) for v in _shown_values(runtime.log.shown)):
        return Outcome(Status.PASS)
    if value is not None and not isinstance(value, bool):
        try:
            forms = {repr(value), str(value)}
        except Exception:
            forms = set()
        forms.discard("")
        if any(form in out for out in runtime.log.outputs for form in forms):
            return Outcome(Status.PASS)
    return _pending(lang, "not_shown", expr=check.subject)


def _check_ran(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    want = check.subject.lstrip("%")
    if want in runtime.log.magics:
        return Outcome(Status.PASS)
    return _pending(lang, "not_ran", want=want)


def _check_style(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    got = runtime.session.style
    if got == check.subject:
        return Outcome(Status.PASS)
    return _pending(lang, "style", got=got, want=check.subject)


def _check_backward_from(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    t = _evaluate(runtime, check.subject)
    for roots in runtime.log.backward_roots:
        if any(r() is t for r in roots):
            return Outcome(Status.PASS)
    return _pending(lang, "no_backward", expr=check.subject)


def _check_backward_reached(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    """A backward pass in this step went through the tensor: its grad_fn ran, or (for a
    leaf) a gradient was added into its `.grad`."""
    t = _evaluate(runtime, check.subject)
    if not isinstance(t, _tensor_type()):
        return _wrong(lang, "not_tensor", expr=check.subject, kind=_kind_name(t))
    node = t.grad_fn
    if node is not None:
        ref = runtime.log.nodes_run.get(id(node))
        if ref is not None and ref() is node:
            return Outcome(Status.PASS)
    elif any(a.tensor() is t for a in runtime.log.accumulations):
        return Outcome(Status.PASS)
    return _pending(lang, "not_reached", expr=check.subject)


def _check_warned(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    """The learner's code made PyTorch show a warning of this category in this step."""
    want = check.subject
    match = str(check.props.get("match", "")).lower()
    for out in runtime.log.outputs:
        for line in out.splitlines():
            if f"{want}: " in line and match in line.lower():
                return Outcome(Status.PASS)
    return _pending(lang, "not_warned", want=want)


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _check_printed(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    """Some output of this step shows the value: every element appears in one output as
    a number that rounds to it (any number of decimals, as `print` or an f-string gave)."""
    value = _evaluate(runtime, check.subject)
    try:
        want = np.asarray(
            _array(value) if isinstance(value, _tensor_type()) else value, dtype=np.float64
        ).ravel()
    except (TypeError, ValueError):
        return _wrong(lang, "not_tensor", expr=check.subject, kind=_kind_name(value))
    if want.size == 0 or want.size > 64:
        return _pending(lang, "not_printed", expr=check.subject)
    for out in runtime.log.outputs:
        numbers = [m.group(0) for m in _NUMBER.finditer(out)]
        if numbers and all(any(_rounds_to(n, w) for n in numbers) for w in want):
            return Outcome(Status.PASS)
    return _pending(lang, "not_printed", expr=check.subject)


def _rounds_to(text: str, value: float) -> bool:
    """Is the printed number `text` the value rounded to the decimals it shows?"""
    try:
        shown = float(text)
    except ValueError:
        return False
    mantissa = text.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    if "e" in text.lower():
        return bool(np.isclose(shown, value, rtol=10.0 ** -max(decimals, 1), atol=0))
    return abs(shown - value) <= 0.5 * 10.0**-decimals + 1e-12 and (decimals > 0 or value == shown)


def _kind_name(value: Any) -> str:
    return type(value).__name__


def _check_true(check: Check, runtime: LessonRuntime, lang: str) -> Outcome:
    value = _evaluate(runtime, check.subject)
    try:
        ok = bool(value)
    except Exception:
        ok = False
    if ok:
        return Outcome(Status.PASS)
    assert check.message is not None  # the loader insists
    return Outcome(Status.WRONG, check.message.get(lang))


_KINDS = {
    "tensor": _check_tensor,
    "value": _check_value,
    "raised": _check_raised,
    "zeroed": _check_zeroed,
    "shown": _check_shown,
    "ran": _check_ran,
    "style": _check_style,
    "backward_from": _check_backward_from,
    "backward_reached": _check_backward_reached,
    "warned": _check_warned,
    "printed": _check_printed,
    "true": _check_true,
}


def _wrong(lang: str, key: str, **fields: Any) -> Outcome:
    return Outcome(Status.WRONG, _say(lang, key, **fields))


def _pending(lang: str, key: str, **fields: Any) -> Outcome:
    return Outcome(Status.PENDING, _say(lang, key, **fields))


def _fingerprint(check: Check, runtime: LessonRuntime) -> Any:
    """How a tensor/value check's subject looks now (None when it cannot be read)."""
    if check.kind not in ("tensor", "value"):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = _evaluate(runtime, check.subject)
    except Exception:
        return ("missing",)
    if not isinstance(value, _tensor_type()):
        try:
            return ("value", id(value), repr(value)[:200])
        except Exception:
            return ("value", id(value))
    grad = value._grad
    return (
        "tensor",
        id(value),
        value.requires_grad,
        id(value.grad_fn),
        _array(value).tobytes()[:4096],
        None if grad is None else (id(grad), _array(grad).tobytes()[:4096]),
    )


def fingerprints(step: Step, runtime: LessonRuntime) -> dict[int, Any]:
    """The fingerprints of `step`'s tensor/value checks' subjects, by check index."""
    return {
        i: _fingerprint(c, runtime)
        for i, c in enumerate(step.checks)
        if c.kind in ("tensor", "value")
    }


def evaluate_check(
    check: Check,
    runtime: LessonRuntime,
    lang: str = "en",
    mark: Any = None,
    inplace: frozenset[str] = frozenset(),
) -> Outcome:
    """Evaluate one check against the runtime's session and step log.

    A WRONG answer about a subject that still looks as it did when the step began
    (`mark`, its fingerprint then) is reported as PENDING: the learner has not got to it.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome = _KINDS[check.kind](check, runtime, lang)
    except _Missing:
        outcome = _pending(lang, "missing", expr=check.subject)
    except _Broken as exc:
        outcome = _pending(lang, "broken", expr=check.subject, error=str(exc))
    except Exception as exc:  # an odd learner object must not crash the lesson
        outcome = _pending(lang, "broken", expr=check.subject, error=f"{type(exc).__name__}: {exc}")
    if outcome.status is Status.WRONG and check.message is not None:
        outcome = Outcome(Status.WRONG, check.message.get(lang), late=outcome.late)
    if outcome.status is Status.WRONG and mark is not None and _fingerprint(check, runtime) == mark:
        outcome = Outcome(Status.PENDING, outcome.message)
    late = outcome.late
    if late is None:  # values: late when the task changes the subject in place later
        late = check.subject in inplace
    if outcome.status is Status.WRONG and late and not _looked_at(runtime, check.subject):
        outcome = Outcome(Status.PENDING, outcome.message)
    return Outcome(outcome.status, outcome.message, check)


def _looked_at(runtime: LessonRuntime, subject: str) -> bool:
    """Did the last input show the subject or its `.grad` (displayed, or printed)?"""
    log = runtime.log
    if not log.looked:
        return False
    try:
        t = _evaluate(runtime, subject)
    except Exception:
        return True
    targets = [t, getattr(t, "_grad", None)]
    for v in _shown_values(log.last_shown):
        if any(v is x for x in targets if x is not None):
            return True
    out = log.outputs[-1] if log.outputs else ""
    for x in targets:
        if x is None:
            continue
        try:
            forms = {repr(x), str(x)}
        except Exception:
            continue
        if any(form and form in out for form in forms):
            return True
    return False


_INPLACE = r"(?:\.data|\.detach\(\))?(?:\s*[-+*/@]?=(?!=)|\.\w+_\(|\[[^\]]*\]\s*[-+*/]?=(?!=))"


def inplace_subjects(step: Step) -> frozenset[str]:
    """Subjects the step's own solution changes in place after making them (`x.data *=
    100`, `w -= ...`, `x.add_(1)`): their values are only judged once the learner looks."""
    found = set()
    code = step.reference_code()
    for check in step.checks:
        name = check.subject
        if not name.isidentifier():
            continue
        pattern = re.compile(rf"(?<![\w.]){re.escape(name)}{_INPLACE}")
        assigned = [k for k, src in enumerate(code) if re.match(rf"\s*{name}\s*=(?!=)", src)]
        first = assigned[0] if assigned else -1
        if any(
            pattern.search(src) and not re.match(rf"\s*{name}\s*=(?!=)", src)
            for src in code[first + 1 :]
        ):
            found.add(name)
    return frozenset(found)


def run_checks(step: Step, runtime: LessonRuntime, lang: str = "en") -> Verdict:
    """Evaluate every check of `step`, in order."""
    marks = runtime.log.start_marks
    inplace = inplace_subjects(step)
    return Verdict(
        tuple(
            evaluate_check(c, runtime, lang, marks.get(i), inplace)
            for i, c in enumerate(step.checks)
        )
    )


__all__ = ["Outcome", "Status", "Verdict", "evaluate_check", "fingerprints", "run_checks"]
