"""Random numbers with PyTorch's names, drawn from gradshell's PyTorch-exact CPU generator
(`gradshell.core.random`), so `torch.manual_seed(0); torch.randn(3)` prints what PyTorch
prints. On CUDA devices the numbers come from CuPy's own generator (not PyTorch's Philox
stream), so they differ from PyTorch's CUDA numbers.
"""

from __future__ import annotations

import contextlib

import numpy as np

from gradshell.core import dtypes
from gradshell.core.device import array_module, device_of
from gradshell.core.random import Generator as _CoreGenerator
from gradshell.core.random import default_generator as _default_core
from gradshell.core.tensor import Tensor, wrap
from gradshell.ops.creation import _finish, backend_for, size_args
from gradshell.ops.inplace import check_inplace

__all__ = [
    "Generator",
    "default_generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "fork_rng",
    "rand",
    "rand_like",
    "randn",
    "randn_like",
    "randint",
    "randint_like",
    "randperm",
    "normal",
    "bernoulli",
    "multinomial",
]


class Generator:
    """torch.Generator: an independent random stream (`generator=` arguments take one)."""

    __module__ = "torch._C"

    def __init__(self, device="cpu", *, _core: _CoreGenerator | None = None) -> None:
        dev = device if isinstance(device, str) else str(device)
        if not dev.startswith("cpu"):
            raise NotImplementedError(
                "gradshell: CUDA generators are not supported (CUDA random numbers come from "
                "CuPy's generator)"
            )
        self._core = _core if _core is not None else _CoreGenerator()

    @property
    def device(self):
        """Always the CPU."""
        from gradshell.core.device import Device

        return Device("cpu")

    def manual_seed(self, seed: int) -> Generator:
        """Seed this generator; returns it."""
        self._core.manual_seed(seed.item() if isinstance(seed, Tensor) else seed)
        return self

    def seed(self) -> int:
        """Seed from the operating system's randomness and return the seed."""
        return self._core.seed()

    def initial_seed(self) -> int:
        """The seed last set."""
        return self._core.initial_seed()

    def get_state(self) -> Tensor:
        """The state as a 5,056-element uint8 tensor (PyTorch's layout)."""
        return wrap(np.frombuffer(self._core.get_state(), dtype=np.uint8).copy(), dtypes.uint8)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state from get_state (PyTorch's state tensors work too)."""
        if not isinstance(new_state, Tensor) or new_state._dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        self._core.set_state(np.ascontiguousarray(new_state.numpy()).tobytes())
        return self

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {hex(id(self))}>"


def _as_seed(seed) -> int:
    # torch.manual_seed(s) takes int(s) first (so 1.5 seeds as 1); Generator.manual_seed
    # does not, and the core generator gives PyTorch's error for a float there.
    if isinstance(seed, Tensor):
        seed = seed.item()
    return int(seed) if isinstance(seed, float) else seed


default_generator = Generator(_core=_default_core)


def _gen(generator: Generator | None) -> _CoreGenerator:
    if generator is None:
        return _default_core
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a torch.Generator, not {type(generator).__name__}")
    return generator._core


def manual_seed(seed) -> Generator:
    """Seed the default generator (and CuPy's, when a GPU is in use); returns it."""
    default_generator.manual_seed(_as_seed(seed))
    from gradshell.torch import cuda

    cuda.manual_seed_all(_as_seed(seed) & 0xFFFFFFFF)
    return default_generator


def seed() -> int:
    """Seed the default generator non-deterministically and return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (a uint8 tensor of 5,056 bytes)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(
    devices=None,
    enabled: bool = True,
    _caller="fork_rng",
    _devices_kw="devices",
    device_type: str = "cuda",
):
    """Run a block with the random state saved before and restored after it."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


# -- drawing into tensors ----------------------------------------------------------------------
def _float(dtype) -> dtypes.DType:
    return dtypes.get_default_dtype() if dtype is None else dtype


def _place(data: np.ndarray, device) -> np.ndarray:
    xp = backend_for(device)
    return data if xp is np else xp.asarray(data)


def _draw(dt: dtypes.DType, device, requires_grad: bool, host_draw, device_draw) -> Tensor:
    """A new tensor of samples: `host_draw()` from the PyTorch-exact CPU generator, or
    `device_draw(cupy.random)` when the tensor goes to a CUDA device."""
    from gradshell.ops.random_source import refuse_bfloat16

    refuse_bfloat16(dt)
    xp = backend_for(device)
    data = host_draw() if xp is np else device_draw(xp.random)
    return _finish(data.astype(dt.np, copy=False), dt, requires_grad, device)


def rand(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Uniform samples in [0, 1)."""
    shape = size_args(size, "rand")
    dt = _float(dtype)
    return _draw(
        dt,
        device,
        requires_grad,
        lambda: _gen(generator).rand(shape, dt.np),
        lambda cr: cr.random(shape),
    )


def randn(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Standard normal samples."""
    shape = size_args(size, "randn")
    dt = _float(dtype)
    return _draw(
        dt,
        device,
        requires_grad,
        lambda: _gen(generator).randn(shape, dt.np),
        lambda cr: cr.standard_normal(shape),
    )


def _like(t: Tensor, dtype, device):
    return (t._dtype if dtype is None else dtype), (t.device if device is None else device)


def _sampler_like(sampler, name: str):
    """`name`: `sampler` with the shape (and by default the dtype and device) of `input`."""

    def like(
        input: Tensor,  # noqa: A002
        *,
        dtype=None,
        layout=None,
        device=None,
        requires_grad: bool = False,
        memory_format=None,
        generator=None,
    ) -> Tensor:
        dt, dev = _like(input, dtype, device)
        return sampler(
            input._data.shape,
            generator=generator,
            dtype=dt,
            device=dev,
            requires_grad=requires_grad,
        )

    like.__name__ = like.__qualname__ = name
    like.__doc__ = f"{sampler.__name__} with `input`'s shape, dtype and device."
    return like


rand_like = _sampler_like(rand, "rand_like")
randn_like = _sampler_like(randn, "randn_like")


def randint(
    *args,
    size=None,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Integers drawn uniformly from [low, high): randint(high, size) or randint(low, high, size)."""
    args = list(args)
    if size is None:
        if not args:
            raise TypeError("randint() missing required argument 'size'")
        size = args.pop()
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError(
            "randint() received an invalid combination of arguments - expected (int high, "
            "tuple of ints size) or (int low, int high, tuple of ints size)"
        )
    shape = size_args((size,), "randint")
    dt = dtypes.int64 if dtype is None else dtype
    if not low < high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    return _draw(
        dt,
        device,
        requires_grad,
        lambda: _gen(generator).randint(shape, int(low), int(high), dt.np),
        lambda cr: cr.randint(low, high, shape),
    )


def randint_like(
    input: Tensor,
    low=0,
    high=None,
    *,
    dtype=None,
    layout=None,  # noqa: A002
    device=None,
    requires_grad: bool = False,
    memory_format=None,
    generator=None,
) -> Tensor:
    """randint with `input`'s shape, dtype and device (randint_like(x, high) or (x, low, high))."""
    if high is None:
        low, high = 0, low
    dt, dev = _like(input, dtype, device)
    return randint(
        low,
        high,
        input._data.shape,
        generator=generator,
        dtype=dt,
        device=dev,
        requires_grad=requires_grad,
    )


def randperm(
    n: int,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A random permutation of 0..n-1."""
    dt = dtypes.int64 if dtype is None else dtype
    return _draw(
        dt,
        device,
        requires_grad,
        lambda: _gen(generator).randperm(n, dt.np),
        lambda cr: cr.permutation(n),
    )


def normal(
    mean=0.0,
    std=1.0,
    size=None,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """Normal samples: normal(mean, std, size) for numbers, or elementwise for tensors."""
    g = _gen(generator)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None:
            raise TypeError(
                "normal() received an invalid combination of arguments - size is only allowed "
                "with float mean and std"
            )
        m = mean.numpy(force=True) if isinstance(mean, Tensor) else float(mean)
        s = std.numpy(force=True) if isinstance(std, Tensor) else float(std)
        like = mean if isinstance(mean, Tensor) else std
        data = g.normal_tensor(m, s)
        dt = dtypes.from_numpy(data.dtype)
        return _finish(
            _place(data, device or like.device), dt, requires_grad, device or like.device
        )
    if size is None:
        raise TypeError(
            "normal() received an invalid combination of arguments - got (float, float), but "
            "expected (float mean, float std, tuple of ints size)"
        )
    shape = size_args((size,), "normal")
    dt = _float(dtype)
    data = g.normal(shape, float(mean), float(std), dt.np)
    return _finish(_place(data, device), dt, requires_grad, device)


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:  # noqa: A002
    """0/1 samples with probabilities `input` (or a fixed `p`), in input's dtype."""
    g = _gen(generator)
    host = input.numpy(force=True)
    if p is None:
        data = g.bernoulli(host)
    else:
        data = g.bernoulli_(host.shape, float(p), host.dtype)
    return wrap(_place(data, input.device), input._dtype)


def multinomial(
    input: Tensor,
    num_samples: int,
    replacement: bool = False,
    *,  # noqa: A002
    generator=None,
    out=None,
) -> Tensor:
    """Category indices drawn with the (unnormalised) probabilities in `input`'s rows."""
    data = _gen(generator).multinomial(input.numpy(force=True), num_samples, replacement)
    return wrap(_place(data, input.device), dtypes.int64)


# -- in-place fills (Tensor methods) -----------------------------------------------------------
def _fill(t: Tensor, samples: np.ndarray) -> Tensor:
    """Write host `samples` into `t` in memory order, as PyTorch's kernels do."""
    check_inplace(t)
    data = t._data
    xp = array_module(data)
    if samples.shape != data.shape:
        samples = samples.reshape(data.shape)
    if t.is_contiguous():
        data[...] = samples if xp is np else xp.asarray(samples)
    else:
        # logical element e receives the sample drawn at its position in memory order
        placed = samples.reshape(-1)[_memory_order(data.shape, t.stride())].reshape(data.shape)
        data[...] = placed if xp is np else xp.asarray(placed)
    t._bump_version()
    return t


def _memory_order(shape: tuple, strides: tuple) -> np.ndarray:
    """For each element in logical order, its rank in memory order."""
    offsets = np.zeros(shape, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(shape, strides, strict=True)):
        idx = np.arange(n, dtype=np.int64) * s
        offsets = offsets + idx.reshape((1,) * axis + (n,) + (1,) * (len(shape) - axis - 1))
    ranks = np.empty(offsets.size, dtype=np.int64)
    ranks[np.argsort(offsets.reshape(-1), kind="stable")] = np.arange(offsets.size)
    return ranks


def _on_device(t: Tensor) -> bool:
    return device_of(t._data).type != "cpu"


def _normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fill with normal samples."""
    if _on_device(self):
        xp = array_module(self._data)
        return _fill_device(self, xp.random.normal(mean, std, self._data.shape))
    data = _gen(generator).normal(
        self._data.shape, mean, std, self._dtype.np, contiguous=self.is_contiguous()
    )
    return _fill(self, data)


def _uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None, **kw) -> Tensor:
    """Fill with uniform samples from [a, b)."""
    a = kw.pop("from", a)
    b = kw.pop("to", b)
    if _on_device(self):
        xp = array_module(self._data)
        return _fill_device(self, xp.random.uniform(a, b, self._data.shape))
    return _fill(self, _gen(generator).uniform(self._data.shape, a, b, self._dtype.np))


def _bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill with 0/1 samples that are 1 with probability p (a number or a tensor)."""
    pp = p.numpy(force=True) if isinstance(p, Tensor) else float(p)
    return _fill(self, _gen(generator).bernoulli_(self._data.shape, pp, self._dtype.np))


def _random_(self: Tensor, from_=None, to=None, *, generator=None) -> Tensor:
    """Fill with integers: random_(), random_(to) or random_(from, to)."""
    if from_ is not None and to is None:
        from_, to = None, from_
    data = _gen(generator).random_(self._data.shape, self._dtype.np, from_, to)
    return _fill(self, data)


def _exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fill with exponential samples."""
    return _fill(self, _gen(generator).exponential(self._data.shape, lambd, self._dtype.np))


def _fill_device(t: Tensor, data) -> Tensor:
    check_inplace(t)
    t._data[...] = data.astype(t._dtype.np)
    t._bump_version()
    return t


def _bernoulli_method(self: Tensor, p=None, *, generator=None) -> Tensor:
    """Returns a tensor of 0s and 1s drawn from Bernoulli distributions whose
    probabilities are this tensor's elements (or `p`)."""
    return bernoulli(self, p, generator=generator)


def _multinomial_method(
    self: Tensor, num_samples: int, replacement: bool = False, *, generator=None
) -> Tensor:
    """Returns num_samples indices drawn from the multinomial distribution whose weights
    are this tensor's rows."""
    return multinomial(self, num_samples, replacement, generator=generator)


Tensor.normal_ = _normal_
Tensor.uniform_ = _uniform_
Tensor.bernoulli_ = _bernoulli_
Tensor.random_ = _random_
Tensor.exponential_ = _exponential_
Tensor.bernoulli = _bernoulli_method
Tensor.multinomial = _multinomial_method
