"""torch.save / torch.load: PyTorch's zip format in both directions (files written by
gradshell load in real PyTorch and back), weights_only semantics and messages, and a
loader that refuses to run code from a crafted file.

PyTorch's side of each exchange is one piece the oracle records (`support.oracle.computed`):
the bytes of the files real torch.save wrote, and what real PyTorch printed reading a file
(gradshell's included: that answer is keyed by a digest of gradshell's bytes, so a change
in what gradshell writes makes the recording stale instead of passing unchecked)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import tempfile
import zipfile
from pathlib import Path

import pytest
from support import oracle

from gradshell import torch as gtorch
from gradshell.torch import serialization

# Writes a checkpoint with `torch` (either library) into `path`.
WRITE = """
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
net(torch.ones(4, 3)).sum().backward()
opt.step()
base = torch.arange(12.).reshape(3, 4)
torch.save({
    'model': net.state_dict(), 'opt': opt.state_dict(), 'epoch': 3,
    'p': torch.nn.Parameter(torch.ones(2)), 'h': torch.ones(3, dtype=torch.float16),
    'i': torch.arange(4, dtype=torch.int32), 'b': torch.tensor([True, False]),
    'base': base, 'row': base[1], 't': base.t(), 'e': torch.empty(0, 3),
    's': torch.tensor(2.5, dtype=torch.float64), 'g': torch.ones(2, requires_grad=True),
    'bytes': b'xy', 'set': {1, 2}, 'tuple': (1, 'a'), 'dtype': torch.int64,
    'size': torch.Size([2, 3]), 'device': torch.device('cpu'),
    'bf16': torch.tensor([1.5, -2.25, 3.140625, 1e-3], dtype=torch.bfloat16),
}, path)
torch.save(net, module_path)
"""

# Reads it back with `torch` and prints what it finds.
READ = """
ck = torch.load(path)
for k, v in ck.items():
    print(k, v)
print(ck['t'].stride(), ck['t'].is_contiguous(), ck['row'].storage_offset())
ck['base'][1, 0] = 100.
print(ck['row'], ck['t'][0])
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
print(model.load_state_dict(ck['model']))
print(model(torch.ones(1, 3)))
try:
    torch.load(module_path)
except Exception as e:
    print(type(e).__name__, str(e))
net = torch.load(module_path, weights_only=False)
print(net, type(net), net.training)
print(net(torch.ones(2, 3)))
"""


FILES = ("ck.pt", "net.pt")


def _printed(source: str, torch_mod, folder: Path) -> str:
    out = io.StringIO()
    names = {"path": str(folder / "ck.pt"), "module_path": str(folder / "net.pt")}
    with contextlib.redirect_stdout(out):
        exec(source, {"torch": torch_mod, **names})  # noqa: S102 - the tests' own programs
    return out.getvalue()


def _digest(files: dict) -> str:
    return hashlib.sha256(b"".join(files[name] for name in sorted(files))).hexdigest()[:16]


def _in_a_folder(files: dict, fn):
    """`fn(folder)` with `files` ({name: bytes}) written into a fresh temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, data in files.items():
            (folder / name).write_bytes(data)
        return fn(folder)


def _read_files(folder: Path, names=FILES) -> dict:
    return {name: (folder / name).read_bytes() for name in names}


def pytorch_writes(torch_mod, source: str = WRITE, names=FILES) -> dict:
    """The files real torch.save wrote running `source` (recorded as bytes)."""

    def run(real) -> dict:
        with tempfile.TemporaryDirectory() as tmp:
            _printed(source, real, Path(tmp))
            return _read_files(Path(tmp), names)

    return oracle.computed(f"torch.save {names}", run, torch_mod)


def pytorch_reads(torch_mod, files: dict, source: str = READ) -> str:
    """What real PyTorch printed running `source` on `files` (recorded; keyed by the
    files' digest, so other bytes are other questions)."""
    return oracle.computed(
        f"read {_digest(files)} with {_digest({'': source.encode()})}",
        lambda real: _in_a_folder(files, lambda folder: _printed(source, real, folder)),
        torch_mod,
    )


