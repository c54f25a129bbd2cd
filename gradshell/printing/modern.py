"""The modern print style: `repr(tensor)` exactly as PyTorch 2.13 writes it.

PyTorch's rules, as its printer behaves:

* One number format for the whole tensor, chosen from the elements that will be shown
  (after summarisation) that are finite and non-zero: *integer mode* when all of them
  are whole numbers (`1.`), *scientific mode* (`1.0000e-05`) when max/min > 1000,
  max > 1e8 or min < 1e-4 (or as `sci_mode` forces), fixed-point otherwise. Every element
  is right-aligned to the widest of those elements.
* A tensor is summarised when it has more than `threshold` elements: each dimension
  longer than 2*`edgeitems` keeps its first and last `edgeitems` entries around `...`.
* 1-D rows wrap at `linewidth`; nested rows are joined by `,` plus one blank line per
  dimension above the innermost.
* Suffixes (`device=`, `size=`, `dtype=`, `grad_fn=`/`requires_grad=True`) follow the
  values, moving to their own line when the current line would pass `linewidth`.

Only the elements that are shown are ever copied off the backend array, inspected or
formatted (PyTorch, too, picks the format from the shown elements only), so a summarised
tensor of any size prints in time proportional to what is shown.
"""

from __future__ import annotations

import math

import numpy as np

from gradshell.core import dtypes
from gradshell.core.device import array_module, to_numpy
from gradshell.printing import _protocol
from gradshell.printing._protocol import TensorLike
from gradshell.printing.options import OPTS, PrintOptions

PREFIX = "tensor("


