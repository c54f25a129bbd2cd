"""torch.nn.functional: the functional forms of the nn ops (re-exported from
gradshell.ops.nn, where each op's forward, backward node and errors live)."""

from gradshell.ops.batchnorm import batch_norm
from gradshell.ops.clamping import hardtanh, relu6
from gradshell.ops.conv import conv1d, conv2d
from gradshell.ops.distance import cosine_similarity, pairwise_distance
from gradshell.ops.embedding import embedding
from gradshell.ops.layer_norm import layer_norm
from gradshell.ops.nn import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    dropout,
    elu,
    gelu,
    l1_loss,
    leaky_relu,
    linear,
    log_softmax,
    mse_loss,
    nll_loss,
    one_hot,
    relu,
    relu_,
    sigmoid,
    silu,
    smooth_l1_loss,
    softmax,
    softmin,
    softplus,
    tanh,
)
from gradshell.ops.pooling import (
    adaptive_avg_pool2d,
    avg_pool2d,
    max_pool2d,
    max_pool2d_with_indices,
)
from gradshell.torch.nn._composites import normalize, softsign

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "batch_norm",
    "conv1d",
    "conv2d",
    "cosine_similarity",
    "max_pool2d",
    "max_pool2d_with_indices",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "dropout",
    "elu",
    "embedding",
    "gelu",
    "hardtanh",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "normalize",
    "one_hot",
    "pairwise_distance",
    "relu",
    "relu_",
    "relu6",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "softmin",
    "softplus",
    "softsign",
    "tanh",
]
