"""The legacy print style: tensors and Variables as PyTorch 0.2/0.3 printed them.

../shared/legacy-format.md is the byte-level specification (its section numbers are cited
below). In short: one number format `NF` per printed tensor (§3), one element per line for
vectors (§4), right-aligned cells in `Columns a to b` blocks for matrices (§5), `(i ,j
,.,.) = ` slices for higher dimensions (§6), a leading newline and a
`[torch.FloatTensor of size 2x3]` footer (§1), `Variable containing:` in front of
Variables (§1.4). 0.3 summarises at `numel >= threshold` (2.13: `>`), and has no 0-dim
tensors, so a 0-dim tensor prints as a tensor of size 1.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from gradshell.core.device import Device
from gradshell.core.dtypes import DType
from gradshell.printing import _protocol
from gradshell.printing._protocol import TensorLike
from gradshell.printing.options import OPTS, PrintOptions

SCALE_FORMAT = "{:.5e} *\n"
VDOTS = "\u22ee"  # ⋮
DDOTS = "\u22f1"  # ⋱


def _min_log_scale() -> int:
    # The smallest power of ten a scale factor may be: that of the smallest denormal,
    # as 0.3 computes it (the smallest normal where denormals flush to zero).
    smallest = sys.float_info.min * sys.float_info.epsilon
    if smallest == 0:
        smallest = sys.float_info.min
    return math.ceil(math.log(smallest, 10))


MIN_LOG_SCALE = _min_log_scale()


class NumberFormat:
    """0.3's `(fmt, scale, sz)` triple: a format string, a scale factor and a cell width."""

    __slots__ = ("fmt", "scale", "sz")

    def __init__(self, fmt: str, scale: float, sz: int) -> None:
        self.fmt = fmt
        self.scale = scale
        self.sz = sz

    def cells(self, values: np.ndarray) -> list[str]:
        """Each value divided by the scale and formatted (values: any shape, flattened)."""
        flat = values.reshape(-1).astype(np.float64)
        if self.scale != 1:
            flat = flat / self.scale
        fmt = self.fmt
        return [fmt.format(v) for v in flat.tolist()]

    def header(self) -> str:
        """The `1.00000e-04 *` line that precedes scaled values ('' when unscaled)."""
        return SCALE_FORMAT.format(self.scale) if self.scale != 1 else ""


def _digits(v: float) -> int:
    return math.floor(math.log10(v)) + 1 if v != 0 else 1


def _all_whole(values: np.ndarray) -> bool:
    # Most float tensors show a fraction within their first elements: look there first
    # rather than ceil() the whole of a big tensor.
    head = values[:1024]
    if not np.array_equal(head, np.ceil(head)):
        return False
    return bool(np.array_equal(values, np.ceil(values)))


def number_format(values: np.ndarray, min_sz: int, precision: int) -> NumberFormat:
    """Choose the format for `values` as 0.3's `_number_format` does (spec §3)."""
    min_sz = max(min_sz, 2)
    flat = values.reshape(-1)
    floating = flat.dtype.kind == "f"
    # abs() is exact in any float dtype; integers are widened first (0.3 worked in
    # doubles), which also keeps abs(-128) of an int8 from overflowing.
    magnitude = np.abs(flat) if floating else np.abs(flat.astype(np.float64))
    if floating:
        invalid = ~np.isfinite(magnitude)
        if invalid.any():
            valid = magnitude[~invalid]
            magnitude[invalid] = valid[0] if valid.size else 0.0
            min_sz = max(min_sz, 3)
    int_mode = not floating or _all_whole(magnitude)
    exp_min = _digits(float(magnitude.min()))
    exp_max = _digits(float(magnitude.max()))
    prec = str(precision)
    scale = 1
    if int_mode:
        if exp_max > precision + 1:
            # The width stays 11 whatever the precision, as in 0.3.
            return NumberFormat("{:11." + prec + "e}", scale, max(min_sz, 7 + precision))
        sz = max(min_sz, exp_max + 1)
        return NumberFormat("{:" + str(sz) + ".0f}", scale, sz)
    if exp_max - exp_min > precision:
        sz = 7 + precision
        if abs(exp_max) > 99 or abs(exp_min) > 99:
            sz += 1
        sz = max(min_sz, sz)
        return NumberFormat("{:" + str(sz) + "." + prec + "e}", scale, sz)
    if exp_max > precision + 1 or exp_max < 0:
        sz = max(min_sz, 7)
        scale = math.pow(10, max(exp_max - 1, MIN_LOG_SCALE))
    else:
        sz = 7 if exp_max == 0 else exp_max + 6
        sz = max(min_sz, sz)
    return NumberFormat("{:" + str(sz) + "." + prec + "f}", scale, sz)


