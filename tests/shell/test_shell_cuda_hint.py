"""The hint after a CUDA error says which is missing: CuPy, or a GPU for it."""

from __future__ import annotations

import re
import sys
import types

import pytest

from gradshell.core import backends


@pytest.fixture
def fresh():
    backends.reset_cuda_backend()
    yield
    backends.reset_cuda_backend()


def _fake_cupy(count: int | None):
    cupy = types.ModuleType("cupy")

    def get_device_count():
        if count is None:
            raise RuntimeError("cudaErrorInsufficientDriver")
        return count

    cupy.cuda = types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=get_device_count)
    )
    return cupy


def test_without_cupy_the_hint_says_cupy(fresh, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy fails
    assert backends.cuda_hint() == backends.NO_CUPY_HINT
    assert "not installed" in backends.NO_CUPY_HINT


@pytest.mark.parametrize("count", [0, None])
def test_with_cupy_but_no_gpu_the_hint_says_gpu(fresh, monkeypatch, count):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(count))
    hint = backends.cuda_hint()
    assert hint == backends.NO_GPU_HINT
    assert "CuPy is installed" in hint and "start the shell with CuPy" not in hint


def test_the_hint_in_a_terminal(tmp_path):
    pytest.importorskip("pexpect")
    if backends.cuda_available():
        pytest.skip("this machine has CuPy and a GPU")
    from support.terminal import Terminal

    prompt = re.compile(r">>>\s*$")
    t = Terminal(tmp_path / "data")
    try:
        t.read_until(prompt)
        t.type("import torch", prompt)
        screen = t.type("torch.ones(2, device='cuda')", prompt)
        assert "Torch not compiled with CUDA enabled" in screen
        try:
            import cupy  # noqa: F401
        except ImportError:
            assert "CuPy, which is not installed" in screen
        else:
            assert "CuPy is installed, but it finds no NVIDIA GPU" in screen
    finally:
        t.kill()
