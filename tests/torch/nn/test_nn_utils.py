"""torch.nn.utils against PyTorch (found by the tutorial corpus: training loops that clip
gradients): clip_grad_norm_ (norm types, the returned total norm, in-place scaling,
non-finite norms), clip_grad_value_, get_total_norm, parameters_to_vector and back."""

from __future__ import annotations

from support.tutorials import printed

from gradshell import torch as gtorch

CLIPPING = """
nn = torch.nn
clip_grad_norm_ = nn.utils.clip_grad_norm_
parameters_to_vector = nn.utils.parameters_to_vector
vector_to_parameters = nn.utils.vector_to_parameters
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
(m(torch.randn(5, 3)) ** 2).sum().backward()
print(nn.utils.clip_grad_norm_(m.parameters(), max_norm=0.5))
print(m[0].weight.grad)
print(clip_grad_norm_(m.parameters(), 100.0, norm_type='inf'), clip_grad_norm_(m.parameters(), 1.0, norm_type=1))
print(m[2].bias.grad)
print(nn.utils.clip_grad_value_(m.parameters(), 0.01), m[2].weight.grad)
print(nn.utils.clip_grad_norm_([], 1.0), nn.utils.clip_grad_norm_(nn.Linear(2, 2).parameters(), 1.0))
v = parameters_to_vector(m.parameters())
print(v.shape, v.grad_fn)
vector_to_parameters(torch.arange(v.numel(), dtype=torch.float32), m.parameters())
print(m[2].bias, m[0].weight.requires_grad)
w = torch.ones(3, requires_grad=True); w.grad = torch.tensor([3., 4., 0.])
print(nn.utils.clip_grad_norm_(w, 1.0), w.grad)
w.grad = torch.tensor([float('inf'), 1., 0.])
try:
    nn.utils.clip_grad_norm_(w, 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print(e)
print(nn.utils.clip_grad_norm_(w, 1.0), w.grad)
print(nn.utils.get_total_norm([torch.ones(2), torch.ones(3)]))
"""


def test_clipping_and_vectors(real_torch):
    assert printed(CLIPPING, gtorch) == printed(CLIPPING, real_torch)


def test_shell_imports_nn_utils():
    from gradshell.shell.session import Session

    source = (
        "import torch\n"
        "from torch.nn.utils import clip_grad_norm_, clip_grad_value_\n"
        "import torch.nn.utils as U\n"
        "print(U.clip_grad_norm_ is clip_grad_norm_)\n"
    )
    result = Session(viz=False).run_script(source, "imports.py")
    assert result.output == "True\n"
