"""torch.distributions against PyTorch: Categorical, Normal, Bernoulli and Uniform draw
PyTorch's numbers after torch.manual_seed, score them with the same values and graph
nodes (gradients included), print the same reprs and fail validation with the same
messages; kl_divergence likewise. A distribution gradshell lacks says so."""

from __future__ import annotations

import pytest
from support.differential import compare

from gradshell.shell.session import Session

# the programs run under both torches, so they reach the classes as attributes: an
# import statement would import real PyTorch's module in both runs
_D = (
    "D = torch.distributions; Categorical, Normal, Bernoulli, Uniform = D.Categorical, "
    "D.Normal, D.Bernoulli, D.Uniform; kl_divergence = D.kl_divergence\n"
)

# programs whose numbers come from the random generator: compared bit for bit
SAMPLING = [
    # REINFORCE: sample an action from the policy and score it
    "torch.manual_seed(0); p = torch.tensor([0.2, 0.3, 0.5], requires_grad=True); m = Categorical(p); a = m.sample(); lp = m.log_prob(a); lp.backward(); g = p.grad",
    "torch.manual_seed(1); m = Categorical(torch.tensor([[0.1, 0.9], [0.6, 0.4], [0.5, 0.5]])); a = m.sample(); b = m.sample((2, 4)); c = m.sample(torch.Size([5]))",
    "torch.manual_seed(2); m = Categorical(logits=torch.randn(4, 6)); a = m.sample((3,)); r = repr(m)",
    "torch.manual_seed(3); mu = torch.tensor([0., 1.], requires_grad=True); s = torch.tensor([1., 2.], requires_grad=True); n = Normal(mu, s); x = n.rsample(); y = n.sample((3,)); x.sum().backward(); gm = mu.grad; gs = s.grad",
    "torch.manual_seed(4); n = Normal(torch.zeros(20), 1.); x = n.rsample((2,)); y = n.sample()",
    "torch.manual_seed(5); n = Normal(0., 1.); x = n.sample(); y = n.rsample((7,)); z = Normal(torch.zeros(3, dtype=torch.float64), 2.).sample()",
    "torch.manual_seed(6); b = Bernoulli(torch.tensor([0.3, 0.9])); x = b.sample(); y = b.sample((4,)); z = Bernoulli(logits=torch.tensor(0.5)).sample((3,))",
    "torch.manual_seed(8); mu = torch.zeros(2, 3, requires_grad=True); i = D.Independent(Normal(mu, 1.), 1); x = i.rsample(); y = i.sample((2,)); lp = i.log_prob(x); lp.sum().backward(); g = mu.grad; r = repr(i)",
    "torch.manual_seed(9); m = Categorical(torch.tensor([0.1, 0.2, 0.7])).expand((4,)); a = m.sample((2,)); n = Normal(torch.zeros(3, requires_grad=True), 1.).expand((2, 3)); x = n.rsample(); r = (repr(m), repr(n))",
    "torch.manual_seed(10); p = torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]], requires_grad=True); o = D.OneHotCategorical(p); s = o.sample(); s2 = o.sample((3,)); lp = o.log_prob(s); lp.sum().backward(); g = p.grad; r = repr(o)",
    "torch.manual_seed(11); r = torch.tensor([1., 2.], requires_grad=True); e = D.Exponential(r); x = e.rsample(); y = e.sample((3,)); x.sum().backward(); g = r.grad; z = D.Exponential(0.5).sample((17,))",
    "torch.manual_seed(12); loc = torch.tensor([0., 1.], requires_grad=True); l = D.Laplace(loc, 2.); x = l.rsample((3,)); y = l.sample(); x.sum().backward(); g = loc.grad; z = D.Laplace(0., torch.ones(20, dtype=torch.float64)).sample()",
    # a SAC policy: a tanh-squashed Gaussian scores its own (cached) sample
    "torch.manual_seed(13); T = torch.distributions.transforms; mu = torch.tensor([0., 1.], requires_grad=True); td = D.TransformedDistribution(Normal(mu, torch.tensor([1., 0.5])), [T.TanhTransform(cache_size=1)]); a = td.rsample(); lp = td.log_prob(a); lp.sum().backward(); g = mu.grad; s = td.sample((3,)); r = (repr(td), repr(td.support), td.batch_shape, td.has_rsample, repr(td.transforms)); del T",
    "torch.manual_seed(14); mu = torch.tensor([0., 1.], requires_grad=True); ln = D.LogNormal(mu, 1.); x = ln.rsample(); y = ln.sample((2,)); lp = ln.log_prob(torch.tensor([0.5, 2.])); (x.sum() + lp.sum() + ln.entropy().sum() + ln.mean.sum() + ln.variance.sum()).backward(); g = mu.grad; r = (repr(ln), repr(ln.support), ln.mode)",
    "torch.manual_seed(15); T = D.transforms; td = D.TransformedDistribution(Normal(0., 1.), [T.AffineTransform(1., 2.), T.ExpTransform()]); x = td.sample((2,)); lp = td.log_prob(torch.tensor([0.5, 3.])); sg = D.TransformedDistribution(Normal(torch.zeros(3), 1.), T.SigmoidTransform()); y = sg.rsample(); lq = sg.log_prob(torch.tensor([0.2, 0.5, 0.9])); sc = torch.tensor([2., 3.], requires_grad=True); af = D.TransformedDistribution(Uniform(0., 1.), T.AffineTransform(torch.zeros(2), sc)); la = af.log_prob(torch.tensor([0.5, 1.])); la.sum().backward(); g = sc.grad; r = (repr(td.support), repr(sg.support), repr(T.AffineTransform(0., 1.))); del T",
    # a mixture density network's output: mixture weights over 2-D Gaussians
    "torch.manual_seed(16); lg = torch.tensor([[0.1, 0.5, -0.2], [1., 0., 0.]], requires_grad=True); mu = torch.tensor([[[0., 1.], [2., 0.], [-1., -1.]], [[0., 0.], [1., 1.], [3., 3.]]], requires_grad=True); gmm = D.MixtureSameFamily(Categorical(logits=lg), D.Independent(Normal(mu, 0.5), 1)); s = gmm.sample((3,)); s1 = gmm.sample(); lp = gmm.log_prob(torch.tensor([0.5, 0.5])); (-lp.mean()).backward(); g1 = lg.grad; g2 = mu.grad; st = (gmm.mean, gmm.variance, gmm.batch_shape, gmm.event_shape, repr(gmm), repr(gmm.support))",
    "torch.manual_seed(17); g = D.MixtureSameFamily(Categorical(torch.tensor([0.3, 0.7])), Normal(torch.tensor([0., 2.]), torch.tensor([1., 0.5]))); s = g.sample((4,)); lp = g.log_prob(torch.tensor([0.5, 1.])); st = (g.mean, g.variance, g.cdf(torch.tensor(0.5)), repr(g))",
    "torch.manual_seed(18); ln = D.LogNormal(torch.zeros(2), 1.).expand((3, 2)); a = ln.sample(); lp = ln.log_prob(torch.ones(3, 2)); td = D.TransformedDistribution(Normal(torch.zeros(2), 1.), [D.TanhTransform()]).expand((4, 2)); b = td.sample(); g = D.MixtureSameFamily(Categorical(torch.tensor([0.3, 0.7])), Normal(torch.tensor([0., 2.]), torch.tensor([1., 0.5]))).expand((3,)); c = g.sample(); r = (repr(ln), repr(ln.base_dist), ln.batch_shape, repr(td.base_dist), repr(g), g.batch_shape)",
    "torch.manual_seed(7); u = Uniform(0., 2.); x = u.rsample((3,)); y = u.sample(); lo = torch.tensor([0., -1.], requires_grad=True); v = Uniform(lo, 3.).rsample(); v.sum().backward(); g = lo.grad",
]

