"""Recurrent layers (RNN with tanh or relu, LSTM, GRU) and their single-step cells.

PyTorch runs them on the CPU in two ways, and gradshell follows both so that the graph
shows the same nodes:

- the composite path (RNN, GRU, float64 LSTM, LSTM with projections, and every cell):
  the step is built from ordinary ops — linear, in-place add_, unsafe_chunk, sigmoid_,
  tanh_, mul — so the graph holds AddmmBackward0, UnsafeSplitBackward0, SigmoidBackward0...
  The input's projection is computed for the whole sequence at once and unbound per step.
- the oneDNN path (float32 LSTM without projections): one MkldnnRnnLayerBackward0 node per
  layer and direction, with three outputs (the layer's output, its last h and last c).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from gradshell.core import grad_mode
from gradshell.core.autograd import Node, needs_grad, record
from gradshell.core.tensor import Tensor, wrap
from gradshell.ops.base import as_array
from gradshell.ops.linalg import matmul
from gradshell.ops.nn import dropout, linear
from gradshell.ops.shape import cat, select, stack, unbind, unsafe_chunk
from gradshell.ops.unary import relu, tanh

#: One layer-direction's parameters: w_ih, w_hh, b_ih, b_hh (None without bias), w_hr
#: (None without projections).
Params = tuple


# -- the cells (one time step) ------------------------------------------------------------------
def _gates_hh(h: Tensor, p: Params) -> Tensor:
    return linear(h, p[1], p[3])


def _input_part(x: Tensor, p: Params, pre: bool) -> Tensor:
    # On the CPU PyTorch projects the whole sequence first; the cells project one step.
    return x if pre else linear(x, p[0], p[2])


def tanh_cell(x: Tensor, h: Tensor, p: Params, pre: bool = False) -> Tensor:
    """h' = tanh(W_hh h + b_hh + W_ih x + b_ih)."""
    return tanh(_gates_hh(h, p).add_(_input_part(x, p, pre)))


def relu_cell(x: Tensor, h: Tensor, p: Params, pre: bool = False) -> Tensor:
    """h' = relu(W_hh h + b_hh + W_ih x + b_ih)."""
    return relu(_gates_hh(h, p).add_(_input_part(x, p, pre)))


def lstm_cell(x: Tensor, hc: tuple, p: Params, pre: bool = False) -> tuple:
    """(h', c') of an LSTM step: gates i, f, g, o in PyTorch's order; c' = f c + i g,
    h' = o tanh(c'), then h' projected by W_hr where the layer has projections."""
    h, c = hc
    gates = _gates_hh(h, p).add_(_input_part(x, p, pre))
    i, f, g, o = unsafe_chunk(gates, 4, 1)
    i = i.sigmoid_()
    f = f.sigmoid_()
    g = g.tanh_()
    o = o.sigmoid_()
    cy = (f * c).add_(i * g)
    hy = o * tanh(cy)
    if p[4] is not None:
        hy = matmul(hy, p[4].t())
    return hy, cy


def gru_cell(x: Tensor, h: Tensor, p: Params, pre: bool = False) -> Tensor:
    """h' = (h - n) z + n with reset r, update z and candidate n = tanh(x_n + r h_n)."""
    xr, xz, xn = unsafe_chunk(_input_part(x, p, pre), 3, 1)
    hr, hz, hn = unsafe_chunk(_gates_hh(h, p), 3, 1)
    r = hr.add_(xr).sigmoid_()
    z = hz.add_(xz).sigmoid_()
    n = xn.add(hn.mul_(r)).tanh_()
    return (h - n).mul_(z).add_(n)


CELLS: dict[str, Callable] = {
    "RNN_TANH": tanh_cell,
    "RNN_RELU": relu_cell,
    "LSTM": lstm_cell,
    "GRU": gru_cell,
}


# -- the composite sequence path ----------------------------------------------------------------
def _run_direction(x: Tensor, hidden, p: Params, cell: Callable, reverse: bool, lstm: bool):
    steps = unbind(linear(x, p[0], p[2]), 0)
    outs: list = [None] * len(steps)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    for t in order:
        hidden = cell(steps[t], hidden, p, True)
        outs[t] = hidden[0] if lstm else hidden
    return stack(outs, 0), hidden


