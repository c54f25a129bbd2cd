"""The oracle: runs each operation on a proxy against real PyTorch and records the answer
("record" mode), or answers it from the recording ("replay" mode, PyTorch absent).

In "live" mode (PyTorch installed, nothing recorded) the oracle is not involved at all:
tests get the real torch module.
"""

from __future__ import annotations

import importlib
import math
import operator
import sys
import types
import warnings
from pathlib import Path

import numpy as np

from support.oracle import codec
from support.oracle.log import ORACLE_DIR, TESTS_DIR, Log, read, recording_path, write
from support.oracle.proxy import BINARY, COMPARE, CallableProxy, Proxy, proxy_class

_HERE = str(Path(__file__).resolve().parent)


class Mismatch(BaseException):
    """The test asked PyTorch something the recording does not hold (a BaseException so
    that a test's own `except Exception` cannot swallow it)."""


_UNARY = {
    "repr": repr,
    "str": str,
    "bool": bool,
    "float": float,
    "int": int,
    "index": operator.index,
    "complex": complex,
    "len": len,
    "iter": iter,
    "next": next,
    "reversed": reversed,
    "dir": dir,
    "trunc": math.trunc,
    "floor": math.floor,
    "ceil": math.ceil,
    "abs": operator.abs,
    "neg": operator.neg,
    "pos": operator.pos,
    "invert": operator.invert,
    "enter": lambda obj: obj.__enter__(),
    "array": lambda obj: np.asarray(obj),
}


def _perform(op: str, obj, args: tuple, kwargs: dict):
    """Do `op` on the real PyTorch object."""
    if op == "call":
        return obj(*args, **kwargs)
    if op == "getattr":
        return getattr(obj, args[0])
    if op == "setattr":
        return setattr(obj, args[0], args[1])
    if op == "delattr":
        return delattr(obj, args[0])
    if op in _UNARY:
        return _UNARY[op](obj)
    if op == "format":
        return format(obj, args[0])
    if op == "round":
        return round(obj, *args)
    if op == "contains":
        return args[0] in obj
    if op == "getitem":
        return obj[args[0]]
    if op == "setitem":
        obj[args[0]] = args[1]
        return None
    if op == "delitem":
        del obj[args[0]]
        return None
    if op == "exit":
        return obj.__exit__(args[0], args[1], None)
    if op == "instancecheck":
        return isinstance(args[0], obj)
    if op == "subclasscheck":
        return issubclass(args[0], obj)
    if op in ("divmod", "rdivmod"):
        return divmod(obj, args[0]) if op == "divmod" else divmod(args[0], obj)
    if op in COMPARE or op in BINARY:
        return getattr(operator, _opname(op))(obj, args[0])
    if op[0] == "r" and op[1:] in BINARY:
        return getattr(operator, _opname(op[1:]))(args[0], obj)
    if op[0] == "i" and op[1:] in BINARY:
        return getattr(operator, op)(obj, args[0])
    raise AssertionError(f"unknown operation {op}")


def _opname(op: str) -> str:
    return {"and": "and_", "or": "or_"}.get(op, op)


def _is_callback(value) -> bool:
    return isinstance(value, (types.FunctionType, types.MethodType)) and not isinstance(
        value, Proxy
    )


