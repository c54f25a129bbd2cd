"""The kernel's environment is an allow-list of the host's."""

from __future__ import annotations

from pathlib import Path

from gradshell.kernel.environment import kernel_environment

HOST = {
    "AWS_SECRET_ACCESS_KEY": "k",
    "GITHUB_TOKEN": "t",
    "LD_PRELOAD": "/x.so",
    "PYTHONPATH": "/planted",
    "PYTHONSTARTUP": "/s.py",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TZ": "UTC",
    "GRADSHELL_HIDE_TORCH": "1",
    "OPENBLAS_CORETYPE": "Haswell",
    "NPY_DISABLE_CPU_FEATURES": "AVX512F",
    "CUDA_VISIBLE_DEVICES": "0",
    "PATH": "/home/me/bin:/usr/bin",
    "HOME": "/home/me",
}


def test_only_allowed_variables_pass():
    env = kernel_environment(HOST, temp_dir=Path("/tmp/k"), home=Path("/w"))
    assert env == {
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "GRADSHELL_HIDE_TORCH": "1",
        "OPENBLAS_CORETYPE": "Haswell",
        "NPY_DISABLE_CPU_FEATURES": "AVX512F",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "TMPDIR": "/tmp/k",
        "HOME": "/w",
    }


def test_a_gpu_kernel_also_gets_its_device_settings():
    env = kernel_environment(HOST, temp_dir=Path("/tmp/k"), home=Path("/w"), gpu=True)
    assert env["CUDA_VISIBLE_DEVICES"] == "0"
    assert "LD_PRELOAD" not in env and "PYTHONPATH" not in env
