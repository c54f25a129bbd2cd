"""The runtime guards that checked learner code is compiled to call.

The transformer (`transform.py`) rewrites every attribute read, method call, call,
subscript, attribute/item store and delete, arithmetic operator, f-string field,
`with` item, class base, starred argument and import of learner code into calls of
the functions here. Each consults `policy` (an allow-list per type) and the resource
limits before touching the real object; size checks count what is about to be
materialised (an expanded view's full size, a subarray dtype's items). Learner code
cannot name these functions: their names start with ``_gs`` (no name mangling in class
bodies), which the checker refuses.
"""

from __future__ import annotations

import functools
import operator
import types
from typing import Any

from gradshell.shell import limits, policy
from gradshell.shell.attr_dict import object_dict
from gradshell.shell.errors import Refused, ResourceLimitError
from gradshell.shell.formatting import BoundFormat, fstring_field, safe_str_format
from gradshell.shell.learner_with import LearnerContext, defines_exit
from gradshell.shell.unpacking import double_stars, star, stars

_FunctionType = types.FunctionType
_MethodType = types.MethodType
_BuiltinMethodType = types.BuiltinMethodType
_inst_cache = policy._inst_cache
_attr_allowed = policy.attr_allowed
_call_allowed = policy.call_allowed


class _NoNumpy:
    """Stands in for numpy.ndarray until NumPy is loaded."""


_ND: type = _NoNumpy
_SEQ = (str, bytes, list, tuple)
_INTS = (int, bool)


def set_ndarray_type(nd: type) -> None:
    """Tell the operator guards which type is NumPy's ndarray (done when NumPy loads)."""
    global _ND
    _ND = nd


class _NoTensor:
    """Stands in for the tensor type until torch is imported."""


_TENSOR: type = _NoTensor


def set_tensor_type(tensor: type) -> None:
    """Tell the guards which type is the tensor (done when torch is first imported)."""
    global _TENSOR
    _TENSOR = tensor


#: Tensor methods that only look at a tensor or make a view of it: allowed on a view
#: with more elements than the limit (`x.expand(10**5, 10**5)`), which stores few.
VIEW_METHODS = frozenset(
    """size dim ndimension numel nelement stride is_contiguous storage_offset element_size
    data_ptr expand expand_as t transpose permute unsqueeze squeeze narrow select unbind
    chunk split movedim swapaxes swapdims is_floating_point is_complex get_device
    requires_grad_ register_hook retain_grad detach detach_ new_zeros new_ones new_full
    new_empty new_tensor""".split()
)


def _materialised_elements(obj: Any) -> int:
    """The elements that computing with tensor `obj` materialises (0: not a tensor)."""
    if not isinstance(obj, _TENSOR):
        return 0
    data = getattr(obj, "_data", None)
    return int(getattr(data, "size", 0) or 0)


def check_tensor_method(obj: Any, name: str) -> None:
    """Refuse a method that would materialise a tensor view over the element limit."""
    if name in VIEW_METHODS:
        return
    n = _materialised_elements(obj)
    if n > limits.CURRENT.max_elements:
        limits.check_elements(n, f"'{name}' of this expanded view")


def type_name(tp: type) -> str:
    """`int`, `numpy.ndarray`: how a type is named in messages."""
    mod = getattr(tp, "__module__", None)
    qual = getattr(tp, "__qualname__", getattr(tp, "__name__", "?"))
    if mod in (None, "builtins", "__main__"):
        return qual
    return f"{mod}.{qual}"


def _describe(obj: Any) -> str:
    if isinstance(obj, type):
        return f"class '{type_name(obj)}'"
    if isinstance(obj, types.ModuleType):
        return f"module '{module_display_name(obj)}'"
    module_name = getattr(type(obj), "_gs_module_name", None)
    if module_name is not None:
        return f"module '{module_name(obj)}'"
    return f"'{type_name(type(obj))}' objects"


def module_display_name(module: types.ModuleType) -> str:
    """`torch.nn` for gradshell.torch.nn: the name the learner imported it by."""
    name = module.__name__
    if name.startswith("gradshell.torch"):
        return name[len("gradshell.") :]
    return name


