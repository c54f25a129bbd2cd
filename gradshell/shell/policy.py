"""Per-type allow-lists: which attributes, calls and subscripts learner code may use.

The rule is an allow-list, never a deny-list. An attribute is looked up the way
Python finds it (the first class in the MRO whose ``__dict__`` holds it) and the
policy of *that* class decides:

* classes the learner defined (registered when their ``class`` statement runs):
  every public name;
* gradshell's own classes (defined in a ``gradshell.*`` module, or presenting
  themselves as ``torch.*``): every public name, minus the names a class lists in
  ``_shell_hidden``;
* builtin types, NumPy types: the explicit lists below;
* anything else: nothing.

Names starting with ``_`` follow their own rule (`_underscore_allowed`): the harmless
dunder strings (``__name__``, ``__doc__``, ``__version__``), ``__init__`` of classes,
PyTorch's own single-underscore attributes that tutorials read (``_modules``,
``_parameters``, ...), and a learner class's own single-underscore names; never the
shell's ``_gs`` names, never other dunders. Decisions are cached per (type, name).
"""

from __future__ import annotations

import builtins
import types
import weakref
from collections import OrderedDict, defaultdict
from typing import Any

from gradshell.torch._names import MODULE_TYPES

# ---------------------------------------------------------------------------
# Builtin types: the safe, side-effect-free parts of their public API.

_STR = frozenset(
    "capitalize casefold center count encode endswith expandtabs find format index isalnum "
    "isalpha isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace "
    "istitle isupper join ljust lower lstrip partition removeprefix removesuffix replace "
    "rfind rindex rjust rpartition rsplit rstrip split splitlines startswith strip swapcase "
    "title upper zfill".split()
)
_BYTES = frozenset(
    "count decode endswith find hex index isalnum isalpha isascii isdigit islower isspace "
    "istitle isupper lower lstrip rfind rindex rstrip split startswith strip upper".split()
)
_LIST = frozenset("append clear copy count extend index insert pop remove reverse sort".split())
_TUPLE = frozenset({"count", "index"})
_DICT = frozenset("clear copy fromkeys get items keys pop popitem setdefault update values".split())
_SET = frozenset(
    "add clear copy difference difference_update discard intersection intersection_update "
    "isdisjoint issubset issuperset pop remove symmetric_difference "
    "symmetric_difference_update union update".split()
)
_FROZENSET = frozenset(
    "copy difference intersection isdisjoint issubset issuperset symmetric_difference union".split()
)
_INT = frozenset(
    "as_integer_ratio bit_count bit_length conjugate denominator from_bytes imag "
    "numerator real".split()
)
_FLOAT = frozenset("as_integer_ratio conjugate fromhex hex imag is_integer real".split())
_COMPLEX = frozenset({"conjugate", "imag", "real"})
_EXC = frozenset(
    {"args", "msg", "lineno", "offset", "text", "filename", "value", "errno", "strerror"}
)

BUILTIN_ATTRS: dict[type, frozenset[str]] = {
    str: _STR,
    bytes: _BYTES,
    list: _LIST,
    tuple: _TUPLE,
    dict: _DICT,
    OrderedDict: _DICT | {"move_to_end"},
    defaultdict: _DICT | {"default_factory"},
    set: _SET,
    frozenset: _FROZENSET,
    int: _INT,
    bool: _INT,
    float: _FLOAT,
    complex: _COMPLEX,
    range: frozenset({"start", "stop", "step", "count", "index"}),
    slice: frozenset({"start", "stop", "step", "indices"}),
    type(None): frozenset(),
    object: frozenset(),
    type({}.keys()): frozenset({"isdisjoint"}),
    type({}.items()): frozenset({"isdisjoint"}),
    type({}.values()): frozenset(),
    # a learner class's `__dict__` (read-only)
    types.MappingProxyType: frozenset({"copy", "get", "items", "keys", "values"}),
    # `@x.setter` in a class body; the functions handed over are checked (guards).
    property: frozenset({"fget", "fset", "fdel", "getter", "setter", "deleter"}),
    # A generator driven by hand (`g.send(v)`, `g.close()`); never its frame or code.
    types.GeneratorType: frozenset({"send", "close"}),
    BaseException: _EXC,
    StopIteration: _EXC,
    SyntaxError: _EXC,
    OSError: _EXC,
}

