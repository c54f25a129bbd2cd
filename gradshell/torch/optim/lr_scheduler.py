"""torch.optim.lr_scheduler: the LRScheduler base class (PyTorch's chainable form, with
its warnings and state_dict), StepLR, MultiStepLR, ExponentialLR, LambdaLR,
MultiplicativeLR, CosineAnnealingLR, ReduceLROnPlateau, ConstantLR, LinearLR,
PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR and OneCycleLR, computing each
learning rate with PyTorch's formula in the same order (so the floats agree to the last
bit)."""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from functools import partial, wraps

from gradshell.torch.optim.optimizer import Optimizer

__all__ = [
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "StepLR",
]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)
_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
    "will result in PyTorch skipping the first value of the learning rate schedule. "
    "See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)
_OVERRIDDEN_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
    "initialization. Please, make sure to call `optimizer.step()` before "
    "`lr_scheduler.step()`. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)


def _lrs(optimizer: Optimizer, key: str) -> list:
    return [group[key] for group in optimizer.param_groups]


def _track_step_called(opt: Optimizer) -> None:
    """Wrap opt.step so that the scheduler can tell whether it ran before its own step."""
    if hasattr(opt.step, "_wrapped_by_lr_sched"):
        return
    step = opt.step

    @wraps(step)
    def wrapper(*args, **kwargs):
        opt._opt_called = True
        return step(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    opt.step = wrapper


class LRScheduler:
    """Adjusts the optimizer's learning rates once per step(); subclasses define get_lr."""

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)"
                    )
        self.base_lrs = _lrs(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_step_called(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict:
        """Every attribute except the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes saved by state_dict()."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list:
        """The learning rates the last step() set, one per parameter group."""
        return self._last_lr

    def get_lr(self) -> list:
        """The learning rates for the current epoch (subclasses compute them)."""
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch and set the optimizer's learning rates (call it after
        optimizer.step())."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(_OVERRIDDEN_WARNING, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer, "lr")

    def _warn_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )


class StepLR(LRScheduler):
    """Multiply the learning rate by gamma every step_size epochs."""

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """lr · gamma at every step_size-th epoch, else lr unchanged."""
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [
            base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by gamma every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """lr · gamma (the first, initial step leaves lr as it is)."""
        self._warn_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by gamma at each milestone epoch."""

    def __init__(
        self, optimizer: Optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """lr · gamma^k at a milestone listed k times, else lr unchanged."""
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer, "lr")
        return [
            group["lr"] * self.gamma ** self.milestones[self.last_epoch]
            for group in self.optimizer.param_groups
        ]

    def _get_closed_form_lr(self) -> list:
        milestones = sorted(self.milestones.elements())
        return [
            base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
            for base_lr in self.base_lrs
        ]


def _lambdas(optimizer: Optimizer, lr_lambda) -> list:
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(
            f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
        )
    return list(lr_lambda)


class _LambdaState:
    """state_dict/load_state_dict of the schedulers driven by functions: plain functions
    are not saved (None), callable objects save their attributes."""

    lr_lambdas: list

    def state_dict(self) -> dict:
        """Every attribute except the optimizer, with the lambdas as PyTorch saves them."""
        state = {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "lr_lambdas")
        }
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes (and callable objects' attributes) saved by state_dict()."""
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas  # the caller's dict is left as it was
        for idx, fn in enumerate(lr_lambdas):
            if fn is not None:
                self.lr_lambdas[idx].__dict__.update(fn)


class LambdaLR(_LambdaState, LRScheduler):
    """lr = initial lr · lr_lambda(epoch)."""

    def __init__(self, optimizer: Optimizer, lr_lambda, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """base lr · lambda(last_epoch) for each group."""
        self._warn_outside_step()
        return [
            base_lr * lmbda(self.last_epoch)
            for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)
        ]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """lr = previous lr · lr_lambda(epoch)."""

    def __init__(self, optimizer: Optimizer, lr_lambda, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """lr · lambda(last_epoch) (the initial step leaves lr as it is)."""
        self._warn_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer, "lr")
        return [
            group["lr"] * lmbda(self.last_epoch)
            for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)
        ]


class CosineAnnealingLR(LRScheduler):
    """Anneal lr from its initial value to eta_min along half a cosine over T_max epochs
    (PyTorch's recursive form)."""

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """The next learning rate, computed from the current one as PyTorch does."""
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _lrs(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return [
                self.eta_min
                + (base_lr - self.eta_min)
                * (1 + math.cos((self.last_epoch) * math.pi / self.T_max))
                / 2
                for base_lr, _group in zip(self.base_lrs, groups, strict=True)
            ]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [
                group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, groups, strict=True)
            ]
        return [
            (1 + math.cos(math.pi * self.last_epoch / self.T_max))
            / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
            * (group["lr"] - self.eta_min)
            + self.eta_min
            for group in groups
        ]

    def _get_closed_form_lr(self) -> list:
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]


