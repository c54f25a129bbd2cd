"""A model's parameters are named as the learner reaches them (`model[2].weight`,
`net.fc1.weight`) in panels, %ledger, %graph and DOT, listed in the module's order."""

from __future__ import annotations

MODEL = [
    "import torch.nn as nn",
    "torch.manual_seed(0)",
    "model = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))",
    "loss = model(torch.ones(4, 3)).sum()",
]

NET = [
    "import torch.nn as nn",
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc1 = nn.Linear(2, 2)\n"
    "        self.fc2 = nn.Linear(2, 1)\n"
    "    def forward(self, x):\n"
    "        return self.fc2(torch.tanh(self.fc1(x)))\n",
    "net = Net()",
    "out = net(torch.ones(1, 2)).sum()",
]


def run(session, cells):
    for cell in cells:
        r = session.run_cell(cell)
        assert r.error is None, r.output


def test_a_sequential_models_parameters_are_named_in_module_order(vs):
    s = vs
    run(s, MODEL)
    visual = s.run_cell("loss.backward()").visual
    titles = [line.split("─ ")[1].split(" ")[0] for line in visual.splitlines() if "╭─" in line]
    assert titles == [
        "model[0].weight.grad",
        "model[0].bias.grad",
        "model[2].weight.grad",
        "model[2].bias.grad",
    ]
    assert "<leaf" not in visual


def test_a_subclassed_modules_parameters_are_named_by_attribute(vs):
    s = vs
    run(s, NET)
    visual = s.run_cell("out.backward()").visual
    order = [
        visual.index(f"net.{n}.grad") for n in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")
    ]
    assert order == sorted(order)
    ledger = s.run_cell("%ledger net.fc2.bias").visual
    assert "net.fc2.bias" in ledger


def test_graph_and_dot_name_the_parameters(vs, tmp_path):
    s = vs
    run(s, MODEL)
    graph = s.run_cell("%graph loss").visual
    assert "AccumulateGrad → model[0].weight" in graph and "model[2].bias" in graph
    assert "<leaf" not in graph
    r = s.run_cell("%graph loss --dot model.dot")
    assert r.error is None
    dot = (tmp_path / "model.dot").read_text(encoding="utf-8")
    assert "model[0].weight" in dot and "model[2].bias" in dot


def test_a_variable_bound_to_a_parameter_keeps_its_own_name(vs):
    s = vs
    run(s, [*MODEL, "w = model[0].weight"])
    visual = s.run_cell("loss.backward()").visual
    assert "╭─ w.grad" in visual and "model[0].bias.grad" in visual
