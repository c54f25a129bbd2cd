"""Recurrent layers: nn.RNN, nn.LSTM, nn.GRU over whole sequences, and the one-step cells
nn.RNNCell, nn.LSTMCell, nn.GRUCell, with PyTorch's parameters (names, shapes, order and
U(-1/√hidden, 1/√hidden) initialisation), checks and error messages."""

from __future__ import annotations

import math
import numbers
import warnings

from gradshell.core import dtypes
from gradshell.core.tensor import Tensor
from gradshell.core.warn_once import warn_once
from gradshell.ops import creation, rnn, rnn_packed
from gradshell.ops.shape import stack
from gradshell.torch.nn import init
from gradshell.torch.nn.modules.module import Module
from gradshell.torch.nn.parameter import Parameter
from gradshell.torch.nn.utils.rnn import PackedSequence

# PyTorch's C++ side says it once per process.
PROJ_WARNING = (
    "LSTM with projections is not supported with oneDNN. Using default implementation. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)"
)
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the stacked, maybe bidirectional layers' parameters
    and the checks on inputs and hidden states."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_config(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        dirs = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * dirs
            for d in range(dirs):
                suffix = f"_l{layer}" + ("_reverse" if d == 1 else "")
                shapes = [
                    ("weight_ih", (gate_size, layer_input)),
                    ("weight_hh", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for base, shape in shapes:
                    name = base + suffix
                    empty = creation.empty(shape, device=device, dtype=dtype)
                    setattr(self, name, Parameter(empty))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter from U(-1/√hidden_size, 1/√hidden_size), in parameter order."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters grouped per layer and direction."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op on the CPU (it packs weights for cuDNN), as in PyTorch."""

    def _params(self) -> list:
        per = []
        for names in self._all_weights:
            ws = [getattr(self, n) for n in names]
            w_ih, w_hh = ws[0], ws[1]
            b_ih, b_hh = (ws[2], ws[3]) if self.bias else (None, None)
            w_hr = ws[-1] if self.proj_size > 0 else None
            per.append((w_ih, w_hh, b_ih, b_hh, w_hr))
        return per

    def check_input(self, input: Tensor, batch_sizes=None) -> None:
        """PyTorch's checks of the input's dtype, rank and feature size."""
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})"
            )
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes=None) -> tuple:
        """(num_layers * directions, batch, hidden or proj size)."""
        batch = _batch(self, input, batch_sizes)
        dirs = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * dirs, batch, size)

    def check_hidden_size(
        self, hx: Tensor, expected: tuple, msg: str = "Expected hidden size {}, got {}"
    ) -> None:
        """Raise PyTorch's error when hx's shape is not `expected`."""
        if tuple(hx.size()) != tuple(expected):
            raise RuntimeError(msg.format(tuple(expected), list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes=None) -> None:
        """Check the input, then the hidden state's shape."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def _zeros(self, input: Tensor, size: int) -> Tensor:
        dirs = 2 if self.bidirectional else 1
        batch = input.size(0) if self.batch_first else input.size(1)
        return creation.zeros(self.num_layers * dirs, batch, size, dtype=input.dtype)

    def _batched(self, input: Tensor, name: str) -> tuple:
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{_TAIL[name]}"
            )
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        return input, batched

    def _run(self, input: Tensor, hidden: list) -> tuple:
        x = input.transpose(0, 1) if self.batch_first else input
        return rnn.composite(
            self.mode,
            x,
            hidden,
            self._params(),
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
        )

    def permute_hidden(self, hx, permutation: Tensor | None):
        """hx with its batch (dimension 1) in `permutation`'s order (None: unchanged)."""
        if permutation is None:
            return hx
        if isinstance(hx, tuple):
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)

    def _forward_packed(self, packed: PackedSequence, hx) -> tuple:
        # A packed batch runs on the composite cells only, longest sequences first.
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        sizes = [int(b) for b in batch_sizes.tolist()]
        lstm = self.mode == "LSTM"
        if hx is None:
            dirs = 2 if self.bidirectional else 1
            shape = (self.num_layers * dirs, sizes[0])
            real = self.proj_size if self.proj_size > 0 else self.hidden_size
            h0 = creation.zeros(*shape, real, dtype=data.dtype)
            hx = (h0, creation.zeros(*shape, self.hidden_size, dtype=data.dtype)) if lstm else h0
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(data, hx, batch_sizes)
        if lstm and len(set(sizes)) == 1 and self._onednn(data):
            # Sequences all of one length: PyTorch hands oneDNN the (T, B, I) view.
            x = data.view(len(sizes), sizes[0], data.shape[-1])
            out, h, c = rnn.mkldnn_lstm(
                x,
                hx[0],
                hx[1],
                self._params(),
                self.num_layers,
                self.dropout,
                self.training,
                self.bidirectional,
            )
            output = PackedSequence(
                out.view(-1, out.shape[-1]), batch_sizes, sorted_indices, unsorted_indices
            )
            return output, self.permute_hidden((h, c), unsorted_indices)
        if lstm:
            hidden = list(zip(hx[0].unbind(0), hx[1].unbind(0), strict=True))
        else:
            hidden = list(hx.unbind(0))
        out, finals = rnn_packed.packed(
            self.mode,
            data,
            sizes,
            hidden,
            self._params(),
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
        )
        if lstm:
            h_n = (stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0))
        else:
            h_n = stack(finals, 0)
        output = PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
        return output, self.permute_hidden(h_n, unsorted_indices)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


