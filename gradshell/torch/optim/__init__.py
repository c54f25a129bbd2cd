"""torch.optim: Optimizer, SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, and lr_scheduler."""

from gradshell.torch.optim import lr_scheduler
from gradshell.torch.optim.adadelta import Adadelta
from gradshell.torch.optim.adagrad import Adagrad
from gradshell.torch.optim.adam import Adam, AdamW
from gradshell.torch.optim.optimizer import Optimizer
from gradshell.torch.optim.rmsprop import RMSprop
from gradshell.torch.optim.sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
