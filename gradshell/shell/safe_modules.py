"""What `import math`, `import random`, `import numpy as np` (and, through `safe_stdlib`,
the harmless standard library) give learner code.

Each is a `SafeModule`: an object that holds exactly the names on its allow-list and
nothing else, so there is nothing behind it to walk. NumPy's offer is array creation,
math, dtypes, `linalg` and `random`; never its file, memory-mapping or C-level parts
(`load`, `save`, `fromfile`, `memmap`, `ctypeslib`, `lib`, ...). Functions that allocate
by a size argument are wrapped so the size is checked first.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable
from typing import Any

from gradshell.shell import guards, limits, policy
from gradshell.shell.checker import STDLIB_MODULES
from gradshell.shell.errors import Refused


class RefusedAttribute(Refused, AttributeError):
    """A name a SafeModule does not offer (an AttributeError, so `getattr(m, n, d)` works)."""


class SafeModule:
    """A module as learner code sees it: only its allow-listed names.

    `real` is the module it stands for: a name that module does not have either is an
    AttributeError worded as Python's; a name it has but the shell does not offer is a
    refusal that says so.
    """

    def __init__(
        self, name: str, exports: dict[str, Any], note: str = "", real: Any = None
    ) -> None:
        object.__setattr__(self, "_gs_name", name)
        object.__setattr__(self, "_gs_note", note)
        object.__setattr__(self, "_gs_real", real)
        object.__setattr__(self, "__name__", name)
        object.__setattr__(self, "__doc__", getattr(real, "__doc__", None))
        for key, value in exports.items():
            object.__setattr__(self, key, value)

    def __getattr__(self, name: str) -> Any:
        real = self._gs_real
        if real is not None and not name.startswith("_gs") and not hasattr(real, name):
            raise AttributeError(f"module '{self._gs_name}' has no attribute '{name}'")
        note = self._gs_note
        raise RefusedAttribute(f"'{self._gs_name}.{name}' is not available here{note}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise Refused(f"setting '{self._gs_name}.{name}' is not available here")

    def __delattr__(self, name: str) -> None:
        raise Refused(f"deleting '{self._gs_name}.{name}' is not available here")

    def __repr__(self) -> str:
        return f"<module '{self._gs_name}'>"

    def __dir__(self) -> list[str]:
        return sorted(k for k in vars(self) if not k.startswith("_"))

    def _gs_module_name(self) -> str:
        return self._gs_name

    def _gs_exports(self) -> list[str]:
        return self.__dir__()

    def _gs_items(self) -> Iterable[tuple[str, Any]]:
        return [(k, v) for k, v in vars(self).items() if not k.startswith("_")]

    def _gs_has(self, name: str) -> bool:
        """True if the module this stands for has `name` (offered or not)."""
        real = self._gs_real
        return name in vars(self) or (real is not None and hasattr(real, name))


policy.OPEN_TYPES.add(SafeModule)

# `type(math)` prints `<class 'module'>` in learner code, as it does in Python
SafeModule.__module__ = "builtins"
SafeModule.__name__ = SafeModule.__qualname__ = "module"


class SizedCall:
    """A function whose result size `estimate(*args, **kwargs)` is checked before it runs.

    What is checked is what runs: the size argument at `shape_at` (position, keyword) is
    first turned into plain ints, once, and the function gets those ints; a dtype argument
    at `dtype_at` with a subarray shape (``(float, (10**6,))``) multiplies the size.
    """

    __slots__ = ("fn", "estimate", "shape_at", "dtype_at")

    def __init__(
        self,
        fn: Callable[..., Any],
        estimate: Callable[..., int],
        shape_at: tuple[int, str] | None = None,
        dtype_at: tuple[int, str] | None = None,
    ) -> None:
        self.fn = fn
        self.estimate = estimate
        self.shape_at = shape_at
        self.dtype_at = dtype_at

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.shape_at is not None:
            args, kwargs = _replace_arg(args, kwargs, self.shape_at, limits.as_shape)
        try:
            n = self.estimate(*args, **kwargs)
        except Exception:
            n = 0  # bad arguments: let the function raise its own error
        if self.dtype_at is not None:
            n *= limits.dtype_elements(_arg(args, kwargs, *self.dtype_at))
        limits.check_elements(n)
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return repr(self.fn)


def _replace_arg(
    args: tuple, kwargs: dict, at: tuple[int, str], convert: Callable[[Any], Any]
) -> tuple[tuple, dict]:
    """`args`/`kwargs` with the argument at position/keyword `at` converted."""
    index, name = at
    if len(args) > index:
        args = (*args[:index], convert(args[index]), *args[index + 1 :])
    elif name in kwargs:
        kwargs = {**kwargs, name: convert(kwargs[name])}
    return args, kwargs


policy.CALLABLE_TYPES.add(SizedCall)


def _wrap(
    fn: Callable[..., Any],
    estimate: Callable[..., int],
    shape_at: tuple[int, str] | None = None,
    dtype_at: tuple[int, str] | None = None,
) -> SizedCall:
    """`fn` with the element count `estimate(*args, **kwargs)` checked before calling."""
    return SizedCall(fn, estimate, shape_at, dtype_at)


def _expose_all(exports: dict[str, Any]) -> dict[str, Any]:
    for value in exports.values():
        if callable(value):
            policy.expose(value)
    return exports


# --- math --------------------------------------------------------------------------


def _factorial_bits(n: int) -> float:
    return n * math.log2(n) if n > 1 else 1


def _math_exports() -> dict[str, Any]:
    names = [n for n in dir(math) if not n.startswith("_")]
    exports = {n: getattr(math, n) for n in names}

    def factorial(n: Any, /) -> int:
        if isinstance(n, int) and n > 0:
            limits.check_int_bits(_factorial_bits(n))
        return math.factorial(n)

    def comb(n: Any, k: Any, /) -> int:
        if isinstance(n, int) and n > 0:
            limits.check_int_bits(n)
        return math.comb(n, k)

    def perm(n: Any, k: Any = None, /) -> int:
        if isinstance(n, int) and n > 1:
            kk = n if k is None else k
            if isinstance(kk, int) and kk > 0:
                limits.check_int_bits(min(kk, n) * math.log2(n))
        return math.perm(n, k)

    def prod(iterable: Any, /, *, start: Any = 1) -> Any:
        result = start
        for item in iterable:
            result = guards.mul(result, item)
        return result

    for fn in (factorial, comb, perm, prod):
        fn.__doc__ = getattr(math, fn.__name__).__doc__
        exports[fn.__name__] = fn
    return _expose_all(exports)


# --- random ------------------------------------------------------------------------

_RANDOM_NAMES = (
    "random randint uniform gauss normalvariate lognormvariate expovariate betavariate "
    "gammavariate triangular vonmisesvariate paretovariate weibullvariate choice shuffle "
    "sample seed randrange"
).split()


def _random_exports() -> dict[str, Any]:
    exports = {n: getattr(random, n) for n in _RANDOM_NAMES}

    def getrandbits(k: int, /) -> int:
        limits.check_int_bits(k)
        return random.getrandbits(k)

    def choices(population: Any, weights: Any = None, *, cum_weights: Any = None, k: int = 1):
        limits.check_length(k)
        return random.choices(population, weights, cum_weights=cum_weights, k=k)

    getrandbits.__doc__ = random.getrandbits.__doc__
    choices.__doc__ = random.choices.__doc__
    exports["getrandbits"] = getrandbits
    exports["choices"] = choices
    return _expose_all(exports)


# --- numpy -------------------------------------------------------------------------

_NP_FUNCTIONS = """
asanyarray ascontiguousarray copy reshape ravel transpose swapaxes moveaxis squeeze
expand_dims concatenate stack vstack hstack dstack column_stack split array_split hsplit
vsplit flip fliplr flipud roll rot90 where clip sort argsort argmax argmin max min amax
amin maximum minimum fmax fmin sum prod mean average median std var cumsum cumprod diff
dot vdot matmul inner trace abs absolute fabs sign sqrt cbrt square exp expm1 exp2 log
log2 log10 log1p sin cos tan arcsin arccos arctan arctan2 sinh cosh tanh arcsinh arccosh
arctanh floor ceil round around rint trunc fix add subtract multiply divide true_divide
floor_divide power float_power mod remainder fmod negative positive reciprocal allclose
isclose array_equal array_equiv isnan isinf isfinite isneginf isposinf nan_to_num nansum
nanmean nanmax nanmin nanstd nanvar all any count_nonzero nonzero flatnonzero unique
argwhere shape size ndim atleast_1d atleast_2d atleast_3d broadcast_shapes deg2rad rad2deg
degrees radians hypot logical_and logical_or logical_not logical_xor equal not_equal less
greater less_equal greater_equal cross heaviside sinc percentile quantile interp
searchsorted triu tril take append insert delete ptp result_type promote_types can_cast
isscalar iscomplexobj isrealobj real imag conj conjugate angle gcd lcm
set_printoptions get_printoptions
""".split()

_NP_TYPES = """
dtype finfo iinfo ndarray generic number integer signedinteger unsignedinteger inexact
floating complexfloating bool_ bool float16 float32 float64 half single double longdouble
int8 int16 int32 int64 intp uint8 uint16 uint32 uint64 uintp complex64 complex128 errstate
""".split()

_NP_CONSTANTS = "pi e inf nan newaxis euler_gamma".split()

_NDARRAY_ATTRS = frozenset(
    """T all any argmax argmin argpartition argsort astype clip compress conj conjugate copy
    cumprod cumsum diagonal dot dtype fill flat flatten imag item itemsize max mean min mT
    nbytes ndim nonzero partition prod ptp put ravel real reshape round searchsorted shape
    size sort squeeze std strides sum swapaxes take tobytes tolist trace transpose var
    view""".split()
)

_LINALG_NAMES = """
norm inv det solve eig eigh eigvals eigvalsh svd qr matrix_rank pinv cholesky lstsq
matrix_power slogdet cond multi_dot LinAlgError
""".split()

#: numpy.random functions and the position of their `size` argument (-1: `*dims`).
_NP_RANDOM_SIZE = {
    "rand": -1,
    "randn": -1,
    "random": 0,
    "random_sample": 0,
    "ranf": 0,
    "sample": 0,
    "standard_normal": 0,
    "randint": 2,
    "normal": 2,
    "uniform": 2,
    "choice": 1,
    "exponential": 1,
    "poisson": 1,
    "binomial": 2,
    "beta": 2,
    "gamma": 2,
}
_GENERATOR_SIZE = {
    "random": 0,
    "standard_normal": 0,
    "integers": 2,
    "normal": 2,
    "uniform": 2,
    "choice": 1,
    "exponential": 1,
    "poisson": 1,
    "binomial": 2,
    "beta": 2,
    "gamma": 2,
}
_GENERATOR_ATTRS = frozenset([*_GENERATOR_SIZE, "permutation", "shuffle", "permuted"])


def _arg(args: tuple, kwargs: dict, index: int, name: str, default: Any = None) -> Any:
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)


def _size_at(index: int) -> Callable[..., int]:
    if index < 0:
        return lambda *args, **kwargs: limits.numel_of(args)
    return lambda *args, **kwargs: limits.numel_of(_arg(args, kwargs, index, "size"))


def _arange_count(*args: Any, **kwargs: Any) -> int:
    if len(args) == 1 and "stop" not in kwargs:
        start, stop, step = 0, args[0], kwargs.get("step", 1)
    else:
        start = _arg(args, kwargs, 0, "start", 0)
        stop = _arg(args, kwargs, 1, "stop")
        step = _arg(args, kwargs, 2, "step", 1)
    if stop is None or not step:
        return 0
    return max(math.ceil((float(stop) - float(start)) / float(step)), 0)


def _numpy_exports() -> dict[str, Any]:
    import numpy as np

    guards.set_ndarray_type(np.ndarray)
    size = np.size

    def numel(x: Any) -> int:
        if isinstance(x, range | list | tuple):
            return len(x)
        return int(size(x)) if isinstance(x, np.ndarray) else 1

    def like(*a: Any, **k: Any) -> int:
        shape = k.get("shape")
        return limits.numel_of(shape) if shape is not None else numel(a[0])

    exports: dict[str, Any] = {}
    for name in _NP_FUNCTIONS:
        if hasattr(np, name):
            exports[name] = getattr(np, name)
    for name in _NP_TYPES + _NP_CONSTANTS:
        if hasattr(np, name):
            exports[name] = getattr(np, name)
    exports["__version__"] = np.__version__

    shape0 = lambda *a, **k: limits.numel_of(_arg(a, k, 0, "shape"))  # noqa: E731
    first = lambda *a, **k: numel(a[0]) if a else 0  # noqa: E731
    # name -> (estimate, where the shape argument is, where the dtype argument is)
    sized: dict[str, tuple[Callable[..., int], Any, Any]] = {
        "zeros": (shape0, (0, "shape"), (1, "dtype")),
        "ones": (shape0, (0, "shape"), (1, "dtype")),
        "empty": (shape0, (0, "shape"), (1, "dtype")),
        "full": (shape0, (0, "shape"), (2, "dtype")),
        "eye": (
            lambda *a, **k: int(_arg(a, k, 0, "N")) * int(_arg(a, k, 1, "M") or _arg(a, k, 0, "N")),
            None,
            (3, "dtype"),
        ),
        "identity": (lambda *a, **k: int(_arg(a, k, 0, "n")) ** 2, None, (1, "dtype")),
        "tri": (
            lambda *a, **k: int(_arg(a, k, 0, "N")) * int(_arg(a, k, 1, "M") or _arg(a, k, 0, "N")),
            None,
            (3, "dtype"),
        ),
        "arange": (_arange_count, None, (99, "dtype")),
        "linspace": (lambda *a, **k: int(_arg(a, k, 2, "num", 50)), None, (5, "dtype")),
        "logspace": (lambda *a, **k: int(_arg(a, k, 2, "num", 50)), None, (5, "dtype")),
        "geomspace": (lambda *a, **k: int(_arg(a, k, 2, "num", 50)), None, (4, "dtype")),
        "tile": (
            lambda *a, **k: numel(np.asarray(a[0])) * limits.numel_of(_arg(a, k, 1, "reps")),
            (1, "reps"),
            None,
        ),
        "repeat": (
            lambda *a, **k: int(size(a[0])) * int(np.max(_arg(a, k, 1, "repeats"))),
            None,
            None,
        ),
        "kron": (lambda a, b: int(size(a)) * int(size(b)), None, None),
        "outer": (lambda a, b, *r, **k: int(size(a)) * int(size(b)), None, None),
        "meshgrid": (
            lambda *xs, **k: math.prod(int(size(x)) for x in xs) * max(len(xs), 1),
            None,
            None,
        ),
        "diag": (lambda v, *r, **k: int(size(v)) ** 2 if np.ndim(v) == 1 else 0, None, None),
        "diagflat": (lambda v, *r, **k: int(size(v)) ** 2, None, None),
        "resize": (lambda a, new_shape: limits.numel_of(new_shape), (1, "new_shape"), None),
        "broadcast_to": (
            lambda a, shape, *r, **k: limits.numel_of(shape),
            (1, "shape"),
            None,
        ),
        "broadcast_arrays": (
            lambda *xs, **k: limits.numel_of(np.broadcast_shapes(*(np.shape(x) for x in xs))),
            None,
            None,
        ),
        "array": (first, None, (1, "dtype")),
        "asarray": (first, None, (1, "dtype")),
        "asanyarray": (first, None, (1, "dtype")),
        "ascontiguousarray": (first, None, (1, "dtype")),
        "zeros_like": (like, None, (1, "dtype")),
        "ones_like": (like, None, (1, "dtype")),
        "empty_like": (like, None, (1, "dtype")),
        "full_like": (like, None, (2, "dtype")),
    }
    for name, (estimate, shape_at, dtype_at) in sized.items():
        exports[name] = _wrap(getattr(np, name), estimate, shape_at, dtype_at)
    exports["set_printoptions"] = _checked_printoptions(np.set_printoptions)
    for name, op in _OBJECT_OPS.items():
        if name in exports:
            exports[name] = ObjectChecked(exports[name], op)

    rnd = {}
    for name, pos in _NP_RANDOM_SIZE.items():
        shape_at = (pos, "size") if pos >= 0 else None
        rnd[name] = _wrap(getattr(np.random, name), _size_at(pos), shape_at)
    rnd["permutation"] = _wrap(np.random.permutation, lambda x: int(x) if isinstance(x, int) else 0)
    rnd["shuffle"] = np.random.shuffle
    rnd["seed"] = np.random.seed
    rnd["default_rng"] = np.random.default_rng
    exports["random"] = SafeModule("numpy.random", _expose_all(rnd), _NP_NOTE, np.random)
    linalg = {n: getattr(np.linalg, n) for n in _LINALG_NAMES if hasattr(np.linalg, n)}
    exports["linalg"] = SafeModule("numpy.linalg", _expose_all(linalg), _NP_NOTE, np.linalg)

    _register_numpy_types(np)
    # NumPy's array and scalar base classes are offered to name (isinstance, annotations),
    # not to call: `np.ndarray(shape, dtype=object, buffer=b'...')` reads raw bytes as
    # object pointers, and `np.ndarray(shape)` allocates without the size check.
    named_only = {name: exports.pop(name) for name in ("ndarray", "generic")}
    _expose_all(exports)
    exports.update(named_only)
    return exports


_NP_NOTE = " (gradshell offers NumPy's arrays, math, dtypes, linalg and random)"


def _register_numpy_types(np: Any) -> None:
    scalar_attrs = frozenset(n for n in _NDARRAY_ATTRS if hasattr(np.generic, n)) | {
        "is_integer",
        "as_integer_ratio",
    }
    policy.EXTRA_ATTRS.update(
        {
            np.ndarray: _NDARRAY_ATTRS,
            np.generic: scalar_attrs,
            np.dtype: frozenset(
                """name itemsize kind char str type shape ndim byteorder names fields descr
                base subdtype alignment isbuiltin isnative num hasobject""".split()
            ),
            np.finfo: frozenset(
                """bits eps epsneg max min tiny smallest_normal resolution precision dtype
                machep negep maxexp minexp iexp""".split()
            ),
            np.iinfo: frozenset({"bits", "max", "min", "dtype", "kind"}),
            np.ufunc: frozenset(
                {"reduce", "accumulate", "outer", "at", "reduceat", "nin", "nout", "nargs"}
                | {"ntypes", "types", "identity", "signature"}
            ),
            np.flatiter: frozenset({"index", "coords", "copy"}),
            np.random.Generator: _GENERATOR_ATTRS,
        }
    )
    policy.EXTRA_GETITEM.update({np.ndarray, np.flatiter})
    policy.EXTRA_SETITEM.update({np.ndarray, np.flatiter})
    policy.EXTRA_CONSTRUCTORS.update(
        t for name in _NP_TYPES if isinstance(t := getattr(np, name, None), type)
    )
    policy.EXTRA_CONSTRUCTORS.discard(np.ndarray)
    policy.EXTRA_CONSTRUCTORS.discard(np.generic)
    guards.CONTEXT_TYPES.add(np.errstate)
    for name, pos in _GENERATOR_SIZE.items():
        guards.register_replacement(
            np.random.Generator,
            name,
            lambda gen, _n=name, _p=pos: _wrap(getattr(gen, _n), _size_at(_p), (_p, "size")),
        )
    # `a.prod()` of an object array multiplies Python ints: their size is checked first.
    for name in ("prod", "cumprod"):
        guards.register_replacement(
            np.ndarray, name, lambda a, _n=name: ObjectChecked(getattr(a, _n), "prod", a)
        )
    # `a.astype(dtype)` allocates a.size elements of dtype, more with a subarray dtype.
    for tp in {np.ndarray, *(t for t in policy.EXTRA_CONSTRUCTORS if issubclass(t, np.generic))}:
        guards.register_replacement(
            tp,
            "astype",
            lambda a: _wrap(a.astype, lambda *r, **k: int(np.size(a)), None, (0, "dtype")),
        )
    policy.clear_caches()


# --- the table ---------------------------------------------------------------------


class ObjectChecked:
    """A NumPy function whose Python-int work on object arrays is size-checked first
    (`np.power(np.array([2], dtype=object), 10**7)`); its attributes are the function's."""

    __slots__ = ("fn", "op", "subject")

    def __init__(self, fn: Callable[..., Any], op: str, subject: Any = None) -> None:
        self.fn = fn
        self.op = op
        self.subject = subject  # the array of a bound method (`a.prod`)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.subject is not None:
            guards.check_object_arrays(self.op, self.subject)
        elif args:
            guards.check_object_arrays(self.op, args[0], args[1] if len(args) > 1 else None)
        return self.fn(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.fn, name)
        if name == "outer":
            return ObjectChecked(value, self.op)
        if name in ("reduce", "accumulate", "reduceat", "at"):
            # `np.multiply.reduce` multiplies them all; `np.power.reduce` is a power tower.
            return ObjectChecked(value, "prod" if self.op == "mul" and name != "at" else "none")
        return value

    def __repr__(self) -> str:
        return repr(self.fn)


