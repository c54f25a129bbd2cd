"""nn.RNN / nn.LSTM / nn.GRU and nn.RNNCell / nn.LSTMCell / nn.GRUCell against PyTorch:
parameters bitwise after manual_seed, outputs, every node of the graph (PyTorch's CPU
composite — AddmmBackward0, UnsafeSplitBackward0, SigmoidBackward0... — and the oneDNN
float32 LSTM's MkldnnRnnLayerBackward0), gradients of weights, inputs and initial states,
printed values, reprs and errors; float64 finite differences (first and second order),
also for the oneDNN layer's own backward; packed input (PackedSequence) through the same
layers; nn.utils.rnn's padding and packing functions. (unsafe_chunk and transpose_, which
the graph uses, are tested in tests/ops/test_unsafe_split.py.)"""

from __future__ import annotations

import subprocess
import sys
import warnings
from importlib import import_module

import numpy as np
import pytest
from support import oracle
from support.op_checks import Arg, check, gradcheck, gradgradcheck
from support.tutorials import printed

from gradshell import torch as gtorch
from gradshell.core import warn_once
from gradshell.ops import rnn as rnn_ops


def _graph(t) -> list:
    """Every node reachable from t.grad_fn, numbered in visiting order, with its edges."""
    seen: dict = {}
    order: list = []

    def visit(fn):
        if fn is None or id(fn) in seen:
            return
        seen[id(fn)] = len(seen)
        order.append(fn)
        for f, _ in fn.next_functions:
            visit(f)

    visit(t.grad_fn)
    return [
        [
            type(fn).__name__,
            [[None if f is None else seen[id(f)], i] for f, i in fn.next_functions],
        ]
        for fn in order
    ]


