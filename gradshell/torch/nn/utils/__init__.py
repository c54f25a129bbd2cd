"""torch.nn.utils: gradient clipping (`clip_grad_norm_`, `clip_grad_value_`),
flattening parameters into one vector and back, and padding sequences (`rnn`)."""

from gradshell.torch.nn.utils import clip_grad, convert_parameters, rnn
from gradshell.torch.nn.utils.clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from gradshell.torch.nn.utils.convert_parameters import (
    parameters_to_vector,
    vector_to_parameters,
)

__all__ = [
    "clip_grad",
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "convert_parameters",
    "get_total_norm",
    "parameters_to_vector",
    "rnn",
    "vector_to_parameters",
]
