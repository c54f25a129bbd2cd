"""torch.nn.utils.rnn: padding variable-length sequences into one tensor (`pad_sequence`)
and back (`unpad_sequence`), and packing them step by step (`PackedSequence`,
`pack_padded_sequence`, `pad_packed_sequence`, `pack_sequence`, `unpack_sequence`), which
RNN, LSTM and GRU accept."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gradshell.core import dtypes
from gradshell.core.tensor import Tensor
from gradshell.ops import creation, rnn_packed
from gradshell.ops.base import broadcast_error


def pad_sequence(
    sequences,
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of shape (L_i, *) into (max L, B, *) — (B, max L, *) with
    batch_first — filling the missing steps with `padding_value`, on the right (or the
    left with padding_side='left')."""
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    batch = len(sequences)
    shape = (batch, max_len, *trailing) if batch_first else (max_len, batch, *trailing)
    out = creation.full(shape, padding_value, dtype=sequences[0].dtype)
    for i, seq in enumerate(sequences):
        n = seq.size(0)
        start = max_len - n if padding_side == "left" else 0
        steps = slice(start, start + n)
        _check_fits((n, *trailing), tuple(seq.shape))
        # Each copy records PyTorch's CopySlices, one per sequence.
        if batch_first:
            out[i, steps] = seq
        else:
            out[steps, i] = seq
    return out


def _check_fits(dst: tuple, src: tuple) -> None:
    # PyTorch copies each sequence into its slot; shapes that do not broadcast fail there.
    try:
        np.broadcast_shapes(dst, src)
    except ValueError:
        raise broadcast_error(dst, src) from None


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """The list of sequences `pad_sequence` padded, cut back to their `lengths` (a
    tensor). As in PyTorch, a time-first input is transposed in place (transpose_)."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    steps = creation.arange(padded_sequences.shape[1])
    return [seq[steps < n] for seq, n in zip(padded_sequences, lengths, strict=False)]


class _Fields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_Fields):
    """A batch of variable-length sequences packed step by step: `data` holds, for each
    step, the rows of the sequences still running (longest first); `batch_sizes` how
    many there are per step; `sorted_indices`/`unsorted_indices` the batch's order."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # the old form: PackedSequence((data, batch_sizes))
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """The same packing with `data` converted (the indices stay int64)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def double(self) -> PackedSequence:
        """`data` as float64."""
        return self.to(dtype=dtypes.float64)

    def float(self) -> PackedSequence:  # noqa: A003 - PyTorch's name
        """`data` as float32."""
        return self.to(dtype=dtypes.float32)

    def cpu(self) -> PackedSequence:
        """On the CPU (where it is)."""
        return self.to(device="cpu")

    @property
    def is_cuda(self) -> bool:
        """Whether `data` is on a GPU."""
        return self.data.is_cuda


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    order = np.asarray(permutation.numpy()).astype(np.int64)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return creation.tensor(inverse.tolist(), dtype=dtypes.int64)


def _int_list(values) -> list:
    if isinstance(values, Tensor):
        return [int(v) for v in np.asarray(values.numpy()).reshape(-1)]
    return [int(v) for v in values]


def pack_padded_sequence(
    input: Tensor,  # noqa: A002 - PyTorch's name
    lengths,
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded (T, B, *) batch — (B, T, *) with batch_first — of sequences with
    `lengths` (sorted longest first, unless enforce_sorted=False: then sorted here)."""
    lens = _int_list(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-np.asarray(lens, dtype=np.int64), kind="stable")
        sorted_indices = creation.tensor(order.tolist(), dtype=dtypes.int64)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
        lens = [lens[i] for i in order]
    data, sizes = rnn_packed.pack_padded(input, lens, batch_first)
    batch_sizes = creation.tensor(sizes, dtype=dtypes.int64)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple:
    """(padded batch, lengths): the inverse of pack_padded_sequence, padded with
    `padding_value` to the longest sequence (or to `total_length` steps)."""
    sizes = _int_list(sequence.batch_sizes)
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = total_length
    padded = rnn_packed.pad_packed(sequence.data, sizes, padding_value, steps)
    if batch_first:
        padded = padded.transpose(0, 1)
    lens = [sum(1 for bs in sizes if bs > b) for b in range(sizes[0])]
    lengths = creation.tensor(lens, dtype=dtypes.int64)
    if sequence.unsorted_indices is not None:
        order = sequence.unsorted_indices
        return padded.index_select(0 if batch_first else 1, order), lengths[order]
    return padded, lengths


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of (L_i, *) sequences (pad_sequence, then pack_padded_sequence)."""
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]