class Oracle:
    """Mode, recordings and the log of the test that is running."""

    def __init__(self) -> None:
        self.mode = "live"
        self.root = ORACLE_DIR
        self.current: Log | None = None
        self.files: dict = {}
        self.roots: dict[str, Proxy] = {}
        self.torch_version = "?"
        self.passthrough = False  # while a `computed` value runs on real PyTorch
        self.inside = 0  # depth of real PyTorch operations running (record mode)

    # -- logs ----------------------------------------------------------------------------------

    def _file(self, key: str) -> dict:
        path = recording_path(key, self.root)
        if path not in self.files:
            self.files[path] = read(path) if self.mode == "replay" else {}
        return self.files[path]

    def open_log(self, key: str, prefix: str, parents=()) -> Log:
        """The log for `key`: its recording (replay) or a fresh one (record); `parents` are
        the logs it may refer to (a tuple, or a callable giving one: `Log.parents`)."""
        stored = self._file(key)
        if self.mode == "record":
            log = Log(key, prefix, None, parents)
            stored[key] = log.events
        else:
            log = Log(key, prefix, stored.get(key), parents)
        return log

    def save(self) -> list:
        """Write the recordings of this run, merged into what each file already holds
        (a whole run rewrites everything: `tests/oracle/record.py` starts from empty)."""
        paths = []
        for path, logs in self.files.items():
            merged = read(path)
            merged.update({k: v for k, v in logs.items() if v})
            if not merged:
                continue
            write(path, merged)
            paths.append(path)
        return paths

    # -- proxies -------------------------------------------------------------------------------

    def module(self, name: str) -> Proxy:
        """The proxy for PyTorch module `name` ('torch', 'torch.nn.functional')."""
        if name not in self.roots:
            real = importlib.import_module(name) if self.mode == "record" else None
            self.roots[name] = CallableProxy(f"mod:{name}", real)
        return self.roots[name]

    def _new_proxy(self, log: Log, real, payload) -> Proxy:
        flags, module, name = payload
        proxy = proxy_class(module, name, flags)(log.new_label(), real)
        log.proxies[proxy._o_label] = proxy
        if self.mode == "record":
            log.by_real[id(real)] = proxy
        return proxy

    def _resolve(self, log: Log, label: str) -> Proxy:
        if label.startswith("mod:"):
            return self.module(label[4:])
        found = log.find_label(label)
        if found is None:
            raise Mismatch(f"the recording refers to {label}, which this run never made")
        return found

    def _log(self) -> Log:
        if self.current is None:
            raise Mismatch("PyTorch was used outside a test or a module's collection")
        return self.current

    # -- describing arguments ----------------------------------------------------------------

    def describe(self, log: Log, value, depth: int = 0) -> str:
        """A stable, value-blind description of an argument for event signatures."""
        if isinstance(value, Proxy):
            return value._o_label
        if _is_callback(value):
            return f"cb{log.callback_index(value)}"
        kind = type(value)
        if kind is float:
            return format(value, ".6g")
        if kind in (bool, int, type(None)) or value is Ellipsis:
            return repr(value)
        if kind is str:
            return repr(value[:40])
        if isinstance(value, np.ndarray):
            return f"<{value.dtype}{list(value.shape)}>"
        if isinstance(value, np.generic):
            return f"<{value.dtype}>"
        if depth > 4:
            return "…"
        if kind in (tuple, list) or codec._is_torch_size(value):
            inner = ",".join(self.describe(log, v, depth + 1) for v in value)
            return f"({inner})" if kind is not list else f"[{inner}]"
        if kind is dict:
            return (
                "{"
                + ",".join(f"{k}:{self.describe(log, v, depth + 1)}" for k, v in value.items())
                + "}"
            )
        if kind is slice:
            return f"slice({self.describe(log, (value.start, value.stop, value.step), depth + 1)})"
        if isinstance(value, type):
            return value.__name__
        return f"<{kind.__name__}>"

    def _signature(self, log: Log, proxy: Proxy, op: str, args: tuple, kwargs: dict) -> str:
        parts = [self.describe(log, a) for a in args]
        parts += [f"{k}={self.describe(log, v)}" for k, v in kwargs.items()]
        return f"{proxy._o_label}.{op}({','.join(parts)})"

    # -- the operation ---------------------------------------------------------------------------

    def operate(self, proxy: Proxy, op: str, args: tuple, kwargs: dict):
        """Run (record) or answer (replay) one operation on a proxy."""
        log = self._log()
        if log.broken:
            raise Mismatch(log.broken)
        sig = self._signature(log, proxy, op, args, kwargs)
        if self.mode == "record":
            return self._record(log, proxy, op, sig, args, kwargs)
        return self._replay(log, sig)

    def _unwrap(self, log: Log, value, depth: int = 0):
        if isinstance(value, Proxy):
            return value._o_real
        if _is_callback(value):
            return self._callback_wrapper(log, value)
        if depth > 6:
            return value
        kind = type(value)
        if kind in (tuple, list):
            return kind(self._unwrap(log, v, depth + 1) for v in value)
        if kind is dict:
            return {k: self._unwrap(log, v, depth + 1) for k, v in value.items()}
        if kind is slice:
            s = self._unwrap(log, (value.start, value.stop, value.step), depth + 1)
            return slice(*s)
        return value

    def _wrap(self, log: Log, result) -> tuple:
        """(what the test gets, the event's kind and payload) for a real result."""
        if codec.is_plain(result):
            return result, "v", codec.encode(result)
        seq = _sequence_kind(result)
        if seq is not None:  # tuples of tensors stay tuples (of proxies)
            parts = [self._wrap(log, v) for v in result]
            value = _build_sequence(seq, [p[0] for p in parts])
            return value, "s", [seq, [[kind, payload] for _, kind, payload in parts]]
        if _is_torch_module(result):
            # a module is always its root proxy, whether or not an earlier test file made
            # it: the recording must not depend on what ran before
            return self.module(result.__name__), "r", f"mod:{result.__name__}"
        known = log.find_real(result)
        if known is not None:
            return known, "r", known._o_label
        kind = type(result)
        flags = ("c" if callable(result) else "") + ("t" if isinstance(result, type) else "")
        payload = [flags, kind.__module__, kind.__qualname__]
        return self._new_proxy(log, result, payload), "p", payload

    def _record(self, log: Log, proxy: Proxy, op: str, sig: str, args: tuple, kwargs: dict):
        real_args = self._unwrap(log, args)
        real_kwargs = self._unwrap(log, kwargs)
        with _Capture() as caught:
            self.inside += 1  # PyTorch's own code runs: its imports get the real modules
            try:
                result = _perform(op, proxy._o_real, real_args, real_kwargs)
            except Mismatch:
                raise
            except BaseException as exc:
                log.events.append([sig, "x", codec.encode_exception(exc), _warnings(caught)])
                raise
            finally:
                self.inside -= 1
        value, kind, payload = self._wrap(log, result)
        log.events.append([sig, kind, payload, _warnings(caught)])
        return value

    def _callback_wrapper(self, log: Log, fn):
        index = log.callback_index(fn)

        def called_by_pytorch(*args, **kwargs):
            items, wrapped = [], []
            for a in args:
                value, kind, payload = self._wrap(log, a)
                items.append([kind, payload])
                wrapped.append(value)
            log.events.append([f"cb{index}", "cb", items, []])
            inside, self.inside = self.inside, 0  # the test's own code again
            try:
                return self._unwrap(log, fn(*wrapped, **kwargs))
            finally:
                self.inside = inside

        return called_by_pytorch

    def _replay(self, log: Log, sig: str):
        if log.recorded is None:
            log.broken = (
                f"no recording of PyTorch's answers for {log.key}; "
                "run `python tests/oracle/record.py` where PyTorch is installed"
            )
            raise Mismatch(log.broken)
        while True:
            if log.pos >= len(log.events):
                log.broken = f"{log.key}: the test asks PyTorch more than was recorded ({sig})"
                raise Mismatch(log.broken)
            event = log.events[log.pos]
            log.pos += 1
            if event[1] != "cb":
                break
            self._replay_callback(log, event)
        want, kind, payload, caught = event
        if want != sig:
            log.broken = (
                f"{log.key}: PyTorch operation {log.pos} is {sig} here but {want} in the "
                "recording: a stale recording (run `python tests/oracle/record.py`), or "
                "Hypothesis re-running a case that failed just before (a real failure)"
            )
            raise Mismatch(log.broken)
        for category, message, filename, lineno in caught:
            cls = codec.decode_class(category)
            _show(warnings.WarningMessage(cls(message), cls, _local(filename), lineno))
        if kind == "x":
            raise codec.decode_exception(payload)
        return self._answer(log, kind, payload)

    def _answer(self, log: Log, kind: str, payload):
        """What a recorded (non-exception) answer gives the test."""
        if kind == "v":
            return codec.decode(payload)
        if kind == "r":
            return self._resolve(log, payload)
        if kind == "s":
            items = [self._answer(log, k, p) for k, p in payload[1]]
            return _build_sequence(payload[0], items)
        return self._new_proxy(log, None, payload)

    def _replay_callback(self, log: Log, event: list) -> None:
        index = int(event[0][2:])
        if index >= len(log.callables):
            log.broken = f"{log.key}: PyTorch calls back a function this run never gave it"
            raise Mismatch(log.broken)
        args = [self._answer(log, kind, payload) for kind, payload in event[2]]
        try:
            log.callables[index](*args)
        except Exception:  # noqa: BLE001 - PyTorch's own answer (recorded next) carries it
            pass

    def computed(self, what: str, fn, torch_mod):
        """A plain value computed from the real torch module in one piece (recorded),
        or read back from the recording."""
        log = self._log()
        if log.broken:
            raise Mismatch(log.broken)
        sig = f"computed({what})"
        if self.mode == "replay":
            return self._replay(log, sig)
        self.passthrough = True
        try:
            value = fn(torch_mod._o_real)
        except BaseException as exc:
            log.events.append([sig, "x", codec.encode_exception(exc), []])
            raise
        finally:
            self.passthrough = False
        if not codec.is_plain(value):
            raise TypeError(f"computed({what}) must give a plain value, not {type(value)}")
        log.events.append([sig, "v", codec.encode(value), []])
        return value

    def finish(self, log: Log) -> str | None:
        """Close a test's log; in replay, what is wrong if the test left recorded
        operations undone."""
        problem = None
        if self.mode == "replay" and log.recorded is not None and not log.broken:
            rest = [e for e in log.events[log.pos :] if e[1] != "cb"]
            if rest:
                problem = (
                    f"{log.key}: the recording holds {len(rest)} more PyTorch operations "
                    f"than the test made (next: {rest[0][0]}); stale recording?"
                )
        log.release()
        return problem