def _observe(lib, spec: dict) -> dict:
    """Build the module of `spec` after manual_seed, run it and backward through a
    weighted sum of all its outputs; return what is compared."""
    lib.manual_seed(spec.get("seed", 0))
    dtype = lib.float64 if spec.get("double") else lib.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = getattr(lib.nn, spec["cls"])(*spec["args"], **spec.get("kw", {})).to(dtype)
    if not spec.get("train", True):
        m.eval()
    x = lib.randn(*spec["x"], dtype=dtype, requires_grad=True)
    leaves = [x]
    args = [x]
    packing = None
    if "lengths" in spec:
        packing = import_module(lib.__name__ + ".nn.utils.rnn")
        batch_first = spec.get("kw", {}).get("batch_first", False)
        sort = spec.get("enforce_sorted", True)
        args = [packing.pack_padded_sequence(x, spec["lengths"], batch_first, sort)]
    if "h" in spec:
        hs = [lib.randn(*s, dtype=dtype, requires_grad=True) for s in spec["h"]]
        leaves += hs
        args.append(hs[0] if len(hs) == 1 else tuple(hs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = m(*args)
    flat = []
    if packing is not None:
        padded, lengths = packing.pad_packed_sequence(out[0], batch_first=batch_first)
        out = (out[0].data, padded, out[1])
    for o in out if isinstance(out, tuple) else (out,):
        flat.extend(o if isinstance(o, tuple) else (o,))
    loss = sum((o * (i + 1.5)).sum() for i, o in enumerate(flat))
    loss.backward()
    return {
        "repr": repr(m),
        "names": [n for n, _ in m.named_parameters()],
        "params": [p.detach().numpy().copy() for p in m.parameters()],
        "outs": [o.detach().numpy().copy() for o in flat],
        "printed": [str(o) for o in flat],
        "graphs": [_graph(o) for o in flat],
        "views": [o._base is not None for o in flat],
        "param_grads": [p.grad.numpy().copy() for p in m.parameters()],
        "leaf_grads": [t.grad.numpy().copy() for t in leaves],
    }


def _compare(spec: dict, real_torch) -> None:
    theirs = oracle.computed(f"rnn module {spec!r}", lambda t: _observe(t, spec), real_torch)
    ours = _observe(gtorch, spec)
    assert ours["repr"] == theirs["repr"]
    assert ours["names"] == theirs["names"]
    for a, b in zip(ours["params"], theirs["params"], strict=True):
        np.testing.assert_array_equal(np.asarray(a), b)  # the initialisation, bit for bit
    assert ours["graphs"] == theirs["graphs"]
    assert ours["views"] == theirs["views"]
    tol = {"rtol": 1e-12, "atol": 1e-13} if spec.get("double") else {"rtol": 2e-5, "atol": 1e-6}
    for key in ("outs", "param_grads", "leaf_grads"):
        assert len(ours[key]) == len(theirs[key])
        for a, b in zip(ours[key], theirs[key], strict=True):
            assert np.asarray(a).dtype == b.dtype
            np.testing.assert_allclose(np.asarray(a), b, **tol)
    if spec.get("double") or not (_onednn(spec) or "lengths" in spec):
        assert ours["printed"] == theirs["printed"]
    else:
        # Printed digits may differ here (values agree to ~1e-7, checked above): oneDNN's
        # LSTM rounds its own way (its gemm order, its sigmoid/tanh), and these float32
        # packed batches happen to print small values in scientific notation, whose 5
        # significant digits show a 1e-8 difference (1.8044e-05 vs 1.8051e-05).
        assert [s.split("grad_fn")[1] for s in ours["printed"]] == [
            s.split("grad_fn")[1] for s in theirs["printed"]
        ]


def _onednn(spec: dict) -> bool:
    return (
        spec["cls"] == "LSTM" and not spec.get("double") and "proj_size" not in spec.get("kw", {})
    )


def _module_specs() -> list:
    specs = []
    for cls in ("RNN", "GRU", "LSTM"):
        states = 2 if cls == "LSTM" else 1
        for double in (False, True):
            base = {"cls": cls, "args": (3, 4), "double": double}
            specs += [
                {**base, "x": (5, 2, 3)},
                {**base, "x": (5, 2, 3), "h": [(1, 2, 4)] * states},
                {**base, "kw": {"batch_first": True}, "x": (2, 5, 3)},
                {**base, "kw": {"num_layers": 2, "bidirectional": True}, "x": (4, 3, 3)},
                {
                    **base,
                    "kw": {"num_layers": 2, "bidirectional": True, "batch_first": True},
                    "x": (3, 4, 3),
                    "h": [(4, 3, 4)] * states,
                },
                {**base, "kw": {"bias": False, "num_layers": 2}, "x": (4, 2, 3)},
                {**base, "kw": {"num_layers": 3, "dropout": 0.5}, "x": (4, 2, 3)},
                {**base, "kw": {"num_layers": 2, "dropout": 0.5}, "x": (4, 2, 3), "train": False},
                {**base, "x": (5, 3)},
                {**base, "kw": {"batch_first": True}, "x": (5, 3), "h": [(1, 4)] * states},
            ]
    specs.append({"cls": "RNN", "args": (3, 4, 2, "relu"), "x": (4, 2, 3)})
    specs.append(
        {
            "cls": "RNN",
            "args": (3, 4),
            "kw": {"nonlinearity": "relu"},
            "x": (4, 2, 3),
            "double": True,
        }
    )
    for double in (False, True):
        specs.append(
            {
                "cls": "LSTM",
                "args": (3, 4),
                "kw": {"proj_size": 2},
                "x": (4, 2, 3),
                "double": double,
            }
        )
        specs.append(
            {
                "cls": "LSTM",
                "args": (3, 5),
                "kw": {"proj_size": 3, "num_layers": 2, "bidirectional": True},
                "x": (4, 2, 3),
                "h": [(4, 2, 3), (4, 2, 5)],
                "double": double,
            }
        )
    return specs


def _packed_specs() -> list:
    specs = []
    for cls in ("RNN", "GRU", "LSTM"):
        states = 2 if cls == "LSTM" else 1
        for double in (False, True):
            base = {"cls": cls, "args": (3, 4), "double": double}
            specs += [
                {**base, "x": (3, 2, 3), "lengths": [3, 2]},
                {
                    **base,
                    "kw": {"num_layers": 2, "bidirectional": True},
                    "x": (4, 4, 3),
                    "lengths": [2, 4, 1, 4],
                    "enforce_sorted": False,
                    "h": [(4, 4, 4)] * states,
                },
                {
                    **base,
                    "kw": {"batch_first": True, "bidirectional": True},
                    "x": (3, 3, 3),
                    "lengths": [3, 3, 1],
                },
                {
                    **base,
                    "kw": {"num_layers": 3, "dropout": 0.5},
                    "x": (3, 2, 3),
                    "lengths": [3, 1],
                },
            ]
    for double in (False, True):
        # Sequences all of one length: a float32 LSTM runs them through oneDNN.
        specs.append(
            {
                "cls": "LSTM",
                "args": (3, 4),
                "kw": {"num_layers": 2, "bidirectional": True},
                "x": (2, 3, 3),
                "lengths": [2, 2, 2],
                "enforce_sorted": False,
                "h": [(4, 3, 4)] * 2,
                "double": double,
            }
        )
    specs.append(
        {
            "cls": "LSTM",
            "args": (3, 4),
            "kw": {"proj_size": 2, "bidirectional": True},
            "x": (3, 2, 3),
            "lengths": [2, 3],
            "enforce_sorted": False,
        }
    )
    return specs


def _name(spec: dict) -> str:
    parts = [spec["cls"], "f64" if spec.get("double") else "f32", "x" + str(spec["x"])]
    parts += [f"{k}={v}" for k, v in spec.get("kw", {}).items()]
    if len(spec["args"]) > 2:
        parts.append("args" + str(spec["args"][2:]))
    if "h" in spec:
        parts.append("h0")
    if spec.get("train") is False:
        parts.append("eval")
    if "lengths" in spec:
        parts.append(f"packed{spec['lengths']}")
    return "-".join(parts)


@pytest.mark.parametrize("spec", _module_specs(), ids=_name)
def test_module_matches_pytorch(spec, real_torch):
    _compare(spec, real_torch)


@pytest.mark.parametrize("spec", _packed_specs(), ids=_name)
def test_packed_input_matches_pytorch(spec, real_torch):
    _compare(spec, real_torch)


def _cell_specs() -> list:
    specs = []
    for cls, kw in (
        ("RNNCell", {}),
        ("RNNCell", {"nonlinearity": "relu", "bias": False}),
        ("LSTMCell", {}),
        ("LSTMCell", {"bias": False}),
        ("GRUCell", {}),
        ("GRUCell", {"bias": False}),
    ):
        states = 2 if cls == "LSTMCell" else 1
        for double in (False, True):
            base = {"cls": cls, "args": (3, 4), "kw": kw, "double": double}
            specs += [
                {**base, "x": (2, 3)},
                {**base, "x": (2, 3), "h": [(2, 4)] * states},
                {**base, "x": (3,), "h": [(4,)] * states},
                {**base, "x": (3,)},
            ]
    return specs


@pytest.mark.parametrize("spec", _cell_specs(), ids=_name)
def test_cell_matches_pytorch(spec, real_torch):
    _compare(spec, real_torch)


MODULES = """
nn = torch.nn
torch.manual_seed(0)
print(nn.LSTM(10, 20, num_layers=2), nn.GRU(3, 4, bias=False, batch_first=True, num_layers=2,
      dropout=0.25, bidirectional=True), nn.RNN(3, 4, nonlinearity='relu'),
      nn.LSTM(3, 4, proj_size=2), nn.LSTMCell(2, 3), nn.RNNCell(2, 3, nonlinearity='relu',
      bias=False), nn.GRUCell(2, 3))
lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
print([(n, tuple(p.shape)) for n, p in lstm.named_parameters()])
print(list(lstm.state_dict().keys()), len(lstm.all_weights), [len(w) for w in lstm.all_weights])
print(list(nn.RNNCell(2, 3).state_dict().keys()), nn.GRUCell(2, 3, bias=False).bias_ih)
g = nn.GRU(2, 3)
print(g.weight_ih_l0, g.bias_hh_l0)
g.flatten_parameters()
print(isinstance(g, nn.RNNBase), isinstance(nn.GRUCell(2, 3), nn.RNNCellBase))
tagger = nn.Sequential(nn.Embedding(5, 3))
print(nn.ModuleDict({'rnn': nn.LSTM(3, 3), 'cell': nn.GRUCell(3, 2)}))
x = torch.randn(4, 1, 2)
out, h = g.double()(x.double())
print(out.dtype, out, h)
with torch.no_grad():
    out, (h, c) = nn.LSTM(2, 3)(x)
print(out.requires_grad, out, h, c)
"""


def test_reprs_parameters_and_state_dict(real_torch):
    assert printed(MODULES, gtorch) == printed(MODULES, real_torch)


ERRORS = """
import warnings
nn = torch.nn
attempts = [
    lambda: nn.RNNCell(3, 4)(torch.randn(2, 2)),
    lambda: nn.RNNCell(3, 4)(torch.randn(2, 3), torch.randn(3, 4)),
    lambda: nn.RNNCell(3, 4)(torch.randn(2, 3), torch.randn(2, 5)),
    lambda: nn.RNNCell(3, 4)(torch.randn(2, 3), torch.randn(1, 2, 4)),
    lambda: nn.GRUCell(3, 4)(torch.randn(1, 2, 3)),
    lambda: nn.GRUCell(3, 4)(torch.randn(2, 3), torch.randn(1, 2, 4)),
    lambda: nn.LSTMCell(3, 4)(torch.randn(2, 3), (torch.randn(2, 4), torch.randn(3, 4))),
    lambda: nn.LSTMCell(3, 4)(torch.randn(2, 3), (torch.randn(2, 4), torch.randn(1, 2, 4))),
    lambda: nn.LSTMCell(3, 4)(torch.randn(4, 1, 3)),
    lambda: nn.RNNCell(3, 4, nonlinearity='foo')(torch.randn(2, 3)),
    lambda: nn.RNN(3, 4)(torch.randn(5, 2, 3), torch.randn(2, 2, 4)),
    lambda: nn.RNN(3, 4)(torch.randn(5, 2, 3), torch.randn(2, 4)),
    lambda: nn.RNN(3, 4)(torch.randn(5, 3), torch.randn(1, 2, 4)),
    lambda: nn.RNN(3, 4)(torch.randn(1, 5, 2, 3)),
    lambda: nn.GRU(3, 4)(torch.randn(1, 5, 2, 3)),
    lambda: nn.LSTM(3, 4)(torch.randn(1, 5, 2, 3)),
    lambda: nn.LSTM(3, 4)(torch.randn(5, 2, 3), (torch.randn(1, 2, 4), torch.randn(1, 2, 5))),
    lambda: nn.LSTM(3, 4)(torch.randn(5, 2, 3), (torch.randn(1, 1, 4), torch.randn(1, 2, 4))),
    lambda: nn.LSTM(3, 4)(torch.randn(5, 2, 3), (torch.randn(1, 2, 4), torch.randn(2, 4))),
    lambda: nn.LSTM(3, 4)(torch.randn(5, 3), (torch.randn(1, 2, 4), torch.randn(2, 4))),
    lambda: nn.LSTM(3, 4)(torch.randn(5, 2, 2)),
    lambda: nn.LSTM(3, 4)(torch.randn(0, 2, 3)),
    lambda: nn.GRU(3, 4)(torch.randn(0, 2, 3)),
    lambda: nn.GRU(3, 4)(torch.randn(5, 2, 3, dtype=torch.float64)),
    lambda: nn.LSTM(3, 4)(torch.randn(5, 2, 3, dtype=torch.float64)),
    lambda: nn.GRU(3, 4, proj_size=2),
    lambda: nn.LSTM(3, 4, proj_size=4),
    lambda: nn.LSTM(3, 4, proj_size=-1),
    lambda: nn.LSTM(3, 0),
    lambda: nn.LSTM(3, 4.0),
    lambda: nn.LSTM(3, 4, 0),
    lambda: nn.LSTM(3, 4, dropout=2),
    lambda: nn.LSTM(3, 4, bias=1),
    lambda: nn.RNN(3, 4, nonlinearity='sigmoid'),
]
for attempt in attempts:
    try:
        attempt()
        print('no error')
    except Exception as e:
        print(type(e).__name__, e)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    print(nn.LSTM(3, 4, dropout=0.3), nn.RNN(3, 4, 2, 'relu', False, True, 0.5, True))
print([(w.category.__name__, str(w.message)) for w in caught])
"""


def test_errors_and_warnings(real_torch):
    assert printed(ERRORS, gtorch) == printed(ERRORS, real_torch)


PROJ_WARNS_ONCE = """
import warnings
warnings.simplefilter('always')
m = torch.nn.LSTM(3, 4, proj_size=2)
for _ in range(2):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        m(torch.randn(2, 1, 3))
    print([(w.category.__name__, str(w.message)) for w in caught])
"""


def test_lstm_with_projections_warns_once_per_process(real_torch, tmp_path):
    # Once per process in PyTorch: each side runs in a fresh process.
    script = tmp_path / "proj.py"
    script.write_text("import torch\n" + PROJ_WARNS_ONCE, encoding="utf-8")
    theirs = oracle.computed(
        "rnn proj warning " + PROJ_WARNS_ONCE,
        lambda t: (
            subprocess.run(
                [sys.executable, str(script)], capture_output=True, text=True, check=True
            ).stdout
        ),
        real_torch,
    )
    # gradshell's process is this one: start it with no warn-once message given yet.
    given = warn_once.given()
    warn_once.restore(frozenset())
    try:
        ours = printed(PROJ_WARNS_ONCE, gtorch)
    finally:
        warn_once.restore(given)
    assert ours == theirs


# -- float64 finite differences --------------------------------------------------------------
def _leaf(rng, *shape):
    return gtorch.tensor(rng.standard_normal(shape), requires_grad=True)


@pytest.mark.parametrize("reverse", [False, True])
def test_onednn_layer_gradients_float64(reverse):
    # The oneDNN LSTM layer runs only in float32 inside nn.LSTM; its kernel and node work
    # in any float dtype, so its backward (and create_graph) is checked in float64 here.
    rng = np.random.default_rng(0)
    steps, batch, inp, hid = 3, 2, 2, 3
    x, wi, wh = _leaf(rng, steps, batch, inp), _leaf(rng, 4 * hid, inp), _leaf(rng, 4 * hid, hid)
    bi, bh, h0, c0 = (
        _leaf(rng, 4 * hid),
        _leaf(rng, 4 * hid),
        _leaf(rng, batch, hid),
        _leaf(rng, batch, hid),
    )

    def layer(*a):
        return rnn_ops.mkldnn_rnn_layer(*a, reverse)

    assert type(layer(x, wi, wh, bi, bh, h0, c0)[0].grad_fn).__name__ == "MkldnnRnnLayerBackward0"
    assert gradcheck(layer, x, wi, wh, bi, bh, h0, c0)
    assert gradgradcheck(layer, x, wi, wh, bi, bh, h0, c0)

    def no_bias(x, wi, wh, h0, c0):
        return rnn_ops.mkldnn_rnn_layer(x, wi, wh, None, None, h0, c0, reverse)

    assert gradcheck(no_bias, x, wi, wh, h0, c0)

    def only_output(*a):
        return rnn_ops.mkldnn_rnn_layer(*a, reverse)[0]

    assert gradcheck(only_output, x, wi, wh, bi, bh, h0, c0)


def test_onednn_stack_gradients_float64():
    rng = np.random.default_rng(1)
    steps, batch, inp, hid = 3, 2, 2, 2
    weights = []
    for layer in range(2):
        for _ in range(2):
            width = inp if layer == 0 else 2 * hid
            weights += [_leaf(rng, 4 * hid, width), _leaf(rng, 4 * hid, hid)]
            weights += [_leaf(rng, 4 * hid), _leaf(rng, 4 * hid)]

    def stacked(x, h0, c0, *ws):
        params = [(*ws[i : i + 4], None) for i in range(0, len(ws), 4)]
        return rnn_ops.mkldnn_lstm(x, h0, c0, params, 2, 0.0, True, True)

    x, h0, c0 = _leaf(rng, steps, batch, inp), _leaf(rng, 4, batch, hid), _leaf(rng, 4, batch, hid)
    assert gradcheck(stacked, x, h0, c0, *weights)


@pytest.mark.parametrize(
    "cls,kw",
    [
        ("RNN", {"num_layers": 2, "bidirectional": True}),
        ("RNN", {"nonlinearity": "relu", "batch_first": True}),
        ("GRU", {"num_layers": 2, "bidirectional": True}),
        ("LSTM", {"num_layers": 2, "bidirectional": True}),
        ("LSTM", {"proj_size": 2, "batch_first": True}),
    ],
)
def test_module_gradients_float64(cls, kw):
    gtorch.manual_seed(0)
    m = getattr(gtorch.nn, cls)(2, 3, **kw).double()
    rng = np.random.default_rng(2)
    x = _leaf(rng, 3, 2, 2)
    params = list(m.parameters())

    def run(x, *ps):
        out, h = m(x)
        return (out, *h) if isinstance(h, tuple) else (out, h)

    assert gradcheck(run, x, *params)
    assert gradgradcheck(run, x, *params[:2])


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_gradients_float64(cls):
    gtorch.manual_seed(0)
    m = getattr(gtorch.nn, cls)(2, 3).double()
    rng = np.random.default_rng(3)
    x, h = _leaf(rng, 2, 2), _leaf(rng, 2, 3)
    hx = (lambda h: (h, h * 2)) if cls == "LSTMCell" else (lambda h: h)

    def run(x, h, *ps):
        return m(x, hx(h))

    assert gradcheck(run, x, h, *m.parameters())
    assert gradgradcheck(run, x, h, *m.parameters())


# -- linear of a non-contiguous input (a batch_first sequence, transposed) -----------------------
LINEAR = {
    "3-D": lambda t, x, w, b: t.nn.functional.linear(x.transpose(0, 1), w, b),
    "4-D": lambda t, x, w, b: t.nn.functional.linear(x.view(2, 2, 3, 4).transpose(1, 2), w, b),
    "contiguous 4-D": lambda t, x, w, b: t.nn.functional.linear(x.view(2, 2, 3, 4), w, b),
}


@pytest.mark.parametrize("name", sorted(LINEAR))
@pytest.mark.parametrize("weight_grad", [True, False])
def test_linear_of_a_non_contiguous_input(name, weight_grad):
    # PyTorch flattens only a contiguous input into addmm; another goes through matmul
    # and then adds the bias (AddBackward0), as RNN/GRU with batch_first show.
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 3, 4)).astype(np.float32)
    w = Arg(rng.standard_normal((5, 4)).astype(np.float32), requires_grad=weight_grad)
    check(LINEAR[name], x, w, rng.standard_normal(5).astype(np.float32))


