"""`nn.Module`: the base class of layers and models.

Assigning a Parameter or a Module as an attribute registers it (in `_parameters` /
`_modules`, in assignment order), so `parameters()`, `named_parameters()`, `children()`,
`state_dict()` and the repr find it; `__call__` runs `forward` (with forward hooks);
`train()`/`eval()` set `training` recursively; `to()`/`double()`/`cuda()` convert the
parameters in place, keeping the Parameter objects (so optimisers still hold them).
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Iterator

from gradshell.core import grad_mode
from gradshell.core.tensor import RemovableHandle, Tensor
from gradshell.torch.nn.modules import legacy_backward_hook
from gradshell.torch.nn.modules.backward_hooks import BackwardHook
from gradshell.torch.nn.parameter import Parameter

_Incompatible = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class _IncompatibleKeys(_Incompatible):
    """What load_state_dict found: missing and unexpected keys (PyTorch's repr)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
            f"unexpected_keys={self.unexpected_keys!r})"
        )

    __str__ = __repr__


def _addindent(text: str, spaces: int) -> str:
    """Indent every line of `text` but the first by `spaces` (for nested reprs)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


def _typename(value) -> str:
    """torch.typename: 'torch.FloatTensor' for tensors, else the class name."""
    if isinstance(value, Tensor):
        return value.type()
    return type(value).__name__


#: PyTorch's (empty here) state-dict hook tables, which every module holds.
_STATE_DICT_HOOKS = (
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)


class Module:
    """Base class for all neural network modules; subclasses define `forward`."""

    training: bool
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs) -> None:
        if args or kwargs:
            bad = next(iter(kwargs)) if kwargs else None
            if bad is not None:
                raise TypeError(
                    f"{type(self).__name__}.__init__() got an unexpected keyword argument '{bad}'"
                )
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        # PyTorch's attributes, in its order and with its types: `module.__dict__` and
        # `module._forward_hooks` print as PyTorch's do.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_is_full_backward_hook", None)
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks_with_kwargs", OrderedDict())
        object.__setattr__(self, "_forward_hooks_always_called", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        for name in _STATE_DICT_HOOKS:
            object.__setattr__(self, name, OrderedDict())
        object.__setattr__(self, "_modules", {})

    # -- running -------------------------------------------------------------------------------
    def forward(self, *args, **kwargs) -> object:
        """Define the computation in subclasses."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        pre = d.get("_forward_pre_hooks")
        if pre:
            for hook in list(pre.values()):
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        backward_hook = None
        legacy = d.get("_is_full_backward_hook") is False and d.get("_backward_hooks")
        if (d.get("_backward_hooks") and not legacy) or d.get("_backward_pre_hooks"):
            backward_hook = BackwardHook(
                self, list(self._backward_hooks.values()), list(self._backward_pre_hooks.values())
            )
            args = backward_hook.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        post = d.get("_forward_hooks")
        if post:
            for hook in list(post.values()):
                r = hook(self, args, result)
                if r is not None:
                    result = r
        if backward_hook is not None:
            result = backward_hook.setup_output_hook(result)
        if legacy:
            legacy_backward_hook.attach(self, list(legacy.values()), args, result)
        return result

    def register_forward_hook(self, hook) -> RemovableHandle:
        """Call `hook(module, args, output)` after every forward; it may replace the output."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def register_forward_pre_hook(self, hook) -> RemovableHandle:
        """Call `hook(module, args)` before every forward; it may replace the arguments."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook) -> RemovableHandle:
        """Call `hook(module, grad_input, grad_output)` once the gradients with respect to
        the module's inputs are computed; it may return a replacement grad_input."""
        if self.__dict__.get("_is_full_backward_hook") is False:
            raise RuntimeError(legacy_backward_hook.MIXED)
        object.__setattr__(self, "_is_full_backward_hook", True)
        return self._add_backward_hook("_backward_hooks", hook)

    def register_full_backward_pre_hook(self, hook) -> RemovableHandle:
        """Call `hook(module, grad_output)` when the gradient of the module's output
        arrives; it may return a replacement grad_output."""
        return self._add_backward_hook("_backward_pre_hooks", hook)

    def register_backward_hook(self, hook) -> RemovableHandle:
        """PyTorch's deprecated non-full hook: `hook(module, grad_input, grad_output)` on
        the graph node that made the output (see `legacy_backward_hook`)."""
        if self.__dict__.get("_is_full_backward_hook") is True:
            raise RuntimeError(legacy_backward_hook.MIXED)
        object.__setattr__(self, "_is_full_backward_hook", False)
        return self._add_backward_hook("_backward_hooks", hook)

    def _add_backward_hook(self, kind: str, hook) -> RemovableHandle:
        hooks = self.__dict__.get(kind)
        if hooks is None:
            hooks = {}
            object.__setattr__(self, kind, hooks)
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    # -- registration --------------------------------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, d)
            params[name] = value
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            params[name] = None
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, d)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = None
            return
        buffers = d.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.Tensor or None expected)"
                )
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name: str, d: dict) -> None:
        d.pop(name, None)
        for key in ("_parameters", "_buffers", "_modules"):
            store = d.get(key)
            if store is not None:
                store.pop(name, None)
        nonp = d.get("_non_persistent_buffers_set")
        if nonp is not None:
            nonp.discard(name)

    def __getattr__(self, name: str):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            store = d.get(key)
            if store is not None and name in store:
                return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for key in ("_parameters", "_buffers", "_modules"):
            store = self.__dict__.get(key)
            if store is not None and name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(super().__dir__())
        for key in ("_parameters", "_buffers", "_modules"):
            keys.extend(self.__dict__.get(key, {}))
        return sorted(set(keys))

    def _check_name(self, kind: str, name) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or None) under `name`."""
        self._check_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is part of the module's state but not a parameter."""
        self._check_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under `name`."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name("module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path `target` ('' is the module itself)."""
        mod = self
        if target == "":
            return mod
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path `target`."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        p = getattr(mod, name)
        if not isinstance(p, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return p

    # -- iteration -----------------------------------------------------------------------------
    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """(name, module) for this module and every descendant, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate and self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """This module and every descendant."""
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, module) for each direct child."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct children."""
        for _, m in self.named_children():
            yield m

    def _named_members(self, getter, prefix: str, recurse: bool, remove_duplicate: bool = True):
        memo = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, value in getter(mod):
                if value is None or (remove_duplicate and id(value) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) for every parameter, this module's first."""
        yield from self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter (what an optimiser is given)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) for every buffer."""
        yield from self._named_members(
            lambda m: m._buffers.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- modes and gradients -------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (dropout active) on this module and its descendants."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        """Set evaluation mode: train(False)."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set requires_grad on every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter (to None by default, as PyTorch does)."""
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p._grad
                if g._grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    # -- conversion ----------------------------------------------------------------------------
    def apply(self, fn) -> Module:
        """Call `fn(module)` on every descendant (children first) and on this module."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, convert) -> Module:
        for m in self.children():
            m._apply(convert)
        with grad_mode.no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                new = convert(p)
                if new is not p:
                    p.data = new
                if p._grad is not None:
                    g = convert(p._grad)
                    if g is not p._grad:
                        p._grad = g
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = convert(b)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move/convert the parameters and buffers (device and/or floating dtype)."""
        from gradshell.ops.conversion import _parse_to

        dtype, device, _ = _parse_to(args, dict(kwargs))
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )

        def convert(t: Tensor) -> Tensor:
            """t on the target device, floating tensors in the target dtype."""
            dt = dtype if (dtype is not None and t.is_floating_point()) else None
            return t.to(dtype=dt, device=device)

        return self._apply(convert)

    def cuda(self, device=None) -> Module:
        """Move the parameters and buffers to a CUDA device."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self) -> Module:
        """Move the parameters and buffers to the CPU."""
        return self._apply(lambda t: t.cpu())

    def double(self) -> Module:
        """Cast floating parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def float(self) -> Module:  # noqa: A003 - PyTorch's name
        """Cast floating parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def half(self) -> Module:
        """Cast floating parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def type(self, dst_type) -> Module:  # noqa: A003 - PyTorch's name
        """Cast every parameter and buffer to `dst_type`."""
        return self._apply(lambda t: t.type(dst_type))

    # -- state ---------------------------------------------------------------------------------
    def state_dict(
        self, *args, destination=None, prefix: str = "", keep_vars: bool = False
    ) -> OrderedDict:
        """An OrderedDict from dotted names to parameters and persistent buffers (detached
        unless keep_vars)."""
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        return destination

    def load_state_dict(
        self, state_dict, strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy values from `state_dict` into the parameters and buffers (shapes must match;
        with strict, the keys too)."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        from gradshell.core.size import Size

        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            if tuple(value.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{Size(value.shape)!r} from checkpoint, the shape in current model is "
                    f"{Size(target.shape)!r}."
                )
                continue
            with grad_mode.no_grad():
                target.copy_(value)
        if strict:
            msgs = []
            if missing:
                msgs.append(
                    "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". "
                )
            if unexpected:
                msgs.append(
                    "Unexpected key(s) in state_dict: "
                    + ", ".join(f'"{k}"' for k in unexpected)
                    + ". "
                )
            errors = msgs + errors
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {self._get_name()}:\n\t" + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    # -- printing ------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings, shown inside its repr (override in subclasses)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = []
        for key, module in self._modules.items():
            child_lines.append("(" + key + "): " + _addindent(repr(module), 2))
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)


__all__ = ["Module"]
