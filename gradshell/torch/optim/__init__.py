"""torch.optim: Optimizer, SGD, Adam, AdamW."""

from gradshell.torch.optim.adam import Adam, AdamW
from gradshell.torch.optim.optimizer import Optimizer
from gradshell.torch.optim.sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "SGD"]