# -- nn.utils.rnn --------------------------------------------------------------------------
PAD = """
from importlib import import_module
R = import_module(torch.__name__ + '.nn.utils.rnn')
torch.manual_seed(0)
a = torch.randn(3, 2, requires_grad=True); b = torch.randn(1, 2, requires_grad=True)
c = torch.randn(2, 2)
for kw in ({}, {'batch_first': True}, {'padding_value': -1.5, 'padding_side': 'left'},
           {'batch_first': True, 'padding_side': 'left'}):
    p = R.pad_sequence([a, b, c], **kw)
    print(p, [type(f).__name__ if f else None for f, _ in p.grad_fn.next_functions])
    (p * p).sum().backward()
    print(a.grad, b.grad)
    a.grad = None
    b.grad = None
print(R.pad_sequence(torch.randn(2, 3)).shape)
print(R.pad_sequence([torch.tensor([1, 2]), torch.tensor([3])]))
print(R.pad_sequence([torch.randn(2), torch.randn(1, dtype=torch.float64)], padding_value=2).dtype)
p = R.pad_sequence([a, b, c])
print(R.unpad_sequence(p, torch.tensor([3, 1, 2])), p.shape, type(p.grad_fn).__name__)
for bad in (lambda: R.pad_sequence([a, torch.randn(2, 3)]), lambda: R.pad_sequence([]),
            lambda: R.pad_sequence([a], padding_side='up')):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
gru = torch.nn.GRU(2, 3, batch_first=True)
out, h = gru(R.pad_sequence([a, b, c], batch_first=True))
print(out, h)
"""