def gradshell_writes(source: str = WRITE, names=FILES) -> dict:
    """The files gradshell's torch.save wrote running `source`, with the archive's random
    serialization id fixed (PyTorch's is a digest; gradshell's a random draw that nothing
    reads) so the same program gives the same bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        saved = os.urandom
        os.urandom = lambda n: bytes(n)
        try:
            _printed(source, gtorch, Path(tmp))
        finally:
            os.urandom = saved
        return _read_files(Path(tmp), names)


def test_pytorch_reads_what_gradshell_writes(real_torch):
    theirs = pytorch_reads(real_torch, pytorch_writes(real_torch))
    assert "Weights only load failed" in theirs
    assert pytorch_reads(real_torch, gradshell_writes()) == theirs


def test_gradshell_reads_what_pytorch_writes(real_torch):
    files = pytorch_writes(real_torch)
    theirs = pytorch_reads(real_torch, files)
    assert "Weights only load failed" in theirs
    assert _in_a_folder(files, lambda folder: _printed(READ, gtorch, folder)) == theirs


def test_gradshell_reads_what_it_writes_as_pytorch_reads_its_own(real_torch):
    theirs = pytorch_reads(real_torch, pytorch_writes(real_torch))
    ours = _in_a_folder(gradshell_writes(), lambda folder: _printed(READ, gtorch, folder))
    assert ours == theirs


def test_the_archive_is_laid_out_as_pytorchs(tmp_path):
    path = tmp_path / "weights.pt"
    gtorch.save({"w": gtorch.ones(3), "v": gtorch.zeros(2, dtype=gtorch.int64)}, path)
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        assert names == [
            "weights/data.pkl",
            "weights/.format_version",
            "weights/.storage_alignment",
            "weights/byteorder",
            "weights/data/0",
            "weights/data/1",
            "weights/version",
            "weights/.data/serialization_id",
        ]
        assert zf.read("weights/version") == b"3\n"
        assert zf.read("weights/byteorder") == b"little"
    for info in infos:
        assert info.compress_type == zipfile.ZIP_STORED
        data_start = info.header_offset + 30 + len(info.filename) + len(info.extra)
        assert data_start % 64 == 0
    buf = io.BytesIO()
    gtorch.save(gtorch.ones(1), buf)
    assert zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()[0] == "archive/data.pkl"


def test_round_trip_through_a_buffer_keeps_views_and_parameters():
    base = gtorch.arange(6.0).reshape(2, 3)
    p = gtorch.nn.Parameter(gtorch.ones(2))
    buf = io.BytesIO()
    gtorch.save([base, base[1], p, p], buf)
    buf.seek(0)
    a, row, q, q2 = gtorch.load(buf)
    assert row.tolist() == [3.0, 4.0, 5.0]
    a[1, 1] = -1.0
    assert row.tolist() == [3.0, -1.0, 5.0]  # still a view of the same storage
    assert type(q) is gtorch.nn.Parameter and q.requires_grad and q is q2


def test_modules_need_weights_only_false():
    buf = io.BytesIO()
    gtorch.save(gtorch.nn.Linear(2, 1), buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL torch.nn.modules.linear.Linear"):
        gtorch.load(buf)
    buf.seek(0)
    with serialization.safe_globals([gtorch.nn.Linear]):
        assert isinstance(gtorch.load(buf), gtorch.nn.Linear)
    assert serialization.get_safe_globals() == []
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        gtorch.load(buf, pickle_module=pickle, weights_only=True)


def _archive(payload: bytes, storages: dict | None = None) -> io.BytesIO:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", payload)
        for key, raw in (storages or {}).items():
            zf.writestr(f"archive/data/{key}", raw)
    buf.seek(0)
    return buf


class _Shell:
    def __reduce__(self):
        import os

        return (os.system, ("echo owned",))


@pytest.mark.parametrize("weights_only", [True, False])
def test_a_crafted_file_cannot_run_code(weights_only):
    for payload in (
        pickle.dumps(_Shell(), protocol=2),
        b"cos\nsystem\n(S'echo owned'\ntR.",
        b"(S'echo owned'\nios\nsystem\n.",  # INST opcode
        b"\x80\x02cbuiltins\neval\nX\x04\x00\x00\x001+1\x85R.",
    ):
        with pytest.raises(pickle.UnpicklingError):
            gtorch.load(_archive(payload), weights_only=weights_only)


def test_out_of_bounds_tensor_views_are_refused():
    # a 4-element storage viewed as 100 elements
    payload = (
        b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storage"
        b"ctorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x04tQK\x00K\x64\x85K"
        b"\x01\x85\x89ccollections\nOrderedDict\n)RtR."
    )
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 16"):
        gtorch.load(_archive(payload, {"0": b"\x00" * 16}))


LINEAR = "torch.manual_seed(0)\ntorch.save(torch.nn.Linear(2, 1), path)\n"
LOAD = """
try:
    torch.load(path)
except Exception as e:
    print(f"{type(e).__name__}: {e}")
