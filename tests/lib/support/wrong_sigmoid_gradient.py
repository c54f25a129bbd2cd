"""A pytest plugin that makes gradshell's sigmoid gradient 1% off (`-p
support.wrong_sigmoid_gradient`): the oracle's own test loads it in a run without PyTorch
to show that the recorded answers catch a wrong backward."""

from __future__ import annotations

from gradshell import torch as gtorch

#: how far off the gradient is made (relative)
FACTOR = 1.01


def _wrong(backward):
    def off_by_one_percent(self, *grads):
        return tuple(None if g is None else g * FACTOR for g in backward(self, *grads))

    return off_by_one_percent


def pytest_configure(config) -> None:
    """Patch the node sigmoid records (found through a graph, wherever it is defined)."""
    node = type(gtorch.sigmoid(gtorch.ones(1, requires_grad=True)).grad_fn)
    assert node.__name__ == "SigmoidBackward0", node
    assert "backward" in vars(node), f"{node} computes its gradient elsewhere now"
    node.backward = _wrong(node.backward)