def _absent(obj: Any, name: str) -> bool:
    """True if `obj` clearly has no attribute `name` (looked up without running code)."""
    if isinstance(obj, types.ModuleType):
        return name not in vars(obj)
    classes = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
    for cls in classes:
        if name in cls.__dict__ or "__getattr__" in cls.__dict__ and cls is not object:
            return False
    if isinstance(obj, type):
        return all(name not in vars(meta) for meta in type(obj).__mro__)
    try:
        return name not in object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return True


# --- substitutions: safe stand-ins for raw methods --------------------------------


class SizedStrMethod:
    """A str/bytes method whose result size is checked first (center, join, replace...)."""

    __slots__ = ("obj", "name")

    def __init__(self, obj: Any, name: str) -> None:
        self.obj = obj
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _check_sized(self.obj, self.name, args, kwargs)
        return getattr(self.obj, self.name)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<built-in method {self.name} of {type(self.obj).__name__} object>"


class UnboundSizedStrMethod:
    """`str.center` and friends reached through the class."""

    __slots__ = ("cls", "name")

    def __init__(self, cls: type, name: str) -> None:
        self.cls = cls
        self.name = name

    def __call__(self, obj: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(obj, self.cls):
            return getattr(self.cls, self.name)(obj, *args, **kwargs)  # Python's TypeError
        return SizedStrMethod(obj, self.name)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<method '{self.name}' of '{self.cls.__name__}' objects>"


_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})
_SIZED = _WIDTH_METHODS | {"expandtabs", "join", "replace"}


def _check_sized(obj: Any, name: str, args: tuple, kwargs: dict) -> None:
    n = len(obj)
    if name in _WIDTH_METHODS:
        width = args[0] if args else kwargs.get("width", 0)
        if isinstance(width, int):
            limits.check_length(width, "this string")
    elif name == "expandtabs":
        size = args[0] if args else kwargs.get("tabsize", 8)
        if isinstance(size, int) and size > 0:
            limits.check_length(n + obj.count("\t" if isinstance(obj, str) else b"\t") * size)
    elif name == "join" and args:
        items = args[0]
        if isinstance(items, list | tuple):
            total = sum(len(x) for x in items if isinstance(x, str | bytes))
            limits.check_length(total + n * max(len(items) - 1, 0), "this string")
    elif name == "replace" and len(args) >= 2:
        old, new = args[0], args[1]
        if isinstance(old, str | bytes) and isinstance(new, str | bytes) and len(new) > len(old):
            count = obj.count(old) if old else n + 1
            limits.check_length(n + count * (len(new) - len(old)), "this string")


#: (type, name) -> factory(obj) giving the safe stand-in for `obj.name`.
REPLACEMENTS: dict[tuple[type, str], Any] = {}
#: (class, name) -> the safe stand-in for `Class.name`.
CLASS_REPLACEMENTS: dict[tuple[type, str], Any] = {}


def register_replacement(
    cls: type, name: str, factory: Any, class_value: Any | None = None
) -> None:
    """Serve `factory(obj)` for `obj.name` (and `class_value` for `cls.name`).

    The raw method is never handed out: `policy` refuses it from now on.
    """
    REPLACEMENTS[(cls, name)] = factory
    if class_value is not None:
        CLASS_REPLACEMENTS[(cls, name)] = class_value
    policy.REPLACED.add((cls, name))
    policy.clear_caches()


for _cls in (str, bytes):
    for _name in _SIZED:
        if hasattr(_cls, _name):
            register_replacement(
                _cls,
                _name,
                lambda obj, _n=_name: SizedStrMethod(obj, _n),
                UnboundSizedStrMethod(_cls, _name),
            )
register_replacement(str, "format", BoundFormat, safe_str_format)
policy.CALLABLE_TYPES.update({SizedStrMethod, UnboundSizedStrMethod})


def _replacement(obj: Any, name: str) -> Any:
    """The safe stand-in for a replaced method, or None."""
    if isinstance(obj, type):
        for cls in obj.__mro__:
            value = CLASS_REPLACEMENTS.get((cls, name))
            if value is not None:
                return value
        return None
    factory = REPLACEMENTS.get((type(obj), name))
    if factory is None:
        # A subclass (a Parameter is a Tensor) gets the stand-in of the class that has it.
        for cls in type(obj).__mro__[1:]:
            if name in cls.__dict__:
                factory = REPLACEMENTS.get((cls, name))
                break
        if factory is None:
            return None
    return factory(obj)


