"""`obj.__dict__` and `vars(obj)` in learner code.

Tutorials print an object's attributes (`print(model.__dict__)`, `vars(args)`) and some
fill them (`self.__dict__.update(kwargs)`). Learner code gets:

* its own objects and classes, and objects of torch's classes whose every attribute it
  may read anyway: the live dictionary, as Python gives it;
* a torch object that also keeps gradshell's own state (a tensor's storage): a copy of
  the attributes PyTorch's object has, without that state;
* modules, library functions and library classes: a refusal, because their dictionaries
  reach the interpreter and gradshell's internals (`dir(x)` lists what x offers).
"""

from __future__ import annotations

import types
from typing import Any

from gradshell.shell import policy
from gradshell.shell.errors import Refused


def _refused(what: str) -> Refused:
    return Refused(
        f"attribute '__dict__' of {what} is not available here (dir(x) lists what you can use)"
    )


def _learner_function(obj: Any) -> bool:
    return type(obj) is types.FunctionType and obj.__globals__.get("__gs_learner__") is True


def object_dict(obj: Any, describe: Any) -> Any:
    """What `obj.__dict__` gives learner code (`describe(obj)` names it in a refusal)."""
    if isinstance(obj, type):
        if policy.is_learner_class(obj):
            return obj.__dict__  # a read-only mappingproxy, as in Python
        raise _refused(describe(obj))
    tp = type(obj)
    if (
        tp in policy.MODULE_TYPES
        or isinstance(obj, types.ModuleType)
        or callable(getattr(tp, "_gs_module_name", None))  # math, numpy: the shell's views
    ):
        raise _refused(describe(obj))
    if tp is types.FunctionType:
        if _learner_function(obj):
            return obj.__dict__
        raise _refused(describe(obj))
    mro = tp.__mro__
    if not any(
        policy.is_learner_class(c) or policy.is_gradshell_class(c) or c in policy.OPEN_TYPES
        for c in mro
    ):
        if not hasattr(obj, "__dict__"):  # an int, a str: Python's own error
            raise AttributeError(f"'{tp.__name__}' object has no attribute '__dict__'")
        raise _refused(describe(obj))
    try:
        live = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        raise AttributeError(f"'{tp.__name__}' object has no attribute '__dict__'") from None
    hidden = [k for k in live if not (isinstance(k, str) and policy.attr_allowed(obj, k))]
    if not hidden:
        return live
    return {k: v for k, v in live.items() if k not in hidden}
