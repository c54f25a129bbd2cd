"""torch.nn's module classes."""

from gradshell.torch.nn.modules.activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from gradshell.torch.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from gradshell.torch.nn.modules.container import (
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from gradshell.torch.nn.modules.conv import Conv1d, Conv2d
from gradshell.torch.nn.modules.distance import CosineSimilarity, PairwiseDistance
from gradshell.torch.nn.modules.dropout import Dropout
from gradshell.torch.nn.modules.flatten import Flatten, Unflatten
from gradshell.torch.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d
from gradshell.torch.nn.modules.linear import Identity, Linear
from gradshell.torch.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
)
from gradshell.torch.nn.modules.module import Module
from gradshell.torch.nn.modules.normalization import GroupNorm, LayerNorm
from gradshell.torch.nn.modules.padding import (
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from gradshell.torch.nn.modules.pixelshuffle import PixelShuffle, PixelUnshuffle
from gradshell.torch.nn.modules.pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from gradshell.torch.nn.modules.rnn import (
    GRU,
    LSTM,
    RNN,
    GRUCell,
    LSTMCell,
    RNNBase,
    RNNCell,
    RNNCellBase,
)
from gradshell.torch.nn.modules.sparse import Embedding
from gradshell.torch.nn.modules.upsampling import (
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
)

# isort: split
# -- 1-d and adaptive pooling, transposed convolution, attention (branch nnB) --
from gradshell.torch.nn.modules.attention import MultiheadAttention
from gradshell.torch.nn.modules.conv import ConvTranspose1d, ConvTranspose2d
from gradshell.torch.nn.modules.pooling import (
    AdaptiveAvgPool1d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    MaxPool1d,
    MaxUnpool2d,
)
from gradshell.torch.nn.modules.transformer import TransformerEncoderLayer

__all__ = [
    "AdaptiveAvgPool2d",
    "AvgPool2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv1d",
    "Conv2d",
    "CosineSimilarity",
    "MaxPool2d",
    "ParameterDict",
    "ParameterList",
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GELU",
    "Hardtanh",
    "Identity",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "PairwiseDistance",
    "ReLU",
    "ReLU6",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softmin",
    "Softplus",
    "Softsign",
    "Tanh",
    "Unflatten",
    # -- branch nnB --
    "ConvTranspose1d",
    "ConvTranspose2d",
    "AdaptiveAvgPool1d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AvgPool1d",
    "MaxPool1d",
    "MaxUnpool2d",
    "MultiheadAttention",
    "TransformerEncoderLayer",
    # more activations
    "CELU",
    "GLU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "LogSigmoid",
    "Mish",
    "PReLU",
    "SELU",
    "Softshrink",
    "Tanhshrink",
    "Threshold",
    # more losses
    "CosineEmbeddingLoss",
    "HuberLoss",
    "KLDivLoss",
    "MarginRankingLoss",
    "PairwiseDistance",
    "SoftMarginLoss",
    "TripletMarginLoss",
    # group and instance normalisation
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    # padding
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    # upsampling
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "PixelShuffle",
    "PixelUnshuffle",
    # recurrent layers
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
]
