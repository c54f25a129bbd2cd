"""torch.nn: Module and Parameter, layers, activations, losses, containers, and the
`functional` and `init` submodules."""

from gradshell.torch.nn import functional, init, modules, utils
from gradshell.torch.nn.modules import *  # noqa: F403 - every layer, listed in modules.__all__
from gradshell.torch.nn.parameter import Parameter, UninitializedParameter

__all__ = [
    *modules.__all__,
    "Parameter",
    "UninitializedParameter",
    "functional",
    "init",
    "modules",
    "utils",
]
