"""torch.utils: the data-loading utilities (`torch.utils.data`)."""

from gradshell.torch.utils import data

__all__ = ["data"]
