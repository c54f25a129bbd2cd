"""torch.distributions.kl: KL(p ‖ q) between two distributions, looked up by their types
in a registry that `register_kl` extends."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from gradshell.core.tensor import Tensor
from gradshell.ops.unary import softplus
from gradshell.torch._missing import not_supported
from gradshell.torch.distributions.bernoulli import Bernoulli
from gradshell.torch.distributions.categorical import Categorical
from gradshell.torch.distributions.distribution import Distribution
from gradshell.torch.distributions.exponential import Exponential
from gradshell.torch.distributions.independent import Independent, _sum_rightmost
from gradshell.torch.distributions.laplace import Laplace
from gradshell.torch.distributions.normal import Normal
from gradshell.torch.distributions.one_hot_categorical import OneHotCategorical
from gradshell.torch.distributions.uniform import Uniform

_KL_REGISTRY: dict[tuple[type, type], Callable[[Any, Any], Tensor]] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[Callable], Callable]:
    """Decorator registering `fn(p, q)` as KL(p ‖ q) for p of type_p and q of type_q."""
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fn: Callable) -> Callable:
        _KL_REGISTRY[type_p, type_q] = fn
        return fn

    return decorator


def _lookup(type_p: type, type_q: type) -> Callable | None:
    # the registered pair nearest in both class hierarchies (exact types first)
    best = None
    best_rank = None
    for (sp, sq), fn in _KL_REGISTRY.items():
        if issubclass(type_p, sp) and issubclass(type_q, sq):
            rank = (type_p.__mro__.index(sp), type_q.__mro__.index(sq))
            if best_rank is None or rank < best_rank:
                best, best_rank = fn, rank
    return best


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p ‖ q), batched over the distributions' batch shape."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        # PyTorch may know this pair; gradshell does not, and says so rather than guess
        raise not_supported(
            f"torch.distributions.kl_divergence({type(p).__name__}, {type(q).__name__})"
        )
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    # ½(σp²/σq² + (μp-μq)²/σq² - 1 - log(σp²/σq²))
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    # Σ p (log p - log q); where q is 0 the divergence is infinite, where p is 0 the term is 0
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    # p log(p/q) + (1-p) log((1-p)/(1-q)), written with softplus of the logits for stability
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    # log((bq - aq)/(bp - ap)) where p's interval lies inside q's, else infinite
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    # the base divergences summed over each event; PyTorch defines no KL between
    # differently reinterpreted distributions and raises a bare NotImplementedError
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    # r - 1 - log r with r = λq/λp
    rate_ratio = q.rate / p.rate
    t1 = -rate_ratio.log()
    return t1 + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    # -log(bp/bq) + |μp-μq|/bq + (bp/bq)·e^{-|μp-μq|/bp} - 1
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return t1 + t2 + t3 - 1


__all__ = ["kl_divergence", "register_kl"]