# analytic values: compared with the usual float tolerance, nodes and gradients exactly
SCORING = [
    "p = torch.tensor([0.2, 0.3, 0.5], requires_grad=True); m = Categorical(p); pr = m.probs; lg = m.logits; e = m.entropy(); lp = m.log_prob(torch.tensor([0, 2, 1])); (e + lp.sum()).backward(); g = p.grad; r = repr(m)",
    "l = torch.tensor([[1., 2., 3.], [0., 0., 5.]], requires_grad=True); m = Categorical(logits=l); r1 = repr(m); pr = m.probs; r2 = repr(m); e = m.entropy(); lp = m.log_prob(torch.tensor(1)); lp2 = m.log_prob(torch.tensor([[2], [0]])); (e.sum() + lp.sum() + lp2.sum()).backward(); g = l.grad",
    "m = Categorical(torch.tensor([[0.5, 0.5, 0.], [0.1, 0.2, 0.7]])); e = m.entropy(); mo = m.mode; mean = m.mean; var = m.variance; s = m.enumerate_support(); s2 = m.enumerate_support(expand=False); shapes = (m.batch_shape, m.event_shape, m.param_shape); sup = repr(m.support)",
    "mu = torch.tensor([0., 1.], requires_grad=True); s = torch.tensor([1., 2.], requires_grad=True); n = Normal(mu, s); lp = n.log_prob(torch.tensor([0.5, -0.5])); e = n.entropy(); c = n.cdf(torch.tensor([0.3, 3.])); (lp.sum() + e.sum() + c.sum()).backward(); gm = mu.grad; gs = s.grad; v = n.variance; sd = n.stddev; mean = n.mean; r = repr(n)",
    "n = Normal(torch.zeros(2, 1, requires_grad=True), torch.ones(3)); loc = n.loc; scale = n.scale; r = repr(n); lp = n.log_prob(torch.zeros(4, 1, 3))",
    "a = Normal(0., 1.); b = Normal(torch.tensor([0.]), torch.tensor([1.])); c = Normal(1, 2); r = (repr(a), repr(b), repr(c)); loc = c.loc; lp = a.log_prob(torch.tensor([0.5, 2.])); li = a.log_prob(torch.tensor(1))",
    "p = torch.tensor([0.3, 0.9], requires_grad=True); b = Bernoulli(p); lg = b.logits; lp = b.log_prob(torch.tensor([1., 0.])); e = b.entropy(); (lp.sum() + e.sum()).backward(); g = p.grad; r = repr(b); mean = b.mean; var = b.variance",
    "l = torch.tensor([-1., 2.], requires_grad=True); b = Bernoulli(logits=l); r1 = repr(b); pr = b.probs; r2 = repr(b); lp = b.log_prob(torch.tensor([[1., 1.], [0., 1.]])); lp.sum().backward(); g = l.grad; s = repr(Bernoulli(0.3))",
    "lo = torch.tensor([0., 1.], requires_grad=True); u = Uniform(lo, torch.tensor([2., 5.])); lp = u.log_prob(torch.tensor([1., 4.])); e = u.entropy(); (lp.sum() + e.sum()).backward(); g = lo.grad; c = u.cdf(torch.tensor([0.5, 4.])); i = u.icdf(torch.tensor([0.5, 0.25])); st = (u.mean, u.stddev, u.variance); r = repr(u)",
    "u = Uniform(0., 2., validate_args=False); lp = u.log_prob(torch.tensor([1., 3.])); r = repr(Uniform(torch.zeros(3), 1.))",
    "mu = torch.tensor([0., 1.], requires_grad=True); k = kl_divergence(Normal(mu, torch.tensor([1., 2.])), Normal(0., 1.)); k.sum().backward(); g = mu.grad",
    "l = torch.tensor([1., 2., 3.], requires_grad=True); k = kl_divergence(Categorical(torch.tensor([0.2, 0.3, 0.5])), Categorical(logits=l)); k.backward(); g = l.grad; z = kl_divergence(Categorical(torch.tensor([0.5, 0.5, 0.])), Categorical(torch.tensor([0., 0.5, 0.5])))",
    "k = kl_divergence(Bernoulli(torch.tensor([0.3, 0., 1.])), Bernoulli(torch.tensor([0.5, 0.5, 0.]))); ku = kl_divergence(Uniform(0., 1.), Uniform(torch.tensor([-1., 0.5]), 2.))",
    "N = torch.distributions.normal.Normal; C = torch.distributions.categorical.Categorical; k = torch.distributions.kl.kl_divergence(N(0., 1.), N(1., 2.)); m = C(torch.ones(4)); e = m.entropy()",
    "mu = torch.zeros(2, 3, requires_grad=True); i = D.Independent(Normal(mu, 1.), 1); lp = i.log_prob(torch.ones(3)); e = i.entropy(); k = kl_divergence(i, D.Independent(Normal(torch.ones(2, 3), 2.), 1)); (lp.sum() + k.sum()).backward(); g = mu.grad; shapes = (i.batch_shape, i.event_shape); sup = repr(i.support); m = i.mean; sd = i.stddev; r = repr(i.expand((4, 2)))",
    "b = Bernoulli(torch.tensor([0.2, 0.7])).expand((3, 2)); lp = b.log_prob(torch.ones(3, 2)); u = Uniform(0., torch.tensor([1., 2.])).expand((2, 2)); e = u.entropy(); r = (repr(b), repr(u), u.batch_shape)",
    "p = torch.tensor([0.2, 0.3, 0.5], requires_grad=True); o = D.OneHotCategorical(p); lp = o.log_prob(torch.tensor([[0., 1., 0.], [1., 0., 0.]])); e = o.entropy(); k = kl_divergence(o, D.OneHotCategorical(logits=torch.zeros(3))); (lp.sum() + e + k).backward(); g = p.grad; st = (o.mean, o.mode, o.variance, o.enumerate_support(), o.batch_shape, o.event_shape, o.param_shape, o.probs, o.logits); sup = repr(o.support); r = repr(D.OneHotCategorical(logits=torch.zeros(2, 3)).expand((4, 2)))",
    "r = torch.tensor([1., 2.], requires_grad=True); e = D.Exponential(r); lp = e.log_prob(torch.tensor([0.5, 1.])); h = e.entropy(); c = e.cdf(torch.tensor(0.5)); i = e.icdf(torch.tensor([0.5, 0.9])); k = kl_divergence(e, D.Exponential(3.)); (lp.sum() + h.sum() + c.sum() + i.sum() + k.sum()).backward(); g = r.grad; st = (e.mean, e.stddev, e.variance, e.mode, repr(e), repr(e.support))",
    "loc = torch.tensor([0., 1.], requires_grad=True); l = D.Laplace(loc, torch.tensor([2., 0.5])); lp = l.log_prob(torch.tensor([0.5, 1.])); h = l.entropy(); c = l.cdf(torch.tensor([0.5, -1.])); i = l.icdf(torch.tensor([0.3, 0.8])); k = kl_divergence(l, D.Laplace(1., 2.)); (lp.sum() + c.sum() + i.sum() + k.sum()).backward(); g = loc.grad; st = (l.mean, l.stddev, l.variance, repr(l))",
    "b = Bernoulli(torch.tensor([0.3, 0.5, 0.9])); st = (b.mode, b.enumerate_support(), b.enumerate_support(False)); u = Uniform(0., torch.tensor([1., 2.])).mode; p = Categorical(torch.tensor([0.2, 0.8])).perplexity(); q = Normal(torch.zeros(2), torch.tensor([1., 3.], requires_grad=True)).perplexity()",
    # masked actions: -inf logits never drawn, entropy and gradients stay finite
    "torch.manual_seed(0); l = torch.tensor([1., float('-inf'), 2., float('-inf')], requires_grad=True); m = Categorical(logits=l); pr = m.probs; e = m.entropy(); a = m.sample((5,)); lp = m.log_prob(torch.tensor([0, 2])); e.backward(); g = l.grad; k = kl_divergence(m, Categorical(logits=torch.zeros(4)))",
    "torch.manual_seed(1); m = Categorical(torch.rand(2, 3, 100, dtype=torch.float64)); a = m.sample((4,)); e = m.entropy(); lp = m.log_prob(torch.tensor(5)); i = Categorical(torch.tensor([1, 2, 3])).probs; b = Bernoulli(logits=torch.tensor([-100., 100.])); st = (b.probs, b.entropy(), b.log_prob(torch.tensor([0., 1.])))",
    "torch.distributions.Distribution.set_default_validate_args(False); u = Uniform(0., 1.).log_prob(torch.tensor(3.)); torch.distributions.Distribution.set_default_validate_args(True)",
]