class ReduceLROnPlateau(LRScheduler):
    """Multiply lr by `factor` when a metric passed to step() has stopped improving for
    more than `patience` epochs."""

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list | float = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}"
                )
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _lrs(self.optimizer, "lr")
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None) -> None:  # type: ignore[override]
        """Record this epoch's metric; reduce lr after `patience` epochs without progress."""
        current = float(metrics)  # a 0-d tensor too
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self.optimizer, "lr")

    def _reduce_lr(self, epoch) -> None:
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    "The number of param groups in the `optimizer` "
                    f"({len(self.optimizer.param_groups)}) differs "
                    "from when `ReduceLROnPlateau` was initialized "
                    f"({len(self.min_lrs)}), usually due to a new "
                    "param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length "
                    "of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is still waiting after a reduction."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes saved by state_dict()."""
        self.__dict__.update(state_dict)
        self._init_is_better(
            mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode
        )


# -- warm-up, polynomial and cyclic schedules ----------------------------------------------------
class ConstantLR(LRScheduler):
    """lr · factor until epoch total_iters, then lr."""

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """lr · factor at epoch 0, lr / factor at total_iters, else lr unchanged."""
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer, "lr")
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [
            base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
            for base_lr in self.base_lrs
        ]


class LinearLR(LRScheduler):
    """Scale lr linearly from start_factor to end_factor over total_iters epochs."""

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """The next learning rate, from the current one (PyTorch's recursive form)."""
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer, "lr")
        span = self.end_factor - self.start_factor
        return [
            group["lr"]
            * (1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span))
            for group in groups
        ]

    def _get_closed_form_lr(self) -> list:
        return [
            base_lr
            * (
                self.start_factor
                + (self.end_factor - self.start_factor)
                * min(self.total_iters, self.last_epoch)
                / self.total_iters
            )
            for base_lr in self.base_lrs
        ]


