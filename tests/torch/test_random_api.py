"""torch.manual_seed, torch.randn & co. at the torch level: same numbers, same shapes and
dtypes, same state afterwards, same errors as PyTorch."""

import pytest
from support.differential import compare

PROGRAMS = [
    "torch.manual_seed(0); a = torch.randn(3); b = torch.rand(2, 2); c = torch.randint(0, 10, (5,)); d = torch.randperm(6); s = torch.get_rng_state()",
    "torch.manual_seed(7); a = torch.randn(2, 3, dtype=torch.float64); b = torch.rand((4,), dtype=torch.float64); c = torch.randint(5, (2, 2)); d = torch.randint(3, 9, size=(3,), dtype=torch.int32)",
    "torch.manual_seed(1); a = torch.randn(100); b = torch.randn(17); c = torch.randn(5); s = torch.get_rng_state()",
    "torch.manual_seed(2); x = torch.empty(4, 3); x.t().normal_(); y = torch.empty(2, 3, 4); y.permute(2, 0, 1).uniform_(-1, 1)",
    "torch.manual_seed(3); a = torch.normal(torch.zeros(3), torch.ones(3)); b = torch.normal(2.0, 3.0, size=(4,)); c = torch.normal(torch.arange(4.), 0.5); d = torch.normal(1.0, torch.ones(2))",
    "torch.manual_seed(4); p = torch.tensor([0.1, 0.5, 0.9]); a = torch.bernoulli(p); b = torch.empty(5).bernoulli_(0.3); c = torch.multinomial(torch.tensor([1., 2., 3.]), 5, replacement=True); d = torch.multinomial(torch.tensor([1., 2., 3., 4.]), 3)",
    "torch.manual_seed(5); a = torch.empty(6, dtype=torch.int64).random_(); b = torch.empty(6, dtype=torch.int64).random_(10); c = torch.empty(6).random_(2, 5); d = torch.empty(3).exponential_()",
    "torch.manual_seed(6); x = torch.ones(2, 3); a = torch.rand_like(x); b = torch.randn_like(x, dtype=torch.float64); c = torch.randint_like(x, 10); d = torch.randint_like(x, 3, 6)",
    "g = torch.Generator().manual_seed(42); a = torch.randn(2, generator=g); b = torch.rand(3, generator=g); s = g.initial_seed(); torch.manual_seed(42); c = torch.randn(2)",
    "torch.manual_seed(0); s = torch.get_rng_state(); a = torch.randn(5); torch.set_rng_state(s); b = torch.randn(5)",
    "torch.manual_seed(9)\nwith torch.random.fork_rng():\n    a = torch.randn(3)\nb = torch.randn(3)",
    "r = (torch.manual_seed(2**32 + 5).initial_seed(), torch.manual_seed(-1).initial_seed()); a = torch.randn(2)",
    "torch.manual_seed(0); a = torch.randn(2, requires_grad=True); b = torch.rand(2, requires_grad=True); r = (a.is_leaf, b.requires_grad)",
    "a = torch.randint(5, 2, (3,))",
    "a = torch.rand(3, dtype=torch.int64)",
    "a = torch.randn(2).normal_(0, -1)",
    "a = torch.multinomial(torch.tensor([1., 2.]), 3)",
    "x = torch.ones(3, requires_grad=True); x.normal_()",
    "torch.manual_seed(1.5); a = torch.randn(2); s = torch.initial_seed()",
    "torch.set_rng_state(torch.zeros(5056))",
    "g = torch.Generator(); g.manual_seed(1.5)",
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_matches_pytorch(real_torch, program):
    compare(program, real_torch, rtol=0, atol=0)