policy.CALLABLE_TYPES.add(ObjectChecked)
policy.OPEN_TYPES.add(ObjectChecked)

#: NumPy functions that multiply Python ints when given object arrays.
_OBJECT_OPS = {
    "power": "pow",
    "float_power": "pow",
    "multiply": "mul",
    "prod": "prod",
    "cumprod": "prod",
    "nanprod": "prod",
}


def _checked_printoptions(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`set_printoptions` (NumPy's or torch's) with the precision limit checked first."""

    def set_printoptions(*args: Any, **kwargs: Any) -> Any:
        limits.check_print_precision(_arg(args, kwargs, 0, "precision"))
        return fn(*args, **kwargs)

    set_printoptions.__doc__ = fn.__doc__
    return policy.expose(set_printoptions)


def _stdlib(name: str) -> Callable[[], dict[str, Any]]:
    """The builder of a standard-library module's view (loaded when first imported)."""

    def build() -> dict[str, Any]:
        from gradshell.shell import safe_stdlib

        return _expose_all(safe_stdlib.BUILDERS[name]())

    return build


_BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "math": _math_exports,
    "random": _random_exports,
    "numpy": _numpy_exports,
}
for _name in STDLIB_MODULES:
    _BUILDERS[_name] = _stdlib(_name)
_CACHE: dict[str, SafeModule] = {}


def _note(name: str) -> str:
    if name == "numpy":
        return _NP_NOTE
    if name in STDLIB_MODULES:
        from gradshell.shell import safe_stdlib

        return safe_stdlib.NOTES.get(name, "")
    return ""


def safe_module(name: str) -> SafeModule:
    """The learner's view of module `name` ('math', 'random', 'numpy', 'os', ...)."""
    module = _CACHE.get(name)
    if module is None:
        import importlib

        real = importlib.import_module(name)
        module = _CACHE[name] = SafeModule(name, _BUILDERS[name](), _note(name), real)
    return module


def has_safe_module(name: str) -> bool:
    """True if `name` is a module this file offers."""
    return name in _BUILDERS