ERRORS = [
    "Categorical(torch.tensor([-1., 2.]))",
    "Categorical(torch.tensor([[0.5, 0.5], [1., float('nan')]]))",
    "Categorical(logits=torch.tensor([1., float('nan')]))",
    "Categorical(torch.tensor([0.2, 0.8])).log_prob(torch.tensor(3))",
    "Categorical(torch.tensor([0.2, 0.8])).log_prob(torch.tensor(1.5))",
    "Categorical(torch.ones(3, 2)).log_prob(torch.zeros(2))",
    "Categorical()",
    "Categorical(torch.tensor([0.5]), torch.tensor([0.]))",
    "Categorical(torch.tensor(0.5))",
    "Normal(0., -1.)",
    "Normal(torch.zeros(2), torch.tensor([1., 0.]))",
    "Normal(0., 1.).log_prob(torch.tensor(float('nan')))",
    "Normal(0., 1.).log_prob(0.5)",
    "Normal(torch.zeros(3), 1.).log_prob(torch.zeros(2))",
    "Normal('a', 1.)",
    "Normal(0., 1.).sample(3)",
    "Bernoulli(torch.tensor([1.5]))",
    "Bernoulli(torch.tensor([0.5])).log_prob(torch.tensor([2.]))",
    "Uniform(2., 1.)",
    "torch.distributions.Independent(Normal(torch.zeros(2, 3), 1.), 3)",
    "torch.distributions.Independent(Normal(torch.zeros(2, 3), 1.), 1).log_prob(torch.ones(2, 2))",
    "torch.distributions.Independent(Categorical(torch.ones(2, 3)), 1).log_prob(torch.tensor([0, 5]))",
    "kl_divergence(*(torch.distributions.Independent(Normal(torch.zeros(2, 3), 1.), n) for n in (1, 2)))",
    "Normal(torch.zeros(2, 3), 1.).expand((3,))",
    "torch.distributions.Exponential(torch.tensor([0.]))",
    "torch.distributions.Exponential(1.).log_prob(torch.tensor(-1.))",
    "torch.distributions.OneHotCategorical(torch.ones(3)).log_prob(torch.tensor([1., 1., 0.]))",
    "torch.distributions.OneHotCategorical(torch.tensor([-1., 2.]))",
    "torch.distributions.Laplace(0., 0.)",
    "torch.distributions.TransformedDistribution(Normal(0., 1.), [torch.distributions.transforms.TanhTransform()]).log_prob(torch.tensor([1.5, 0.]))",
    "torch.distributions.LogNormal(0., 1.).log_prob(torch.tensor([-1., 1.]))",
    "torch.distributions.TransformedDistribution(Normal(0., 1.), torch.distributions.ExpTransform()).entropy()",
    "torch.distributions.TransformedDistribution(Normal(0., 1.), torch.distributions.ExpTransform()).mean",
    "torch.distributions.TransformedDistribution(Normal(0., 1.), [1])",
    "torch.distributions.TanhTransform(cache_size=2)",
    "torch.distributions.MixtureSameFamily(Categorical(torch.ones(2)), Normal(torch.zeros(3), 1.))",
    "torch.distributions.MixtureSameFamily(Normal(0., 1.), Normal(torch.zeros(3), 1.))",
    "torch.distributions.MixtureSameFamily(Categorical(torch.ones(2)), 3)",
    "torch.distributions.MixtureSameFamily(Categorical(torch.ones(3, 2)), Normal(torch.zeros(4, 2), 1.))",
    "torch.distributions.MixtureSameFamily(Categorical(torch.ones(2)), Normal(torch.zeros(2), 1.)).rsample()",
    "Normal(torch.zeros(2, 3), 1.).expand(5)",
    "Uniform(torch.zeros(2), torch.tensor([1., -1.]))",
    "Uniform(0., 2.).log_prob(torch.tensor([1., 3.]))",
]