def composite(
    mode: str,
    x: Tensor,
    hidden: Sequence,
    params: Sequence[Params],
    num_layers: int,
    p_drop: float,
    train: bool,
    bidirectional: bool,
) -> tuple:
    """A stacked (and maybe bidirectional) recurrent layer over a (T, B, I) sequence from
    the first hidden state of each layer-direction (an (h, c) pair for LSTM). Returns the
    last layer's output and the final hidden state of every layer-direction, in order."""
    if x.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    cell = CELLS[mode]
    lstm = mode == "LSTM"
    dirs = 2 if bidirectional else 1
    finals = []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            out, last = _run_direction(x, hidden[k], params[k], cell, d == 1, lstm)
            outs.append(out)
            finals.append(last)
        x = cat(outs, outs[0].dim() - 1) if dirs == 2 else outs[0]
        if p_drop != 0 and train and layer < num_layers - 1:
            x = dropout(x, p_drop, True)
    return x, finals


# -- the oneDNN LSTM layer -----------------------------------------------------------------------
def _sigmoid(a: np.ndarray) -> np.ndarray:
    # Wide, then rounded once: closer to oneDNN's own float32 sigmoid than NumPy's float32.
    return (1 / (1 + np.exp(-a.astype(np.float64)))).astype(a.dtype)


def _tanh(a: np.ndarray) -> np.ndarray:
    return np.tanh(a.astype(np.float64)).astype(a.dtype)


class MkldnnRnnLayerBackward0(Node):
    """Backpropagation through time for one LSTM layer-direction: walking the steps
    backwards, dc = dc' f + dh o (1 - tanh² c), the gate pre-activations' gradient dgates
    gives dh_prev = dgates W_hh, dx = dgates W_ih, dW = Σ dgatesᵀ [x | h_prev] and
    db_ih = db_hh = Σ dgates."""

    no_explanation = (
        "one node for a whole LSTM layer: its three outputs (output, h_n, c_n) depend on "
        "every time step"
    )

    num_outputs = 3

    def backward(self, g_out, g_h, g_c):
        x = self.saved("input")
        w_ih, w_hh = self.saved("weight0"), self.saved("weight1")
        steps, hidden = x.shape[0], w_hh.shape[1]
        if grad_mode.state.enabled:
            # create_graph: the states must be functions of the inputs, so that the
            # gradient's own graph reaches the weights through them.
            states = _states(
                x,
                w_ih,
                w_hh,
                self.saved("weight2") if self.has_bias else None,
                self.saved("weight3") if self.has_bias else None,
                self.saved("hx_"),
                self.saved("cx_"),
                self.reverse,
            )
        else:
            hs, cs, gates = self.saved("hs"), self.saved("cs"), self.saved("gates")
            states = ([hs[k] for k in range(steps + 1)], [cs[k] for k in range(steps + 1)])
            states = (*states, [gates[t] for t in range(steps)])
        hs, cs, gates = states
        dh = g_h if g_h is not None else hs[0] * 0
        dc = g_c if g_c is not None else cs[0] * 0
        dgates: list = [None] * steps
        for t in range(steps) if self.reverse else range(steps - 1, -1, -1):
            k = _steps_before(t, steps, self.reverse)  # hs[k], cs[k] entered step t
            if g_out is not None:
                dh = dh + g_out[t]
            i, f, g, o = (gates[t][:, j * hidden : (j + 1) * hidden] for j in range(4))
            tc = cs[k + 1].tanh()
            dc = dc + dh * o * (1 - tc * tc)
            dgates[t] = cat(
                [dc * g * i * (1 - i), dc * cs[k] * f * (1 - f), dc * i * (1 - g * g)]
                + [dh * tc * o * (1 - o)],
                1,
            )
            dc = dc * f
            dh = dgates[t].mm(w_hh)
        dg_all = stack(dgates, 0)  # (T, B, 4H)
        flat = dg_all.reshape(-1, dg_all.shape[-1])
        needs = self.needs
        gx = dg_all.matmul(w_ih) if needs[0] else None
        gw_ih = flat.t().mm(x.reshape(-1, x.shape[-1])) if needs[1] else None
        gw_hh = None
        if needs[2]:
            prev = stack([hs[_steps_before(t, steps, self.reverse)] for t in range(steps)], 0)
            gw_hh = flat.t().mm(prev.reshape(-1, hidden))
        gb = flat.sum(0) if (needs[3] or needs[4]) else None
        return (
            gx,
            gw_ih,
            gw_hh,
            gb if needs[3] else None,
            gb if needs[4] else None,
            dh if needs[5] else None,
            dc if needs[6] else None,
        )


def _steps_before(t: int, steps: int, reverse: bool) -> int:
    """How many steps a layer-direction has run before time step t."""
    return steps - 1 - t if reverse else t