def test_pad_sequence(real_torch):
    assert printed(PAD, gtorch) == printed(PAD, real_torch)


PACKED = """
from importlib import import_module
R = import_module(torch.__name__ + '.nn.utils.rnn')
torch.manual_seed(0)
x = torch.randn(3, 2, 2, requires_grad=True)
p = R.pack_padded_sequence(x, [3, 2])
print(p, p.data.grad_fn, type(p).__name__, isinstance(p, tuple), p.batch_sizes.dtype)
u, lengths = R.pad_packed_sequence(p)
print(u, lengths)
(u * u).sum().backward()
print(x.grad)
q = R.pack_padded_sequence(x.transpose(0, 1), torch.tensor([2, 3]), batch_first=True,
                           enforce_sorted=False)
print(q)
print(R.pad_packed_sequence(q, batch_first=True, padding_value=-1.0, total_length=4))
seqs = [torch.randn(2, 1, requires_grad=True), torch.randn(3, 1), torch.randn(1, 1)]
s = R.pack_sequence(seqs, enforce_sorted=False)
print(s, R.unpack_sequence(s))
print(R.pack_sequence([seqs[1], seqs[0]]).data.grad_fn)
print(R.invert_permutation(torch.tensor([2, 0, 1])), R.invert_permutation(None))
print(R.PackedSequence(torch.randn(3), torch.tensor([2, 1])), p.to(torch.float64).data.dtype)
print(p.double().data.dtype, p.is_cuda, p.float() is p)
for bad in (lambda: R.pack_padded_sequence(x, [2, 3]), lambda: R.pack_padded_sequence(x, [3, 0]),
            lambda: R.pack_padded_sequence(x, [3]),
            lambda: R.pad_packed_sequence(p, total_length=2),
            lambda: torch.nn.GRU(2, 3)(p, torch.randn(1, 3, 3)),
            lambda: torch.nn.GRU(2, 3)(R.pack_sequence([torch.randn(2, 3)]))):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_packed_sequences(real_torch):
    assert printed(PACKED, gtorch) == printed(PACKED, real_torch)


def test_pack_padded_gradients_float64():
    from gradshell.torch.nn.utils import rnn as rnn_utils

    rng = np.random.default_rng(6)
    x = _leaf(rng, 4, 3, 2)

    def packed(x):
        return rnn_utils.pack_padded_sequence(x, [4, 2, 1]).data

    def batch_first_unsorted(x):
        return rnn_utils.pack_padded_sequence(x, [2, 3, 1, 3], True, enforce_sorted=False).data

    def round_trip(x):
        p = rnn_utils.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        return rnn_utils.pad_packed_sequence(p, total_length=5)[0]

    assert gradcheck(packed, x)
    assert gradgradcheck(packed, x)
    assert gradcheck(batch_first_unsorted, x)
    assert gradcheck(round_trip, x)
    assert gradgradcheck(round_trip, x)