@pytest.mark.parametrize("program", SAMPLING)
def test_sampling_matches_pytorch_bit_for_bit(real_torch, program):
    compare(_D + program + "\ndel D", real_torch, rtol=0, atol=0)


@pytest.mark.parametrize("program", SCORING)
def test_scoring_matches_pytorch(real_torch, program):
    compare(_D + program + "\ndel D", real_torch)


@pytest.mark.parametrize("program", ERRORS)
def test_validation_errors_match_pytorch(real_torch, program):
    compare(_D + "x = " + program, real_torch)


@pytest.mark.parametrize(
    "code,last_line",
    [
        (
            "from torch.distributions import Beta",
            "NotImplementedError: gradshell does not support torch.distributions.Beta yet",
        ),
        (
            "import torch\ntorch.distributions.MultivariateNormal",
            "NotImplementedError: gradshell does not support "
            "torch.distributions.MultivariateNormal yet",
        ),
        (
            "from torch.distributions.transforms import ComposeTransform",
            "NotImplementedError: gradshell does not support "
            "torch.distributions.transforms.ComposeTransform yet",
        ),
        (
            "from torch.distributions.transforms import Nonexistent",
            "ImportError: cannot import name 'Nonexistent' from 'torch.distributions.transforms' "
            "(unknown location)",
        ),
        (
            "import torch.distributions.gamma",
            "NotImplementedError: gradshell does not support torch.distributions.gamma yet",
        ),
        (
            "import torch\nfrom torch.distributions import Normal\nNormal(0., 1.).icdf(torch.tensor(0.3))",
            "NotImplementedError: gradshell does not support torch.distributions.Normal.icdf yet",
        ),
        (
            "from torch.distributions import Normal, Bernoulli, kl_divergence\n"
            "kl_divergence(Normal(0., 1.), Bernoulli(0.5))",
            "NotImplementedError: gradshell does not support "
            "torch.distributions.kl_divergence(Normal, Bernoulli) yet",
        ),
    ],
)
def test_missing_parts_say_not_supported(code, last_line):
    result = Session(viz=False).run_script(code + "\n", "<prog>")
    assert result.output.rstrip().splitlines()[-1] == last_line, result.output


