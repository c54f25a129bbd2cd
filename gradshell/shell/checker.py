"""The DSL checker: an allow-list over Python's AST, applied before anything runs.

The DSL is the Python subset that PyTorch tutorials use. Anything else is refused
with one line that names the construct and its line, for example
``gradshell: names starting with '_' are not available here (line 1)``.
"""

from __future__ import annotations

import ast

from gradshell.shell.astwalk import FastVisitor
from gradshell.shell.errors import Refused

#: Modules learner code may import (the first dotted part).
ALLOWED_IMPORT_ROOTS = ("torch", "numpy", "math", "random")

#: Dunder methods a learner class may define.
LEARNER_DUNDERS = frozenset({"__init__", "__call__", "__len__", "__getitem__"})

#: The most source text one cell may hold.
MAX_SOURCE_CHARS = 1_000_000

_REFUSED_NAMES = {
    "open": "'open' (files) is not available here",
    "input": "'input' is not available here",
    "eval": "'eval' is not available here",
    "exec": "'exec' is not available here",
    "compile": "'compile' is not available here",
    "globals": "'globals' is not available here",
    "locals": "'locals' is not available here",
    "vars": "'vars' is not available here",
    "getattr": "'getattr' is not available here",
    "setattr": "'setattr' is not available here",
    "delattr": "'delattr' is not available here",
    "breakpoint": "'breakpoint' is not available here",
    "memoryview": "'memoryview' is not available here",
    "bytearray": "'bytearray' is not available here",
    "help": "'help' is not available here (type %help for the shell's commands)",
    "copyright": "'copyright' is not available here",
    "credits": "'credits' is not available here",
    "license": "'license' is not available here",
    "BaseException": "'BaseException' is not available here (catch Exception instead)",
    "KeyboardInterrupt": "'KeyboardInterrupt' is not available here",
    "SystemExit": "'SystemExit' is not available here",
    "GeneratorExit": "'GeneratorExit' is not available here",
}

#: Names whose meaning the shell relies on; learner code may use but not rebind them.
_PROTECTED = frozenset({"super"})

_REFUSED_NODES = {
    "AsyncFunctionDef": "'async def' is",
    "AsyncFor": "'async for' is",
    "AsyncWith": "'async with' is",
    "Await": "'await' is",
    "Match": "'match' statements are",
    "TryStar": "'except*' is",
    "TypeAlias": "'type' statements are",
}

_ALLOWED_NODE_NAMES = frozenset(
    """Module FunctionDef ClassDef Return Delete Assign AugAssign AnnAssign For While If With
    Raise Try Assert Import ImportFrom Global Nonlocal Expr Pass Break Continue BoolOp
    NamedExpr BinOp UnaryOp Lambda IfExp Dict Set ListComp SetComp DictComp GeneratorExp
    Yield YieldFrom Compare Call FormattedValue JoinedStr Constant Attribute Subscript
    Starred Name List Tuple Slice Load Store Del And Or Add Sub Mult MatMult Div Mod Pow
    LShift RShift BitOr BitXor BitAnd FloorDiv Invert Not UAdd USub Eq NotEq Lt LtE Gt GtE
    Is IsNot In NotIn comprehension ExceptHandler arguments arg keyword alias withitem
    """.split()
)
_ALLOWED_NODES = frozenset(getattr(ast, name) for name in _ALLOWED_NODE_NAMES)

_UNDERSCORE_NAME = "names starting with '_' are not available here"
_UNDERSCORE_ATTR = "attributes starting with '_' are not available here"


def _name_ok(name: str) -> bool:
    return name == "_" or not name.startswith("_")