def readable(obj: Any, name: str) -> bool:
    """May learner code read `obj.name` (directly or through a safe stand-in)?"""
    if _attr_allowed(obj, name):
        return True
    return _replacement(obj, name) is not None


# --- attributes -------------------------------------------------------------------


def ga(obj: Any, name: str) -> Any:
    """`obj.name` in learner code."""
    if _inst_cache.get((type(obj), name)):
        return getattr(obj, name)
    if _attr_allowed(obj, name):
        if type(obj) in policy.MODULE_TYPES:
            if name == "__name__":
                return module_display_name(obj)  # `torch`, as the learner imported it
            try:
                return checked_value(getattr(obj, name))
            except AttributeError as exc:
                if isinstance(exc, NotImplementedError):
                    raise  # "gradshell does not support torch.X yet" says more
                raise AttributeError(
                    f"module '{module_display_name(obj)}' has no attribute '{name}'"
                ) from None
        return getattr(obj, name)
    if name == "__dict__":
        return object_dict(obj, _describe)
    if name == "__class__":
        # `x.__class__.__name__` is how Dive into Deep Learning names layers; it is
        # exactly `type(x)`, which learner code may call anyway.
        return type(obj)
    sub = _replacement(obj, name)
    if sub is not None:
        return sub
    raise refuse_attr(obj, name)


def refuse_attr(obj: Any, name: str) -> Exception:
    """The refusal for reading `obj.name`."""
    if name.startswith("_"):
        from gradshell.shell.checker import attribute_refusal

        why = (
            attribute_refusal(name)
            or f"attribute '{name}' of {_describe(obj)} is not available here"
        )
        return Refused(why)
    if isinstance(obj, types.ModuleType):
        shown = module_display_name(obj)
        if name not in vars(obj):
            return AttributeError(f"module '{shown}' has no attribute '{name}'")
        return Refused(f"'{shown}.{name}' is not available here")
    if _absent(obj, name):
        if isinstance(obj, type):
            return AttributeError(f"type object '{obj.__name__}' has no attribute '{name}'")
        return AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
    return Refused(f"attribute '{name}' of {_describe(obj)} is not available here")


def m(obj: Any, name: str) -> Any:
    """`obj.name` about to be called: `obj.name(...)` in learner code."""
    if isinstance(obj, _TENSOR):
        check_tensor_method(obj, name)
    if _inst_cache.get((type(obj), name)):
        value = getattr(obj, name)
        tv = type(value)
        if (tv is _MethodType or tv is _BuiltinMethodType) and value.__self__ is obj:
            return value
        return c(value)
    return c(ga(obj, name))


# --- calls ------------------------------------------------------------------------

_SUBSTITUTE_CALLS: dict[int, tuple[Any, Any]] = {}


def substitute_call(original: Any, replacement: Any) -> None:
    """When learner code calls `original`, call `replacement` instead."""
    _SUBSTITUTE_CALLS[id(original)] = (original, policy.expose(replacement))


def checked_value(value: Any) -> Any:
    """`value`, or its size-checked stand-in when it has one (`torch.outer` read from its
    module): so that `map(torch.outer, ...)` checks what a direct call checks."""
    sub = _SUBSTITUTE_CALLS.get(id(value))
    if sub is not None and sub[0] is value:
        return sub[1]
    return value


def c(f: Any) -> Any:
    """The callee of a call in learner code: returns it if it may be called."""
    if type(f) is _FunctionType and f.__globals__.get("__gs_learner__") is True:
        return f
    sub = _SUBSTITUTE_CALLS.get(id(f))
    if sub is not None and sub[0] is f:
        return sub[1]
    if _call_allowed(f):
        return f
    raise Refused(f"calling {_describe_callable(f)} is not available here")