def test_reinforce_step_in_the_shell():
    program = (
        "import torch\n"
        "from torch.distributions import Categorical\n"
        "torch.manual_seed(0)\n"
        "m = Categorical(torch.tensor([0.2, 0.3, 0.5]))\n"
        "print(m)\n"
        "action = m.sample()\n"
        "print(action, m.log_prob(action))\n"
        "print(type(m))\n"
    )
    result = Session(viz=False).run_script(program, "<prog>")
    assert result.output == (
        "Categorical(probs: torch.Size([3]))\n"
        "tensor(2) tensor(-0.6931)\n"
        "<class 'torch.distributions.categorical.Categorical'>\n"
    ), result.output


def test_vae_imports_in_the_shell():
    program = (
        "import torch\n"
        "import torch.distributions as td\n"
        "from torch.distributions.normal import Normal\n"
        "from torch.distributions.kl import kl_divergence\n"
        "from torch.distributions import constraints\n"
        "q = Normal(torch.zeros(2, requires_grad=True), torch.ones(2))\n"
        "kl = kl_divergence(q, td.Normal(1., 1.)).sum()\n"
        "print(kl, constraints.positive, td.Independent(q, 1))\n"
    )
    result = Session(viz=False).run_script(program, "<prog>")
    assert result.output == (
        "tensor(1., grad_fn=<SumBackward0>) GreaterThan(lower_bound=0.0) "
        "Independent(Normal(loc: torch.Size([2]), scale: torch.Size([2])), 1)\n"
    ), result.output
