"""Which PyTorch CPU kernel variant the generator reproduces (see the package docstring)."""

from __future__ import annotations

import os

#: ``"avx2"``: the x86-64 Linux wheel on a CPU with AVX2 and FMA (its AVX512 build runs the
#: same float kernels); ``"default"``: PyTorch's portable kernels, what runs under
#: ``ATEN_CPU_CAPABILITY=default`` or on an x86-64 CPU without AVX2.
CAPABILITIES = ("avx2", "default")
ENV_VAR = "GRADSHELL_RNG_CAPABILITY"

_capability = os.environ.get(ENV_VAR, "avx2").strip().lower() or "avx2"
if _capability not in CAPABILITIES:
    raise ValueError(f"{ENV_VAR} must be one of {', '.join(CAPABILITIES)}, got {_capability!r}")


def get_capability() -> str:
    """Return the kernel variant the samplers currently reproduce."""
    return _capability


def set_capability(name: str) -> None:
    """Select the kernel variant to reproduce: ``"avx2"`` (default) or ``"default"``."""
    global _capability
    name = str(name).strip().lower()
    if name not in CAPABILITIES:
        raise ValueError(f"capability must be one of {', '.join(CAPABILITIES)}, got {name!r}")
    _capability = name
