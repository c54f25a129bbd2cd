"""The teaching checker: an allow-list over Python's AST, applied before anything runs.

The DSL is the Python that PyTorch tutorials write. A statement that uses something
outside it is not run: the checker puts in its place a statement that raises, at that
line, one message naming the construct, for example
``gradshell: 'eval' is not available here (line 3)``. The statements before it run, as
they would in Python until the failing line; a refused line inside a function body
raises when that line is reached. The runtime guards (`guards`, `policy`) check again
while the code runs; the operating system's sandbox, not this module, is the boundary.
"""

from __future__ import annotations

import ast

from gradshell.shell.astwalk import LEAVES, FastVisitor
from gradshell.shell.errors import Refused

#: Standard-library modules learner code may import (offered as views of the module).
STDLIB_MODULES = (
    "os",
    "sys",
    "time",
    "collections",
    "itertools",
    "functools",
    "dataclasses",
    "typing",
    "copy",
    "warnings",
    "string",
    "unicodedata",
    "argparse",
    "json",
    "threading",
    "pathlib",
    "io",
    "csv",
    "glob",
    "pprint",
    "re",
    "textwrap",
    "heapq",
    "bisect",
    "statistics",
    "operator",
    "enum",
    "abc",
    "numbers",
    "contextlib",
    "datetime",
    "weakref",
)

#: Modules `import` offers (the first dotted part); others raise at their line.
ALLOWED_IMPORT_ROOTS = ("torch", "numpy", "math", "random", *STDLIB_MODULES)

#: Dunder methods a learner class may define: Python calls them for the learner's own
#: objects (operators, comparisons, printing, containers, `with`, copying), and each body
#: is checked and guarded like any other learner code. A `with` block's `__exit__` is
#: called through a stand-in that never lets it swallow the time limit or an exit.
LEARNER_DUNDERS = frozenset(
    """__init__ __post_init__ __call__ __repr__ __str__ __format__ __bytes__ __hash__
    __bool__ __len__ __getitem__ __setitem__ __delitem__ __missing__ __iter__ __next__
    __reversed__ __contains__ __enter__ __exit__ __copy__ __deepcopy__
    __eq__ __ne__ __lt__ __le__ __gt__ __ge__
    __add__ __sub__ __mul__ __matmul__ __truediv__ __floordiv__ __mod__ __divmod__
    __pow__ __lshift__ __rshift__ __and__ __or__ __xor__
    __radd__ __rsub__ __rmul__ __rmatmul__ __rtruediv__ __rfloordiv__ __rmod__
    __rdivmod__ __rpow__ __rlshift__ __rrshift__ __rand__ __ror__ __rxor__
    __iadd__ __isub__ __imul__ __imatmul__ __itruediv__ __ifloordiv__ __imod__
    __ipow__ __ilshift__ __irshift__ __iand__ __ior__ __ixor__
    __neg__ __pos__ __abs__ __invert__ __round__ __trunc__ __floor__ __ceil__
    __int__ __float__ __complex__""".split()
)

#: Names a class body may bind besides its methods: `__slots__`, `__hash__ = None`, and
#: aliases between learner dunders (`__radd__ = __add__`).
CLASS_BODY_NAMES = LEARNER_DUNDERS | {"__slots__"}

#: Why some dunder methods are not offered (the rest get the generic message).
_DUNDER_REASONS = {
    "__index__": "sizes and indices must be plain ints",
    "__array__": "NumPy must not read learner objects as arrays",
    "__array_interface__": "NumPy must not read learner objects as raw memory",
    "__array_struct__": "NumPy must not read learner objects as raw memory",
    "__getattr__": "attribute lookup is the shell's to check",
    "__getattribute__": "attribute lookup is the shell's to check",
    "__setattr__": "attribute assignment is the shell's to check",
    "__delattr__": "attribute deletion is the shell's to check",
    "__del__": "it would run at unpredictable times",
    "__new__": "a class here is made by its __init__",
    "__init_subclass__": "classes here are made by their own class statements",
    "__class_getitem__": "classes here are made by their own class statements",
    "__set_name__": "classes here are made by their own class statements",
    "__get__": "attribute lookup is the shell's to check",
    "__set__": "attribute assignment is the shell's to check",
    "__delete__": "attribute deletion is the shell's to check",
    "__reduce__": "saving objects may not run code when they are loaded",
    "__reduce_ex__": "saving objects may not run code when they are loaded",
    "__getstate__": "saving objects may not run code when they are loaded",
    "__setstate__": "saving objects may not run code when they are loaded",
    "__fspath__": "file paths here must be plain strings or pathlib paths",
    "__torch_function__": "gradshell's torch does not dispatch to __torch_function__",
    "__torch_dispatch__": "gradshell's torch does not dispatch to __torch_dispatch__",
}