#: Builtin classes learner code may call (construct). `type` itself is offered as a
#: one-argument function instead; `bytearray`, `memoryview` and friends are not offered.
BUILTIN_CONSTRUCTORS: frozenset[type] = frozenset(
    {
        int,
        float,
        complex,
        bool,
        str,
        list,
        tuple,
        dict,
        set,
        frozenset,
        range,
        slice,
        enumerate,
        zip,
        map,
        filter,
        reversed,
        object,
        property,
        staticmethod,
        classmethod,
        super,
        OrderedDict,
    }
)

#: Builtin classes that can be subscripted / assigned into.
_GETITEM_TYPES = frozenset(
    {list, tuple, str, bytes, dict, range, OrderedDict, defaultdict, types.MappingProxyType}
)
_SETITEM_TYPES = frozenset({list, dict, OrderedDict, defaultdict})

#: Packages of gradshell whose objects are not learner-facing API (the shell itself,
#: the lesson store, the transcript runner, the kernel process and its wire).
_PRIVATE_PACKAGES = ("gradshell.shell", "gradshell.learn", "gradshell.replay", "gradshell.kernel")

#: Public names of gradshell modules that are never exposed (file access and the like).
HIDDEN_MODULE_ATTRS = frozenset(
    {"from_file", "hub", "library", "classes", "ops", "jit", "compile", "cpp"}
)

#: Single-underscore attributes of PyTorch's classes that tutorials read (gradshell's
#: classes keep the same ones, with the same meaning).
TORCH_PRIVATE_ATTRS = frozenset(
    """_modules _parameters _buffers _non_persistent_buffers_set _forward_hooks
    _forward_pre_hooks _backward_hooks _version _base _get_name _is_view _apply
    _named_members _backward_pre_hooks _is_full_backward_hook _forward_hooks_with_kwargs
    _forward_hooks_always_called _forward_pre_hooks_with_kwargs _state_dict_hooks
    _state_dict_pre_hooks _load_state_dict_pre_hooks _load_state_dict_post_hooks
    _optimizer_step_pre_hooks _optimizer_step_post_hooks _optimizer_state_dict_pre_hooks
    _optimizer_state_dict_post_hooks _optimizer_load_state_dict_pre_hooks
    _optimizer_load_state_dict_post_hooks _zero_grad_profile_name
    _warned_capturable_if_run_uncaptured""".split()
)

#: Dunder attributes whose value is a plain string (or None) on any object.
DUNDER_STRINGS = frozenset({"__name__", "__qualname__", "__doc__", "__version__"})

# ---------------------------------------------------------------------------
# Registries filled at run time.

#: Classes created by learner code (the `class` statement registers them).
LEARNER_CLASSES: weakref.WeakSet[type] = weakref.WeakSet()

#: ids of callables the shell itself offers (safe builtins, NumPy and math functions);
#: each is kept alive by the table that exposes it.
_EXPOSED: dict[int, Any] = {}

#: Extra per-type allow-lists (NumPy types register here when NumPy is imported).
EXTRA_ATTRS: dict[type, frozenset[str]] = {}

#: Types whose instances may be called (e.g. numpy.ufunc).
CALLABLE_TYPES: set[type] = set()
#: Types that may be subscripted / assigned into, beyond the builtin ones.
EXTRA_GETITEM: set[type] = set()
EXTRA_SETITEM: set[type] = set()
#: Classes (beyond builtins) that may be constructed by calling them.
EXTRA_CONSTRUCTORS: set[type] = set()

