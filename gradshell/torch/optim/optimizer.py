"""The Optimizer base class: parameter groups with defaults, per-parameter state,
`zero_grad` (to None by default, as PyTorch 2.x), `state_dict`/`load_state_dict`, and
PyTorch's repr."""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from copy import deepcopy

from gradshell.core import dtypes
from gradshell.core.device import array_module
from gradshell.core.tensor import Tensor, wrap


class _RequiredParameter:
    """Marks a hyper-parameter without a default (lr of the old SGD signature)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def scalar_state(p: Tensor, value: float = 0) -> Tensor:
    """A float32 0-d tensor beside parameter `p` (PyTorch's `step`, `eta`, `mu` state)."""
    f32 = dtypes.float32
    return wrap(array_module(p._data).full((), value, f32.np), f32)


def zeros_state(p: Tensor) -> Tensor:
    """Zeros shaped and typed as parameter `p` (a moment buffer)."""
    return wrap(array_module(p._data).zeros_like(p._data), p._dtype)


#: The hook tables every PyTorch optimizer holds.
_HOOK_TABLES = (
    "_optimizer_step_pre_hooks",
    "_optimizer_step_post_hooks",
    "_optimizer_state_dict_pre_hooks",
    "_optimizer_state_dict_post_hooks",
    "_optimizer_load_state_dict_pre_hooks",
    "_optimizer_load_state_dict_post_hooks",
)


class Optimizer:
    """Base class of the optimisers: holds param_groups and state; subclasses define step."""

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        # PyTorch's hook tables (empty here) and profiler name, in its order, so that
        # `optimizer.__dict__` prints as PyTorch's does.
        for name in _HOOK_TABLES:
            setattr(self, name, OrderedDict())
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {params.type()}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)
        self._warned_capturable_if_run_uncaptured = True

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own hyper-parameters (defaults fill the rest)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + type(p).__name__
                )
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = {"params": params}
        for k, v in param_group.items():
            if k != "params":
                group[k] = v
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            group.setdefault(name, default)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in existing for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's gradient: to None (the default), or to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
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

    def step(self, closure=None) -> object:
        """One update of every parameter that has a gradient; returns closure()'s loss.

        Each optimizer says how one parameter is updated (`_update`)."""
        from gradshell.core.grad_mode import no_grad

        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p._grad is not None:
                        self._update(p, p._grad._data, group)
        return loss

    def _update(self, p, grad, group) -> None:
        """Update parameter `p` from its gradient array `grad` (subclasses implement this)."""
        raise NotImplementedError

    def _closure_loss(self, closure):
        if closure is None:
            return None
        from gradshell.core.grad_mode import enable_grad

        with enable_grad():
            return closure()

    # -- state ---------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """{'state': {index: per-parameter state}, 'param_groups': [hyper-parameters with
        'params' as indices]} — parameters are numbered in group order."""
        index = {}
        groups = []
        start = 0
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = list(range(start, start + len(g["params"])))
            for i, p in zip(ids, g["params"], strict=True):
                index[id(p)] = i
            packed["params"] = ids
            start += len(ids)
            groups.append(packed)
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore hyper-parameters and state saved by state_dict()."""
        state_dict = deepcopy(state_dict)
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, s in zip(self.param_groups, saved_groups, strict=True):
            if len(g["params"]) != len(s["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    "of optimizer's group"
                )
        by_index = {}
        for g, s in zip(self.param_groups, saved_groups, strict=True):
            for p, i in zip(g["params"], s["params"], strict=True):
                by_index[i] = p
        self.state = defaultdict(dict)
        for i, st in state_dict["state"].items():
            p = by_index[i]
            fixed = {}
            for k, v in st.items():
                if isinstance(v, Tensor) and k != "step" and v.is_floating_point():
                    v = v.to(dtype=p.dtype, device=p.device)
                fixed[k] = v
            self.state[p] = fixed
        for g, s in zip(self.param_groups, saved_groups, strict=True):
            for k, v in s.items():
                if k != "params":
                    g[k] = v

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n"
            text += f"Parameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"
