"""Predict, then reveal: a learner's predicted gradient beside the real one, element by
element, with a float64 finite-difference estimate as an independent witness.

Lessons call `reveal(fn, leaf, predicted)` with a function that computes the output from
the leaf; in the shell, `%predict d(EXPR)/dx = VALUES` does the same for an expression
written in terms of `x`. Nothing the learner has is changed: the gradient is computed
for a copy of the leaf with `torch.autograd.grad`, so no `.grad` moves.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradshell.core import grad_mode
from gradshell.core.tensor import Tensor, wrap
from gradshell.viz.common import host_array, number

#: Elements checked by finite differences (two evaluations each).
FD_MAX = 64


class PredictError(Exception):
    """The prediction cannot be checked; the message says why."""


@dataclass
class Row:
    """One element: the learner's prediction, autograd's value, the finite difference."""

    index: tuple
    predicted: float
    actual: float
    fd: float | None
    right: bool


@dataclass
class Reveal:
    """The outcome of one prediction."""

    expr: str
    name: str
    shape: tuple
    rows: list[Row] = field(default_factory=list)
    fd_checked: int = 0
    named: bool = False
    """The output was a computed tensor (its graph used; no finite differences)."""

    @property
    def all_right(self) -> bool:
        """True when every element was predicted correctly."""
        return all(r.right for r in self.rows)


def close(predicted: float, actual: float) -> bool:
    """Is a prediction right? (to float32 accuracy, with room for rounding to 4 digits)."""
    return abs(predicted - actual) <= 1e-4 + 1e-3 * abs(actual)


_D = r"(?:d|∂)"
_FORM = re.compile(
    rf"^\s*{_D}\s*(?:\((?P<expr>.+)\)|(?P<out>[A-Za-z_][\w.]*))\s*/\s*{_D}\s*"
    r"(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<v>.+)$"
)


def parse_predict(arg: str) -> tuple[str, str, Any]:
    """'d((x*x).sum())/dx = [2, 4]' -> ('(x*x).sum()', 'x', [2, 4]); a named output
    may go without brackets: 'dq/dw = 12' -> ('q', 'w', 12)."""
    m = _FORM.match(arg)
    if m is None:
        raise PredictError(
            "usage: %predict d(EXPR)/dX = VALUES   e.g. %predict d((x*x).sum())/dx = 2, "
            "or %predict dy/dx = 4 for a one-number y already computed from x"
        )
    try:
        values = ast.literal_eval(m.group("v").strip())
    except (ValueError, SyntaxError):
        raise PredictError(
            f"cannot read the prediction {m.group('v').strip()!r}: give a number or a list"
        ) from None
    expr = m.group("expr") if m.group("expr") is not None else m.group("out")
    return expr.strip(), m.group("name"), values


def _scalar(out: Any, expr: str) -> Tensor:
    if not isinstance(out, Tensor):
        raise PredictError(f"{expr} is not a tensor")
    if out.numel() != 1:
        raise PredictError(
            f"{expr} has {out.numel()} elements: predict the gradient of one number, e.g. d(({expr}).sum())/d…"
        )
    if not out.dtype.is_floating_point:
        raise PredictError(f"{expr} is not a floating-point number")
    return out


def reveal(
    fn: Callable[[Tensor], Tensor],
    leaf: Tensor,
    predicted: Any,
    *,
    expr: str = "f(x)",
    name: str = "x",
) -> Reveal:
    """Check a predicted gradient of `fn(leaf)` with respect to `leaf`."""
    from gradshell.core import engine

    if not leaf.dtype.is_floating_point:
        raise PredictError(f"{name} is not a floating-point tensor: it has no gradient")
    shape = tuple(leaf.shape)
    try:
        guess = np.broadcast_to(np.asarray(predicted, np.float64), shape)
    except ValueError:
        raise PredictError(
            f"the prediction has shape {list(np.shape(predicted))}, but {name} has shape {list(shape)}"
        ) from None
    probe = wrap(host_array(leaf).copy(), leaf.dtype)
    probe.requires_grad_(True)
    with _grad_on():
        out = _scalar(fn(probe), expr)
        if not out.requires_grad:
            raise PredictError(_unrelated(expr, name))
        (g,) = engine.grad(out, probe, allow_unused=True)
    if g is None:
        raise PredictError(_unrelated(expr, name))
    actual = host_array(g).astype(np.float64)
    fd = _finite_differences(fn, leaf, expr)
    result = Reveal(expr, name, shape, fd_checked=sum(1 for v in fd if v is not None))
    for k, index in enumerate(np.ndindex(*shape) if shape else [()]):
        p = float(guess[index])
        a = float(actual[index])
        result.rows.append(Row(index, p, a, fd[k] if k < len(fd) else None, close(p, a)))
    return result


class _grad_on:
    def __enter__(self) -> None:
        self.prev = grad_mode.state.enabled
        grad_mode.state.enabled = True

    def __exit__(self, *exc: Any) -> None:
        grad_mode.state.enabled = self.prev


def _unrelated(expr: str, name: str) -> str:
    return f"{expr} does not depend on {name}: no path in its graph leads back to {name}"


def reveal_named(out: Any, leaf: Tensor, predicted: Any, *, expr: str, name: str) -> Reveal:
    """Check a predicted gradient of an output already computed from `leaf` (`y` after
    `y = (x**2).sum()`), through its own graph; nothing's `.grad` changes. Finite
    differences need the expression itself, so they are not shown."""
    from gradshell.core import engine

    out = _scalar(out, expr)
    if not leaf.dtype.is_floating_point:
        raise PredictError(f"{name} is not a floating-point tensor: it has no gradient")
    shape = tuple(leaf.shape)
    try:
        guess = np.broadcast_to(np.asarray(predicted, np.float64), shape)
    except ValueError:
        raise PredictError(
            f"the prediction has shape {list(np.shape(predicted))}, but {name} has shape {list(shape)}"
        ) from None
    if not out.requires_grad or not leaf.requires_grad:
        raise PredictError(_unrelated(expr, name))
    with _grad_on():
        try:
            (g,) = engine.grad(out, leaf, retain_graph=True, allow_unused=True)
        except RuntimeError as exc:
            if "second time" in str(exc) or "freed" in str(exc):
                raise PredictError(
                    f"{expr}'s graph was freed by an earlier backward(): write the "
                    f"expression itself, e.g. %predict d(...)/d{name} = ..., using {name}"
                ) from None
            raise PredictError(f"RuntimeError: {exc}") from None
    if g is None:
        raise PredictError(_unrelated(expr, name))
    actual = host_array(g).astype(np.float64)
    result = Reveal(expr, name, shape, fd_checked=0, named=True)
    for index in np.ndindex(*shape) if shape else [()]:
        p = float(guess[index])
        a = float(actual[index])
        result.rows.append(Row(index, p, a, None, close(p, a)))
    return result


def _finite_differences(fn: Callable[[Tensor], Tensor], leaf: Tensor, expr: str) -> list:
    """Central differences in float64 for the first FD_MAX elements (None if unavailable)."""
    base = host_array(leaf).astype(np.float64)
    out: list = []
    prev = grad_mode.state.enabled
    grad_mode.state.enabled = False
    try:
        for k in range(base.size):
            if k >= FD_MAX:
                out.append(None)
                continue
            h = 1e-6 * max(1.0, abs(float(base.reshape(-1)[k])))
            values = []
            for sign in (1.0, -1.0):
                x = base.copy()
                x.reshape(-1)[k] += sign * h
                try:
                    y = fn(wrap(x))
                    values.append(float(host_array(y).reshape(-1)[0]))
                except Exception:
                    values.append(None)
            if None in values:
                out.append(None)
            else:
                out.append((values[0] - values[1]) / (2 * h))
    finally:
        grad_mode.state.enabled = prev
    return out


_WORDS = {
    "en": {
        "title": "your prediction of ∂{expr}/∂{name}",
        "element": "element",
        "yours": "you said",
        "autograd": "autograd",
        "fd": "finite diff. (float64)",
        "right": "✓ right",
        "wrong": "✗ differs",
        "all": "All {n} right.",
        "one": "Right.",
        "named": "(finite differences need the expression itself: d(...)/d{name})",
        "some": "{k} of {n} differ; look at the rows marked ✗.",
        "more": "(finite differences checked the first {m} elements)",
    },
    "zh": {
        "title": "你对 ∂{expr}/∂{name} 的预测",
        "element": "元素",
        "yours": "你的答案",
        "autograd": "autograd",
        "fd": "有限差分 (float64)",
        "right": "✓ 正确",
        "wrong": "✗ 不对",
        "all": "{n} 个全部正确。",
        "one": "正确。",
        "named": "（要算有限差分，得把表达式本身写出来：d(...)/d{name}）",
        "some": "{n} 个里有 {k} 个不对，看看标 ✗ 的那几行。",
        "more": "（有限差分只检查了前 {m} 个元素）",
    },
}


_NAME = re.compile(r"^[A-Za-z_][\w.]*$")


def _operand(expr: str) -> str:
    """`y`, `model.w` as they are; anything else in brackets: ∂(w**3)/∂w."""
    text = expr.strip()
    if _NAME.match(text) or _bracketed(text):
        return text
    return f"({text})"


def _bracketed(text: str) -> bool:
    """Is the whole of `text` one (...) group?"""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(text) - 1:
            return False
    return True


def reveal_view(result: Reveal, lang: str = "en") -> Any:
    """The comparison as a rich table with a one-line verdict."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    w = _WORDS.get(lang, _WORDS["en"])
    title = w["title"].format(expr=_operand(result.expr), name=result.name)
    table = Table(title=title, title_justify="left")
    table.add_column(w["element"])
    table.add_column(w["yours"], justify="right")
    table.add_column(w["autograd"], justify="right")
    table.add_column(w["fd"], justify="right")
    table.add_column("")
    for r in result.rows:
        index = f"{result.name}[{', '.join(str(i) for i in r.index)}]" if r.index else result.name
        table.add_row(
            index,
            number(r.predicted),
            number(r.actual),
            "—" if r.fd is None else number(r.fd),
            Text(w["right"], style="green") if r.right else Text(w["wrong"], style="bold red"),
        )
    n = len(result.rows)
    wrong = sum(1 for r in result.rows if not r.right)
    if wrong:
        verdict = w["some"].format(k=wrong, n=n)
    else:
        verdict = w["one"] if n == 1 else w["all"].format(n=n)
    parts: list[Any] = [table, Text(verdict, style="bold green" if not wrong else "bold red")]
    if result.named:
        parts.append(Text(w["named"].format(name=result.name), style="dim"))
    elif result.fd_checked < n:
        parts.append(Text(w["more"].format(m=result.fd_checked), style="dim"))
    return Group(*parts)
