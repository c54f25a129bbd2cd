"""torch.save and torch.load in PyTorch's zip format, readable by real PyTorch and back.

A file is a zip archive `<name>/`: `data.pkl` (the object, with tensors pickled as
references to storages), `data/<key>` (each storage's raw bytes, 64-byte aligned),
`byteorder`, `version` and PyTorch's bookkeeping records. `load` defaults to
`weights_only=True`, as PyTorch 2.6+ does: only tensors and plain containers unless
the caller allows more (see `_serial_unpickle`).
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import struct
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from gradshell.core.device import Device

# zipfile and the pickling modules load on first use: `import torch` stays quick.
if TYPE_CHECKING:
    import zipfile

    from gradshell.torch._serial_unpickle import LoadedStorage

#: Globals added by add_safe_globals: "module.name" -> object (read by the unpickler).
USER_SAFE_GLOBALS: dict[str, object] = {}

__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "load",
    "safe_globals",
    "save",
]

DEFAULT_PROTOCOL = 2

#: How save and load open a path (path, "rb"/"wb") -> binary file. The shell may replace
#: it with one that keeps files inside the session directory.
file_opener: Callable[[str, str], BinaryIO] = open
#: Where the learner's own classes live (their `__main__`): the shell sets its session's
#: namespace while learner code runs, so torch.load(weights_only=False) can rebuild a
#: saved `__main__.Net`; None means Python's own `__main__` module.
main_namespace: dict | None = None
_ALIGNMENT = 64

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


# -- save ------------------------------------------------------------------------------------
def save(
    obj,
    f,
    pickle_module=None,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Write `obj` (tensors, state_dicts, modules, containers) to the path or binary file
    `f` in PyTorch's zip format."""
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("gradshell's torch.save supports only the pickle module")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "gradshell does not support saving in PyTorch's legacy (pre-1.6) format yet"
        )
    from gradshell.torch import _serial_pickle

    data, storages = _serial_pickle.dumps(obj, pickle_protocol)
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        archive = os.path.splitext(os.path.basename(path))[0]
        with file_opener(path, "wb") as fh:
            _write_archive(fh, archive, data, storages, not _disable_byteorder_record)
    else:
        if not hasattr(f, "write"):
            raise AttributeError(
                f"expected 'f' to be string, path, or a file-like object with a 'write' "
                f"attribute, got {type(f).__name__}"
            )
        _write_archive(f, "archive", data, storages, not _disable_byteorder_record)


def _write_archive(fh, archive: str, data: bytes, storages: list, byteorder: bool) -> None:
    import zipfile

    # A seekable buffer first: zip offsets (for the alignment padding) need tell().
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        _write_record(zf, buf, f"{archive}/data.pkl", data)
        _write_record(zf, buf, f"{archive}/.format_version", b"1")
        _write_record(zf, buf, f"{archive}/.storage_alignment", str(_ALIGNMENT).encode())
        if byteorder:
            _write_record(zf, buf, f"{archive}/byteorder", sys.byteorder.encode())
        for s in storages:
            _write_record(zf, buf, f"{archive}/data/{s.key}", s.payload())
        _write_record(zf, buf, f"{archive}/version", b"3\n")
        serialization_id = str(int.from_bytes(os.urandom(16), "big")).zfill(40)[:40]
        _write_record(zf, buf, f"{archive}/.data/serialization_id", serialization_id.encode())
    fh.write(buf.getvalue())


def _write_record(zf: zipfile.ZipFile, buf: io.BytesIO, name: str, payload: bytes) -> None:
    import zipfile

    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    raw_name = name.encode()
    # Pad the local header's extra field (id 'FB', as PyTorch does) so data is aligned.
    start = buf.tell() + 30 + len(raw_name) + 4
    pad = (-start) % _ALIGNMENT
    info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    zf.writestr(info, payload)


# -- load ------------------------------------------------------------------------------------
def load(
    f,
    map_location=None,
    pickle_module=None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args,
):
    """Read an object written by torch.save (gradshell's or PyTorch's) from a path or a
    binary file. `weights_only` (default True) allows only tensors and plain data."""
    if weights_only is None:
        weights_only = pickle_module is None
    elif weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    if isinstance(f, (str, os.PathLike)):
        with file_opener(os.fspath(f), "rb") as fh:
            raw = fh.read()
    else:
        raw = f.read()
    import zipfile

    if not zipfile.is_zipfile(io.BytesIO(raw)):
        raise NotImplementedError(
            "gradshell does not support loading files in PyTorch's legacy (pre-1.6) format or "
            "TorchScript archives yet"
        )
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return _load_archive(zf, map_location, weights_only)