#: Library classes a learner class may inherit from (Enum, ABC, threading.Thread).
EXTRA_BASES: set[type] = set()

#: Types whose every public attribute is API (the shell's own module proxies, which
#: hold nothing but what they export).
OPEN_TYPES: set[type] = set()
#: (class, name) pairs whose raw value is never handed out: the guards substitute a
#: safe version (str.format, str.center, ...).
REPLACED: set[tuple[type, str]] = set()

_inst_cache: dict[tuple[type, str], bool] = {}
_class_cache: dict[tuple[type, str], bool] = {}
_module_cache: dict[tuple[Any, str], bool] = {}
_getitem_cache: dict[type, bool] = {}
_setitem_cache: dict[type, bool] = {}


def expose(obj: Any) -> Any:
    """Mark `obj` (a function or class the shell offers) as callable; returns it."""
    _EXPOSED[id(obj)] = obj
    return obj


def allow_attributes(cls: type, names: frozenset[str]) -> None:
    """Let learner code use `names` of library class `cls`: read them, and call those
    that are functions (found on the class or a base it inherits them from)."""
    EXTRA_ATTRS[cls] = names
    for klass in cls.__mro__:
        for name in names:
            value = klass.__dict__.get(name)
            if isinstance(value, classmethod | staticmethod):
                value = value.__func__
            if callable(value):
                expose(value)


def is_exposed(obj: Any) -> bool:
    """True if the shell offered exactly this object."""
    return _EXPOSED.get(id(obj)) is obj


def clear_caches() -> None:
    """Forget cached decisions (after a registry changes)."""
    _inst_cache.clear()
    _class_cache.clear()
    _module_cache.clear()
    _getitem_cache.clear()
    _setitem_cache.clear()


def register_learner_class(cls: type) -> type:
    """Record a class the learner defined; used as a class decorator by the shell."""
    LEARNER_CLASSES.add(cls)
    return cls


def is_learner_class(cls: type) -> bool:
    """True for a class defined by learner code."""
    try:
        return cls in LEARNER_CLASSES
    except TypeError:
        return False


def _module_name_is_api(mod: Any) -> bool:
    if not isinstance(mod, str):
        return False
    if mod == "torch" or mod.startswith("torch."):
        return True  # gradshell's classes may present themselves as torch.*
    if mod == "gradshell" or mod.startswith("gradshell."):
        return not mod.startswith(_PRIVATE_PACKAGES)
    return False


def is_gradshell_class(cls: type) -> bool:
    """True for gradshell's own API classes (tensors, dtypes, nodes, nn modules...)."""
    if is_learner_class(cls):
        return False
    # Graph nodes print as PyTorch's (module `builtins`) and record their home in `_gs_home`.
    home = cls.__dict__.get("_gs_home") or cls.__dict__.get("__module__")
    return _module_name_is_api(home if home is not None else getattr(cls, "__module__", None))


def is_gradshell_module(mod: types.ModuleType) -> bool:
    """True for gradshell API modules (gradshell.torch and what it is built from)."""
    return _module_name_is_api(getattr(mod, "__name__", None))


def hidden_names(cls: type) -> frozenset[str]:
    """The public names a gradshell class (or its bases) keeps from the shell."""
    out: set[str] = set()
    for klass in cls.__mro__:
        hidden = klass.__dict__.get("_shell_hidden")
        if hidden:
            out.update(hidden)
    return frozenset(out)


def _explicit_list(cls: type) -> frozenset[str] | None:
    found = BUILTIN_ATTRS.get(cls)
    if found is None:
        found = EXTRA_ATTRS.get(cls)
    if found is None and cls.__module__ == "builtins" and issubclass(cls, BaseException):
        found = _EXC
    return found


def _class_policy(owner: type, cls: type, name: str) -> bool | None:
    """Decision of the class `cls` that defines `name` (None: this class has no say)."""
    if (cls, name) in REPLACED:
        return False
    if is_learner_class(cls) or cls in OPEN_TYPES:
        return True
    if is_gradshell_class(cls):
        return name not in hidden_names(owner)
    allowed = _explicit_list(cls)
    if allowed is not None:
        return name in allowed
    return False


