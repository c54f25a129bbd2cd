"""Local derivatives of graph nodes, as formulas with their numbers, for `%explain`.

Each node class writes its formula once, beside its `backward`, as `explain(c)` (the
vocabulary — Formula, Local, Ctx — is `gradshell.ops.explanation`); this module only
looks it up. `%explain` checks every formula against the gradient the node really
produced and drops any that disagrees, so a formula shown is never a wrong one; nodes
without one are shown without a formula.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gradshell.core.autograd import Node
from gradshell.ops.explanation import (
    Ctx,
    Formula,
    Local,
    Unavailable,
    number,
    transposed,
    wrap_sym,
)

__all__ = [
    "Ctx",
    "Formula",
    "Local",
    "Unavailable",
    "explainer",
    "formula",
    "has_formula",
    "number",
    "transposed",
    "wrap_sym",
]

#: Formulas by node class name that take the place of the class's own (tests put a
#: deliberately wrong one here to see `%explain` drop it).
_TABLE: dict[str, Callable[[Ctx], Formula]] = {}


def _node_classes() -> dict[str, type]:
    """Every Node subclass by name (the last defined wins for a name used twice)."""
    found: dict[str, type] = {}
    todo = [Node]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            found.setdefault(sub.__name__, sub)
            todo.append(sub)
    return found


def explainer(node: Any) -> Callable[[Ctx], Formula] | None:
    """The formula function for `node` (its class's own `explain`), or None."""
    override = _TABLE.get(type(node).__name__)
    if override is not None:
        return override
    cls = type(node)
    if not issubclass(cls, Node):  # a stand-in named like a node class
        cls = _node_classes().get(cls.__name__)
        if cls is None:
            return None
    method = cls.__dict__.get("explain")  # a subclass does not inherit its parent's formula
    if method is None:
        return None
    return lambda c: method(c.node, c)


def has_formula(node: Any) -> bool:
    """True if this node's class has an explanation formula."""
    return explainer(node) is not None


def formula(node: Any, ctx: Ctx) -> Formula | None:
    """The node's formula, or None (no formula, or a value it needs is unavailable)."""
    fn = explainer(node)
    if fn is None:
        return None
    try:
        return fn(ctx)
    except Unavailable:
        return None
