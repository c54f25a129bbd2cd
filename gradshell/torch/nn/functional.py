"""torch.nn.functional: the functional forms of the nn ops (re-exported from
gradshell.ops.nn, where each op's forward, backward node and errors live)."""

from gradshell.ops.activation import (
    celu,
    celu_,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    logsigmoid,
    mish,
    prelu,
    selu,
    selu_,
    softshrink,
    tanhshrink,
    threshold,
    threshold_,
)
from gradshell.ops.batchnorm import batch_norm
from gradshell.ops.clamping import hardtanh, relu6
from gradshell.ops.conv import conv1d, conv2d
from gradshell.ops.distance import cosine_similarity, pairwise_distance
from gradshell.ops.embedding import embedding
from gradshell.ops.group_norm import group_norm
from gradshell.ops.instance_norm import instance_norm
from gradshell.ops.layer_norm import layer_norm
from gradshell.ops.loss import (
    cosine_embedding_loss,
    huber_loss,
    kl_div,
    margin_ranking_loss,
    soft_margin_loss,
    triplet_margin_loss,
)
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
from gradshell.ops.padding import pad
from gradshell.ops.pixel_shuffle import pixel_shuffle, pixel_unshuffle
from gradshell.ops.pooling import (
    adaptive_avg_pool2d,
    avg_pool2d,
    max_pool2d,
    max_pool2d_with_indices,
)
from gradshell.ops.upsample import interpolate, upsample, upsample_bilinear, upsample_nearest
from gradshell.torch.nn._composites import normalize, softsign

# isort: split
# -- 1-d and adaptive pooling, transposed convolution, attention (branch nnB) --
from gradshell.ops.adaptive_max_pool import adaptive_max_pool2d
from gradshell.ops.attention import scaled_dot_product_attention
from gradshell.ops.conv_transpose import conv_transpose1d, conv_transpose2d
from gradshell.ops.pooling1d import (
    adaptive_avg_pool1d,
    adaptive_max_pool1d,
    avg_pool1d,
    max_pool1d,
)
from gradshell.ops.unpool import max_unpool2d
from gradshell.torch.nn._mha import multi_head_attention_forward

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
    # -- branch nnB --
    "conv_transpose1d",
    "conv_transpose2d",
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "max_pool1d",
    "max_unpool2d",
    "multi_head_attention_forward",
    "scaled_dot_product_attention",
    # more activations
    "celu",
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "logsigmoid",
    "mish",
    "prelu",
    "selu",
    "softshrink",
    "tanhshrink",
    "threshold",
    "celu_",
    "selu_",
    "threshold_",
    # more losses
    "cosine_embedding_loss",
    "huber_loss",
    "kl_div",
    "margin_ranking_loss",
    "pairwise_distance",
    "soft_margin_loss",
    "triplet_margin_loss",
    # group and instance normalisation
    "group_norm",
    "instance_norm",
    # padding
    "pad",
    # upsampling
    "interpolate",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
    "pixel_shuffle",
    "pixel_unshuffle",
]