def _batch(m: RNNBase, input: Tensor, batch_sizes) -> int:
    if batch_sizes is not None:
        return int(batch_sizes[0])
    return input.size(0) if m.batch_first else input.size(1)


# RNN and GRU say "tensor instead"; LSTM says only "instead".
_TAIL = {"RNN": " tensor instead", "GRU": " instead", "LSTM": " instead"}


def _check_config(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size):
    if (
        not isinstance(dropout, numbers.Number)
        or isinstance(dropout, bool)
        or not 0 <= dropout <= 1
    ):
        raise ValueError(
            "dropout should be a number in range [0, 1] representing the probability of an "
            "element being zeroed"
        )
    if dropout > 0 and num_layers == 1:
        warnings.warn(
            "dropout option adds dropout after all but last recurrent layer, so non-zero "
            "dropout expects num_layers greater than 1, but got "
            f"dropout={dropout} and num_layers={num_layers}",
            UserWarning,
            stacklevel=4,
        )
    for name, value in (("bias", bias), ("batch_first", batch_first)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNN(RNNBase):
    """Elman RNN: h_t = tanh (or relu)(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple:  # noqa: A002
        """(output, h_n) for a (T, B, input_size) sequence (B first with batch_first; an
        unbatched (T, input_size) one; or a PackedSequence)."""
        return _single_state(self, "RNN", input, hx)


class GRU(RNNBase):
    """Gated recurrent unit: reset and update gates and a candidate state per step."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple:  # noqa: A002
        """(output, h_n), as RNN returns them."""
        return _single_state(self, "GRU", input, hx)


def _single_state(m: RNNBase, name: str, input: Tensor, hx) -> tuple:  # noqa: A002
    if isinstance(input, PackedSequence):
        return m._forward_packed(input, hx)
    input, batched = m._batched(input, name)
    if hx is not None:
        if batched and hx.dim() != 3:
            raise RuntimeError(
                f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
            )
        if not batched:
            if hx.dim() != 2:
                raise RuntimeError(
                    f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor"
                )
            hx = hx.unsqueeze(1)
    else:
        hx = m._zeros(input, m.hidden_size)
    m.check_forward_args(input, hx)
    out, finals = m._run(input, list(hx.unbind(0)))
    if m.batch_first:
        # RNN and GRU turn the result around in place (TransposeBackward1, not a view).
        out = out.transpose_(0, 1)
    h_n = stack(finals, 0)
    if not batched:
        out = out.squeeze(0 if m.batch_first else 1)
        h_n = h_n.squeeze(1)
    return out, h_n


class LSTM(RNNBase):
    """Long short-term memory: input, forget, cell and output gates per step, a cell state
    c beside h, and optionally h projected to proj_size."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes=None) -> tuple:
        """(num_layers * directions, batch, hidden_size)."""
        batch = _batch(self, input, batch_sizes)
        dirs = 2 if self.bidirectional else 1
        return (self.num_layers * dirs, batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: tuple, batch_sizes=None) -> None:
        """Check the input, then h_0's and c_0's shapes."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0],
            self.get_expected_hidden_size(input, batch_sizes),
            "Expected hidden[0] size {}, got {}",
        )
        self.check_hidden_size(
            hidden[1],
            self.get_expected_cell_size(input, batch_sizes),
            "Expected hidden[1] size {}, got {}",
        )

    def forward(self, input: Tensor, hx: tuple | None = None) -> tuple:  # noqa: A002
        """(output, (h_n, c_n)) for a (T, B, input_size) sequence (B first with
        batch_first; or an unbatched (T, input_size) one; or a PackedSequence)."""
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        input, batched = self._batched(input, "LSTM")
        if hx is None:
            real = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(input, real), self._zeros(input, self.hidden_size))
        else:
            dims = (hx[0].dim(), hx[1].dim())
            want = 3 if batched else 2
            if dims != (want, want):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(
                    f"For {kind} input, hx and cx should also be {want}-D but got "
                    f"({dims[0]}-D, {dims[1]}-D) tensors"
                )
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx)
        if self._onednn(input):
            x = input.transpose(0, 1) if self.batch_first else input
            out, h_n, c_n = rnn.mkldnn_lstm(
                x,
                hx[0],
                hx[1],
                self._params(),
                self.num_layers,
                self.dropout,
                self.training,
                self.bidirectional,
            )
        else:
            if self.proj_size > 0 and input.dtype == dtypes.float32:
                warn_once(PROJ_WARNING, UserWarning, stacklevel=3)
            hidden = list(zip(hx[0].unbind(0), hx[1].unbind(0), strict=True))
            out, finals = self._run(input, hidden)
            h_n = stack([h for h, _ in finals], 0)
            c_n = stack([c for _, c in finals], 0)
        if self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(0 if self.batch_first else 1)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return out, (h_n, c_n)

    def _onednn(self, input: Tensor) -> bool:
        # PyTorch's CPU build runs float32 LSTMs without projections through oneDNN.
        return input.dtype == dtypes.float32 and self.proj_size == 0 and input.numel() != 0


