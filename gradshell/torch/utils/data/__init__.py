"""torch.utils.data: datasets, samplers and the DataLoader that batches them.

`import torch.utils.data as Data` and `from torch.utils.data import DataLoader` give
this module. Loading runs in the learner's process (`num_workers=0`).
"""

from gradshell.torch.utils.data.collate import default_collate, default_convert
from gradshell.torch.utils.data.dataloader import DataLoader, get_worker_info
from gradshell.torch.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from gradshell.torch.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
