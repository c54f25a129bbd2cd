"""torch.nn modules: registration of parameters/submodules/buffers, iteration, train/eval,
zero_grad, state_dict/load_state_dict, conversion, reprs (Module, Sequential's indented
form, `Parameter containing:`) and error messages — compared with PyTorch.

A module class written on top of PyTorch's runs PyTorch's own machinery, which the
oracle's proxies cannot stand in for: those tests ask PyTorch in one piece
(`oracle.computed`), recorded as plain values."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from support import oracle

from gradshell import torch as gtorch

torch = pytest.importorskip("torch")


def build(lib):
    """The same little zoo of modules, built with either library."""
    nn = lib.nn
    return nn.Sequential(
        nn.Linear(2, 3),
        nn.ReLU(),
        nn.Dropout(0.2),
        nn.Sequential(nn.Tanh(), nn.Sigmoid()),
        nn.Softmax(dim=1),
        nn.Flatten(),
        nn.MSELoss(),
        nn.CrossEntropyLoss(),
        nn.BCELoss(),
        nn.LeakyReLU(0.1),
        nn.GELU(),
        nn.Linear(3, 1, bias=False),
        nn.Identity(),
        nn.Softmax(),
        nn.ELU(),
        nn.SiLU(),
        nn.LogSoftmax(1),
        nn.L1Loss(),
        nn.NLLLoss(),
        nn.BCEWithLogitsLoss(),
        nn.SmoothL1Loss(),
        nn.Dropout(),
        nn.ReLU(inplace=True),
        nn.LeakyReLU(inplace=True),
        nn.Softplus(),
        nn.Unflatten(1, (2, 2)),
        nn.CrossEntropyLoss(weight=lib.ones(2)),
    )


def test_reprs_match_pytorch():
    assert repr(build(gtorch)) == repr(build(torch))
    for lib_pair in ((gtorch, torch),):
        g, t = lib_pair
        assert repr(g.nn.ModuleList([g.nn.Linear(2, 2), g.nn.Linear(2, 2), g.nn.ReLU()])) == repr(
            t.nn.ModuleList([t.nn.Linear(2, 2), t.nn.Linear(2, 2), t.nn.ReLU()])
        )
        assert repr(g.nn.ModuleDict({"a": g.nn.ReLU()})) == repr(
            t.nn.ModuleDict({"a": t.nn.ReLU()})
        )
        assert repr(g.nn.Sequential()) == repr(t.nn.Sequential())
        assert repr(g.nn.Module()) == repr(t.nn.Module())


class _Net:
    """A user-defined Module subclass, as tutorials write them."""

    @staticmethod
    def make(lib):
        nn = lib.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(2, 3)
                self.act = nn.ReLU()
                self.fc2 = nn.Linear(3, 1)
                self.register_buffer("scale", lib.ones(1) * 2)
                self.note = "plain attribute"

            def forward(self, x):
                return self.fc2(self.act(self.fc1(x))) * self.scale

        return Net()


def _names(m) -> dict:
    """What a learner reads of a module's structure."""
    return {
        "repr": repr(m),
        "parameters": [n for n, _ in m.named_parameters()],
        "modules": [n for n, _ in m.named_modules()],
        "children": [n for n, _ in m.named_children()],
        "buffers": [n for n, _ in m.named_buffers()],
        "state_dict": list(m.state_dict()),
    }


def test_user_module_registration_and_iteration():
    # the subclass lives in PyTorch: its answers are computed (and recorded) in one piece
    theirs = oracle.computed("user module names", lambda t: _names(_Net.make(t)), torch)
    g = _Net.make(gtorch)
    assert _names(g) == theirs
    assert len(list(g.parameters())) == 4
    assert all(isinstance(p, gtorch.nn.Parameter) for p in g.parameters())
    assert isinstance(g.fc1.weight, gtorch.Tensor)
    assert g.note == "plain attribute"
    assert g.fc1 is g._modules["fc1"]


def _forward(lib, state: dict | None = None) -> dict:
    """A user module's weights, output and gradients (with `state`'s weights, if given)."""
    lib.manual_seed(0)
    m = _Net.make(lib)
    if state is not None:
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    x = np.linspace(-1, 1, 10).reshape(5, 2).astype(np.float32)
    out = m(lib.tensor(x))
    out.sum().backward()
    return {
        "state": {k: v.numpy() for k, v in m.state_dict().items()},
        "out": out.detach().numpy(),
        "grad_fn": out.grad_fn.name(),
        "grads": {n: p.grad.numpy() for n, p in m.named_parameters()},
    }


def test_forward_matches_pytorch_with_copied_weights():
    theirs = oracle.computed("user module forward", _forward, torch)
    ours = _forward(gtorch, theirs["state"])
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=1e-6)
    assert ours["grad_fn"] == theirs["grad_fn"]
    assert list(ours["grads"]) == list(theirs["grads"])
    for n, grad in theirs["grads"].items():
        np.testing.assert_allclose(ours["grads"][n], grad, rtol=1e-5, err_msg=n)


def test_train_eval_and_zero_grad():
    g = _Net.make(gtorch)
    assert g.training and g.fc1.training
    assert g.eval() is g
    assert not g.training and not g.fc1.training
    g.train()
    assert g.act.training
    g(gtorch.ones(1, 2)).sum().backward()
    assert all(p.grad is not None for p in g.parameters())
    g.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in g.parameters())
    g.zero_grad()
    assert all(p.grad is None for p in g.parameters())


def test_dropout_module_follows_training_flag():
    d = gtorch.nn.Dropout(0.5)
    x = gtorch.ones(200)
    assert (d(x).numpy() == 0).any()
    d.eval()
    assert d(x) is x