#: Dunder attributes learner code may read: plain strings, `__class__`, `__dict__` (the
#: guards decide on which objects: a learner's own, or a view of a torch object's) and
#: `__init__` (for `super().__init__()` and `nn.Module.__init__(self)`).
READABLE_DUNDERS = frozenset(
    {"__init__", "__name__", "__qualname__", "__doc__", "__version__", "__class__", "__dict__"}
)

_INTERNALS = " (it reaches into Python's interpreter, which learner code here cannot use)"

#: Why well-known dunder attributes are refused, in plain words.
_DUNDER_ATTR_HINTS = {
    "__module__": "",
    "__globals__": _INTERNALS,
    "__builtins__": _INTERNALS,
    "__code__": _INTERNALS,
    "__closure__": _INTERNALS,
    "__subclasses__": _INTERNALS,
    "__bases__": _INTERNALS,
    "__base__": _INTERNALS,
    "__mro__": _INTERNALS,
    "__traceback__": _INTERNALS,
    "__self__": _INTERNALS,
    "__func__": _INTERNALS,
    "__reduce__": _INTERNALS,
    "__reduce_ex__": _INTERNALS,
    "__getattribute__": _INTERNALS,
    "__import__": _INTERNALS,
    "__loader__": _INTERNALS,
    "__spec__": _INTERNALS,
}

#: The most source text one cell may hold.
MAX_SOURCE_CHARS = 1_000_000

