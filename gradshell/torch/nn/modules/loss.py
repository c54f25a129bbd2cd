"""Loss modules: hold the reduction (and class weights), call the functional loss."""

from __future__ import annotations

from gradshell.core.tensor import Tensor
from gradshell.ops import loss as L
from gradshell.ops import nn as F
from gradshell.torch.nn.modules.module import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = F._reduction(reduction, size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """mse_loss(input, target)."""
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """l1_loss(input, target)."""
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below beta, absolute error above."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """smooth_l1_loss(input, target)."""
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """binary_cross_entropy(input, target)."""
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of sigmoid(logits), computed stably."""

    def __init__(
        self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """binary_cross_entropy_with_logits(input, target)."""
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction
        )


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities at class indices."""

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """nll_loss(input, target)."""
        return F.nll_loss(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class CrossEntropyLoss(_WeightedLoss):
    """log_softmax + nll_loss (class indices), or cross entropy with class probabilities."""

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """cross_entropy(input, target)."""
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


# -- the further losses (kl_div, huber, soft margin, margin ranking, cosine embedding,
#    triplet margin) --------------------------------------------------------------------------
class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of the target from the input's log-probabilities."""

    def __init__(
        self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """kl_div(input, target)."""
        return L.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class HuberLoss(_Loss):
    """Squared error (halved) below delta, delta-scaled absolute error above."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """huber_loss(input, target)."""
        return L.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class SoftMarginLoss(_Loss):
    """log(1 + exp(−target · input)), for targets ±1."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """soft_margin_loss(input, target)."""
        return L.soft_margin_loss(input, target, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """max(0, −target · (x1 − x2) + margin)."""

    def __init__(
        self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """margin_ranking_loss(input1, input2, target)."""
        return L.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class CosineEmbeddingLoss(_Loss):
    """1 − cos(x1, x2) for target 1, max(0, cos(x1, x2) − margin) for target −1."""

    def __init__(
        self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """cosine_embedding_loss(input1, input2, target)."""
        return L.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class TripletMarginLoss(_Loss):
    """max(0, d(anchor, positive) − d(anchor, negative) + margin)."""

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        """triplet_margin_loss(anchor, positive, negative)."""
        return L.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )
