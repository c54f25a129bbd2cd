"""torch.optim: Optimizer, SGD, Adam, AdamW, Adamax, NAdam, RAdam, ASGD, LBFGS, RMSprop, Adagrad,
Adadelta, and lr_scheduler."""

from gradshell.torch.optim import lr_scheduler
from gradshell.torch.optim.adadelta import Adadelta
from gradshell.torch.optim.adagrad import Adagrad
from gradshell.torch.optim.adam import Adam, AdamW
from gradshell.torch.optim.adamax import Adamax
from gradshell.torch.optim.asgd import ASGD
from gradshell.torch.optim.lbfgs import LBFGS
from gradshell.torch.optim.nadam import NAdam
from gradshell.torch.optim.optimizer import Optimizer
from gradshell.torch.optim.radam import RAdam
from gradshell.torch.optim.rmsprop import RMSprop
from gradshell.torch.optim.sgd import SGD

__all__ = [
    "ASGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "SGD",
    "lr_scheduler",
]