"""


def test_weights_only_message_matches_pytorch(real_torch):
    files = pytorch_writes(real_torch, LINEAR, ("ck.pt",))
    theirs = pytorch_reads(real_torch, files, LOAD)
    assert "Weights only load failed" in theirs

    def load(folder: Path) -> str:
        with pytest.raises(pickle.UnpicklingError) as ours:
            gtorch.load(folder / "ck.pt")
        return f"UnpicklingError: {ours.value}\n"

    assert _in_a_folder(files, load) == theirs


def test_legacy_format_is_refused_by_name():
    with pytest.raises(NotImplementedError, match="legacy"):
        gtorch.load(io.BytesIO(pickle.dumps({"a": 1})))


def test_paths_go_through_the_file_opener(tmp_path, monkeypatch):
    opened = []

    def opener(path, mode):
        opened.append((path, mode))
        return open(path, mode)  # noqa: SIM115 - returned to the caller's with-block

    monkeypatch.setattr(serialization, "file_opener", opener)
    path = str(tmp_path / "t.pt")
    gtorch.save(gtorch.ones(2), path)
    assert gtorch.load(path).tolist() == [1.0, 1.0]
    assert opened == [(path, "wb"), (path, "rb")]


def test_weights_only_false_loads_numpy_arrays_but_no_other_globals():
    import numpy as np

    buf = io.BytesIO()
    gtorch.save({"a": np.arange(3), "f": frozenset([1])}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="numpy._core.multiarray._reconstruct"):
        gtorch.load(buf)
    buf.seek(0)
    loaded = gtorch.load(buf, weights_only=False)
    assert loaded["a"].tolist() == [0, 1, 2] and loaded["f"] == frozenset([1])
    with pytest.raises(pickle.UnpicklingError, match="cannot load the global posix.system"):
        gtorch.load(_archive(pickle.dumps(_Shell(), protocol=2)), weights_only=False)


# PyTorch's "Saving and loading models" recipe, as a learner types it.
SAVING_AND_LOADING = """
nn, optim, F = torch.nn, torch.optim, torch.nn.functional
class TheModelClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 12)
        self.fc2 = nn.Linear(12, 4)
    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))
torch.manual_seed(0)
model = TheModelClass()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\\t", model.state_dict()[param_tensor].size())
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\\t", optimizer.state_dict()[var_name])
torch.save(model.state_dict(), PATH)
model2 = TheModelClass()
print(model2.load_state_dict(torch.load(PATH, weights_only=True)))
model2.eval()
x = torch.randn(2, 16)
print(torch.equal(model(x), model2(x)))
loss = model(x).sum()
loss.backward()
optimizer.step()
torch.save({'epoch': 5, 'model_state_dict': model.state_dict(),
            'optimizer_state_dict': optimizer.state_dict(), 'loss': loss}, PATH)
checkpoint = torch.load(PATH, weights_only=True)
model3 = TheModelClass()
optimizer3 = optim.SGD(model3.parameters(), lr=0.5)
model3.load_state_dict(checkpoint['model_state_dict'])
optimizer3.load_state_dict(checkpoint['optimizer_state_dict'])
print(checkpoint['epoch'], checkpoint['loss'], optimizer3.state_dict()['param_groups'])
print(optimizer3.state_dict()['state'][3])
"""


def test_saving_and_loading_recipe_prints_what_pytorch_prints(real_torch, tmp_path):
    from support.tutorials import printed

    expected = printed(SAVING_AND_LOADING, real_torch, {"PATH": str(tmp_path / "t.pt")})
    got = printed(SAVING_AND_LOADING, gtorch, {"PATH": str(tmp_path / "g.pt")})
    assert "momentum_buffer" in expected and "Error" not in expected
    assert got == expected


def test_map_location_forms():
    buf = io.BytesIO()
    gtorch.save({"w": gtorch.ones(2)}, buf)
    for where in ("cpu", gtorch.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage):
        buf.seek(0)
        assert gtorch.load(buf, map_location=where)["w"].tolist() == [1.0, 1.0]
    if not gtorch.cuda.is_available():
        buf.seek(0)
        with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA"):
            gtorch.load(buf, map_location="cuda:0")


MIXED = (
    "torch.manual_seed(0)\n"
    "torch.save({'net': torch.nn.Linear(1, 1), 't': torch.ones(1), 's': {1}}, path)\n"
)
UNSAFE = "print(torch.serialization.get_unsafe_globals_in_checkpoint(path))\n"


def test_unsafe_globals_are_listed_without_loading(real_torch):
    listed = "['torch.nn.modules.linear.Linear']\n"
    for files in (
        gradshell_writes(MIXED, ("ck.pt",)),
        pytorch_writes(real_torch, MIXED, ("ck.pt",)),
    ):
        assert _in_a_folder(files, lambda folder: _printed(UNSAFE, gtorch, folder)) == listed
        assert pytorch_reads(real_torch, files, UNSAFE) == listed
