"""gradshell.shell: the learner's shell — a safe Torch DSL, a REPL, a CLI.

Modules, one job each:

* `checker`     — the DSL allow-list over Python's AST (refuses before anything runs)
* `transform`   — rewrites checked code so every reach into an object calls a guard
* `guards`      — the runtime guards (attributes, calls, subscripts, operators, ...)
* `policy`      — per-type allow-lists behind the guards
* `safe_builtins`, `safe_modules`, `imports` — what learner code can name and import
* `formatting`, `limits` — guarded string formatting; size, time and memory limits
* `session`     — `Session.run_cell` (never raises) and `CellResult`
* `display`, `tracebacks` — Python/IPython displays; learner-only tracebacks, warnings
* `magics`      — `%help`, `%style`, ... and `register_magic` for other packages
* `inputsplit`, `transcript`, `batch` — piped input, `%save`, `-c`/FILE runs
* `files`, `ledger` — the file commands' paths (no hidden names) and what gradshell wrote
* `repl`, `completion`, `history` — the prompt_toolkit REPL
* `cli`         — the `gradshell` command

`from gradshell.shell import Session` works; names load lazily so that `gradshell -c`
stays lean.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "Session": "gradshell.shell.session",
    "CellResult": "gradshell.shell.session",
    "register_session_hook": "gradshell.shell.session",
    "register_magic": "gradshell.shell.magics",
    "MagicError": "gradshell.shell.magics",
    "Refused": "gradshell.shell.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gradshell.shell' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