def _decide_in_mro(mro: tuple[type, ...], owner: type, name: str) -> bool:
    for cls in mro:
        if name in cls.__dict__:
            return bool(_class_policy(owner, cls, name))
    # Not defined by any class: an instance attribute or a dynamic `__getattr__`.
    for cls in mro:
        if is_learner_class(cls) or cls in OPEN_TYPES:
            return True
        if is_gradshell_class(cls):
            return name not in hidden_names(owner)
    for cls in mro:
        allowed = _explicit_list(cls)
        if allowed is not None:
            return name in allowed
    return False


def _decide_module(mod: types.ModuleType, name: str) -> bool:
    if not is_gradshell_module(mod) or name in HIDDEN_MODULE_ATTRS:
        return False
    try:
        value = getattr(mod, name)
    except AttributeError:
        return True  # let Python raise its own AttributeError
    return value_is_api(value)


def value_is_api(value: Any) -> bool:
    """Whether a module-level value may be handed to learner code."""
    if isinstance(value, types.ModuleType):
        return is_gradshell_module(value)
    if isinstance(value, type):
        return (
            is_gradshell_class(value)
            or value in BUILTIN_CONSTRUCTORS
            or value in EXTRA_CONSTRUCTORS
            or is_exposed(value)
        )
    if isinstance(value, types.FunctionType | types.MethodType):
        return call_allowed(value)
    if isinstance(value, types.BuiltinFunctionType):
        return is_exposed(value) or _module_name_is_api(getattr(value, "__module__", None))
    return True  # plain data and instances: their own policy applies when used


def _underscore_allowed(obj: Any, name: str) -> bool:
    """May learner code read `obj.name`, for a `name` starting with '_'?"""
    if name.startswith("_gs"):
        return False
    if name.startswith("__"):
        if name in DUNDER_STRINGS:
            return True
        if name != "__init__":
            return False
        if type(obj) is super:
            return _super_allowed(obj, name)
        # `nn.Module.__init__(self)`, `Base.__init__(self)`: a class's own initialiser.
        return isinstance(obj, type) and (is_learner_class(obj) or is_gradshell_class(obj))
    if type(obj) is super:
        return _super_allowed(obj, name)
    if isinstance(obj, types.ModuleType) or type(obj) in OPEN_TYPES:
        return False
    if isinstance(obj, type):
        mro: tuple[type, ...] = getattr(obj, "__mro__", ())
        return _private_decision(mro, name, on_class=True)
    return _private_decision(type(obj).__mro__, name, on_class=False)


def _private_decision(mro: tuple[type, ...], name: str, on_class: bool) -> bool:
    """A single-underscore name: the learner's own, or one of PyTorch's on gradshell's."""
    for cls in mro:
        if name in cls.__dict__:
            if is_learner_class(cls):
                return True
            return is_gradshell_class(cls) and name in TORCH_PRIVATE_ATTRS
    if on_class:
        return False
    # An instance attribute: learner objects keep their own; gradshell's the PyTorch ones.
    if any(is_learner_class(cls) for cls in mro):
        return True
    return name in TORCH_PRIVATE_ATTRS and any(is_gradshell_class(cls) for cls in mro)