class Formatter:
    """The number format shared by all elements of one tensor (PyTorch's `_Formatter`)."""

    __slots__ = ("floating", "int_mode", "sci_mode", "max_width")

    def __init__(self, values: np.ndarray, floating: bool, opts: PrintOptions) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        precision = opts.precision
        flat = values.reshape(-1)
        if not floating:
            if flat.size:
                # str() width of an integer grows with |v|, so the extremes are the widest.
                for v in (flat.min().item(), flat.max().item()):
                    self.max_width = max(self.max_width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        magnitude = np.abs(finite).astype(np.float64)
        lo, hi = float(magnitude.min()), float(magnitude.max())
        self.int_mode = bool(np.all(np.ceil(finite) == finite))
        if opts.sci_mode is None:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = opts.sci_mode
        # Correctly rounded decimal conversion is monotone in |v|, so the widest rendering
        # is one of the extremes of each sign (the exponent's digit count included).
        positive = finite[finite > 0]
        negative = finite[finite < 0]
        extremes = []
        for part in (positive, negative):
            if part.size:
                extremes.append(part.min().item())
                extremes.append(part.max().item())
        if self.sci_mode:
            spec = "{:." + str(precision) + "e}"
            width = max(len(spec.format(v)) for v in extremes)
        elif self.int_mode:
            width = max(len(f"{v:.0f}") for v in extremes) + 1  # room for the trailing '.'
        else:
            spec = "{:." + str(precision) + "f}"
            width = max(len(spec.format(v)) for v in extremes)
        self.max_width = max(self.max_width, width)

    def _element_spec(self, precision: int) -> str:
        if self.sci_mode:
            return "{:" + str(self.max_width) + "." + str(precision) + "e}"
        if self.int_mode:
            return "{:.0f}"
        return "{:." + str(precision) + "f}"

    def format_many(self, values: list, precision: int) -> list[str]:
        """Format Python numbers (from `.tolist()`), each padded to the common width."""
        w = self.max_width
        if not self.floating:
            return [str(v).rjust(w) for v in values]
        spec = self._element_spec(precision)
        if self.int_mode and not self.sci_mode:
            out = []
            for v in values:
                s = spec.format(v)
                if v - v == 0:  # finite: mark the float with a trailing '.'
                    s += "."
                out.append(s.rjust(w))
            return out
        return [spec.format(v).rjust(w) for v in values]


def _summarized(data, edgeitems: int):
    """Only the elements a summarised print shows, in the array's own module.

    Every dimension longer than 2*edgeitems keeps its first and last `edgeitems`
    entries (what PyTorch sizes the number format on). Slicing and concatenating in the
    array's module means a CuPy tensor sends only these elements to the host.
    """
    xp = array_module(data)
    for axis, n in enumerate(data.shape):
        if n > 2 * edgeitems:
            head = (slice(None),) * axis
            data = xp.concatenate(
                (data[head + (slice(0, edgeitems),)], data[head + (slice(n - edgeitems, n),)]),
                axis=axis,
            )
    return data


def _vector(shown, n, indent, summarize, fmt: Formatter, opts: PrintOptions, edge) -> str:
    per_line = max(1, math.floor((opts.linewidth - indent) / (fmt.max_width + 2)))
    p = opts.precision
    if summarize and n > 2 * edge:
        # `shown` holds just the first and the last `edge` entries of this row.
        items = shown.tolist()
        data = fmt.format_many(items[:edge], p) + [" ..."] + fmt.format_many(items[edge:], p)
    else:
        data = fmt.format_many(shown.tolist(), p)
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(shown, shape, indent, summarize, fmt: Formatter, opts: PrintOptions, edge) -> str:
    """The nested brackets for `shown` (the shown elements of a tensor of `shape`)."""
    ndim = len(shape)
    if ndim == 0:
        return fmt.format_many([shown.item()], opts.precision)[0]
    if ndim == 1:
        return _vector(shown, shape[0], indent, summarize, fmt, opts, edge)
    n = shape[0]
    inner = shape[1:]
    if summarize and n > 2 * edge:
        rows = list(range(edge)) + [None] + list(range(edge, 2 * edge))
    else:
        rows = range(n)
    parts = [
        "..." if i is None else _nested(shown[i], inner, indent + 1, summarize, fmt, opts, edge)
        for i in rows
    ]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def values_str(data, floating: bool, indent: int, opts: PrintOptions = OPTS) -> str:
    """The bracketed values part of a modern repr (`[[1., 2.],\\n [3., 4.]]`).

    `data` is the tensor's backend array (NumPy or CuPy); only what is shown is copied
    to the host and formatted.
    """
    if data.size == 0:
        return "[]"
    shape = tuple(int(s) for s in data.shape)
    summarize = data.size > opts.threshold
    edge = opts.edgeitems
    if summarize:
        edge = _protocol.check_edgeitems(edge)
        if edge == 0 and shape:
            # Every dimension collapses to `...`; PyTorch shows no numbers at all.
            return "[...]"
        shown = to_numpy(_summarized(data, edge))
    else:
        shown = to_numpy(data)
    fmt = Formatter(shown, floating, opts)
    return _nested(shown, shape, indent, summarize, fmt, opts, edge)


def add_suffixes(text: str, suffixes: list[str], indent: int, linewidth: float) -> str:
    """Append `, suffix` items, breaking the line where it would pass `linewidth`."""
    out = [text]
    # PyTorch measures the last line this way (one more than its length when the text
    # has several lines, two more when it has one); matching it decides where lines break.
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > linewidth:
            out.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    out.append(")")
    return "".join(out)


def _device_str(device) -> str:
    if device.type == "cuda":
        return f"cuda:{_protocol.device_index(device)}"
    return str(device)


def modern_repr(t: TensorLike, opts: PrintOptions = OPTS) -> str:
    """`repr(t)` in PyTorch 2.13's style, `Parameter containing:` included."""
    values = t._data  # the backend array; values_str copies only what it shows
    dtype = t.dtype
    default = dtypes.get_default_dtype()
    indent = len(PREFIX)
    suffixes = []
    device = t.device
    if device.type != "cpu":
        suffixes.append("device='" + _device_str(device) + "'")
    shape = tuple(int(s) for s in values.shape)
    if values.size == 0:
        # No elements to tell int64 from float apart, so only the default dtype goes unsaid.
        if values.ndim != 1:
            suffixes.append("size=" + str(shape))
        if dtype.name != default.name:
            suffixes.append("dtype=" + repr(dtype))
        body = "[]"
    else:
        if not opts.edgeitems:
            suffixes.append("size=" + str(shape))
        if dtype.name not in (default.name, "int64", "bool"):
            suffixes.append("dtype=" + repr(dtype))
        body = values_str(values, dtype.is_floating_point, indent, opts)
    try:
        grad_fn = t.grad_fn
    except RuntimeError:  # a view that may no longer be differentiated: PyTorch prints this
        suffixes.append("grad_fn=<Invalid>")
    else:
        if grad_fn is not None:
            suffixes.append("grad_fn=<" + _protocol.node_class_name(grad_fn) + ">")
        elif t.requires_grad:
            suffixes.append("requires_grad=True")
    text = add_suffixes(PREFIX + body, suffixes, indent, opts.linewidth)
    if _protocol.is_parameter(t):
        return "Parameter containing:\n" + text
    return text