class CallsChecked:
    """`fn` (map, sorted, functools.partial, ...) with the callables it is handed checked
    as if learner code called them itself, before `fn` gets them.

    C code calls what it is given without asking the guards: `map(type, ['X'], [()],
    [d])` would call the real three-argument `type`, and `functools.partial(f, ...)()`
    any `f` learner code can name but not call. `None` (filter's and sorted's default)
    passes unchanged."""

    __slots__ = ("fn", "positions", "keywords")

    def __init__(self, fn: Any, positions: tuple[int, ...], keywords: tuple[str, ...]) -> None:
        self.fn = fn
        self.positions = positions
        self.keywords = keywords

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.positions:
            args = tuple(
                c(a) if i in self.positions and a is not None else a for i, a in enumerate(args)
            )
        for name in self.keywords:
            if kwargs.get(name) is not None:
                kwargs[name] = c(kwargs[name])
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return repr(self.fn)


def calls_checked(
    fn: Any, positions: tuple[int, ...] = (), keywords: tuple[str, ...] = ()
) -> CallsChecked:
    """`fn` with the callables at `positions` / `keywords` checked (see `CallsChecked`)."""
    return CallsChecked(fn, positions, keywords)


def check_calls_of(
    original: Any, positions: tuple[int, ...] = (), keywords: tuple[str, ...] = ()
) -> None:
    """When learner code calls `original`, check the callables it hands over (see
    `calls_checked`); an earlier stand-in for `original` is kept inside."""
    sub = _SUBSTITUTE_CALLS.get(id(original))
    inner = sub[1] if sub is not None and sub[0] is original else original
    substitute_call(original, calls_checked(inner, positions, keywords))


# `@x.setter` and friends store a function Python calls later with the instance (and
# the value): it is checked as a learner call when handed over, as `property(f)` is.
for _name in ("getter", "setter", "deleter"):
    register_replacement(
        property, _name, lambda prop, _n=_name: calls_checked(getattr(prop, _n), (0,))
    )
# `xs.sort(key=f)` calls `f` from C, as `sorted` does.
register_replacement(
    list,
    "sort",
    lambda xs: calls_checked(xs.sort, (), ("key",)),
    calls_checked(list.sort, (), ("key",)),
)
policy.CALLABLE_TYPES.update({CallsChecked, type(functools.cmp_to_key(operator.lt))})


def _describe_callable(f: Any) -> str:
    if isinstance(f, type):
        return f"class '{type_name(f)}'"
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    if isinstance(name, str):
        return f"'{name}'"
    return f"'{type_name(type(f))}' objects"


# --- subscripts -------------------------------------------------------------------


def gi(obj: Any, key: Any) -> Any:
    """`obj[key]` in learner code."""
    if policy.getitem_allowed(obj):
        return obj[key]
    if not isinstance(obj, type) and not hasattr(type(obj), "__getitem__"):
        # nothing to refuse: Python's own error (`p.grad[0]` after zero_grad())
        raise TypeError(f"'{type(obj).__name__}' object is not subscriptable")
    raise Refused(f"subscripting {_describe(obj)} is not available here")


