"""`DataLoader`: batches from a dataset in the sampler's order.

Each pass draws the same random numbers PyTorch's loader draws (a base seed when the
iterator is made, then the sampler's seed), so a seeded script shuffles identically and
later random draws stay in step with PyTorch. With `num_workers > 0` the workers are
emulated in this process (`_workers`): batches go to workers in turn and each worker
draws from its own generators, seeded as PyTorch seeds worker processes.
"""

from __future__ import annotations

import collections
import itertools
import os
import warnings

from gradshell.torch.utils.data._workers import Worker, get_worker_info
from gradshell.torch.utils.data.collate import default_collate, default_convert
from gradshell.torch.utils.data.dataset import IterableDataset
from gradshell.torch.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    fresh_seed,
)

__all__ = ["DataLoader", "get_worker_info"]

_MODULE = "torch.utils.data.dataloader"
_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: None, for ever."""

    __module__ = _MODULE

    def __iter__(self):
        return itertools.repeat(None)


def _check_options(num_workers, timeout, prefetch_factor, persistent_workers) -> None:
    if num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to disable "
            "multiprocessing."
        )
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing.let num_workers "
            "> 0 to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


def _cpu_count() -> int | None:
    try:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    except OSError:
        return None


def _check_worker_number(num_workers: int) -> None:
    """PyTorch's warning when a loader asks for more workers than there are CPUs."""
    if not num_workers:
        return
    suggest = _cpu_count()
    if suggest is None and not hasattr(os, "sched_getaffinity"):
        suggest = os.cpu_count()
    if suggest is not None and num_workers <= suggest:
        return
    if suggest is not None:
        cpuset = "" if hasattr(os, "sched_getaffinity") else " (`cpuset` is not taken into account)"
        suggested = (
            f"Our suggested max number of worker in current system is {suggest}{cpuset}, which "
            "is smaller than what this DataLoader is going to create."
        )
    else:
        suggested = (
            "DataLoader is not able to compute a suggested max number of worker in current system."
        )
    warnings.warn(
        f"This DataLoader will create {num_workers} worker processes in total. {suggested} "
        "Please be aware that excessive worker creation might get DataLoader running slow or "
        "even freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
        stacklevel=3,
    )


class DataLoader:
    """Iterate over `dataset` in batches (a sampler picks the order, `collate_fn` merges)."""

    __module__ = _MODULE

    def __init__(
        self,
        dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler=None,
        batch_sampler=None,
        num_workers: int = 0,
        collate_fn=None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        _check_options(num_workers, timeout, prefetch_factor, persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, but "
                    f"got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, but "
                    f"got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator = None
        self._initialized = True
        _check_worker_number(num_workers)

    def __setattr__(self, attr: str, val) -> None:
        if self.__dict__.get("_initialized") and attr in _FROZEN:
            raise ValueError(
                f"{attr} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        if not self.persistent_workers:
            _check_worker_number(self.num_workers)  # PyTorch checks again for each new pool
            return _MultiProcessingDataLoaderIter(self)
        # Persistent workers live across passes: no new base seed, generators carry on.
        if self._iterator is None:
            _check_worker_number(self.num_workers)
            self._iterator = _MultiProcessingDataLoaderIter(self)
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


def _warn_pin_memory(loader: DataLoader) -> None:
    if loader.pin_memory and loader.pin_memory_device:
        warnings.warn(
            "pin_memory_device is deprecated, the current accelerator will be used as the "
            f"device,ignore pin_memory_device='{loader.pin_memory_device}'.",
            stacklevel=3,
        )
    if loader.pin_memory:
        from gradshell.torch import cuda

        if not cuda.is_available():
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device "
                "pinned memory won't be used.",
                stacklevel=3,
            )


class _Fetcher:
    """Turns the sampler's next index (a batch of indices, one index, or None for an
    iterable dataset) into collated data."""

    def __init__(self, loader: DataLoader) -> None:
        self.dataset = loader.dataset
        self.auto_collation = loader._auto_collation
        self.drop_last = loader.drop_last
        self.collate_fn = loader.collate_fn
        self.dataset_iter = iter(self.dataset) if loader._iterable else None
        self.ended = False

    def fetch(self, index):
        if self.dataset_iter is not None:
            data = self._fetch_iterable(index)
        elif self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            if callable(getitems):
                data = getitems(index)
            else:
                data = [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)

    def _fetch_iterable(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return next(self.dataset_iter)
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return data


class _SingleProcessDataLoaderIter:
    """One pass over a DataLoader, in this process."""

    __module__ = _MODULE

    def __init__(self, loader: DataLoader) -> None:
        self._index_sampler = loader._index_sampler
        _warn_pin_memory(loader)
        self._sampler_iter = iter(self._index_sampler)
        # Drawn as PyTorch draws it (workers are seeded from it), to keep the global
        # generator in step.
        self._base_seed = fresh_seed(loader.generator)
        self._fetcher = _Fetcher(loader) if loader.num_workers == 0 else None

    def __iter__(self):
        return self

    def __next__(self):
        return self._fetcher.fetch(next(self._sampler_iter))

    def __len__(self) -> int:
        return len(self._index_sampler)


class _MultiProcessingDataLoaderIter(_SingleProcessDataLoaderIter):
    """One pass over a DataLoader with `num_workers` workers (emulated in this process):
    batch k is fetched by worker k % num_workers, in order."""

    __module__ = _MODULE

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        n = loader.num_workers
        self._prefetch = (loader.prefetch_factor or 2) * n
        self._workers = [
            Worker(i, n, self._base_seed, loader.dataset, loader.worker_init_fn) for i in range(n)
        ]
        self._start(loader)

    def _start(self, loader: DataLoader) -> None:
        for w in self._workers:
            with w.running():
                w.fetcher = _Fetcher(loader)
        self._active = list(self._workers)
        self._turn = 0
        # PyTorch hands the first prefetch_factor * num_workers indices out at once, so the
        # sampler's random draws happen when the iterator is made.
        self._queued = collections.deque(itertools.islice(self._sampler_iter, self._prefetch))

    def _reset(self, loader: DataLoader) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._start(loader)

    def __next__(self):
        while self._active:
            if self._queued:
                index = self._queued.popleft()
            else:
                index = next(self._sampler_iter)
            w = self._active[self._turn % len(self._active)]
            try:
                with w.running():
                    data = w.fetcher.fetch(index)
            except StopIteration:
                # an iterable dataset's copy in this worker ran out: the others go on
                self._active.remove(w)
                continue
            self._turn += 1
            return data
        raise StopIteration