class RNNCellBase(Module):
    """What the one-step cells share: weight_ih (gates·hidden, input), weight_hh
    (gates·hidden, hidden) and the two biases."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        shape = (num_chunks * hidden_size,)
        self.weight_ih = Parameter(
            creation.empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype)
        )
        self.weight_hh = Parameter(
            creation.empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype)
        )
        if bias:
            self.bias_ih = Parameter(creation.empty(shape, device=device, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(shape, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter from U(-1/√hidden_size, 1/√hidden_size), in parameter order."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nl = self.__dict__.get("nonlinearity", "tanh")
        if nl != "tanh":
            s += f", nonlinearity={nl}"
        return s

    def _params(self) -> tuple:
        return (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, None)

    def _prepare(self, name: str, input: Tensor, hx: Tensor | None, hx_name: str) -> tuple:
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected {hx_name} to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        return input, batched

    def _check(self, input: Tensor, hiddens: list) -> None:
        if input.size(1) != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}"
            )
        for i, h in enumerate(hiddens):
            if input.size(0) != h.size(0):
                raise RuntimeError(
                    f"Input batch size {input.size(0)} doesn't match hidden{i} batch size "
                    f"{h.size(0)}"
                )
            if h.size(1) != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: got {h.size(1)}, expected "
                    f"{self.hidden_size}"
                )

    def _zeros(self, input: Tensor) -> Tensor:
        return creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = tanh (or relu)(W_ih x + b_ih + W_hh h + b_hh)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        """h' for a (B, input_size) or unbatched (input_size,) input."""
        input, batched = self._prepare("RNNCell", input, hx, "hidden")
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        if self.nonlinearity == "tanh":
            cell = rnn.tanh_cell
        elif self.nonlinearity == "relu":
            cell = rnn.relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check(input, [hx])
        ret = cell(input, hx, self._params())
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: (h', c') from (h, c)."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple | None = None) -> tuple:  # noqa: A002
        """(h', c') for a (B, input_size) or unbatched (input_size,) input."""
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for i, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{i}] to be 1D or 2D, got {value.dim()}D instead"
                    )
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        self._check(input, [hx[0], hx[1]])
        h, c = rnn.lstm_cell(input, (hx[0], hx[1]), self._params())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: h' = (1 - z) n + z h."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        """h' for a (B, input_size) or unbatched (input_size,) input."""
        input, batched = self._prepare("GRUCell", input, hx, "hidden")
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        self._check(input, [hx])
        ret = rnn.gru_cell(input, hx, self._params())
        return ret if batched else ret.squeeze(0)
