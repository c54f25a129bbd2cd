"""torch.utils.data against PyTorch: the same batches, in the same shuffled order after the
same seed, the same collated types, the same splits and the same errors.

Each program (its Dataset classes defined on real PyTorch's) runs whole in PyTorch and
what it printed is recorded by the oracle, so the comparisons also run without PyTorch."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.tutorials import (
    printed,
    run_in_gradshell,
    run_in_pytorch,
    without_warnings,
)

from gradshell import torch as gtorch
from gradshell.torch.utils import data as gdata

# Each program prints; its output must be byte-for-byte PyTorch's.
PROGRAMS = {
    "shuffle": """
torch.manual_seed(0)
ds = torch.utils.data.TensorDataset(torch.arange(20.).reshape(10, 2), torch.arange(10))
print(len(ds), ds[3])
dl = torch.utils.data.DataLoader(ds, batch_size=3, shuffle=True)
print(len(dl))
for epoch in range(2):
    for xb, yb in dl:
        print(xb, yb)
print(torch.rand(2))
""",
    "drop_last": """
torch.manual_seed(3)
ds = torch.utils.data.TensorDataset(torch.arange(10))
dl = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True, drop_last=True)
print(len(dl), [b[0].tolist() for b in dl])
dl = torch.utils.data.DataLoader(ds, batch_size=4)
print(len(dl), [b[0].tolist() for b in dl])
print(torch.randn(1))
""",
    "generator": """
g = torch.Generator().manual_seed(7)
ds = torch.utils.data.TensorDataset(torch.arange(9))
for _ in range(2):
    print([b[0].tolist() for b in torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True, generator=g)])
print(torch.utils.data.RandomSampler(range(5), replacement=True, num_samples=40, generator=g).__len__())
print(list(torch.utils.data.RandomSampler(range(5), replacement=True, num_samples=40, generator=g)))
print(list(torch.utils.data.SubsetRandomSampler([10, 20, 30, 40], generator=g)))
w = torch.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7], 12, generator=g)
print(len(w), list(w), list(torch.utils.data.WeightedRandomSampler([1, 2, 3, 4], 3, replacement=False, generator=g)))
print([b.tolist() for b in torch.utils.data.DataLoader(range(4), batch_size=3, sampler=w)])
""",
    "random_split": """
ds = torch.utils.data.TensorDataset(torch.arange(10))
a, b = torch.utils.data.random_split(ds, [0.7, 0.3], generator=torch.Generator().manual_seed(42))
print(len(a), len(b), a.indices, b.indices, a[0])
torch.manual_seed(1)
parts = torch.utils.data.random_split(range(11), [0.3, 0.3, 0.4])
print([list(p) for p in parts])
parts = torch.utils.data.random_split(range(6), [2, 4])
print([list(p) for p in parts], torch.rand(1))
""",
    "collate": """
L = torch.utils.data.DataLoader
print(next(iter(L([{'a': 1.5, 'b': [1, 2]}, {'a': 2.5, 'b': [3, 4]}], batch_size=2))))
print(next(iter(L([(1, True, 'x'), (2, False, 'y')], batch_size=2))))
print(next(iter(L([np.array([1., 2.]), np.array([3., 4.])], batch_size=2))))
print(next(iter(L([np.float32(1.5), np.float32(2.5)], batch_size=2))))
print(next(iter(L([[torch.ones(2), 3]], batch_size=1))))
print(next(iter(L(torch.utils.data.TensorDataset(torch.arange(4.)), batch_size=None))))
print(next(iter(L([np.array([1, 2])], batch_size=None))))
""",
    "workers": """
import random
torch.manual_seed(1)
x = torch.linspace(1, 10, 10)
y = torch.linspace(10, 1, 10)
loader = torch.utils.data.DataLoader(dataset=torch.utils.data.TensorDataset(x, y), batch_size=5,
                                     shuffle=True, num_workers=2)
for epoch in range(3):
    for step, (batch_x, batch_y) in enumerate(loader):
        print('Epoch: ', epoch, '| Step: ', step, '| batch x: ', batch_x.numpy(), '| batch y: ', batch_y.numpy())
