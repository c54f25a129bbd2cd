"""A fast AST walker for the checker and the transformer.

`ast.NodeVisitor` finds each handler by building a string and calling `getattr`, and
walks fields through generators; for the shell's per-statement budget that is most of
the cost. Here handlers are looked up in a per-class table keyed by node type, and
leaf nodes without fields (contexts, operators) are not visited at all.
"""

from __future__ import annotations

import ast
from typing import Any


def _leaf_types() -> frozenset[type]:
    out: set[type] = set()
    for base in (ast.expr_context, ast.operator, ast.boolop, ast.cmpop, ast.unaryop):
        out.update(base.__subclasses__())
    return frozenset(out)


#: Contexts and operators: no fields, nothing to check or rewrite, never visited.
LEAVES = _leaf_types()


class _Dispatching:
    """Builds, per subclass, the table node type -> `visit_<Type>` handler."""

    _table: dict[type, Any] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        table: dict[type, Any] = {}
        for klass in reversed(cls.__mro__):
            for name, fn in vars(klass).items():
                if name.startswith("visit_") and callable(fn):
                    node_type = getattr(ast, name[len("visit_") :], None)
                    if isinstance(node_type, type):
                        table[node_type] = fn
        cls._table = table

    def visit(self, node: Any) -> Any:
        """Dispatch `node` to its handler, or to `generic_visit`."""
        handler = self._table.get(node.__class__)
        if handler is None:
            return self.generic_visit(node)  # type: ignore[attr-defined]
        return handler(self, node)


class FastVisitor(_Dispatching):
    """Like `ast.NodeVisitor` (handlers' return values are ignored)."""

    def generic_visit(self, node: Any) -> None:
        """Visit every child that has fields of its own."""
        for field in node._fields:
            old = getattr(node, field, None)
            if old is None:
                continue
            if old.__class__ is list:
                for value in old:
                    if isinstance(value, ast.AST) and value.__class__ not in LEAVES:
                        self.visit(value)
            elif isinstance(old, ast.AST) and old.__class__ not in LEAVES:
                self.visit(old)


class FastTransformer(_Dispatching):
    """Like `ast.NodeTransformer`: `visit_<Type>` handlers may return a replacement node,
    a list of nodes (in statement lists), or None (to drop a node from a list)."""

    def generic_visit(self, node: Any) -> Any:
        """Visit every child, replacing it by what its handler returned."""
        for field in node._fields:
            old = getattr(node, field, None)
            if old is None:
                continue
            if old.__class__ is list:
                changed = False
                new_values: list[Any] = []
                for value in old:
                    if isinstance(value, ast.AST):
                        if value.__class__ in LEAVES:
                            new_values.append(value)
                            continue
                        new = self.visit(value)
                        if new is not value:
                            changed = True
                        if new is None:
                            continue
                        if new.__class__ is list:
                            new_values.extend(new)
                            continue
                        value = new
                    new_values.append(value)
                if changed:
                    old[:] = new_values
            elif isinstance(old, ast.AST) and old.__class__ not in LEAVES:
                new = self.visit(old)
                if new is not old:
                    setattr(node, field, new)
        return node
