"""Rewrite checked learner code so that every reach into an object goes through a guard.

Run after the checker. Attribute reads become ``_gs_ga(obj, 'name')``, method calls
``_gs_m(obj, 'name')(...)``, other calls ``_gs_c(f)(...)`` (the guard returns the
callee, so no extra frame sits between caller and callee), subscripts
``_gs_gi(obj, key)``, stores and deletes go through ``_gs_W(obj)``, operators through
``_gs_<Op>``, f-string fields through ``_gs_fmt``, `with` items through ``_gs_ctx``,
class bases through ``_gs_base``, starred arguments and displays through ``_gs_star``
(several unpackings in one display or call through ``_gs_stars``/``_gs_dstars``),
imports through ``_gs_import*`` (``from __future__ import ...`` stays a compiler
directive). Every new node keeps the location of the node it replaces, so tracebacks
point at the learner's line.
"""

from __future__ import annotations

import ast
from typing import Any

from gradshell.shell.astwalk import FastTransformer


def _name(id_: str, like: ast.AST) -> ast.Name:
    return ast.copy_location(ast.Name(id=id_, ctx=ast.Load()), like)


def _call(func: str, args: list[ast.expr], like: ast.AST) -> ast.Call:
    return ast.copy_location(ast.Call(func=_name(func, like), args=args, keywords=[]), like)


def _const(value: Any, like: ast.AST) -> ast.Constant:
    return ast.copy_location(ast.Constant(value=value), like)


def _at_attribute(new: ast.expr, attr: ast.Attribute) -> ast.expr:
    """`new` located as CPython locates an attribute read or method call spanning lines:
    from the attribute's name, on its line (so a traceback names `.reshape(3)`'s line)."""
    if new.lineno != attr.end_lineno and len(attr.attr) <= attr.end_col_offset:
        new.lineno = attr.end_lineno
        new.col_offset = attr.end_col_offset - len(attr.attr)
    return new


def _is_super_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