print(torch.rand(1))
class Noisy(torch.utils.data.Dataset):
    def __len__(self):
        return 6
    def __getitem__(self, i):
        info = torch.utils.data.get_worker_info()
        return torch.rand(1).item(), random.random(), float(np.random.rand()), info.id, info.num_workers
def init(worker_id):
    random.random()
torch.manual_seed(3)
for b in torch.utils.data.DataLoader(Noisy(), batch_size=2, num_workers=3, worker_init_fn=init):
    print(b)
print(torch.rand(1), torch.utils.data.get_worker_info())
class Shards(torch.utils.data.IterableDataset):
    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        return iter(range(info.id, 7, info.num_workers))
print(list(torch.utils.data.DataLoader(Shards(), batch_size=2, num_workers=2)))
print(list(torch.utils.data.DataLoader(range(5), batch_size=2, num_workers=2, prefetch_factor=1)))
persistent = torch.utils.data.DataLoader(Noisy(), batch_size=3, num_workers=2, persistent_workers=True, shuffle=True)
torch.manual_seed(5)
for epoch in range(2):
    print([b for b in persistent])
print(torch.rand(1))
""",
    "datasets": """
class Squares(torch.utils.data.Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return torch.tensor([float(i)]), i * i
cat = Squares(3) + Squares(2)
print(len(cat), cat[4], cat[-1], cat.cumulative_sizes)
sub = torch.utils.data.Subset(Squares(10), [9, 0, 5])
print([y for _, y in torch.utils.data.DataLoader(sub, batch_size=2)])
class Counter(torch.utils.data.IterableDataset):
    def __iter__(self):
        return iter(range(7))
print(list(torch.utils.data.DataLoader(Counter(), batch_size=3)))
print(list(torch.utils.data.DataLoader(Counter(), batch_size=3, drop_last=True)))
print(list(torch.utils.data.DataLoader(Counter(), batch_size=None))[:3])
st = torch.utils.data.StackDataset(Squares(3), torch.utils.data.TensorDataset(torch.arange(3.)))
print(len(st), st[1], next(iter(torch.utils.data.DataLoader(st, batch_size=3))))
sd = torch.utils.data.StackDataset(a=range(2), b=Squares(2))
print(sd[1], list(torch.utils.data.DataLoader(sd, batch_size=2)))
bs = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(5)), 2, False)
print(list(bs), len(bs))
print([b.tolist() for b in torch.utils.data.DataLoader(range(6), batch_sampler=bs)])
""",
}

ERRORS = [
    "torch.utils.data.DataLoader([1], sampler=[0], shuffle=True)",
    "torch.utils.data.DataLoader([1], batch_sampler=[[0]], batch_size=2)",
    "torch.utils.data.DataLoader([1], batch_size=None, drop_last=True)",
    "torch.utils.data.DataLoader([1], num_workers=-1)",
    "torch.utils.data.DataLoader([1], prefetch_factor=2)",
    "torch.utils.data.DataLoader([1], persistent_workers=True)",
    "torch.utils.data.DataLoader([1], num_workers=1, prefetch_factor=-1)",
    "torch.utils.data.BatchSampler([0], 0, False)",
    "torch.utils.data.BatchSampler([0], 2, 1)",
    "torch.utils.data.RandomSampler([0], num_samples=0)",
    "torch.utils.data.WeightedRandomSampler([[1., 2.]], 2)",
    "torch.utils.data.WeightedRandomSampler([1., 2.], 0)",
    "torch.utils.data.WeightedRandomSampler([1., 2.], 2, replacement=1)",
    "torch.utils.data.TensorDataset(torch.ones(2), torch.ones(3))",
    "torch.utils.data.random_split(range(5), [2, 2])",
    "torch.utils.data.random_split(range(5), [1.5, -0.5])",
    "next(iter(torch.utils.data.DataLoader([object()])))",
    "next(iter(torch.utils.data.DataLoader([[1, 2], [3]], batch_size=2)))",
    "torch.utils.data.Dataset()[0]",
    "torch.utils.data.StackDataset(range(2), range(3))",
    "torch.utils.data.StackDataset(range(2), b=range(2))",
    "torch.utils.data.StackDataset()",
    "dl = torch.utils.data.DataLoader([1]); dl.batch_size = 4",
    "torch.utils.data.DataLoader(torch.utils.data.IterableDataset(), shuffle=True)",
]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_prints_what_pytorch_prints(real_torch, name):
    source = PROGRAMS[name]
    expected = printed(source, real_torch)
    assert "Error" not in expected
    assert printed(source, gtorch) == expected


@pytest.mark.parametrize("source", ERRORS)
def test_errors_match_pytorch(real_torch, source):
    expected = printed(source, real_torch)
    assert "Error" in expected
    assert printed(source, gtorch) == expected


def test_shuffle_is_a_permutation_per_epoch_without_torch():
    gtorch.manual_seed(0)
    ds = gdata.TensorDataset(gtorch.arange(10))
    dl = gdata.DataLoader(ds, batch_size=4, shuffle=True)
    first = [i for (b,) in dl for i in b.tolist()]
    second = [i for (b,) in dl for i in b.tolist()]
    assert sorted(first) == sorted(second) == list(range(10))
    assert first != second  # each pass draws a fresh seed
    gtorch.manual_seed(0)
    assert [i for (b,) in dl for i in b.tolist()] == first


def test_workers_keep_their_own_random_streams_without_torch():
    class Noisy(gdata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return gtorch.rand(1).item()

    gtorch.manual_seed(0)
    with_workers = [b.tolist() for b in gdata.DataLoader(Noisy(), batch_size=1, num_workers=2)]
    after = gtorch.rand(1).item()
    gtorch.manual_seed(0)
    gtorch.empty((), dtype=gtorch.int64).random_()  # the loader's one draw: the base seed
    assert gtorch.rand(1).item() == after  # the workers' draws left the main stream alone
    assert with_workers[0] != with_workers[1]  # two workers, two seeds
    assert gdata.get_worker_info() is None


def test_class_names_read_as_pytorchs():
    assert repr(gdata.DataLoader) == "<class 'torch.utils.data.dataloader.DataLoader'>"
    assert repr(gdata.TensorDataset) == "<class 'torch.utils.data.dataset.TensorDataset'>"
    assert repr(gdata.RandomSampler) == "<class 'torch.utils.data.sampler.RandomSampler'>"


SHELL_IMPORTS = """
import torch
import torch.utils.data as Data
from torch.utils import data
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.arange(4.))
print(Data.DataLoader is DataLoader is data.DataLoader is torch.utils.data.DataLoader)
print([b for b in DataLoader(ds, batch_size=3)])
"""


def test_imports_in_the_shell():
    from gradshell.shell.session import Session

    result = Session(viz=False).run_script(SHELL_IMPORTS, "imports.py")
    assert result.error is None, result.output
    assert result.output == "True\n[[tensor([0., 1., 2.])], [tensor([3.])]]\n"


def test_d2l_style_linear_regression_script_prints_what_pytorch_prints(real_torch):
    script = Path(__file__).parent / "tutorials" / "d2l_linear_regression.py"
    expected = run_in_pytorch(script)
    assert "epoch 3" in expected
    assert run_in_gradshell(script) == expected


def test_pin_memory_without_an_accelerator_warns_as_pytorch_does():
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accel"):
        assert [b.tolist() for b in gdata.DataLoader([1, 2], pin_memory=True)] == [[1], [2]]


def test_batch_training_with_workers_script_prints_what_pytorch_prints(real_torch):
    script = Path(__file__).parent / "tutorials" / "batch_train_workers.py"
    expected = run_in_pytorch(script)
    assert "Epoch:  2 | Step:  2" in expected
    # (with fewer CPUs than workers both warn, from different files)
    assert without_warnings(run_in_gradshell(script)) == without_warnings(expected)
