"""Packed sequences: packing a padded batch (PyTorch's PackPaddedSequenceBackward0 node),
padding it back, and the recurrent layers over packed data.

A packed batch keeps, for each time step t, only the batch_sizes[t] sequences still
running (sorted longest first), one step after another. PyTorch runs RNN/LSTM/GRU over
it with the composite cells only (never oneDNN): the hidden state shrinks (a forward
direction) or grows (the reverse one) by slicing as sequences end, and the graph shows
those SliceBackward0 and CatBackward0 nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from gradshell.core.autograd import Node, needs_grad, record
from gradshell.core.tensor import Tensor, wrap
from gradshell.ops import creation
from gradshell.ops.base import as_array
from gradshell.ops.nn import dropout, linear
from gradshell.ops.rnn import CELLS, Params
from gradshell.ops.shape import cat


def _runs(batch_sizes: Sequence[int]) -> list:
    """(first step, number of steps, batch size) of each run of equal batch sizes."""
    runs: list = []
    for t, bs in enumerate(batch_sizes):
        if runs and runs[-1][2] == bs:
            runs[-1][1] += 1
        else:
            runs.append([t, 1, bs])
    return runs


class PackPaddedSequenceBackward0(Node):
    """Each packed row's gradient goes back to its (step, sequence) place in the padded
    input; the padding gets zero."""

    no_explanation = "a rearrangement of rows whose layout depends on the sequence lengths"

    def backward(self, g):
        shape = self.input_shape
        steps_first = (shape[1], shape[0], *shape[2:]) if self.batch_first else shape
        grad = creation.zeros(steps_first, dtype=g.dtype)
        offset = 0
        for start, n, bs in _runs(self.batch_sizes):
            block = g[offset : offset + n * bs].view(n, bs, *g.shape[1:])
            grad[start : start + n, :bs] = block
            offset += n * bs
        return (grad.transpose(0, 1) if self.batch_first else grad,)


def batch_sizes_of(lengths: Sequence[int]) -> list:
    """How many sequences are still running at each step (lengths sorted decreasing)."""
    return [sum(1 for n in lengths if n > t) for t in range(max(lengths))]


def pack_padded(input: Tensor, lengths: Sequence[int], batch_first: bool) -> tuple:  # noqa: A002
    """(data, batch_sizes) of a padded (T, B, *) batch — (B, T, *) with batch_first —
    whose sequences, longest first, have `lengths`."""
    d = input._data
    padded = d.swapaxes(0, 1) if batch_first else d
    if len(lengths) != padded.shape[1]:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
            f"(batch_size={padded.shape[1]})"
        )
    if min(lengths) <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if any(a < b for a, b in zip(lengths, lengths[1:], strict=False)):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX "
            "exportability."
        )
    if max(lengths) > padded.shape[0]:
        # PyTorch reads past the input's end here; refuse instead of inventing rows.
        raise RuntimeError(
            f"gradshell: a sequence length ({max(lengths)}) exceeds the padded input's "
            f"{padded.shape[0]} time steps"
        )
    sizes = batch_sizes_of(lengths)
    rows = [padded[t, :bs] for t, bs in enumerate(sizes)]
    data = wrap(as_array(np.concatenate(rows, axis=0)), input._dtype)
    if needs_grad(input):
        node = PackPaddedSequenceBackward0()
        node.input_shape = tuple(d.shape)
        node.batch_sizes = sizes
        node.batch_first = batch_first
        record(node, (input,), data)
    return data, sizes


def pad_packed(
    data: Tensor, batch_sizes: Sequence[int], padding_value: float, total_length: int
) -> Tensor:
    """The (total_length, B, *) padded batch of packed `data` (steps first); each run of
    steps with the same batch size is one copy, as PyTorch copies it."""
    shape = (total_length, batch_sizes[0], *data.shape[1:])
    out = creation.full(shape, padding_value, dtype=data.dtype)
    offset = 0
    for start, n, bs in _runs(batch_sizes):
        # narrow, as PyTorch's kernel does: a view even when it spans the whole tensor
        # (indexing would skip a full slice), so the result records CopySlices
        block = data[offset : offset + n * bs].view(n, bs, *data.shape[1:])
        out.narrow(0, start, n).narrow(1, 0, bs).copy_(block)
        offset += n * bs
    return out


# -- recurrent layers over packed data -----------------------------------------------------
def _narrow(hidden, start: int, length: int, lstm: bool):
    if lstm:
        return tuple(h[start : start + length] for h in hidden)
    return hidden[start : start + length]


def _join(parts: list, lstm: bool):
    if lstm:
        return tuple(cat([p[k] for p in parts], 0) for k in range(2))
    return cat(parts, 0)


def _forward_direction(steps_w, hidden, sizes, p: Params, cell: Callable, lstm: bool) -> tuple:
    outs = []
    ended = []  # the states of sequences that ended, latest first once reversed
    last = sizes[0]
    for x, bs in zip(steps_w, sizes, strict=True):
        if bs < last:
            ended.append(_narrow(hidden, bs, last - bs, lstm))
            hidden = _narrow(hidden, 0, bs, lstm)
        last = bs
        hidden = cell(x, hidden, p, True)
        outs.append(hidden[0] if lstm else hidden)
    final = _join([hidden, *reversed(ended)], lstm)
    return cat(outs, 0), final


def _reverse_direction(steps_w, first, sizes, p: Params, cell: Callable, lstm: bool) -> tuple:
    outs: list = [None] * len(sizes)
    last = sizes[-1]
    hidden = _narrow(first, 0, last, lstm)
    for t in range(len(sizes) - 1, -1, -1):
        bs = sizes[t]
        if bs > last:
            hidden = _join([hidden, _narrow(first, last, bs - last, lstm)], lstm)
        last = bs
        hidden = cell(steps_w[t], hidden, p, True)
        outs[t] = hidden[0] if lstm else hidden
    return cat(outs, 0), hidden


def packed(
    mode: str,
    data: Tensor,
    batch_sizes: Sequence[int],
    hidden: Sequence,
    params: Sequence[Params],
    num_layers: int,
    p_drop: float,
    train: bool,
    bidirectional: bool,
) -> tuple:
    """A stacked (maybe bidirectional) recurrent layer over packed `data` from the first
    hidden state of each layer-direction. Returns the packed output data and the final
    hidden state of every layer-direction, in order."""
    cell = CELLS[mode]
    lstm = mode == "LSTM"
    dirs = 2 if bidirectional else 1
    finals = []
    x = data
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            xw = linear(x, params[k][0], params[k][2])
            steps_w, offset = [], 0
            for bs in batch_sizes:
                steps_w.append(xw[offset : offset + bs])
                offset += bs
            run = _reverse_direction if d == 1 else _forward_direction
            out, last = run(steps_w, hidden[k], batch_sizes, params[k], cell, lstm)
            outs.append(out)
            finals.append(last)
        x = cat(outs, outs[0].dim() - 1) if dirs == 2 else outs[0]
        if p_drop != 0 and train and layer < num_layers - 1:
            x = dropout(x, p_drop, True)
    return x, finals