def _load_archive(zf: zipfile.ZipFile, map_location, weights_only: bool):
    from gradshell.torch import _serial_unpickle
    from gradshell.torch._serial_unpickle import LoadedStorage

    names = zf.namelist()
    pkl = next((n for n in names if n.endswith("/data.pkl") and n.count("/") == 1), None)
    if pkl is None:
        if any(n.endswith("constants.pkl") for n in names):
            raise NotImplementedError("gradshell does not support loading TorchScript archives")
        raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
    prefix = pkl[: -len("data.pkl")]
    big_endian = f"{prefix}byteorder" in names and zf.read(f"{prefix}byteorder").strip() == b"big"
    cache: dict[str, LoadedStorage] = {}

    def storage(key: str, dtype, location: str, numel: int) -> LoadedStorage:
        found = cache.get(key)
        if found is None:
            raw = zf.read(f"{prefix}data/{key}")
            found = cache[key] = LoadedStorage(
                _storage_array(raw, dtype, big_endian), dtype, location
            )
        return found

    unpickler = _serial_unpickle.TorchUnpickler(zf.read(pkl), storage, weights_only)
    try:
        result = unpickler.load()
    except pickle.UnpicklingError as e:
        if weights_only:
            raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
        raise
    return _place(result, cache, map_location)


def _storage_array(raw: bytes, dtype, big_endian: bool) -> np.ndarray:
    """A storage record's bytes as a writable flat array of `dtype`'s array type."""
    if dtype.name == "bfloat16":
        bits = np.frombuffer(raw, dtype=">u2" if big_endian else "<u2").astype(np.uint32)
        return np.frombuffer(bytearray((bits << 16).tobytes()), dtype=np.float32)
    array = np.frombuffer(bytearray(raw), dtype=dtype.np)
    return array.byteswap() if big_endian else array


def _weights_only_message(message: str) -> str:
    if "was not an allowed global by default." in message:
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the "
            f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
            "`weights_only=True` please check the recommended steps in the following error "
            "message.\n\tWeightsUnpickler error: " + message + _DOCS_MESSAGE
        )
    return (
        f"Weights only load failed. {UNSAFE_MESSAGE}\nPlease file an issue with the following "
        "so that we can make `weights_only=True` compatible with your use case: "
        "WeightsUnpickler error: \n\n" + message + _DOCS_MESSAGE
    )


def _target_device(storage: LoadedStorage, map_location) -> str:
    location = storage.location
    if map_location is None:
        return location
    if isinstance(map_location, dict):
        return str(map_location.get(location, location))
    if isinstance(map_location, (str, Device)):
        return str(map_location)
    if callable(map_location):
        # `lambda storage, loc: storage`, the old idiom for "keep it on the CPU": the
        # storage handed over is the one read into host memory.
        if map_location(storage, location) is storage:
            return "cpu"
        raise NotImplementedError(
            "gradshell does not support a map_location function that moves storages yet"
        )
    raise TypeError(f"map_location should be a device, a dict or a function, not {map_location!r}")


def _place(result, storages: dict, map_location):
    """Move tensors whose storage belongs on a CUDA device there (or fail as PyTorch does)."""
    targets = {id(s.array): _target_device(s, map_location) for s in storages.values()}
    if all(t == "cpu" for t in targets.values()):
        return result
    from gradshell.torch import cuda

    if not cuda.is_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU."
        )
    raise NotImplementedError("gradshell does not support loading tensors onto CUDA yet")


# -- allow-listing globals for weights_only loads ---------------------------------------------
def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals (`module.name`) in a torch.save file that a weights_only load refuses,
    read from the pickle without running it."""
    import pickletools
    import zipfile

    from gradshell.torch._serial_unpickle import allowed_globals, pickle_global_name

    if isinstance(f, (str, os.PathLike)):
        with file_opener(os.fspath(f), "rb") as fh:
            raw = fh.read()
    else:
        raw = f.read()
    if not zipfile.is_zipfile(io.BytesIO(raw)):
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        names = zf.namelist()
        if any(n.endswith("constants.pkl") for n in names):
            raise ValueError(
                "Expected input to be a checkpoint returned by torch.save but got a torchscript "
                "checkpoint"
            )
        pkl = next(n for n in names if n.endswith("/data.pkl") and n.count("/") == 1)
        data = zf.read(pkl)
    found, strings, proto = set(), [], 0
    for op, arg, _ in pickletools.genops(data):
        if op.name == "PROTO":
            proto = arg
        elif op.name == "GLOBAL":
            module, _, name = arg.partition(" ")
            found.add(pickle_global_name(module, name, proto))
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            found.add(pickle_global_name(strings[-2], strings[-1], proto))
        elif isinstance(arg, str):
            strings.append(arg)
    safe = set(allowed_globals()) | set(USER_SAFE_GLOBALS)
    return sorted(found - safe)


def _key(obj) -> str:
    from gradshell.torch._serial_pickle import torch_module_path

    if isinstance(obj, tuple):
        obj, name = obj
        return name
    module = torch_module_path(obj) if isinstance(obj, type) else obj.__module__
    return f"{module}.{obj.__qualname__}"


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes/functions in weights_only loads."""
    for g in safe_globals:
        USER_SAFE_GLOBALS[_key(g)] = g[0] if isinstance(g, tuple) else g


def get_safe_globals() -> list:
    """The globals added with add_safe_globals."""
    return list(USER_SAFE_GLOBALS.values())


def clear_safe_globals() -> None:
    """Forget the globals added with add_safe_globals."""
    USER_SAFE_GLOBALS.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list) -> Iterator[None]:
    """Allow these globals in weights_only loads inside the `with` block."""
    before = dict(USER_SAFE_GLOBALS)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        USER_SAFE_GLOBALS.clear()
        USER_SAFE_GLOBALS.update(before)
