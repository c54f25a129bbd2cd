"""Tab completion: session names, builtins, keywords, magics, and attributes.

Attribute completion resolves the dotted name before the cursor (`x.grad.ze`) by
reading attributes through the same allow-lists learner code uses; it never calls
anything. `SessionCompleter` adapts it to prompt_toolkit.
"""

from __future__ import annotations

import inspect
import keyword
import re
import types
import warnings
from typing import TYPE_CHECKING, Any

from gradshell.shell import guards, policy
from gradshell.shell.checker import ALLOWED_IMPORT_ROOTS
from gradshell.shell.safe_modules import SafeModule

if TYPE_CHECKING:
    from gradshell.shell.session import Session

_DOTTED = re.compile(r"([A-Za-z_][\w]*(?:\.[A-Za-z_]?[\w]*)*)$")
_IMPORT = re.compile(r"^\s*(?:import|from)\s+([\w]*)$")


def _kind(value: Any) -> str:
    if isinstance(value, types.ModuleType | SafeModule):
        return "module"
    if isinstance(value, type):
        return "class"
    if callable(value):
        return "function"
    return type(value).__name__


def _resolve(session: Session, parts: list[str]) -> Any:
    ns = session.namespace
    builtins_ = ns.get("__builtins__", {})
    head = parts[0]
    if head in ns:
        obj = ns[head]
    elif isinstance(builtins_, dict) and head in builtins_ and not head.startswith("_"):
        obj = builtins_[head]
    else:
        raise LookupError(head)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in parts[1:]:
            if not session.unsafe and not guards.readable(obj, name):
                raise LookupError(name)
            obj = guards.ga(obj, name) if not session.unsafe else getattr(obj, name)
    return obj


def _attribute_names(session: Session, obj: Any) -> list[str]:
    if session.unsafe:
        return [n for n in dir(obj) if not n.startswith("_")]
    exports = getattr(type(obj), "_gs_exports", None)
    if callable(exports):
        return sorted(exports(obj))
    names = set(policy.safe_dir(obj))
    tp = obj if isinstance(obj, type) else type(obj)
    names.update(name for (cls, name) in guards.REPLACEMENTS if cls is tp)
    return sorted(names)


def complete(session: Session, text: str) -> list[tuple[str, int, str]]:
    """Completions for the text before the cursor: (completion, start offset, kind)."""
    stripped = text.lstrip()
    if stripped.startswith("%") and " " not in stripped:
        from gradshell.shell.magics import magic_names

        session.ensure_plugins()
        prefix = stripped[1:]
        return [("%" + n, -len(stripped), "magic") for n in magic_names() if n.startswith(prefix)]
    m = _IMPORT.match(text)
    if m:
        prefix = m.group(1)
        return [(r, -len(prefix), "module") for r in ALLOWED_IMPORT_ROOTS if r.startswith(prefix)]
    m = _DOTTED.search(text)
    if not m:
        return []
    dotted = m.group(1)
    parts = dotted.split(".")
    prefix = parts[-1]
    out: list[tuple[str, int, str]] = []
    if len(parts) == 1:
        seen: set[str] = set()
        builtins_ = session.namespace.get("__builtins__", {})
        pools: list[tuple[Any, str | None]] = [
            (session.namespace, None),
            (builtins_ if isinstance(builtins_, dict) else {}, None),
        ]
        for pool, _ in pools:
            for name in sorted(pool):
                if name.startswith(prefix) and name not in seen:
                    if name.startswith("_") and not prefix.startswith("_"):
                        continue
                    seen.add(name)
                    out.append((name, -len(prefix), _kind(pool[name])))
        for word in keyword.kwlist:
            if word.startswith(prefix) and word not in seen:
                out.append((word, -len(prefix), "keyword"))
        return out
    try:
        obj = _resolve(session, parts[:-1])
    except Exception:
        return []
    for name in _attribute_names(session, obj):
        if name.startswith(prefix):
            out.append((name, -len(prefix), _attribute_kind(session, obj, name)))
    return out


_MISSING = object()


def _attribute_kind(session: Session, obj: Any, name: str) -> str:
    """What IPython's completion calls `obj.name` (function, class, module, property,
    or the value's type), found without running code: a property's getter or a
    learner's `__getattr__` does not run for a Tab."""
    if isinstance(obj, types.ModuleType | SafeModule):
        try:  # a module's attributes are plain values: reading one runs nothing
            value = guards.ga(obj, name) if not session.unsafe else getattr(obj, name)
        except Exception:
            return "attribute"
        return _kind(value)
    value = inspect.getattr_static(obj, name, _MISSING)
    if value is _MISSING:
        return "attribute"
    if isinstance(value, property) or type(value).__name__ in (
        "getset_descriptor",
        "member_descriptor",
    ):
        return "property"
    if isinstance(value, staticmethod | classmethod):
        return "function"
    return _kind(value)


def describe_name(session: Session, name: str) -> str | None:
    """What `name?` shows (IPython's `pinfo`): type, printed form and docstring of the
    object a dotted name refers to, read as completion reads it; None if unknown."""
    parts = name.strip().rstrip("?").split(".")
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    from gradshell.shell.help import DOCS, doc_name, documented

    try:
        found = _resolve(session, parts)
    except (LookupError, AttributeError):
        return None
    obj = documented(found)
    kind = type(obj)
    lines = [f"Type:        {getattr(kind, '__qualname__', kind.__name__)}"]
    if not isinstance(obj, type | types.ModuleType) and not callable(obj):
        form = repr(obj)
        if len(form) > 2000:
            form = form[:2000] + "..."
        lines.append(f"String form: {form}")
    known = doc_name(found) or doc_name(obj)
    if known is not None:  # PyTorch's words for what gradshell supports
        signature, text = DOCS[known]
        lines.append(f"Signature:   {signature}")
        lines.append("Docstring:\n" + text)
        return "\n".join(lines)
    doc = getattr(obj, "__doc__", None)
    if isinstance(doc, str) and doc.strip():
        lines.append("Docstring:\n" + inspect.cleandoc(doc))
    return "\n".join(lines)


def make_completer(session: Session) -> Any:
    """A prompt_toolkit Completer over `complete`."""
    from prompt_toolkit.completion import Completer, Completion

    class SessionCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Any:
            try:
                remote = getattr(session, "complete", None)
                text = document.text_before_cursor
                items = remote(text) if remote is not None else complete(session, text)
            except Exception:
                return
            for text, start, meta in items:
                yield Completion(text, start_position=start, display_meta=meta)

    return SessionCompleter()