class PolynomialLR(LRScheduler):
    """Decay lr by (1 - epoch/total_iters)^power until total_iters."""

    def __init__(
        self,
        optimizer: Optimizer,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """The next learning rate, from the current one (PyTorch's recursive form)."""
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer, "lr")
        decay = (
            (1.0 - self.last_epoch / self.total_iters)
            / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return [group["lr"] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [
            base_lr
            * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
            for base_lr in self.base_lrs
        ]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the initial lr to eta_min over T_i epochs, restarting each
    time; the period grows by T_mult after each restart."""

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,  # noqa: N803 - PyTorch's name
        T_mult: int = 1,  # noqa: N803 - PyTorch's name
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """eta_min + (base_lr - eta_min)·(1 + cos(π·T_cur/T_i))/2."""
        self._warn_outside_step()
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base_lr in self.base_lrs
        ]

    def step(self, epoch=None) -> None:
        """Advance one epoch (or jump to `epoch`, fractional epochs allowed) and set the
        learning rates."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer, "lr")


def _per_group(name: str, optimizer: Optimizer, value) -> list:
    """A value per parameter group (one value repeated, or a list of the right length)."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(value)} values, param_groups has {len(optimizer.param_groups)}."
            )
        return list(value)
    return [value] * len(optimizer.param_groups)


def _momentum_groups(optimizer: Optimizer, base_momentum, max_momentum, set_now: bool) -> tuple:
    """Whether the optimizer's momentum is beta1, and the per-group momentum bounds; when
    starting fresh, the groups' momentum is set to its maximum, as PyTorch does."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
        )
    use_beta1 = "betas" in optimizer.defaults
    maxes = _per_group("max_momentum", optimizer, max_momentum)
    bases = _per_group("base_momentum", optimizer, base_momentum)
    if set_now:
        for top, bottom, group in zip(maxes, bases, optimizer.param_groups, strict=True):
            _set_momentum(group, top, use_beta1)
            group["max_momentum"] = top
            group["base_momentum"] = bottom
    return use_beta1, bases, maxes


def _set_momentum(group: dict, value: float, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class CyclicLR(LRScheduler):
    """Cycle lr between base_lr and max_lr (triangular, triangular2 or exp_range, or a
    custom scale_fn), and momentum the other way, every step_size_up + step_size_down
    steps."""

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr,
        max_lr,
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn=None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1, self.base_momentums, self.max_momentums = _momentum_groups(
                optimizer, base_momentum, max_momentum, last_epoch == -1
            )
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x) -> float:
        """The amplitude scale at cycle (or iteration) x."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma**x

    def get_lr(self) -> list:
        """This step's learning rates (and, with cycle_momentum, momentum, set in place)."""
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = []
        for base_lr, max_lr in zip(self.base_lrs, self.max_lrs, strict=True):
            base_height = (max_lr - base_lr) * scale_factor
            lrs.append(base_lr + base_height * self.scale_fn(at))
        if self.cycle_momentum:
            groups = self.optimizer.param_groups
            bounds = zip(self.base_momentums, self.max_momentums, groups, strict=True)
            momentums = []
            for base_momentum, max_momentum, _group in bounds:
                base_height = (max_momentum - base_momentum) * scale_factor
                momentums.append(max_momentum - base_height * self.scale_fn(at))
            for group, momentum in zip(groups, momentums, strict=True):
                _set_momentum(group, momentum, self.use_beta1)
        return lrs

    def state_dict(self) -> dict:
        """Every attribute except the optimizer and the scale function (a callable
        object's attributes are kept)."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes saved by state_dict()."""
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    """The 1cycle policy: lr rises from max_lr/div_factor to max_lr over pct_start of
    total_steps, then anneals (cos or linear) to initial_lr/final_div_factor; momentum
    moves the other way (three_phase: back down to initial_lr before the final anneal)."""

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr,
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum=0.85,
        max_momentum=0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = _phases(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(optimizer.param_groups):
                group["initial_lr"] = max_lrs[idx] / div_factor
                group["max_lr"] = max_lrs[idx]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1, _, _ = _momentum_groups(
                optimizer, base_momentum, max_momentum, last_epoch == -1
            )
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        return self._annealing_linear(start, end, pct)

    @staticmethod
    def _annealing_cos(start: float, end: float, pct: float) -> float:
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start: float, end: float, pct: float) -> float:
        return (end - start) * pct + start

    def get_lr(self) -> list:
        """This step's learning rates (and, with cycle_momentum, momentum, set in place)."""
        self._warn_outside_step()
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == last:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal_func(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(group, momentum, self.use_beta1)
        return lrs


def _total_steps(total_steps, epochs, steps_per_epoch) -> int:
    """OneCycleLR's length: total_steps, or epochs · steps_per_epoch."""
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is not None and steps_per_epoch is not None:
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
            raise ValueError(
                f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
            )
        return epochs * steps_per_epoch
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


def _phases(pct_start: float, total_steps: int, three_phase: bool) -> list:
    """OneCycleLR's phases: where each ends and which group values it moves between."""
    warm = {
        "end_step": float(pct_start * total_steps) - 1,
        "start_lr": "initial_lr",
        "end_lr": "max_lr",
        "start_momentum": "max_momentum",
        "end_momentum": "base_momentum",
    }
    if three_phase:
        return [
            warm,
            {
                "end_step": float(2 * pct_start * total_steps) - 2,
                "start_lr": "max_lr",
                "end_lr": "initial_lr",
                "start_momentum": "base_momentum",
                "end_momentum": "max_momentum",
            },
            {
                "end_step": total_steps - 1,
                "start_lr": "initial_lr",
                "end_lr": "min_lr",
                "start_momentum": "max_momentum",
                "end_momentum": "max_momentum",
            },
        ]
    return [
        warm,
        {
            "end_step": total_steps - 1,
            "start_lr": "max_lr",
            "end_lr": "min_lr",
            "start_momentum": "base_momentum",
            "end_momentum": "max_momentum",
        },
    ]