_REFUSED_NAMES = {
    "eval": "'eval' is not available here",
    "exec": "'exec' is not available here",
    "compile": "'compile' is not available here",
    "globals": "'globals' is not available here",
    "locals": "'locals' is not available here",
    "breakpoint": "'breakpoint' is not available here",
    "memoryview": "'memoryview' is not available here",
    "bytearray": "'bytearray' is not available here",
    "copyright": "'copyright' is not available here",
    "credits": "'credits' is not available here",
    "license": "'license' is not available here",
    "BaseException": "'BaseException' is not available here (catch Exception instead)",
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

#: Dunder variables learner code may read (`if __name__ == "__main__":`; a script's
#: `__file__`, a NameError where the session defines none, as in Python's REPL).
_READABLE_NAMES = frozenset({"__name__", "__file__"})

#: The name of the guard that raises a deferred refusal (see `guards.refuse_here`).
REFUSE_GUARD = "_gs_refuse"


def _shell_name(name: str) -> bool:
    """Names the shell's rewritten code uses for its guards."""
    return name.startswith("_gs")


def _why_not(name: str) -> str:
    """Why a dunder method `name` may not be defined where it is."""
    if name in LEARNER_DUNDERS:
        return "special methods belong in a class body"
    return _DUNDER_REASONS.get(
        name,
        "a class here may define operators, comparisons, printing, containers, "
        "with-blocks and copying, not the interpreter's own hooks",
    )


def name_refusal(name: str) -> str | None:
    """Why learner code may not use the variable `name` (None: it may)."""
    if _shell_name(name):
        return f"'{name}' is the shell's own name and not available here"
    if name.startswith("__"):
        return f"'{name}' is not available here (names starting with '__' belong to Python)"
    return None


def attribute_refusal(attr: str) -> str | None:
    """Why learner code may not name the attribute `attr` (None: it may; the guards
    still decide per object when the code runs)."""
    if _shell_name(attr):
        return f"attribute '{attr}' is the shell's own and not available here"
    if attr.startswith("__") and attr not in READABLE_DUNDERS:
        return f"attribute '{attr}' is not available here{_DUNDER_ATTR_HINTS.get(attr, '')}"
    return None


class _Checker(FastVisitor):
    def __init__(self) -> None:
        self.in_class_body = False
        self.finally_depth = 0  # inside a `finally:` and not inside a loop/def within it
        self.loop_in_finally = 0
        self.refusals: list[Refused] = []

    # -- helpers ---------------------------------------------------------------
    def refuse(self, node: ast.AST, message: str) -> None:
        raise Refused(message, getattr(node, "lineno", None))

    def bind(self, node: ast.AST, name: str) -> None:
        why = name_refusal(name)
        if why is not None:
            self.refuse(node, why)
        if name in _REFUSED_NAMES:
            self.refuse(node, _REFUSED_NAMES[name])
        if name in _PROTECTED:
            self.refuse(node, f"'{name}' cannot be reassigned here")

    # -- statement lists: a refused statement is replaced, the others kept ------
    def check_block(self, body: list[ast.stmt]) -> None:
        """Check each statement of `body`; replace each refused one by a raising one."""
        state = (self.in_class_body, self.finally_depth, self.loop_in_finally)
        for i, stmt in enumerate(body):
            self.in_class_body, self.finally_depth, self.loop_in_finally = state
            try:
                self.visit(stmt)
            except Refused as exc:
                if exc.lineno is None:
                    exc.lineno = stmt.lineno
                self.refusals.append(exc)
                body[i] = _raising_statement(exc, stmt)
        self.in_class_body, self.finally_depth, self.loop_in_finally = state

    # -- generic ---------------------------------------------------------------
    def generic_visit(self, node: ast.AST) -> None:
        if node.__class__ not in _ALLOWED_NODES:
            kind = type(node).__name__
            what = _REFUSED_NODES.get(kind, f"'{kind}' is")
            self.refuse(node, f"{what} not available here")
        was_class = self.in_class_body
        if not isinstance(node, ast.ClassDef):
            self.in_class_body = False
        for field in node._fields:
            value = getattr(node, field, None)
            if value is None:
                continue
            if value.__class__ is list:
                if value and isinstance(value[0], ast.stmt):
                    self.check_block(value)
                    continue
                for item in value:
                    if isinstance(item, ast.AST) and item.__class__ not in LEAVES:
                        self.visit(item)
            elif isinstance(value, ast.AST) and value.__class__ not in LEAVES:
                self.visit(value)
        self.in_class_body = was_class

    # -- names -----------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if isinstance(node.ctx, ast.Load):
            if name in _READABLE_NAMES:
                return
            why = name_refusal(name)
            if why is not None:
                self.refuse(node, why)
            if name in _REFUSED_NAMES:
                self.refuse(node, _REFUSED_NAMES[name])
        else:
            self.bind(node, name)

    def visit_Assign(self, node: ast.Assign) -> None:
        # `__slots__ = ...`, `__hash__ = None`, `__radd__ = __add__` in a class body.
        targets = node.targets
        if self.in_class_body and all(
            isinstance(t, ast.Name) and t.id in CLASS_BODY_NAMES for t in targets
        ):
            value = node.value
            self.in_class_body = False
            if not (isinstance(value, ast.Name) and value.id in LEARNER_DUNDERS):
                self.visit(value)
            return
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        why = attribute_refusal(node.attr)
        if why is None and node.attr.startswith("__") and not isinstance(node.ctx, ast.Load):
            why = f"setting attribute '{node.attr}' is not available here"
        if why is not None:
            self.refuse(node, why)
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg is not None:
            why = name_refusal(node.arg)
            if why is not None:
                self.refuse(node, why)
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
        if name.startswith("__") and name.endswith("__") and len(name) > 4:
            if not (self.in_class_body and name in LEARNER_DUNDERS):
                self.refuse(node, f"defining '{name}' is not available here ({_why_not(name)})")
        else:
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
        saved = (self.in_class_body, self.finally_depth, self.loop_in_finally)
        self.in_class_body = False
        for expr in [*node.bases, *node.decorator_list]:
            self.visit(expr)
        self.in_class_body = True
        self.finally_depth = 0
        self.loop_in_finally = 0
        self.check_block(node.body)
        self.in_class_body, self.finally_depth, self.loop_in_finally = saved

    # -- control flow ----------------------------------------------------------
    def visit_Try(self, node: ast.Try) -> None:
        self.check_block(node.body)
        for handler in node.handlers:
            self.visit(handler)
        if node.orelse:
            self.check_block(node.orelse)
        if node.finalbody:
            saved = (self.finally_depth, self.loop_in_finally)
            self.finally_depth += 1
            self.loop_in_finally = 0
            self.check_block(node.finalbody)
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

    # -- imports: which modules exist is decided when the line runs -------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.bind(node, alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.refuse(node, "relative imports are not available here")
        for alias in node.names:
            if alias.name == "*":
                continue
            why = name_refusal(alias.name)
            if why is not None and node.module != "__future__":
                self.refuse(node, why)
            self.bind(node, alias.asname or alias.name)

    # -- expressions -----------------------------------------------------------
    def visit_comprehension(self, node: ast.comprehension) -> None:
        if node.is_async:
            self.refuse(node.target, "'async for' is not available here")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        return


def _raising_statement(exc: Refused, like: ast.stmt) -> ast.stmt:
    """`_gs_refuse(message, line)`: the statement that stands for a refused one."""
    args: list[ast.expr] = [ast.Constant(exc.message), ast.Constant(exc.lineno)]
    call = ast.Call(func=ast.Name(id=REFUSE_GUARD, ctx=ast.Load()), args=args, keywords=[])
    stmt = ast.Expr(value=call)
    for new in (stmt, call, call.func, *args):
        ast.copy_location(new, like)
    return stmt


def check(tree: ast.Module) -> list[Refused]:
    """Check `tree` in place: each refused statement becomes one that raises its refusal
    at its line. Returns the refusals, in source order (empty: all of it is allowed).

    Raises `Refused` only when the code is nested too deeply to check at all.
    """
    checker = _Checker()
    try:
        checker.check_block(tree.body)
    except RecursionError:
        raise Refused("this code is nested too deeply to check") from None
    return checker.refusals


def check_source_size(source: str) -> None:
    """Refuse a cell too long to be a learner's input."""
    if len(source) > MAX_SOURCE_CHARS:
        raise Refused(
            f"this input is too long ({len(source):,} characters; "
            f"the limit is {MAX_SOURCE_CHARS:,})"
        )