class _Guarder(FastTransformer):
    """The rewriting pass (one instance per cell)."""

    def __init__(self) -> None:
        #: Numbers the displays and calls with several unpackings (see `unpacking`).
        self._sites = 0

    def _site(self, like: ast.AST) -> ast.Constant:
        self._sites += 1
        return _const(self._sites, like)

    def _items(self, items: list[ast.expr]) -> list[ast.expr]:
        """The items of a display or a call's positional arguments. Where `*` unpacks
        next to other items, each unpacking goes through ``_gs_stars``, which checks the
        total so far; a lone `*x` keeps ``_gs_star``."""
        count = sum(isinstance(item, ast.Starred) for item in items)
        if count == 0 or len(items) == 1:
            return [self.visit(item) for item in items]
        site, plain, index = self._site(items[0]), len(items) - count, 0
        out: list[ast.expr] = []
        for item in items:
            if not isinstance(item, ast.Starred):
                out.append(self.visit(item))
                continue
            numbers = [_const(n, item) for n in (index, count, plain)]
            value = _call("_gs_stars", [self.visit(item.value), site, *numbers], item.value)
            out.append(ast.copy_location(ast.Starred(value=value, ctx=ast.Load()), item))
            index += 1
        return out

    def _double_starred(self, values: list[ast.expr], unpacked: list[bool]) -> list[ast.expr]:
        """Values of a dict display or a call's keywords, where `**` (`unpacked`) merges
        a mapping next to other entries: each merge goes through ``_gs_dstars``."""
        count = sum(unpacked)
        if count == 0 or len(values) == 1:
            return [self.visit(v) for v in values]
        site, plain, index = self._site(values[0]), len(values) - count, 0
        out: list[ast.expr] = []
        for value, merged in zip(values, unpacked, strict=True):
            new = self.visit(value)
            if merged:
                numbers = [_const(n, value) for n in (index, count, plain)]
                new = _call("_gs_dstars", [new, site, *numbers], value)
                index += 1
            out.append(new)
        return out

    def _slice_expr(self, node: ast.expr) -> ast.expr:
        """A subscript key as a plain expression (`a:b` becomes `slice(a, b, None)`)."""
        if isinstance(node, ast.Slice):
            parts = [
                self.visit(p) if p is not None else _const(None, node)
                for p in (node.lower, node.upper, node.step)
            ]
            return _call("_gs_slice", parts, node)
        if isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts):
            elts = [self._slice_expr(e) for e in node.elts]
            return ast.copy_location(ast.Tuple(elts=elts, ctx=ast.Load()), node)
        return self.visit(node)

    # -- reads -----------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        value = self.visit(node.value)
        if isinstance(node.ctx, ast.Load):
            return _at_attribute(_call("_gs_ga", [value, _const(node.attr, node)], node), node)
        target = _call("_gs_W", [value], node)
        return ast.copy_location(ast.Attribute(value=target, attr=node.attr, ctx=node.ctx), node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        value = self.visit(node.value)
        if isinstance(node.ctx, ast.Load):
            return _call("_gs_gi", [value, self._slice_expr(node.slice)], node)
        target = _call("_gs_W", [value], node)
        key = self.visit(node.slice)
        return ast.copy_location(ast.Subscript(value=target, slice=key, ctx=node.ctx), node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        args = self._items(node.args)
        values = [k.value for k in node.keywords]
        merged = [k.arg is None for k in node.keywords]
        keywords = [
            ast.copy_location(ast.keyword(arg=k.arg, value=v), k)
            for k, v in zip(node.keywords, self._double_starred(values, merged), strict=True)
        ]
        func = node.func
        if isinstance(func, ast.Name) and func.id == "super":
            new_func: ast.expr = func
        elif isinstance(func, ast.Attribute):
            obj = self.visit(func.value)
            new_func = _at_attribute(_call("_gs_m", [obj, _const(func.attr, func)], func), func)
            call = ast.copy_location(ast.Call(func=new_func, args=args, keywords=keywords), node)
            return _at_attribute(call, func)
        else:
            new_func = _call("_gs_c", [self.visit(func)], func)
        return ast.copy_location(ast.Call(func=new_func, args=args, keywords=keywords), node)

    # -- displays --------------------------------------------------------------
    def visit_List(self, node: ast.List) -> ast.AST:
        if not isinstance(node.ctx, ast.Load):  # `[a, *rest] = ...`: targets
            return self.generic_visit(node)
        node.elts = self._items(node.elts)
        return node

    def visit_Tuple(self, node: ast.Tuple) -> ast.AST:
        if not isinstance(node.ctx, ast.Load):
            return self.generic_visit(node)
        node.elts = self._items(node.elts)
        return node

    def visit_Set(self, node: ast.Set) -> ast.AST:
        node.elts = self._items(node.elts)
        return node

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        node.keys = [None if k is None else self.visit(k) for k in node.keys]
        node.values = self._double_starred(node.values, [k is None for k in node.keys])
        return node

    # -- operators -------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        op = type(node.op).__name__
        return _call(f"_gs_{op}", [self.visit(node.left), self.visit(node.right)], node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        op = type(node.op).__name__
        value = self.visit(node.value)
        target = node.target
        if isinstance(target, ast.Name):
            load = ast.copy_location(ast.Name(id=target.id, ctx=ast.Load()), target)
            store = ast.copy_location(ast.Name(id=target.id, ctx=ast.Store()), target)
            call = _call(f"_gs_i{op}", [load, value], node)
            return ast.copy_location(ast.Assign(targets=[store], value=call), node)
        if isinstance(target, ast.Attribute):
            args = [self.visit(target.value), _const(target.attr, target), _const(op, node), value]
            return ast.copy_location(ast.Expr(value=_call("_gs_aug_attr", args, node)), node)
        if isinstance(target, ast.Subscript):
            args = [
                self.visit(target.value),
                self._slice_expr(target.slice),
                _const(op, node),
                value,
            ]
            return ast.copy_location(ast.Expr(value=_call("_gs_aug_item", args, node)), node)
        raise AssertionError(f"unexpected augmented-assignment target {type(target).__name__}")

    # -- strings ---------------------------------------------------------------
    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.AST:
        value = self.visit(node.value)
        if node.format_spec is not None:
            spec: ast.expr = self.visit(node.format_spec)
        else:
            spec = _const("", node)
        call = _call("_gs_fmt", [value, _const(node.conversion, node), spec], node)
        return ast.copy_location(
            ast.FormattedValue(value=call, conversion=-1, format_spec=None), node
        )

    # -- statements ------------------------------------------------------------
    def visit_With(self, node: ast.With) -> ast.AST:
        for item in node.items:
            item.context_expr = _call("_gs_ctx", [self.visit(item.context_expr)], item.context_expr)
            if item.optional_vars is not None:
                item.optional_vars = self.visit(item.optional_vars)
        node.body = [self.visit(s) for s in node.body]
        return node

    def _decorators(self, node: ast.FunctionDef | ast.ClassDef) -> list[ast.expr]:
        return [_call("_gs_c", [self.visit(d)], d) for d in node.decorator_list]

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.decorator_list = self._decorators(node)
        node.args = self.visit(node.args)
        if node.returns is not None:
            node.returns = self.visit(node.returns)
        node.body = self._body(node.body)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        decorators = self._decorators(node)
        decorators.append(_name("_gs_cls", node))
        node.decorator_list = decorators
        node.bases = [_call("_gs_base", [self.visit(b)], b) for b in node.bases]
        node.body = self._body(node.body)
        return node

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            new = self.visit(stmt)
            if isinstance(new, list):
                out.extend(new)
            elif new is not None:
                out.append(new)
        return out

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        if node.type is None:
            # A bare `except:` would catch KeyboardInterrupt and the time limit.
            node.type = _name("_gs_Exception", node)
        else:
            node.type = self.visit(node.type)
        node.body = self._body(node.body)
        return node

    def visit_Import(self, node: ast.Import) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for alias in node.names:
            if alias.asname:
                bound = alias.asname
                call = _call("_gs_import", [_const(alias.name, node), _const(False, node)], node)
            else:
                bound = alias.name.split(".")[0]
                call = _call("_gs_import", [_const(alias.name, node), _const(True, node)], node)
            store = ast.copy_location(ast.Name(id=bound, ctx=ast.Store()), node)
            out.append(ast.copy_location(ast.Assign(targets=[store], value=call), node))
        return out

    def visit_Starred(self, node: ast.Starred) -> ast.AST:
        if not isinstance(node.ctx, ast.Load):  # `first, *rest = ...`: a target
            node.value = self.visit(node.value)
            return node
        node.value = _call("_gs_star", [self.visit(node.value)], node.value)
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> list[ast.stmt] | ast.stmt:
        module = node.module or ""
        if module == "__future__":
            # A compiler directive, not an import: Python's compiler checks the feature
            # names (`braces`: "not a chance") and binds each name to its feature.
            return node
        out: list[ast.stmt] = []
        for alias in node.names:
            if alias.name == "*":
                call = _call("_gs_import_star", [_const(module, node)], node)
                out.append(ast.copy_location(ast.Expr(value=call), node))
                continue
            call = _call("_gs_import_from", [_const(module, node), _const(alias.name, node)], node)
            store = ast.copy_location(
                ast.Name(id=alias.asname or alias.name, ctx=ast.Store()), node
            )
            out.append(ast.copy_location(ast.Assign(targets=[store], value=call), node))
        return out


class _Displayer(FastTransformer):
    """Python's interactive rule: an expression statement shows its value.

    As in Python's 'single' mode this reaches into loops and conditionals of the
    top-level statement, but not into function or class bodies.
    """

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        node.value = _call("_gs_display", [node.value], node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node


class _Stringify(FastTransformer):
    """`from __future__ import annotations`: annotations are kept as their source text."""

    def _text(self, node: ast.expr | None) -> ast.expr | None:
        if node is None:
            return None
        return ast.copy_location(ast.Constant(value=ast.unparse(node)), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.annotation = self._text(node.annotation)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.returns = self._text(node.returns)
        self.generic_visit(node)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        node.annotation = self._text(node.annotation) or node.annotation
        self.generic_visit(node)
        return node


def _future_annotations(tree: ast.Module) -> bool:
    return any(
        isinstance(stmt, ast.ImportFrom)
        and stmt.module == "__future__"
        and any(alias.name == "annotations" for alias in stmt.names)
        for stmt in tree.body
    )


def guard(tree: ast.Module) -> ast.Module:
    """Rewrite a checked module in place so that all access goes through the guards."""
    if _future_annotations(tree):
        # Each statement is compiled on its own, so the directive would reach only itself.
        _Stringify().visit(tree)
    _Guarder().visit(tree)
    return tree


def add_displays(tree: ast.Module, rule: str) -> ast.Module:
    """Make expression statements show their values.

    `rule` is 'all' (the Python REPL: every expression statement of the input, also in
    loops), 'last' (IPython: only a final top-level expression) or 'none'.
    """
    if rule == "all":
        _Displayer().visit(tree)
    elif rule == "last" and tree.body and isinstance(tree.body[-1], ast.Expr):
        node = tree.body[-1]
        node.value = _call("_gs_display", [node.value], node)
    return tree