class Target:
    """Stands for `obj` on the left of `=`, `del`, `for ... in`: guards the store."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        object.__setattr__(self, "_obj", obj)

    def __setattr__(self, name: str, value: Any) -> None:
        obj = self._obj
        if not policy.setattr_allowed(obj, name):
            raise Refused(f"setting attribute '{name}' of {_describe(obj)} is not available here")
        setattr(obj, name, value)

    def __delattr__(self, name: str) -> None:
        obj = self._obj
        if not policy.setattr_allowed(obj, name):
            raise Refused(f"deleting attribute '{name}' of {_describe(obj)} is not available here")
        delattr(obj, name)

    def __setitem__(self, key: Any, value: Any) -> None:
        obj = self._obj
        if not policy.setitem_allowed(obj):
            if not isinstance(obj, type) and not hasattr(type(obj), "__setitem__"):
                raise TypeError(f"'{type(obj).__name__}' object does not support item assignment")
            raise Refused(f"assigning into {_describe(obj)} is not available here")
        obj[key] = value

    def __delitem__(self, key: Any) -> None:
        obj = self._obj
        if not policy.setitem_allowed(obj):
            raise Refused(f"deleting from {_describe(obj)} is not available here")
        del obj[key]


# --- operators --------------------------------------------------------------------


def _nd_size(x: Any) -> int:
    if type(x) is _ND:
        return x.size
    if isinstance(x, _TENSOR):
        return max(_materialised_elements(x), 1)
    if isinstance(x, list | tuple):
        return max(len(x), 1)
    return 1


def _is_array(x: Any) -> bool:
    return type(x) is _ND or isinstance(x, _TENSOR)


def _shape(x: Any) -> tuple[int, ...]:
    if isinstance(x, _TENSOR):
        return tuple(x._data.shape)
    import numpy as np

    return np.shape(x)


def _check_broadcast(a: Any, b: Any) -> None:
    """Refuse an elementwise result (the broadcast of `a` and `b`) over the element limit."""
    na, nb = _nd_size(a), _nd_size(b)
    limit = limits.CURRENT.max_elements
    if na * nb <= limit:
        return
    import numpy as np

    try:
        shape = np.broadcast_shapes(_shape(a), _shape(b))
    except ValueError:
        return  # the operation will raise its own error
    limits.check_elements(limits.numel_of(shape))


def _check_matmul(a: Any, b: Any) -> None:
    if not (_is_array(a) and _is_array(b)):
        return
    sa, sb = _shape(a), _shape(b)
    if len(sa) < 2 or len(sb) < 2:
        limits.check_elements(max(_nd_size(a), _nd_size(b)))
        return
    rows = limits.numel_of(sa[:-1])
    cols = sb[-1]
    batch = max(limits.numel_of(sb[:-2]), 1)
    limits.check_elements(rows * cols * batch)


def _object_ints(x: Any) -> list[int]:
    """The Python ints inside a NumPy object array (empty for any other value)."""
    if type(x) is not _ND or x.dtype.kind != "O":
        return []
    return [v for v in x.flat if type(v) is int or type(v) is bool]


def _int_bits(x: Any) -> int:
    """The largest bit length among the ints of `x` (an int, or an object array of them)."""
    if type(x) in _INTS:
        return x.bit_length()
    return max((v.bit_length() for v in _object_ints(x)), default=0)


def _check_object_arrays(op: str, a: Any, b: Any = None) -> None:
    """Object arrays compute with Python ints, elementwise: refuse results too large.

    `op` is 'pow', 'mul', 'lshift' (of `a` and `b`), 'prod' (all of `a` multiplied) or
    'none' (refused for object arrays of ints: `np.power.reduce` builds a power tower).
    """
    ints_a, ints_b = _object_ints(a), _object_ints(b)
    if not (ints_a or ints_b):
        return
    if op == "none":
        raise ResourceLimitError(
            "this NumPy operation on an object array of Python ints is not available here "
            "(its result has no size limit; use an integer or float dtype)"
        )
    if op == "prod":
        limits.check_int_bits(sum(v.bit_length() for v in ints_a))
        return
    if op == "pow":
        exps = [b] if type(b) in _INTS else ints_b
        top = max(exps, default=0)
        bits = _int_bits(a)
        if top > 0 and bits > 1:
            limits.check_int_bits(top * bits)
    elif op == "mul":
        limits.check_int_bits(_int_bits(a) + _int_bits(b))
    elif op == "lshift":
        shifts = [b] if type(b) in _INTS else ints_b
        limits.check_int_bits(_int_bits(a) + max(shifts, default=0))


check_object_arrays = _check_object_arrays


def add(a: Any, b: Any) -> Any:
    """`a + b`."""
    ta = type(a)
    if ta in _SEQ and type(b) is ta:
        limits.check_length(len(a) + len(b))
    elif _is_array(a) or _is_array(b):
        _check_broadcast(a, b)
    return a + b


def mul(a: Any, b: Any) -> Any:
    """`a * b`."""
    ta, tb = type(a), type(b)
    if ta in _INTS and tb in _INTS:
        limits.check_int_bits(a.bit_length() + b.bit_length())
    elif ta in _SEQ:
        n = limits.check_repeat(a, b)
        if n is not None:
            return a * n  # the count that was checked, read once
    elif tb in _SEQ:
        n = limits.check_repeat(b, a)
        if n is not None:
            return n * b
    elif _is_array(a) or _is_array(b):
        _check_broadcast(a, b)
        _check_object_arrays("mul", a, b)
    return a * b


def pow_(a: Any, b: Any) -> Any:
    """`a ** b`."""
    limits.check_pow(a, b)
    if _is_array(a) or _is_array(b):
        _check_broadcast(a, b)
        _check_object_arrays("pow", a, b)
    return a**b


def lshift(a: Any, b: Any) -> Any:
    """`a << b`."""
    if type(a) in _INTS and type(b) in _INTS and b > 0:
        if b > limits.CURRENT.max_int_bits:
            limits.check_int_bits(b)
        limits.check_int_bits(a.bit_length() + b)
    elif _is_array(a) or _is_array(b):
        _check_broadcast(a, b)
        _check_object_arrays("lshift", a, b)
    return a << b


def mod(a: Any, b: Any) -> Any:
    """`a % b` (string formatting included)."""
    ta = type(a)
    if ta is str or ta is bytes:
        limits.check_percent_format(a, b)
    elif _is_array(a) or _is_array(b):
        _check_broadcast(a, b)
    return a % b


def matmul(a: Any, b: Any) -> Any:
    """`a @ b`."""
    _check_matmul(a, b)
    return a @ b


def _plain(op: Any) -> Any:
    def guarded(a: Any, b: Any) -> Any:
        if _is_array(a) or _is_array(b):
            _check_broadcast(a, b)
        return op(a, b)

    guarded.__name__ = op.__name__
    guarded.__doc__ = f"`{op.__name__}` with NumPy's broadcast size checked."
    return guarded


sub = _plain(operator.sub)
truediv = _plain(operator.truediv)
floordiv = _plain(operator.floordiv)
rshift = _plain(operator.rshift)
and_ = _plain(operator.and_)
or_ = _plain(operator.or_)
xor = _plain(operator.xor)


def _inplace(check: Any, op: Any) -> Any:
    def guarded(a: Any, b: Any) -> Any:
        check(a, b)
        return op(a, b)

    guarded.__name__ = op.__name__
    return guarded


def _check_add(a: Any, b: Any) -> None:
    ta = type(a)
    if ta in _SEQ and isinstance(b, str | bytes | list | tuple):
        limits.check_length(len(a) + len(b))
    elif ta is list:
        try:
            n = len(b)
        except TypeError:
            return
        limits.check_length(len(a) + n)
    elif _is_array(a) or _is_array(b):
        _check_broadcast(a, b)


def _imul(a: Any, b: Any) -> Any:
    """`a *= b`."""
    ta, tb = type(a), type(b)
    if ta in _INTS and tb in _INTS:
        limits.check_int_bits(a.bit_length() + b.bit_length())
    elif ta in _SEQ:
        n = limits.check_repeat(a, b)
        if n is not None:
            b = n  # the count that was checked, read once
    elif tb in _SEQ:
        n = limits.check_repeat(b, a)
        if n is not None:
            a = n
    elif _is_array(a) or _is_array(b):
        _check_broadcast(a, b)
        _check_object_arrays("mul", a, b)
    return operator.imul(a, b)


def _check_lshift(a: Any, b: Any) -> None:
    if type(a) in _INTS and type(b) in _INTS and b > 0:
        if b > limits.CURRENT.max_int_bits:
            limits.check_int_bits(b)
        limits.check_int_bits(a.bit_length() + b)
    elif _is_array(a) or _is_array(b):
        _check_broadcast(a, b)
        _check_object_arrays("lshift", a, b)


def _check_mod(a: Any, b: Any) -> None:
    if type(a) is str or type(a) is bytes:
        limits.check_percent_format(a, b)
    elif _is_array(a) or _is_array(b):
        _check_broadcast(a, b)


def _check_nd(a: Any, b: Any) -> None:
    if _is_array(a) or _is_array(b):
        _check_broadcast(a, b)


def _check_ipow(a: Any, b: Any) -> None:
    limits.check_pow(a, b)
    if _is_array(a) or _is_array(b):
        _check_broadcast(a, b)
        _check_object_arrays("pow", a, b)


iadd = _inplace(_check_add, operator.iadd)
isub = _inplace(_check_nd, operator.isub)
imul = _imul
imatmul = _inplace(_check_matmul, operator.imatmul)
itruediv = _inplace(_check_nd, operator.itruediv)
ifloordiv = _inplace(_check_nd, operator.ifloordiv)
imod = _inplace(_check_mod, operator.imod)
ipow = _inplace(_check_ipow, operator.ipow)
ilshift = _inplace(_check_lshift, operator.ilshift)
irshift = _inplace(_check_nd, operator.irshift)
iand = _inplace(_check_nd, operator.iand)
ior = _inplace(_check_nd, operator.ior)
ixor = _inplace(_check_nd, operator.ixor)

#: AST operator class name -> (binary guard, in-place guard)
OPERATORS: dict[str, tuple[Any, Any]] = {
    "Add": (add, iadd),
    "Sub": (sub, isub),
    "Mult": (mul, imul),
    "MatMult": (matmul, imatmul),
    "Div": (truediv, itruediv),
    "FloorDiv": (floordiv, ifloordiv),
    "Mod": (mod, imod),
    "Pow": (pow_, ipow),
    "LShift": (lshift, ilshift),
    "RShift": (rshift, irshift),
    "BitAnd": (and_, iand),
    "BitOr": (or_, ior),
    "BitXor": (xor, ixor),
}
_INPLACE_BY_NAME = {name: pair[1] for name, pair in OPERATORS.items()}


def aug_attr(obj: Any, name: str, op: str, value: Any) -> None:
    """`obj.name op= value`."""
    current = ga(obj, name)
    setattr(Target(obj), name, _INPLACE_BY_NAME[op](current, value))


def aug_item(obj: Any, key: Any, op: str, value: Any) -> None:
    """`obj[key] op= value`."""
    current = gi(obj, key)
    Target(obj)[key] = _INPLACE_BY_NAME[op](current, value)


def refuse_here(message: str, lineno: int | None) -> None:
    """Raise the refusal the checker found for the statement at `lineno` (it stands in
    that statement's place, so the statements before it have run)."""
    raise Refused(message, lineno)


# --- everything else --------------------------------------------------------------

fmt = fstring_field

#: Types usable in `with` beyond gradshell's and the learner's (e.g. numpy.errstate).
CONTEXT_TYPES: set[type] = set()


def ctx(obj: Any) -> Any:
    """The context manager of a `with` statement."""
    tp = type(obj)
    if tp in CONTEXT_TYPES:
        return obj
    if defines_exit(tp, policy.is_learner_class):
        return LearnerContext(obj)
    for cls in tp.__mro__:
        if policy.is_learner_class(cls) or policy.is_gradshell_class(cls):
            return obj
    raise Refused(f"'with' on {_describe(obj)} is not available here")


def base(cls: Any) -> Any:
    """A base class in a learner `class` statement."""
    if policy.base_allowed(cls):
        return cls
    if isinstance(cls, type):
        raise Refused(f"a class cannot inherit from '{type_name(cls)}' here")
    raise Refused(f"a class cannot inherit from {_describe(cls)} here")


def learner_class(cls: type) -> type:
    """Registers a learner class (the last decorator of every learner `class`)."""
    return policy.register_learner_class(cls)


#: The names the transformed code calls, as they appear in its builtins.
GUARD_NAMES: dict[str, Any] = {
    "_gs_ga": ga,
    "_gs_m": m,
    "_gs_c": c,
    "_gs_gi": gi,
    "_gs_W": Target,
    "_gs_aug_attr": aug_attr,
    "_gs_aug_item": aug_item,
    "_gs_fmt": fmt,
    "_gs_ctx": ctx,
    "_gs_base": base,
    "_gs_cls": learner_class,
    "_gs_slice": slice,
    "_gs_Exception": Exception,
    "_gs_star": star,
    "_gs_stars": stars,
    "_gs_dstars": double_stars,
    "_gs_refuse": refuse_here,
}
for _opname, (_binary, _inplace_fn) in OPERATORS.items():
    GUARD_NAMES[f"_gs_{_opname}"] = _binary
    GUARD_NAMES[f"_gs_i{_opname}"] = _inplace_fn