def _is_torch_module(value) -> bool:
    """Whether `value` is one of PyTorch's importable modules (torch.ops.aten and such
    namespaces are module objects too, but not imported ones)."""
    if not isinstance(value, types.ModuleType):
        return False
    name = getattr(value, "__name__", "")
    return name.split(".")[0] == "torch" and sys.modules.get(name) is value


def _sequence_kind(value):
    """'tuple', 'list', or [module, name, fields] of a torch.return_types result."""
    kind = type(value)
    if kind is tuple:
        return "tuple"
    if kind is list:
        return "list"
    if isinstance(value, tuple) and hasattr(kind, "n_fields"):
        return [kind.__module__, kind.__name__, list(getattr(kind, "__match_args__", ()))]
    return None


def _build_sequence(seq, items: list):
    if seq == "tuple":
        return tuple(items)
    if seq == "list":
        return items
    return codec.structseq_class(*seq)(items)


class _Capture:
    """Catches the warnings PyTorch shows during one operation (through the same
    `showwarning` Python's filters and once-per-location registries lead to), and shows
    them on exit, so that recording changes nothing a test sees."""

    def __enter__(self) -> list:
        self.saved = warnings.showwarning
        self.caught: list = []
        warnings.showwarning = self._catch
        return self.caught

    def _catch(self, message, category, filename, lineno, file=None, line=None) -> None:
        if str(filename).startswith(_HERE):  # PyTorch blamed its caller: the test's line
            frame, seen = sys._getframe(1), False
            while frame is not None:
                inside = frame.f_code.co_filename.startswith(_HERE)
                if seen and not inside:
                    break
                seen = seen or inside
                frame = frame.f_back
            if frame is not None:
                filename, lineno = frame.f_code.co_filename, frame.f_lineno
        self.caught.append(warnings.WarningMessage(message, category, filename, lineno, file, line))

    def __exit__(self, *exc) -> None:
        warnings.showwarning = self.saved
        for w in self.caught:
            _show(w)


def _show(w: warnings.WarningMessage) -> None:
    # Shown where the test's filters would have sent it; an operation that PyTorch's
    # callback into the test made is logged there, and not again by the enclosing one.
    warnings._showwarnmsg(w)  # noqa: SLF001 - the one dispatcher the filters use


def _warnings(caught) -> list:
    logged = []
    for w in caught:
        if getattr(w.message, "_oracle_logged", False):
            continue
        if isinstance(w.message, Warning):
            w.message._oracle_logged = True
        where = _portable(str(w.filename))
        logged.append([codec.encode_class(w.category), str(w.message), where, w.lineno])
    return logged


def _portable(filename: str) -> str:
    """A warning's file, the same on every machine (the repository's files relative)."""
    path = filename.replace("\\", "/")
    root = str(TESTS_DIR.parent).replace("\\", "/") + "/"
    if path.startswith(root):
        return "{repo}/" + path[len(root) :]
    if "/site-packages/" in path:
        return "{site-packages}/" + path.split("/site-packages/", 1)[1]
    return filename


def _local(filename: str) -> str:
    return filename.replace("{repo}", str(TESTS_DIR.parent))


ORACLE = Oracle()
