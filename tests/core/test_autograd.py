"""Autograd semantics and the errors learners hit, program by program against PyTorch."""

import pytest
from support.differential import compare

PROGRAMS = [
    # the seeds
    "x = torch.ones(2, 2, requires_grad=True); y = x + 2; z = y * y * 3; out = z.mean(); out.backward(); g = x.grad",
    "x = torch.tensor([2., 2., 2.], requires_grad=True); y = x * 2; y.backward(torch.FloatTensor([0.1, 1, 10])); a = x.grad.clone()",
    "x = torch.tensor([2., 2., 2.], requires_grad=True); y = x * 2; y.backward(torch.FloatTensor([0.1, 1, 10])); y.backward(torch.FloatTensor([0.1, 1, 10]))",
    "x = torch.tensor([2., 2., 2.], requires_grad=True); y = x * 2; y.backward(torch.ones(3), retain_graph=True); y.backward(torch.ones(3)); g = x.grad",
    "x = torch.tensor([2., 2., 2.], requires_grad=True); y = x + 2; y.backward(torch.ones(3)); y.backward(torch.ones(3)); g = x.grad",
    "x = torch.ones(2, 2, requires_grad=True); y = x.mean(); y.backward(); y.backward(); g = x.grad",
    "x = torch.tensor([2., 2., 2.], requires_grad=True); y = x * 2; y.backward(torch.ones(3)); x.grad.data.zero_(); g1 = x.grad.clone(); y2 = x * 2; y2.backward(torch.ones(3)); g2 = x.grad",
    "x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * x; y.backward(torch.FloatTensor([3, 2, 1])); g = x.grad",
    "x = torch.ones(2, 2, requires_grad=True); y = x + 2; z = y * y * 3; zm = z.mean(); zm.backward(); s1 = x.sum(); s1.backward(); g1 = x.grad.clone(); s2 = x.sum(); x.grad.data.zero_(); s2.backward(); g2 = x.grad",
    "x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True); y = x * 2; z = torch.tensor([[1.0, 1.0], [1.0, 1.0]]); y.backward(z); g = x.grad",
    "x = torch.tensor(1.0, requires_grad=True); y = x ** 2\nwith torch.no_grad():\n    y2 = x ** 2\ny3 = y + y2; y3.backward(); g = x.grad; rg = (y.requires_grad, y2.requires_grad, y3.requires_grad)",
    "x = torch.tensor(1.0, requires_grad=True); d = x.data; drg = d.requires_grad; y = x * 2; x.data *= 100; y.backward(); g = x.grad",
    "x = torch.tensor(3.); w = torch.tensor(4., requires_grad=True); b = torch.tensor(5., requires_grad=True); y = w * x + b; y.backward(); gs = (x.grad, w.grad, b.grad)",
    "x1 = torch.from_numpy(2 * np.ones((2, 2), dtype=np.float32)); x1.requires_grad_(True); w1 = torch.from_numpy(5 * np.ones((2, 2), dtype=np.float32)); w1.requires_grad_(True); x2 = x1 * w1; w2 = torch.from_numpy(6 * np.ones((2, 2), dtype=np.float32)); w2.requires_grad_(True); y = x2 * w2; Y = torch.from_numpy(10 * np.ones((2, 2), dtype=np.float32)); L = Y - y; L.backward(torch.ones(2, 2, dtype=torch.float)); gs = (x1.grad, w1.grad, w2.grad); L2 = x1 * x1; L2.backward(torch.ones(2, 2, dtype=torch.float)); g2 = x1.grad",
    "a = torch.tensor([2., 3.], requires_grad=True); b = a + 3; c = b * b * 3; out = c.mean(); out.backward(retain_graph=True); g = a.grad",
    "x = torch.tensor([2, 3], requires_grad=True, dtype=torch.float64); y = (x * x).sum(); y.backward(); g = x.grad",
    # requires_grad rules
    "x = torch.ones(2); x.requires_grad = True; y = x * 2; r = (x.is_leaf, y.is_leaf, y.requires_grad, x.grad_fn)",
    "x = torch.ones(2, requires_grad=True); y = x * 2; y.requires_grad_(False)",
    "x = torch.ones(2, requires_grad=True); y = x * 2; y.requires_grad = True; r = y.requires_grad",
    "x = torch.tensor([1, 2]); x.requires_grad_()",
    "x = torch.tensor([1, 2]); x.requires_grad = True",
    "x = 2 * torch.ones(2, 2, requires_grad=True); r = x.is_leaf",
    "x = torch.ones(2, requires_grad=True); y = x.detach(); r = (y.requires_grad, y.is_leaf, y.grad_fn)",
    "x = torch.ones(2, requires_grad=True); y = x * 2; y.detach_(); r = (y.requires_grad, y.is_leaf)",
    # grad_fn graph
    "x = torch.ones(2, 2, requires_grad=True); y = x + 2; r = (y.grad_fn.name(), [(type(f).__name__ if f else None, i) for f, i in y.grad_fn.next_functions], y.grad_fn.next_functions[0][0].variable is x)",
    "w = torch.ones(2, requires_grad=True); x = torch.ones(2); b = torch.ones(2, requires_grad=True); y = w * x + b; r = [(type(f).__name__ if f else None, i) for f, i in y.grad_fn.next_functions]",
    "x = torch.ones(3, requires_grad=True); r = [type(f).__name__ if f else None for f, _ in (2 - x).grad_fn.next_functions] + [type(f).__name__ if f else None for f, _ in (2 / x).grad_fn.next_functions] + [(2 ** x).grad_fn.name(), (x ** x).grad_fn.name(), (-x).grad_fn.name()]",
    "x = torch.ones(2, 2, requires_grad=True); r = [x.sum().grad_fn.name(), x.sum(0).grad_fn.name(), x.mean().grad_fn.name(), x.mean(1).grad_fn.name(), x.norm().grad_fn.name(), x.t().grad_fn.name(), x.view(4).grad_fn.name(), x[0].grad_fn.name(), x[0:1].grad_fn.name(), (x @ x).grad_fn.name(), x.exp().grad_fn.name(), x.abs().grad_fn.name(), x.sqrt().grad_fn.name()]",
    "x = torch.ones(2, 2, requires_grad=True); a = (x + 2).grad_fn.next_functions[0][0]; b = (x * 3).grad_fn.next_functions[0][0]; r = a is b",
    # accumulation and zeroing
    "x = torch.ones(3, requires_grad=True); (x * 2).sum().backward(); (x * 3).sum().backward(); g = x.grad",
    "x = torch.ones(3, requires_grad=True); (x * 2).sum().backward(); g = x.grad; (x * 3).sum().backward(); r = g",
    "x = torch.ones(3, requires_grad=True); (x * 2).sum().backward(); x.grad = None; (x * 3).sum().backward(); g = x.grad",
    "x = torch.ones(3, requires_grad=True); x.grad.zero_()",
    "x = torch.ones(3, requires_grad=True); x.grad.data.zero_()",
    "x = torch.ones(3, requires_grad=True); x.grad = torch.ones(3, dtype=torch.float64)",
    "x = torch.ones(3, requires_grad=True); x.grad = torch.ones(2)",
    "x = torch.ones(3, requires_grad=True); b = x + x; b.sum().backward(); g = x.grad",
    # non-leaf grads, retain_grad, hooks
    "x = torch.ones(3, requires_grad=True); y = x * 2; (y * y).sum().backward(); g = y.grad",
    "x = torch.ones(3, requires_grad=True); y = x * 2; y.retain_grad(); (y * y).sum().backward(); r = (y.grad, x.grad, y.retains_grad)",
    "x = torch.ones(3, requires_grad=True); y = x * 2; y.retain_grad(); z = (y * y).sum(); z.backward(retain_graph=True); z.backward(); r = y.grad",
    "x = torch.ones(3, requires_grad=True); h = x.register_hook(lambda g: g * 2); (x * 3).sum().backward(); h.remove(); (x * 3).sum().backward(); g = x.grad",
    "x = torch.ones(3, requires_grad=True); y = x * 2; y.register_hook(lambda g: g + 1); (y * 3).sum().backward(); g = x.grad",
    "seen = []; x = torch.ones(3, requires_grad=True); y = x * 2; y.register_hook(lambda g: seen.append(g.sum().item())); (y * 5).sum().backward(); r = seen",
    "x = torch.ones(3); x.register_hook(lambda g: g)",
    # backward arguments and errors
    "x = torch.ones(3, requires_grad=True); y = x * 2; y.backward()",
    "x = torch.ones(3); x.backward()",
    "x = torch.ones(3, requires_grad=True); y = x * 2; y.backward(torch.ones(2))",
    "x = torch.ones(3, requires_grad=True); y = x * 2; y.backward([1, 1, 1])",
    "x = torch.ones(3, requires_grad=True); y = (x * 2).sum(); y.backward(); y.backward()",
    "x = torch.ones(3, requires_grad=True); y = x.exp(); s = y.sum(); s.backward(); s.backward()",
    "x = torch.ones(3, requires_grad=True); y = (x * x).sum(); y.backward(create_graph=True); g = x.grad",
    "x = torch.ones(2, requires_grad=True); w = torch.ones(2, requires_grad=True); y = (x * w).sum(); y.backward(inputs=[w]); r = (x.grad, w.grad)",
    "x = torch.ones(2, requires_grad=True); w = torch.ones(2, requires_grad=True); torch.autograd.backward([(x * w).sum(), (x * 3).sum()]); r = (x.grad, w.grad)",
    "x = torch.ones(2, requires_grad=True); torch.autograd.backward([x * 2], [torch.ones(2)]); r = x.grad",
    "x = torch.tensor(2., requires_grad=True); y = x * x; y.backward(torch.tensor(3.)); g = x.grad",
    "x = torch.ones(2, dtype=torch.float64, requires_grad=True); y = (x * 2).sum(); y.backward(); r = x.grad",
    # in-place and versions
    "x = torch.ones(2, requires_grad=True); x.add_(1)",
    "x = torch.ones(2, requires_grad=True); x += 1",
    "x = torch.ones(2, requires_grad=True); x[0] = 5",
    "x = torch.ones(2, requires_grad=True); x[0].add_(1)",
    "x = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n    x.add_(1)\nr = (x, x.requires_grad)",
    "x = torch.ones(2, 2, requires_grad=True); y = x * 2; z = y * y; y.add_(1); z.sum().backward()",
    "x = torch.ones(3, requires_grad=True); y = x * x; x.detach().add_(1); y.sum().backward()",
    "x = torch.ones(3, requires_grad=True); y = x * x; x.data.add_(1); y.sum().backward(); g = x.grad",
    "x = torch.ones(3, requires_grad=True); b = x.exp(); b.add_(1); b.sum().backward()",
    "x = torch.ones(2, requires_grad=True); y = x * 2; y.add_(1); y.mul_(3); y.sum().backward(); r = (x.grad, y.grad_fn.name(), y._version)",
    "x = torch.ones(3, requires_grad=True); y = x * 1; y[0] = 5; y.sum().backward(); r = (x.grad, y)",
    "x = torch.ones(3, requires_grad=True); y = x * 1; y[y > 0] = 0; y.sum().backward(); r = x.grad",
    "x = torch.ones(4, requires_grad=True); v = torch.tensor([2., 3.], requires_grad=True); y = x * 1; y[1:3] = v; (y * torch.arange(4.)).sum().backward(); r = (x.grad, v.grad)",
    "x = torch.zeros(3); w = torch.ones(3, requires_grad=True); x.add_(w); x.sum().backward(); r = (x.grad_fn.name(), w.grad)",
    "x = torch.ones(2, requires_grad=True); y = x * 2; y.zero_(); y.sum().backward(); r = (x.grad, y.grad_fn.name())",
    "a = torch.ones(3); a.add_(1.5); r = a",
    "a = torch.ones(3, dtype=torch.int64); a.add_(1.5)",
    "a = torch.ones(3); v0 = a._version; a.mul_(2); a[0] = 1; r = (v0, a._version)",
    # grad(): higher order
    "x = torch.ones(3, requires_grad=True); y = x.exp(); z = (y * y).sum(); g, = torch.autograd.grad(z, x, create_graph=True); g2, = torch.autograd.grad(g.sum(), x); r = (g, g2, x.grad)",
    "x = torch.tensor(2., requires_grad=True); y = x ** 3; g, = torch.autograd.grad(y, x, create_graph=True); g2, = torch.autograd.grad(g, x, create_graph=True); g3, = torch.autograd.grad(g2, x); r = (g, g2, g3)",
    "x = torch.tensor([1., 2.], requires_grad=True); y = torch.ones(2, requires_grad=True); z = (x * 2).sum(); r = torch.autograd.grad(z, [x, y])",
    "x = torch.tensor([1., 2.], requires_grad=True); y = torch.ones(2, requires_grad=True); z = (x * 2).sum(); r = torch.autograd.grad(z, [x, y], allow_unused=True)",
    "x = torch.tensor([1., 2.], requires_grad=True); y = torch.ones(2, requires_grad=True); z = (x * 2).sum(); r = torch.autograd.grad(z, [x, y], materialize_grads=True)",
    "x = torch.tensor([1., 2.], requires_grad=True); z = x * 2; r = torch.autograd.grad(z, x, torch.ones(2))",
    "x = torch.tensor([1., 2.], requires_grad=True); m = x * 3; z = (m * m).sum(); r = torch.autograd.grad(z, m)",
    "x = torch.tensor([1., 2.]); r = torch.autograd.grad((x * 2).sum(), x)",
    "x = torch.tensor([1., 2.], requires_grad=True); y = x.sin(); g, = torch.autograd.grad(y.sum(), x, create_graph=True); r = (g, g.requires_grad, g.grad_fn is not None)",
    "x = torch.tensor([1., 2.], requires_grad=True); y = (x ** 2).sum(); y.backward(create_graph=True); g = x.grad; r = (g.requires_grad, g.grad_fn is not None); (g * g).sum().backward(); r2 = x.grad",
    # grad modes
    "x = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n    y = x * 2\n    with torch.enable_grad():\n        z = x * 2\nr = (y.requires_grad, z.requires_grad, torch.is_grad_enabled())",
    "x = torch.ones(2, requires_grad=True)\n@torch.no_grad()\ndef f(t):\n    return t * 2\ny = f(x); r = (y.requires_grad, torch.is_grad_enabled())",
    "x = torch.ones(2, requires_grad=True)\ntorch.set_grad_enabled(False)\ny = x * 2\ntorch.set_grad_enabled(True)\nz = x * 2\nr = (y.requires_grad, z.requires_grad)",
    "x = torch.ones(2, requires_grad=True)\nwith torch.set_grad_enabled(False):\n    y = x * 2\nr = (y.requires_grad, torch.is_grad_enabled())",
    "x = torch.ones(2, requires_grad=True)\nwith torch.inference_mode():\n    y = x * 2\nr = (y.requires_grad, y.is_inference(), torch.is_grad_enabled())",
    # numerics through several ops
    "x = torch.tensor([0.5, 1., 2.], requires_grad=True); y = x.sigmoid().tanh().relu().sqrt().log().abs().sin().cos().exp(); y.sum().backward(); g = x.grad",
    "x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True); y = x.norm(); y.backward(); r = (y, x.grad)",
    "x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True); y = x.sum(0, keepdim=True) * x.mean(1); y.sum().backward(); r = (y, x.grad)",
    "x = torch.ones(3, requires_grad=True); y = 2 - x; z = 2 / x; w = 2 ** x; (y + z + w).sum().backward(); g = x.grad",
    "a = torch.ones(5, 2, 3, requires_grad=True); b = torch.ones(3, 4, requires_grad=True); c = a @ b; c.sum().backward(); r = (a.grad, b.grad, c.grad_fn.name())",
    "a = torch.arange(6.).view(2, 3).requires_grad_(); b = torch.arange(6.).view(3, 2).requires_grad_(); c = a @ b; c.backward(torch.ones(2, 2)); r = (c, a.grad, b.grad)",
    "x = torch.arange(6.).view(2, 3).requires_grad_(); y = x[:, 1:]; y.sum().backward(); g = x.grad",
    "x = torch.arange(6.).requires_grad_(); y = x[[0, 0, 1]]; y.sum().backward(); g = x.grad",
    "x = torch.ones(2, 3, requires_grad=True); y = x.t().reshape(6); r = (y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())",
    # broadcasting gradients sum back
    "a = torch.ones(2, 3, requires_grad=True); b = torch.ones(3, requires_grad=True); c = torch.ones(2, 1, requires_grad=True); (a * b + c).sum().backward(); r = (a.grad, b.grad, c.grad)",
    "a = torch.ones(2, 3, requires_grad=True); b = torch.tensor(2., requires_grad=True); (a * b).sum().backward(); r = b.grad",
    "a = torch.ones(2, requires_grad=True); b = torch.ones(3); c = a + b",
    "a = torch.ones(2, 3); b = torch.ones(2, 3); c = a @ b",
    "a = torch.ones(3, dtype=torch.float32, requires_grad=True); b = torch.ones(3, dtype=torch.float64, requires_grad=True); c = a * b; c.sum().backward(); r = (c.dtype, a.grad.dtype, b.grad.dtype)",
    "a = torch.ones(3, requires_grad=True); b = a * torch.tensor([1, 2, 3]); b.sum().backward(); r = (b.dtype, a.grad)",
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_matches_pytorch(real_torch, program):
    compare(program, real_torch)


def test_non_leaf_grad_warning_text(real_torch):
    import warnings

    from gradshell import torch as gtorch

    def message(t):
        x = t.ones(2, requires_grad=True)
        y = x * 2
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            _ = y.grad
        return [(x.category, str(x.message)) for x in w]

    assert message(gtorch) == message(real_torch)
