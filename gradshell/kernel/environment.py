"""The environment a sandboxed kernel starts with: an allow-list, never the host's whole.

The front end's environment holds whatever the learner's shell or the hub put there
(tokens, keys, proxies, `LD_PRELOAD`, `PYTHONPATH`). The kernel gets only what it needs to
compute and print as the learner expects: the locale and time zone, gradshell's own
settings, the numeric libraries' thread and CPU settings, and for a GPU the device
selection and library path. Python's own variables never pass (the kernel also starts in
isolated mode, which ignores them).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

#: Variables passed through by exact name.
PASSED_NAMES = frozenset({"LANG", "LANGUAGE", "TZ", "TERM", "KMP_DUPLICATE_LIB_OK"})

#: Variables passed through by prefix: the locale, gradshell's settings, and the numeric
#: libraries' (OpenBLAS's core type on processors older builds misjudge, thread counts,
#: NumPy's CPU feature switches).
PASSED_PREFIXES = ("LC_", "GRADSHELL_", "OPENBLAS_", "OMP_", "MKL_", "NPY_")

#: What a GPU kernel also needs to find and pick its device.
GPU_NAMES = frozenset({"CUDA_VISIBLE_DEVICES", "CUDA_PATH", "CUDA_HOME", "LD_LIBRARY_PATH"})
GPU_PREFIXES = ("CUPY_",)

#: A search path for libraries that look programs up (the kernel cannot start any).
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


def kernel_environment(
    host: Mapping[str, str], *, temp_dir: Path, home: Path, gpu: bool = False
) -> dict[str, str]:
    """The kernel's environment, built from `host`'s allowed variables.

    `TMPDIR` is the kernel's private temporary folder and `HOME` its workspace, so a
    library that writes a cache or a settings file under `~` writes where learner code
    may, not in the learner's real home."""
    names = PASSED_NAMES | (GPU_NAMES if gpu else frozenset())
    prefixes = PASSED_PREFIXES + (GPU_PREFIXES if gpu else ())
    env = {
        name: value for name, value in host.items() if name in names or name.startswith(prefixes)
    }
    env.update(PATH=SAFE_PATH, TMPDIR=str(temp_dir), HOME=str(home))
    return env


__all__ = ["kernel_environment"]