def _need_edgeitems(opts: PrintOptions) -> int:
    # Summarised output needs at least one item at each end.
    n = _protocol.check_edgeitems(opts.edgeitems)
    if n == 0:
        raise ValueError(
            "the legacy style cannot summarise a tensor with edgeitems=0 "
            "(PyTorch 0.3 failed on it too); set edgeitems to 1 or more"
        )
    return n


def _vector_str(values: np.ndarray, opts: PrintOptions) -> str:
    nf = number_format(values, -1, opts.precision)
    ident = " " if nf.scale != 1 else ""
    out = nf.header()
    if values.size < opts.threshold:
        return out + "\n".join(ident + c for c in nf.cells(values)) + "\n"
    n = _need_edgeitems(opts)
    dots = ("{:^" + str(nf.sz) + "}\n").format(VDOTS)
    return (
        out
        + "\n".join(ident + c for c in nf.cells(values[:n]))
        + "\n"
        + ident
        + dots
        + "\n".join(ident + c for c in nf.cells(values[-n:]))
        + "\n"
    )


def _row(row: np.ndarray, indent: str, nf: NumberFormat, truncate: int | None = None) -> str:
    if truncate is None:
        return indent + " ".join(nf.cells(row)) + "\n"
    return (
        indent
        + " ".join(nf.cells(row[:truncate]))
        + " {:^5} ".format("...")
        + " ".join(nf.cells(row[-truncate:]))
        + "\n"
    )


def _matrix_str(
    values: np.ndarray,
    opts: PrintOptions,
    indent: str = "",
    nf: NumberFormat | None = None,
    force_truncate: bool = False,
) -> str:
    n = _protocol.check_edgeitems(opts.edgeitems)
    rows, cols = values.shape
    has_h = cols > 2 * n
    has_v = rows > 2 * n
    full = not has_h and not has_v
    if nf is None:
        # 0.3's quirk: a matrix with a side longer than 2*edgeitems gets cells at least
        # 5 wide even when it is printed in full.
        nf = number_format(values, 5 if not full else 0, opts.precision)
    out = []
    if not force_truncate and (values.size < opts.threshold or full):
        per_line = int(math.floor((opts.linewidth - len(indent)) / (nf.sz + 1)))
        if per_line < 1:
            raise ValueError(
                f"linewidth={opts.linewidth} leaves no room for one {nf.sz}-wide column "
                "(PyTorch 0.3 looped forever here); use a larger linewidth"
            )
        cells = np.array(nf.cells(values), dtype=object).reshape(rows, cols)
        lead = indent + (" " if nf.scale != 1 else "")
        first = 0
        while first < cols:
            last = min(first + per_line - 1, cols - 1)
            if per_line < cols:
                # 0.3 compares with 1, not 0, so every block header gets a blank line.
                if first != 1:
                    out.append("\n")
                out.append(f"Columns {first} to {last} \n{indent}")
            out.append(nf.header())
            for r in range(rows):
                out.append(lead + " ".join(cells[r, first : last + 1]) + "\n")
            first = last + 1
        return "".join(out)
    n = _need_edgeitems(opts)
    out.append(nf.header())
    if has_v and has_h:
        side = ("{:^" + str((nf.sz + 1) * n - 1) + "}").format("...")
        middle = " ".join([side, f"{DDOTS:^5}", side])
        out.extend(_row(r, indent, nf, n) for r in values[:n])
        out.append(indent + middle + "\n")
        out.extend(_row(r, indent, nf, n) for r in values[-n:])
    elif has_h:
        out.extend(_row(r, indent, nf, n) for r in values)
    elif has_v:
        width = len(_row(values[0], "", nf))  # counts the row's newline, as 0.3 did
        out.extend(_row(r, indent, nf) for r in values[:n])
        out.append(("{:^" + str(width) + "}\n").format(VDOTS))
        out.extend(_row(r, indent, nf) for r in values[-n:])
    else:
        out.extend(_row(r, indent, nf) for r in values)
    return "".join(out)