def _states(x, w_ih, w_hh, b_ih, b_hh, h, c, reverse: bool) -> tuple:
    # The forward again with tensor ops: states in the order computed, activated gates
    # by time step.
    steps, hidden = x.shape[0], w_hh.shape[1]
    pre = x.matmul(w_ih.t())
    bias = b_ih + b_hh if b_ih is not None else None
    hs, cs, gates = [h], [c], [None] * steps
    for t in range(steps - 1, -1, -1) if reverse else range(steps):
        a = pre[t] + h.mm(w_hh.t())
        if bias is not None:
            a = a + bias
        i, f, o = (a[:, j * hidden : (j + 1) * hidden].sigmoid() for j in (0, 1, 3))
        g = a[:, 2 * hidden : 3 * hidden].tanh()
        c = f * c + i * g
        h = o * c.tanh()
        gates[t] = cat([i, f, g, o], 1)
        hs.append(h)
        cs.append(c)
    return hs, cs, gates


def mkldnn_rnn_layer(
    x: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None,
    b_hh: Tensor | None,
    hx: Tensor,
    cx: Tensor,
    reverse: bool,
) -> tuple:
    """One LSTM layer-direction over a (T, B, I) sequence as oneDNN computes it:
    gates = x W_ihᵀ + h W_hhᵀ + (b_ih + b_hh). Returns (output, h_T, c_T)."""
    xd, wi, wh = x._data, w_ih._data, w_hh._data
    dt = xd.dtype
    steps, batch = xd.shape[0], xd.shape[1]
    hidden = wh.shape[1]
    bias = np.zeros(4 * hidden, dt)
    if b_ih is not None:
        bias = (b_ih._data + b_hh._data).astype(dt)
    pre = (xd.reshape(-1, xd.shape[-1]) @ wi.T).reshape(steps, batch, -1)
    h, c = hx._data, cx._data
    hs, cs = [h], [c]
    out = np.empty((steps, batch, hidden), dt)
    gates_all = np.empty((steps, batch, 4 * hidden), dt)
    for t in range(steps - 1, -1, -1) if reverse else range(steps):
        a = pre[t] + h @ wh.T + bias
        i = _sigmoid(a[:, :hidden])
        f = _sigmoid(a[:, hidden : 2 * hidden])
        g = _tanh(a[:, 2 * hidden : 3 * hidden])
        o = _sigmoid(a[:, 3 * hidden :])
        c = f * c + i * g
        h = o * _tanh(c)
        gates_all[t] = np.concatenate([i, f, g, o], axis=1)
        out[t] = h
        hs.append(h)
        cs.append(c)
    res = wrap(as_array(out.astype(dt, copy=False)), x._dtype)
    hy = wrap(as_array(np.array(h, dt)), x._dtype)
    cy = wrap(as_array(np.array(c, dt)), x._dtype)
    inputs = (x, w_ih, w_hh, b_ih, b_hh, hx, cx)
    if needs_grad(*inputs):
        node = MkldnnRnnLayerBackward0()
        node.reverse = reverse
        node.needs = tuple(t is not None and t._requires_grad for t in inputs)
        node.has_bias = b_ih is not None
        for name, t in zip(
            ("input", "weight0", "weight1", "weight2", "weight3"), inputs[:5], strict=True
        ):
            if t is not None:
                node.save(name, t)
        node.save("hx_", hx)
        node.save("cx_", cx)
        node.save("hs", wrap(as_array(np.stack(hs).astype(dt, copy=False)), x._dtype))
        node.save("cs", wrap(as_array(np.stack(cs).astype(dt, copy=False)), x._dtype))
        node.save("gates", wrap(as_array(gates_all), x._dtype))
        for i, t in enumerate((res, hy, cy)):
            record(node, inputs, t, output_nr=i)
    return res, hy, cy


def mkldnn_lstm(
    x: Tensor,
    hx: Tensor,
    cx: Tensor,
    params: Sequence[Params],
    num_layers: int,
    p_drop: float,
    train: bool,
    bidirectional: bool,
) -> tuple:
    """A stacked (maybe bidirectional) LSTM over a (T, B, I) sequence on the oneDNN path.
    Returns (output, h_n, c_n)."""
    dirs = 2 if bidirectional else 1
    x = x.contiguous()  # oneDNN reads a dense sequence (CloneBackward0 when it copies)
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w_ih, w_hh, b_ih, b_hh, _ = params[k]
            out, hy, cy = mkldnn_rnn_layer(
                x, w_ih, w_hh, b_ih, b_hh, select(hx, 0, k), select(cx, 0, k), d == 1
            )
            outs.append(out)
            hs.append(hy)
            cs.append(cy)
        x = cat(outs, outs[0].dim() - 1) if dirs == 2 else outs[0]
        if p_drop != 0 and train and layer < num_layers - 1:
            x = dropout(x, p_drop, True)
    return x, stack(hs, 0), stack(cs, 0)
