"""DataLoader workers, emulated in this process.

A PyTorch worker is a process that seeds its own random generators (torch's with
`base_seed + worker_id`, Python's `random` the same, NumPy's from a hash of both),
runs `worker_init_fn`, then fetches and collates the batches given to it in turn.
Here each worker is a saved set of generator states: fetching "in" a worker swaps its
states in and the main ones back out afterwards, so a dataset that draws random
numbers gets the worker's numbers and the main program's stream is untouched, exactly
as with real worker processes. `get_worker_info()` answers inside a worker.
"""

from __future__ import annotations

import contextlib
import random as _py_random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from gradshell.core.random import default_generator as _torch_core

__all__ = ["Worker", "WorkerInfo", "generate_state", "get_worker_info"]


@dataclass
class WorkerInfo:
    """What `get_worker_info()` returns inside a worker."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object | None = None
    worker_method: str | None = "multiprocessing"


WorkerInfo.__module__ = "torch.utils.data._utils.worker"

_current: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The current worker's WorkerInfo inside a DataLoader worker, else None."""
    return _current


_MASK32 = 0xFFFFFFFF


def generate_state(base_seed: int, worker_id: int) -> list[int]:
    """The NumPy seed PyTorch's worker `worker_id` uses (its SeedSequence-style hash)."""
    mult_a, mult_b = 0x931E8875, 0x58F38DED
    mix_l, mix_r = 0xCA01F9DD, 0x4973F715
    shift = 16
    entropy = [worker_id, base_seed & _MASK32, base_seed >> 32, 0]
    const_a = 0x43B0D7E5

    def hash_(value: int) -> int:
        nonlocal const_a
        value = (value ^ const_a) & _MASK32
        const_a = (const_a * mult_a) & _MASK32
        value = (value * const_a) & _MASK32
        return (value ^ (value >> shift)) & _MASK32

    def mix(x: int, y: int) -> int:
        result = ((mix_l * x) & _MASK32) - ((mix_r * y) & _MASK32)
        result &= _MASK32
        return (result ^ (result >> shift)) & _MASK32

    pool = [hash_(e) for e in entropy]
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash_(pool[i_src]))
    const_b = 0x8B51F9DD
    state = []
    for value in pool:
        value = (value ^ const_b) & _MASK32
        const_b = (const_b * mult_b) & _MASK32
        value = (value * const_b) & _MASK32
        state.append((value ^ (value >> shift)) & _MASK32)
    return state


def _capture() -> tuple:
    return (_torch_core.get_state(), _py_random.getstate(), np.random.get_state())


def _restore(states: tuple) -> None:
    torch_state, py_state, np_state = states
    _torch_core.set_state(torch_state)
    _py_random.setstate(py_state)
    np.random.set_state(np_state)


class Worker:
    """One emulated worker: its id, its generator states, and (for iterable datasets)
    its own iterator over the dataset."""

    def __init__(
        self,
        worker_id: int,
        num_workers: int,
        base_seed: int,
        dataset,
        init_fn: Callable[[int], object] | None,
    ) -> None:
        seed = base_seed + worker_id
        self.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        self.fetcher = None  # set by the DataLoader iterator that owns this worker
        self._states: tuple | None = None
        with self.running():
            _torch_core.manual_seed(seed)
            _py_random.seed(seed)
            np.random.seed(generate_state(base_seed, worker_id))
            if init_fn is not None:
                init_fn(worker_id)

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Run the block as this worker: its random states and its WorkerInfo."""
        global _current
        main = _capture()
        if self._states is not None:
            _restore(self._states)
        outer, _current = _current, self.info
        try:
            yield
        finally:
            self._states = _capture()
            _restore(main)
            _current = outer