class _Checker(FastVisitor):
    def __init__(self) -> None:
        self.in_class_body = False
        self.finally_depth = 0  # inside a `finally:` and not inside a loop/def within it
        self.loop_in_finally = 0

    # -- helpers ---------------------------------------------------------------
    def refuse(self, node: ast.AST, message: str) -> None:
        raise Refused(message, getattr(node, "lineno", None))

    def bind(self, node: ast.AST, name: str) -> None:
        if not _name_ok(name):
            self.refuse(node, _UNDERSCORE_NAME)
        if name in _REFUSED_NAMES:
            self.refuse(node, _REFUSED_NAMES[name])
        if name in _PROTECTED:
            self.refuse(node, f"'{name}' cannot be reassigned here")

    # -- generic ---------------------------------------------------------------
    def generic_visit(self, node: ast.AST) -> None:
        if node.__class__ not in _ALLOWED_NODES:
            kind = type(node).__name__
            what = _REFUSED_NODES.get(kind, f"'{kind}' is")
            self.refuse(node, f"{what} not available here")
        was_class = self.in_class_body
        if not isinstance(node, ast.ClassDef):
            self.in_class_body = False
        super().generic_visit(node)
        self.in_class_body = was_class

    # -- names -----------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if isinstance(node.ctx, ast.Load):
            if name == "__name__":
                return
            if not _name_ok(name):
                self.refuse(node, _UNDERSCORE_NAME)
            if name in _REFUSED_NAMES:
                self.refuse(node, _REFUSED_NAMES[name])
        else:
            self.bind(node, name)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("_"):
            allowed = (
                node.attr == "__init__"
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "super"
            )
            if not allowed:
                self.refuse(node, _UNDERSCORE_ATTR)
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg is not None and not _name_ok(node.arg):
            self.refuse(node, _UNDERSCORE_NAME)
        self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> None:
        self.bind(node, node.arg)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            self.bind(node, name)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        for name in node.names:
            self.bind(node, name)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name is not None:
            self.bind(node, node.name)
        self.generic_visit(node)

    # -- definitions -----------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        name = node.name
        if name.startswith("_") and name != "_":
            if not (self.in_class_body and name in LEARNER_DUNDERS):
                if self.in_class_body and name.startswith("__") and name.endswith("__"):
                    allowed = ", ".join(sorted(LEARNER_DUNDERS))
                    self.refuse(
                        node,
                        f"defining '{name}' is not available here (a class may define "
                        f"{allowed} and ordinary methods)",
                    )
                self.refuse(node, _UNDERSCORE_NAME)
        elif name in _REFUSED_NAMES or name in _PROTECTED:
            self.bind(node, name)
        self._visit_function(node)

    def _visit_function(self, node: ast.AST) -> None:
        saved = (self.in_class_body, self.finally_depth, self.loop_in_finally)
        self.in_class_body = False
        self.finally_depth = 0
        self.loop_in_finally = 0
        self.generic_visit(node)
        self.in_class_body, self.finally_depth, self.loop_in_finally = saved

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._visit_function(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bind(node, node.name)
        if node.keywords:
            self.refuse(node, "class keywords (such as metaclass=) are not available here")
        for expr in [*node.bases, *node.decorator_list]:
            self.visit(expr)
        saved = (self.in_class_body, self.finally_depth, self.loop_in_finally)
        self.in_class_body = True
        self.finally_depth = 0
        self.loop_in_finally = 0
        for stmt in node.body:
            self.visit(stmt)
            self.in_class_body = True
        self.in_class_body, self.finally_depth, self.loop_in_finally = saved

    # -- control flow ----------------------------------------------------------
    def visit_Try(self, node: ast.Try) -> None:
        for part in (node.body, node.handlers, node.orelse):
            for child in part:
                self.visit(child)
        saved = (self.finally_depth, self.loop_in_finally)
        self.finally_depth += 1
        self.loop_in_finally = 0
        for child in node.finalbody:
            self.visit(child)
        self.finally_depth, self.loop_in_finally = saved

    def _visit_loop(self, node: ast.For | ast.While) -> None:
        if self.finally_depth:
            self.loop_in_finally += 1
            self.generic_visit(node)
            self.loop_in_finally -= 1
        else:
            self.generic_visit(node)

    visit_For = _visit_loop
    visit_While = _visit_loop

    def _escape_from_finally(self, node: ast.stmt, word: str) -> None:
        if self.finally_depth and not self.loop_in_finally:
            self.refuse(node, f"'{word}' inside 'finally' is not available here")

    def visit_Break(self, node: ast.Break) -> None:
        self._escape_from_finally(node, "break")

    def visit_Continue(self, node: ast.Continue) -> None:
        self._escape_from_finally(node, "continue")

    def visit_Return(self, node: ast.Return) -> None:
        if self.finally_depth:
            self.refuse(node, "'return' inside 'finally' is not available here")
        self.generic_visit(node)

    # -- imports ---------------------------------------------------------------
    def _check_module(self, node: ast.AST, module: str) -> None:
        parts = module.split(".")
        if any(p.startswith("_") for p in parts):
            self.refuse(node, _UNDERSCORE_NAME)
        if parts[0] not in ALLOWED_IMPORT_ROOTS:
            offered = ", ".join(ALLOWED_IMPORT_ROOTS)
            self.refuse(
                node, f"import of '{module}' is not available here (gradshell offers {offered})"
            )

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module(node, alias.name)
            bound = alias.asname or alias.name.split(".")[0]
            self.bind(node, bound)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.refuse(node, "relative imports are not available here")
        self._check_module(node, node.module or "")
        for alias in node.names:
            if alias.name == "*":
                continue
            if not _name_ok(alias.name):
                self.refuse(node, _UNDERSCORE_NAME)
            self.bind(node, alias.asname or alias.name)

    # -- expressions -----------------------------------------------------------
    def visit_comprehension(self, node: ast.comprehension) -> None:
        if node.is_async:
            self.refuse(node.target, "'async for' is not available here")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        return


def check(tree: ast.Module) -> None:
    """Raise `Refused` for the first construct of `tree` outside the DSL."""
    try:
        _Checker().visit(tree)
    except RecursionError:
        raise Refused("this code is nested too deeply to check") from None


def check_source_size(source: str) -> None:
    """Refuse a cell too long to be a learner's input."""
    if len(source) > MAX_SOURCE_CHARS:
        raise Refused(
            f"this input is too long ({len(source):,} characters; "
            f"the limit is {MAX_SOURCE_CHARS:,})"
        )