def _state_dict_answers(lib) -> dict:
    """What load_state_dict says for a good, an incomplete and a mis-sized state dict."""
    m = _Net.make(lib)
    said = {"ok": repr(m.load_state_dict(m.state_dict()))}
    bad = dict(m.state_dict())
    del bad["fc1.bias"]
    bad["extra"] = lib.zeros(1)
    try:
        m.load_state_dict(bad)
    except RuntimeError as e:
        said["missing"] = str(e)
    said["not strict"] = repr(m.load_state_dict(bad, strict=False))
    sized = dict(m.state_dict())
    sized["fc1.bias"] = lib.zeros(5)
    try:
        m.load_state_dict(sized)
    except RuntimeError as e:
        said["size"] = str(e)
    return said


def test_state_dict_round_trip_and_errors():
    theirs = oracle.computed("user module state dicts", _state_dict_answers, torch)
    assert set(theirs) == {"ok", "missing", "not strict", "size"}
    assert all(not v.requires_grad for v in _Net.make(gtorch).state_dict().values())
    assert _state_dict_answers(gtorch) == theirs


def test_load_state_dict_copies_values():
    src, dst = gtorch.nn.Linear(3, 2), gtorch.nn.Linear(3, 2)
    w = dst.weight
    dst.load_state_dict(src.state_dict())
    assert dst.weight is w  # the same Parameter object, new values
    np.testing.assert_array_equal(dst.weight.detach().numpy(), src.weight.detach().numpy())


@pytest.mark.parametrize(
    "action",
    [
        lambda lib, m: setattr(m, "weight", lib.ones(2, 2)),
        lambda lib, m: m.nonexistent,
        lambda lib, m: lib.nn.Module().forward(1),
        lambda lib, m: m.register_parameter("a.b", None),
        lambda lib, m: lib.nn.Parameter(lib.ones(2, dtype=lib.long)),
        lambda lib, m: lib.nn.Dropout(1.5),
        lambda lib, m: m.register_buffer("weight", lib.ones(1)),
        lambda lib, m: m.add_module("x", 3),
    ],
)
def test_errors_match_pytorch(action):
    msgs = []
    for lib in (gtorch, torch):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(Exception) as e:
            action(lib, m)
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]


def _assign_before_init(lib) -> str:
    class Bad(lib.nn.Module):
        def __init__(self, lib=lib):
            self.layer = lib.nn.Linear(1, 1)

    with pytest.raises(AttributeError) as e:
        Bad()
    return str(e.value)


def test_assignment_before_init_is_refused():
    theirs = oracle.computed("assignment before __init__", _assign_before_init, torch)
    assert _assign_before_init(gtorch) == theirs


def test_parameter_printing_and_behaviour():
    for requires_grad in (True, False):
        g = gtorch.nn.Parameter(gtorch.ones(2), requires_grad=requires_grad)
        t = torch.nn.Parameter(torch.ones(2), requires_grad=requires_grad)
        assert repr(g) == repr(t)
    g = gtorch.nn.Parameter(gtorch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    t = torch.nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert repr(g) == repr(t)
    assert g.is_leaf and g.grad_fn is None
    assert type(g * 2) is gtorch.Tensor and type(g.data) is gtorch.Tensor
    assert isinstance(g, gtorch.nn.Parameter) and isinstance(g, gtorch.Tensor)
    assert repr(gtorch.nn.Linear(2, 2)) == repr(torch.nn.Linear(2, 2))


def test_copy_and_pickle():
    m = _Net.make(gtorch)
    c = copy.deepcopy(m)
    assert c.fc1.weight is not m.fc1.weight
    np.testing.assert_array_equal(c.fc1.weight.detach().numpy(), m.fc1.weight.detach().numpy())
    assert isinstance(c.fc1.weight, gtorch.nn.Parameter)
    p = pickle.loads(pickle.dumps(m.fc1.weight))
    assert isinstance(p, gtorch.nn.Parameter) and p.requires_grad


def test_dtype_conversion_keeps_parameter_objects():
    m = gtorch.nn.Linear(2, 2)
    w = m.weight
    assert m.double() is m
    assert m.weight is w and m.weight.dtype == gtorch.float64
    m.to(gtorch.float32)
    assert m.weight.dtype == gtorch.float32
    m.to("cpu")
    assert m.weight.device.type == "cpu"
    with pytest.raises(TypeError, match="only accepts floating point"):
        m.to(gtorch.int64)


def test_containers():
    nn = gtorch.nn
    s = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    assert isinstance(s[0], nn.Linear) and isinstance(s[-1], nn.ReLU) and len(s) == 2
    assert repr(s[0:1]) == repr(torch.nn.Sequential(torch.nn.Linear(2, 2)))
    s.append(nn.Tanh())
    assert [type(m).__name__ for m in s] == ["Linear", "ReLU", "Tanh"]
    ml = nn.ModuleList([nn.Linear(1, 1)])
    ml.append(nn.Linear(1, 1))
    assert len(list(ml.parameters())) == 4
    md = nn.ModuleDict({"a": nn.Linear(1, 1)})
    assert "a" in md and len(list(md.parameters())) == 2


def test_forward_hooks():
    m = gtorch.nn.Linear(2, 2)
    seen = []
    h = m.register_forward_hook(lambda mod, args, out: seen.append(tuple(out.shape)))
    m(gtorch.ones(3, 2))
    h.remove()
    m(gtorch.ones(3, 2))
    assert seen == [(3, 2)]