def attr_allowed(obj: Any, name: str) -> bool:
    """May learner code read attribute `name` of `obj`?"""
    if name.startswith("_"):
        if isinstance(obj, type) or type(obj) is super:
            return _underscore_allowed(obj, name)
        key0 = (type(obj), name)
        hit0 = _inst_cache.get(key0)
        if hit0 is None:
            hit0 = _underscore_allowed(obj, name)
            if type(obj) not in MODULE_TYPES:
                _inst_cache[key0] = hit0
        return hit0
    if isinstance(obj, type):
        key: tuple[Any, str] = (obj, name)
        hit = _class_cache.get(key)
        if hit is None:
            try:
                mro = obj.__mro__
            except AttributeError:
                return False
            hit = _class_cache[key] = _decide_in_mro(mro, obj, name) and (
                name in _defined_names(mro)
                or (is_learner_class(obj) and not _on_metaclass(obj, name))
            )
        return hit
    tp = type(obj)
    if tp in MODULE_TYPES:
        key = (obj, name)
        hit = _module_cache.get(key)
        if hit is None:
            hit = _module_cache[key] = _decide_module(obj, name)
        return hit
    if tp is super:
        return _super_allowed(obj, name)
    if tp is types.FunctionType:
        # `counter.calls += 1`: a learner function's own attributes (never cached: the
        # same name on a library's function is not the learner's).
        return _is_learner_function(obj) and name in obj.__dict__
    key = (tp, name)
    hit = _inst_cache.get(key)
    if hit is None:
        hit = _inst_cache[key] = _decide_in_mro(tp.__mro__, tp, name)
    return hit


def _on_metaclass(cls: type, name: str) -> bool:
    """True if `cls.name` would come from the class's metaclass (`mro`, `__subclasses__`)."""
    return any(name in vars(meta) for meta in type(cls).__mro__)


def _defined_names(mro: tuple[type, ...]) -> set[str]:
    out: set[str] = set()
    for cls in mro:
        out.update(cls.__dict__)
    return out


def _super_allowed(obj: super, name: str) -> bool:
    this = obj.__thisclass__
    owner = obj.__self_class__
    if owner is None:
        return False
    mro = owner.__mro__
    try:
        rest = mro[mro.index(this) + 1 :]
    except ValueError:
        return False
    if name == "__init__":
        return True
    for cls in rest:
        if name in cls.__dict__:
            if name.startswith("_"):
                return _private_decision((cls,), name, on_class=True)
            return bool(_class_policy(owner, cls, name))
    return False


def _private_setattr_allowed(obj: Any, name: str) -> bool:
    """A learner object may keep its own single-underscore attributes; PyTorch's
    (`_parameters`, ...) and anything a non-learner class defines stay as they are."""
    if name.startswith("__") or name.startswith("_gs"):
        return False
    mro = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
    if not any(is_learner_class(cls) for cls in mro):
        return False
    for cls in mro:
        if name in cls.__dict__ and not is_learner_class(cls):
            return False
    return name not in TORCH_PRIVATE_ATTRS or not any(is_gradshell_class(c) for c in mro)


def _is_learner_function(f: Any) -> bool:
    """A function defined by learner code (its globals are the session's)."""
    return type(f) is types.FunctionType and f.__globals__.get("__gs_learner__") is True


def setattr_allowed(obj: Any, name: str) -> bool:
    """May learner code assign or delete attribute `name` of `obj`?"""
    if name.startswith("_"):
        return _private_setattr_allowed(obj, name)
    if type(obj) is types.FunctionType:
        return _is_learner_function(obj)
    if isinstance(obj, type):
        return is_learner_class(obj)
    tp = type(obj)
    for cls in tp.__mro__:
        if is_learner_class(cls):
            return True
        if is_gradshell_class(cls):
            return name not in hidden_names(tp)
    return False


def _subscript_decision(tp: type, builtin_ok: frozenset[type], extra: set[type]) -> bool:
    for cls in tp.__mro__:
        if is_learner_class(cls) or is_gradshell_class(cls):
            return True
        if cls in builtin_ok or cls in extra:
            return True
    return False


def getitem_allowed(obj: Any) -> bool:
    """May learner code subscript `obj` (read)?"""
    if isinstance(obj, type):
        # `list[int]` and the like: harmless generic aliases.
        return (
            obj in BUILTIN_CONSTRUCTORS
            or is_learner_class(obj)
            or is_gradshell_class(obj)
            or obj in EXTRA_CONSTRUCTORS
        )
    tp = type(obj)
    hit = _getitem_cache.get(tp)
    if hit is None:
        hit = _getitem_cache[tp] = _subscript_decision(tp, _GETITEM_TYPES, EXTRA_GETITEM)
    return hit


