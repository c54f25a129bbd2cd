"""What a learner can print names PyTorch's classes, never gradshell's modules:
`type(p)`, `type(y.grad_fn)`, `torch.no_grad`, `type(nn.Linear(2, 3))`... read as in
PyTorch 2.13, checked by sweeping the public namespace against real PyTorch."""

from __future__ import annotations

import types

from support.tutorials import normalise, printed

from gradshell import torch as gtorch
from gradshell.shell.session import Session


def _public_items(module, prefix: str, seen: set):
    """(dotted name, value) for every public name of gradshell's torch modules, recursively."""
    for name in sorted(vars(module)):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith("gradshell.torch") and value.__name__ not in seen:
                seen.add(value.__name__)
                yield from _public_items(value, f"{prefix}{name}.", seen)
            continue
        yield prefix + name, value


PUBLIC = list(_public_items(gtorch, "torch.", set()))


def _real_attr(real_torch, dotted: str):
    obj = real_torch
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def test_no_public_class_or_value_prints_a_gradshell_path():
    bad = []
    for dotted, value in PUBLIC:
        shown = repr(value) if isinstance(value, type) else repr(type(value))
        if "gradshell" in shown:
            bad.append(f"{dotted}: {shown}")
    assert not bad, "\n".join(bad)


def test_public_classes_print_as_pytorch_prints_them(real_torch):
    checked = 0
    bad = []
    for dotted, value in PUBLIC:
        if not isinstance(value, type):
            continue  # asked of classes only, so a helper import never changes the questions
        theirs = _real_attr(real_torch, dotted)
        if not isinstance(theirs, type):
            continue
        if theirs.__module__.startswith(("collections", "typing")):
            continue  # a name real torch merely imports (torch.random.Generator)
        checked += 1
        if repr(value) != repr(theirs):
            bad.append(f"{dotted}: {value!r} != {theirs!r}")
    assert checked > 60
    assert not bad, "\n".join(bad)


PROGRAM = """
import torch
import torch.nn as nn
p = nn.Parameter(torch.ones(2))
print(type(p))
print(torch.no_grad, torch.enable_grad, torch.set_grad_enabled, torch.inference_mode)
print(type(torch.no_grad()), type(torch.strided), type(torch.float32), torch.Size)
print(type(nn.Linear(2, 3)), type(nn.ReLU()), type(nn.Sequential()), nn.Module)
print(type(nn.MSELoss()), torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW)
print(torch.autograd.Variable, torch.autograd.detect_anomaly, type(torch.ones(1)))
x = torch.ones(2, requires_grad=True)
y = (x.exp() + 1).sum()
print(type(y.grad_fn), y.grad_fn.next_functions)
node = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
print(type(node), node, node.name(), node.variable)
z = x * 1
z[0] = 3.
print(type(z.grad_fn), z.grad_fn.name(), z.grad_fn.metadata)
w = x.clone().detach()
w.copy_(x)
print(type(w.grad_fn), w.grad_fn.name())
print(type(x.register_hook(lambda g: g)), type(torch.ones(2, 2).max(0)))
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)
print(type(Net()), type(Net().fc.weight))
"""


def test_program_prints_pytorch_names_in_the_shell(real_torch):
    # run whole in PyTorch (it subclasses nn.Module), its printout recorded
    expected = printed(PROGRAM, real_torch, {"__name__": "__main__"})
    result = Session(viz=False).run_script(PROGRAM, "<prog>")
    assert result.error is None, result.output
    assert "Error" not in expected
    assert normalise(result.output) == expected
    assert "gradshell" not in result.output
