"""torch.nn's module classes."""

from gradshell.torch.nn.modules.activation import (
    ELU,
    GELU,
    Hardtanh,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softmin,
    Softplus,
    Softsign,
    Tanh,
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
from gradshell.torch.nn.modules.linear import Identity, Linear
from gradshell.torch.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from gradshell.torch.nn.modules.module import Module
from gradshell.torch.nn.modules.normalization import LayerNorm
from gradshell.torch.nn.modules.pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from gradshell.torch.nn.modules.sparse import Embedding

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
]
