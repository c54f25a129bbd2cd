"""torch.distributions: probability distributions to sample from and score samples with
(`Categorical` policies in REINFORCE, `Normal` in VAEs and Gaussian policies).

`from torch.distributions import Categorical` gives this module's classes; a distribution
gradshell does not have yet (`Beta`, `MultivariateNormal`...) raises "gradshell does not
support torch.distributions.Beta yet".
"""

from gradshell.torch.distributions import (
    bernoulli,
    categorical,
    constraints,
    distribution,
    exponential,
    independent,
    kl,
    laplace,
    log_normal,
    mixture_same_family,
    normal,
    one_hot_categorical,
    transformed_distribution,
    transforms,
    uniform,
    utils,
)
from gradshell.torch.distributions.bernoulli import Bernoulli
from gradshell.torch.distributions.categorical import Categorical
from gradshell.torch.distributions.distribution import Distribution
from gradshell.torch.distributions.exponential import Exponential
from gradshell.torch.distributions.independent import Independent
from gradshell.torch.distributions.kl import kl_divergence, register_kl
from gradshell.torch.distributions.laplace import Laplace
from gradshell.torch.distributions.log_normal import LogNormal
from gradshell.torch.distributions.mixture_same_family import MixtureSameFamily
from gradshell.torch.distributions.normal import Normal
from gradshell.torch.distributions.one_hot_categorical import OneHotCategorical
from gradshell.torch.distributions.transformed_distribution import TransformedDistribution
from gradshell.torch.distributions.transforms import (
    AffineTransform,
    ExpTransform,
    SigmoidTransform,
    TanhTransform,
    Transform,
)
from gradshell.torch.distributions.uniform import Uniform

__all__ = [
    "AffineTransform",
    "Bernoulli",
    "Categorical",
    "Distribution",
    "ExpTransform",
    "Exponential",
    "Independent",
    "Laplace",
    "LogNormal",
    "MixtureSameFamily",
    "Normal",
    "OneHotCategorical",
    "SigmoidTransform",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "bernoulli",
    "categorical",
    "constraints",
    "distribution",
    "exponential",
    "independent",
    "kl",
    "kl_divergence",
    "laplace",
    "log_normal",
    "mixture_same_family",
    "normal",
    "one_hot_categorical",
    "register_kl",
    "transformed_distribution",
    "transforms",
    "uniform",
    "utils",
]
