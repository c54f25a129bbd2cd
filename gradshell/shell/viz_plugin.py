"""The shell's plugin for visualisation: registers its magics and per-session state, and
hands it the shell's pieces it needs (`gradshell.viz.host`), so that visualisation
never imports the shell.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from gradshell.shell import checker, transform
from gradshell.shell.errors import Refused
from gradshell.shell.files import GRAPHVIZ_MISSING, FileAccessError
from gradshell.shell.magics import MagicError, register_magic
from gradshell.shell.session import register_session_hook

if TYPE_CHECKING:
    from gradshell.shell.session import Session

_INSTALLED = False


def setup_shell() -> None:
    """Register the magics and give every new session its visualisation state."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    from gradshell.viz import host, magics

    host.install(
        host.Host(
            usage_error=MagicError,
            file_error=FileAccessError,
            graphviz_missing=GRAPHVIZ_MISSING,
            evaluate=evaluate_expression,
        )
    )
    for name, fn, help_text, record in magics.magic_table():
        register_magic(name, fn, help_text, record=record)
    register_session_hook(magics.install)


def evaluate_expression(
    session: Session, text: str, overrides: dict[str, Any] | None = None
) -> Any:
    """Evaluate an expression typed after a magic in (a copy of) the session's namespace,
    through the same checks as learner code; `overrides` rebinds names only for this
    evaluation. Raises visualisation's ExpressionError with the reason."""
    from gradshell.viz.common import ExpressionError

    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"not an expression: {text.strip()!r} ({exc.msg})") from None
    module = ast.Module(body=[ast.Expr(tree.body)], type_ignores=[])
    ast.copy_location(module.body[0], tree.body)
    if not session.unsafe:
        try:
            refusals = checker.check(module)
        except Refused as exc:
            raise ExpressionError(exc.message) from None
        if refusals:  # the checker defers refusals to run time; an expression has one line
            raise ExpressionError(refusals[0].message)
        transform.guard(module)
    expr = module.body[0].value
    wrapped = ast.Expression(body=expr)
    ast.fix_missing_locations(wrapped)
    code = compile(wrapped, "<magic>", "eval", dont_inherit=True)
    namespace = dict(session.namespace)
    if overrides:
        namespace.update(overrides)
    try:
        return eval(code, namespace)  # noqa: S307 - checked and guarded like learner code
    except Exception as exc:  # noqa: BLE001 - reported to the learner
        raise ExpressionError(f"{type(exc).__name__}: {exc}") from None