def setitem_allowed(obj: Any) -> bool:
    """May learner code assign into or delete from `obj[...]`?"""
    tp = type(obj)
    hit = _setitem_cache.get(tp)
    if hit is None:
        hit = _setitem_cache[tp] = _subscript_decision(tp, _SETITEM_TYPES, EXTRA_SETITEM)
    return hit


def _is_metaclass(cls: type) -> bool:
    """A class whose instances are classes (`type`, or a library's metaclass)."""
    try:
        return issubclass(cls, type)
    except TypeError:
        return False


def class_call_allowed(cls: type) -> bool:
    """May learner code construct an instance of `cls`?

    Never a metaclass: calling one with a name, bases and a dict makes a class whose
    body the checker never saw (`__module__ = 'torch'` passing it off as gradshell's,
    `__array_interface__` pointing NumPy at raw memory). `type(x)` is offered as a
    one-argument stand-in instead."""
    if _is_metaclass(cls):
        return False
    if cls in BUILTIN_CONSTRUCTORS or cls in EXTRA_CONSTRUCTORS or is_exposed(cls):
        return True
    if is_learner_class(cls) or is_gradshell_class(cls):
        return True
    return cls.__module__ == "builtins" and issubclass(cls, Exception)


def base_allowed(cls: Any) -> bool:
    """May a learner class inherit from `cls`?"""
    if not isinstance(cls, type) or _is_metaclass(cls):
        return False  # a learner metaclass could make classes the checker never saw
    if cls is object or is_learner_class(cls) or is_gradshell_class(cls) or cls in EXTRA_BASES:
        return True
    return cls.__module__ == "builtins" and issubclass(cls, Exception)


def call_allowed(f: Any) -> bool:
    """May learner code call `f`?"""
    tf = type(f)
    if tf is types.FunctionType:
        # The module a function was *defined* in is its globals' __name__ (`__module__`
        # can be copied by functools.wraps, e.g. onto gradshell's decorators' wrappers).
        home = f.__globals__
        return (
            home.get("__gs_learner__") is True
            or is_exposed(f)
            or _module_name_is_api(home.get("__name__"))
        )
    if tf is types.MethodType:
        if is_exposed(f):
            return True
        func = f.__func__
        return call_allowed(func)
    if tf is types.BuiltinFunctionType:
        if is_exposed(f):
            return True
        owner = f.__self__
        if owner is None or isinstance(owner, types.ModuleType) or owner is builtins:
            return False
        return attr_allowed(owner, f.__name__)
    if tf is types.MethodDescriptorType or tf is types.ClassMethodDescriptorType:
        return attr_allowed(f.__objclass__, f.__name__)
    if tf is types.MethodWrapperType:
        # `super().__init__(...)` reaching object.__init__ or an exception's __init__.
        owner = f.__self__
        return f.__name__ == "__init__" and any(
            is_learner_class(cls) for cls in type(owner).__mro__
        )
    if tf is types.WrapperDescriptorType:
        return False
    if isinstance(f, type):
        return class_call_allowed(f)
    if is_exposed(f) or tf in CALLABLE_TYPES:
        return True
    for cls in tf.__mro__:
        if is_learner_class(cls) or is_gradshell_class(cls):
            return True
    return False


def safe_dir(obj: Any) -> list[str]:
    """The names of `obj` learner code may use, sorted (what `dir()` shows)."""
    exports = getattr(type(obj), "_gs_exports", None)
    if exports is not None and callable(exports):
        return sorted(exports(obj))
    try:
        names = dir(obj)
    except Exception:
        return []
    out = []
    for name in names:
        if name.startswith("_"):
            continue
        try:
            if attr_allowed(obj, name):
                out.append(name)
        except Exception:
            continue
    return out
