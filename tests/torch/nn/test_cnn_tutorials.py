"""Convolutional-network tutorials run as a learner runs them (`gradshell FILE`, through
the shell session) and compared with what PyTorch 2.13 prints: recorded next to each
program (NAME.expected.txt), and live when PyTorch is installed.

* lenet.py: the official "Neural Networks" tutorial (LeNet: conv1, pool, conv2, pool, three
  Linear layers, MSELoss, a manual update and SGD steps).
* mnist_example.py: pytorch/examples' MNIST Net (two convolutions, max pooling, dropout,
  log_softmax, nll_loss) trained with Adadelta and StepLR, on a seeded random batch.
* d2l_cnn.py: Dive into Deep Learning's convolution chapters (corr2d by hand, learning a
  kernel, padding and stride, pooling, LeNet with batch normalization).

Known difference: in lenet.py the full-precision `loss.item()` of the third SGD step
differs in its last digits (PyTorch's convolution adds in another order); the comparison
allows a relative 1e-6 on numbers printed with all their digits, and requires everything
else to be byte-for-byte identical.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.tutorials import normalise, run_in_gradshell, run_in_pytorch

PROGRAMS = Path(__file__).parent / "programs"
PROGRAM = PROGRAMS / "lenet.py"
NAMES = ["lenet", "mnist_example", "d2l_cnn"]
_FULL_FLOAT = re.compile(r"-?\d+\.\d{10,}")


def _same(expected: str, got: str) -> None:
    """Line by line: equal, or equal once full-precision floats agree to 1e-6."""
    exp_lines, got_lines = expected.splitlines(), got.splitlines()
    assert len(exp_lines) == len(got_lines), got
    for e, g in zip(exp_lines, got_lines, strict=True):
        if e == g:
            continue
        assert _FULL_FLOAT.sub("F", e) == _FULL_FLOAT.sub("F", g), (e, g)
        for a, b in zip(_FULL_FLOAT.findall(e), _FULL_FLOAT.findall(g), strict=True):
            assert float(a) == pytest.approx(float(b), rel=1e-6), (e, g)


@pytest.mark.parametrize("name", NAMES)
def test_prints_what_pytorch_recorded(name: str) -> None:
    expected = (PROGRAMS / f"{name}.expected.txt").read_text(encoding="utf-8")
    _same(expected, run_in_gradshell(PROGRAMS / f"{name}.py"))


@pytest.mark.parametrize("name", NAMES)
def test_prints_what_pytorch_prints(real_torch, name: str) -> None:
    program = PROGRAMS / f"{name}.py"
    _same(run_in_pytorch(program), run_in_gradshell(program))


def test_lenet_structure_lines_are_exact() -> None:
    out = run_in_gradshell(PROGRAM)
    assert "  (conv1): Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))" in out
    assert "torch.Size([6, 1, 5, 5])\n61706\n" in out
    assert normalise("<MseLossBackward0 object at 0x1>") in out
