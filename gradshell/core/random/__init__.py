"""gradshell's random number generator: PyTorch 2.13's CPU generator, bit for bit, on NumPy.

``Generator`` reproduces ``torch.Generator`` (and ``default_generator`` the global one behind
``torch.manual_seed``/``torch.rand``/...): the same MT19937 stream, the same 5,056-byte state
(``get_state()`` equals ``torch.get_rng_state().numpy().tobytes()``), and the same sampling
algorithms, so every sampler returns exactly PyTorch's values and leaves the stream exactly
where PyTorch leaves it.  This package is pure NumPy and imports nothing else from
gradshell; the torch layer wraps it (see ``Generator``'s docstrings for which method backs
which torch function).

Memory order
    Samplers return C-contiguous arrays; PyTorch writes its samples in the *memory* order
    of the target tensor.  To fill a non-contiguous tensor (``x.t().normal_()``), draw
    ``numel`` samples and store them in memory order, and pass ``contiguous=False`` to
    ``normal``/``randn``: PyTorch uses a different algorithm for non-contiguous targets.

Platform variants
    Bit-exactness of the float kernels depends on the machine PyTorch runs on.  Two variants
    are reproduced; choose with the environment variable ``GRADSHELL_RNG_CAPABILITY``
    (read at import) or ``set_capability()``:

    ``"avx2"`` (default)
        The x86-64 Linux wheel on a CPU with AVX2 and FMA (AVX512 CPUs run the same float
        kernels): ``uniform_`` and the serial normal path use fused multiply-adds, and the
        float32 normal fill path is the AVX2 Cephes ``log``/``sincos`` code.
    ``"default"``
        PyTorch's portable kernels, as run under ``ATEN_CPU_CAPABILITY=default`` and on
        x86-64 CPUs without AVX2: unfused ``uniform_``/serial normal, and a float32 fill path
        built on the C library's ``logf``/``cosf``/``sinf`` (called through ctypes, per
        element, so it is slow).

    In both variants the float64 normal paths use the C library's ``log``/``log1p``/
    ``sin``/``cos`` of the running process, which is what PyTorch uses in the same process.
    On a platform whose libm is not glibc (macOS, Windows) or whose PyTorch build was made
    by another compiler, PyTorch's own float outputs differ from the Linux wheel's; the
    samples here are still correct draws from the requested distribution, and integer,
    permutation, Bernoulli and uniform [0, 1) draws stay exact everywhere.

Threads
    Large draws of the float kernels run their independent chunks on a few worker threads
    (NumPy releases the GIL); results never depend on the thread count.  Set the count with
    ``GRADSHELL_RNG_THREADS`` (read at import) or ``set_threads()``; the default, 1, keeps
    everything on the calling thread.  A ``Generator`` itself is not thread-safe: guard it
    with a lock if several threads draw from it.

Unsupported
    bfloat16 and complex dtypes (NumPy has no bfloat16); the ``randperm`` path for
    ``n >= 214,748,364`` is exact but runs one element at a time in Python.
"""

from ._config import CAPABILITIES, ENV_VAR, get_capability, set_capability
from ._engine import STATE_SIZE
from ._generator import DEFAULT_SEED, Generator, default_generator
from ._parallel import THREADS_ENV_VAR, get_threads, set_threads

__all__ = [
    "CAPABILITIES",
    "DEFAULT_SEED",
    "ENV_VAR",
    "STATE_SIZE",
    "THREADS_ENV_VAR",
    "Generator",
    "default_generator",
    "get_capability",
    "get_threads",
    "set_capability",
    "set_threads",
]