def _slices_str(values: np.ndarray, opts: PrintOptions) -> str:
    """Three or more dimensions: one `(i ,j ,.,.) = ` block per matrix (spec §6)."""
    shape = values.shape
    n = _protocol.check_edgeitems(opts.edgeitems)
    has_h = shape[-1] > 2 * n
    has_v = shape[-2] > 2 * n
    full = not has_h and not has_v
    nf = number_format(values, 3 if not full else 0, opts.precision)
    dots = values.size >= opts.threshold
    if dots:
        n = _need_edgeitems(opts)
    dim_sz = max(2, max(len(str(s)) for s in shape))
    index_fmt = "{:^" + str(dim_sz) + "}"
    dot_fmt = "{:^" + str(dim_sz + 1) + "}"
    lead = len(shape) - 2
    counter = [0] * lead
    counter[-1] = -1
    out: list[str] = []
    while True:
        # Advance the odometer (last leading dimension fastest), jumping over the middle
        # of long dimensions when summarising and noting which dimensions jumped or wrapped.
        restarted = [False] * lead
        skipped = [False] * lead
        finished = False
        for i in range(lead - 1, -1, -1):
            counter[i] += 1
            if dots and counter[i] == n and shape[i] > 2 * n:
                counter[i] = shape[i] - n
                skipped[i] = True
            if counter[i] == shape[i]:
                if i == 0:
                    finished = True
                counter[i] = 0
                restarted[i] = True
            else:
                break
        if finished:
            break
        if dots:
            if any(skipped):
                out.append("".join(dot_fmt.format("..." if s else "") for s in skipped) + "\n")
            if any(restarted):
                marks = "".join(dot_fmt.format(VDOTS if r else "") for r in restarted)
                out.append(" " + marks + "\n")
        if out:
            out.append("\n")
        out.append("(" + ",".join(index_fmt.format(i) for i in counter) + ",.,.) = \n")
        out.append(_matrix_str(values[tuple(counter)], opts, " ", nf, dots))
    return "".join(out)


def typename(dtype: DType, device: Device) -> str:
    """The 0.3 tensor type name: `torch.FloatTensor`, `torch.cuda.LongTensor`, ..."""
    cuda = "cuda." if device.type == "cuda" else ""
    return "torch." + cuda + dtype.legacy_name


def legacy_tensor_str(
    values: np.ndarray, dtype: DType, device: Device, opts: PrintOptions = OPTS
) -> str:
    """The text 0.3 printed for a tensor holding `values` (footer and newlines included)."""
    name = typename(dtype, device)
    if values.size == 0:
        return "[" + name + " with no dimension]\n"
    if values.ndim == 0:
        values = values.reshape(1)
    if values.ndim == 1:
        body = _vector_str(values, opts)
    elif values.ndim == 2:
        body = _matrix_str(values, opts)
    else:
        body = _slices_str(values, opts)
    size = "x".join(str(int(s)) for s in values.shape)
    gpu = f" (GPU {_protocol.device_index(device)})" if device.type == "cuda" else ""
    return "\n" + body + "[" + name + " of size " + size + gpu + "]\n"


def is_variable(t: TensorLike) -> bool:
    """Whether 0.3 would have held `t` in a Variable (so it prints `Variable containing:`).

    Tensors that require grad or come from an op that recorded a grad_fn are Variables;
    so are tensors the core marks `_legacy_variable` (`Variable(t)`, `x.grad`). `.data`
    and tensors made by factory functions are plain tensors.
    """
    return bool(t.requires_grad or t.grad_fn is not None or getattr(t, "_legacy_variable", False))


def legacy_repr(t: TensorLike, opts: PrintOptions = OPTS) -> str:
    """`repr(t)` as PyTorch 0.2/0.3 printed it, `Variable containing:` included."""
    text = legacy_tensor_str(_protocol.host_values(t), t.dtype, t.device, opts)
    if _protocol.is_parameter(t):
        return "Parameter containing:" + text
    if is_variable(t):
        return "Variable containing:" + text
    return text
