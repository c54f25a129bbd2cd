"""Every graph node class of the op library explains its local derivative for `%explain`
(an `explain` formula beside its `backward`), or says on purpose why it has none; and each
formula agrees with the gradient the node really computes, checked here in float64 the
way `%explain` checks it (a formula that disagrees would be dropped there)."""

from __future__ import annotations

import numpy as np
import pytest

from gradshell import torch as gtorch
from gradshell.core.autograd import Node
from gradshell.ops import conv, loss, scalar
from gradshell.ops.explanation import Ctx, sum_to
from gradshell.viz.formulas import formula

F = gtorch.nn.functional


def _node_classes() -> list[type]:
    found, todo = [], [Node]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.append(sub)
            todo.append(sub)
    return found


def test_every_op_node_has_an_explanation_or_says_why_not():
    missing = []
    for cls in _node_classes():
        home = cls.__dict__.get("_gs_home") or ""
        if not home.startswith("gradshell.ops"):
            continue  # the core's and torch.autograd.Function's nodes are not ops
        if "explain" in cls.__dict__:
            continue
        reason = cls.__dict__.get("no_explanation")
        if not (isinstance(reason, str) and reason.strip()):
            missing.append(f"{home}.{cls.__name__}")
    assert not missing, f"node classes with neither explain nor no_explanation: {missing}"


# -- each formula against the node's own backward ------------------------------------------


def _t(a, grad=True):
    return gtorch.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def check_formula(y, node_name: str) -> None:
    """The formula of y.grad_fn predicts, for a random incoming gradient, exactly the
    gradients the node's backward gives on each edge."""
    node = y.grad_fn
    assert type(node).__name__ == node_name
    rng = np.random.default_rng(0)
    g = rng.standard_normal(tuple(y.shape))
    n = len(node.next_functions)
    with gtorch.no_grad():
        real = node(gtorch.tensor(g))
    shapes = [tuple(r.shape) if r is not None else None for r in real]
    syms = ["x", "y", "z", "w"][:n]
    same = n >= 2 and node.next_functions[0][0] is not None
    same = same and node.next_functions[0] == node.next_functions[1]
    ctx = Ctx(node, node.saved, syms, shapes, tuple(y.shape), same)
    f = formula(node, ctx)
    assert f is not None, f"{node_name} gave no formula"
    assert isinstance(f.expr, str) and f.expr
    checked = 0
    for i, (nxt, _) in enumerate(node.next_functions):
        if nxt is None or real[i] is None:
            continue
        local = f.locals[i]
        assert local is not None, f"{node_name}: no local derivative for edge {i}"
        assert isinstance(local.rhs, str) and local.rhs
        pred = np.asarray(local.predict(g), dtype=np.float64)
        pred = sum_to(np.broadcast_to(pred, pred.shape), shapes[i])
        want = real[i].numpy().astype(np.float64)
        np.testing.assert_allclose(
            pred, want, rtol=1e-9, atol=1e-12, err_msg=f"{node_name} edge {i}"
        )
        checked += 1
    assert checked, f"{node_name}: no edge checked"


R = np.random.default_rng(1)


def _view_after_write():
    """A view whose storage was written into since: its history is AsStridedBackward0."""
    b = _t(A(3, 4)) * 1
    v = b[:, 1:3]
    b.mul_(2)
    return v


def A(*shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, shape)


def _nonleaf(a):
    """A non-leaf copy of a fresh leaf (in-place ops need one)."""
    return _t(a) * 1


CASES = {
    "AtanBackward0": lambda: gtorch.atan(_t(A(3, 2))),
    "AsinhBackward0": lambda: gtorch.asinh(_t(A(3, 2))),
    "TransposeBackward1": lambda: (_t(A(2, 3)) * 1).transpose_(0, 1),
    "SoftplusBackward0": lambda: F.softplus(_t(A(5)), beta=2.0, threshold=1.0),
    "RoundBackward1": lambda: gtorch.round(_t(A(4)), decimals=1),
    "SgnBackward0": lambda: gtorch.sgn(_t(A(4))),
    "Atan2Backward0": lambda: gtorch.atan2(_t(A(3)), _t(A(2, 3))),
    "LerpBackward0": lambda: gtorch.lerp(_t(A(3)), _t(A(3)), 0.3),
    "LerpBackward1": lambda: gtorch.lerp(_t(A(3)), _t(A(3)), _t(A(3))),
    "AddcmulBackward0": lambda: gtorch.addcmul(_t(A(2, 3)), _t(A(3)), _t(A(2, 3)), value=0.5),
    "AddcdivBackward0": lambda: gtorch.addcdiv(_t(A(3)), _t(A(3)), _t(A(3, lo=1, hi=2)), value=2),
    "MaximumBackward0": lambda: gtorch.maximum(_t([1.0, 2.0, 3.0]), _t([3.0, 2.0, 1.0])),
    "MinimumBackward0": lambda: gtorch.minimum(_t([1.0, 2.0, 3.0]), _t([3.0, 2.0, 1.0])),
    "ClampBackward1": lambda: gtorch.clamp(_t(A(6)), -0.5, 0.5),
    "ClampBackward0": lambda: gtorch.clamp(_t(A(6)), min=_t(A(6)), max=_t(A(6) + 1)),
    "ClampMinBackward0": lambda: gtorch.clamp_min(_t(A(6)), 0.1),
    "ClampMaxBackward0": lambda: gtorch.clamp_max(_t(A(6)), 0.1),
    "ClampMinBackward1": lambda: gtorch.clamp_min(_t(A(6)), _t(A(6))),
    "ClampMaxBackward1": lambda: gtorch.clamp_max(_t(A(6)), _t(A(6))),
    "RemainderBackward0": lambda: gtorch.remainder(_t(A(4)), 1.5),
    "WhereBackward0": lambda: gtorch.where(_t(A(4), False) > 0, _t(A(4)), _t(A(4))),
    "MaskedFillBackward0": lambda: _t(A(2, 3)).masked_fill(_t(A(3), False) > 0, 0.0),
    "MaskedFillBackward1": lambda: _t(A(2, 3)).masked_fill(_t(A(3), False) > 0, _t(1.5)),
    "GatherBackward0": lambda: gtorch.gather(_t(A(2, 3)), 1, gtorch.tensor([[0, 0, 2], [1, 2, 1]])),
    "IndexSelectBackward0": lambda: gtorch.index_select(_t(A(3, 2)), 0, gtorch.tensor([2, 0, 2])),
    "MaskedSelectBackward0": lambda: _t(A(2, 3)).masked_select(_t(A(3), False) > 0),
    "MaskedScatterBackward0": lambda: _t(A(2, 3)).masked_scatter(_t(A(3), False) > 0, _t(A(7))),
    "TakeBackward0": lambda: _t(A(2, 3)).take(gtorch.tensor([[5, 0], [5, 2]])),
    "IndexFillBackward0": lambda: _t(A(3, 4)).index_fill(1, gtorch.tensor([2, 0]), 1.0),
    "IndexFillBackward1": lambda: _t(A(3, 4)).index_fill(1, gtorch.tensor([2, 0]), _t(1.5)),
    "IndexCopyBackward0": lambda: _t(A(3, 4)).index_copy(1, gtorch.tensor([3, 0]), _t(A(3, 2))),
    "TBackward1": lambda: (_t(A(2, 3)) * 1).t_(),
    "NormBackward1": lambda: gtorch.pairwise_distance(_t(A(3, 4)), _t(A(3, 4))),
    "LinalgCrossBackward0": lambda: gtorch.linalg.cross(_t(A(4, 3)), _t(A(1, 3))),
    "Rot90Backward0": lambda: gtorch.rot90(_t(A(2, 3, 4)), 3, [2, 0]),
    "FracBackward0": lambda: gtorch.frac(_t(A(3, 2, lo=0.1, hi=0.9) * 7)),
    "Deg2RadBackward0": lambda: gtorch.deg2rad(_t(A(3, 2))),
    "Rad2DegBackward0": lambda: gtorch.rad2deg(_t(A(3, 2))),
    "FmodBackward0": lambda: gtorch.fmod(_t(A(3, 2)), 0.7),
    "FmodBackward1": lambda: gtorch.fmod(_t(A(3, 2)), _t(A(2, lo=0.5, hi=1.5))),
    "NanToNumBackward0": lambda: gtorch.nan_to_num(_t(A(3, 2))),
    "CummaxBackward0": lambda: gtorch.cummax(_t(A(3, 4)), 1).values,
    "CumminBackward0": lambda: gtorch.cummin(_t(A(3, 4)), 0).values,
    "MedianBackward0": lambda: gtorch.median(_t(A(3, 4))),
    "NanmedianBackward0": lambda: gtorch.nanmedian(_t(A(3, 4))),
    "BlockDiagBackward0": lambda: gtorch.block_diag(_t(A(2, 3)), _t(A(2)), _t(1.5)),
    "ScatterBackward0": lambda: gtorch.scatter(
        _t(A(2, 3)), 1, gtorch.tensor([[2], [0]]), _t(A(2, 1))
    ),
    "ScatterBackward1": lambda: gtorch.scatter(_t(A(2, 3)), 1, gtorch.tensor([[2], [0]]), 2.0),
    "ScatterAddBackward0": lambda: gtorch.scatter_add(
        _t(A(2, 3)), 1, gtorch.tensor([[2, 2], [0, 1]]), _t(A(2, 2))
    ),
    "IndexAddBackward0": lambda: gtorch.index_add(
        _t(A(3, 2)), 0, gtorch.tensor([2, 0, 2]), _t(A(3, 2)), alpha=2
    ),
    "FlipBackward0": lambda: gtorch.flip(_t(A(2, 3)), (0, 1)),
    "RollBackward0": lambda: gtorch.roll(_t(A(2, 3)), (1, -1), (0, 1)),
    "TrilBackward0": lambda: gtorch.tril(_t(A(3, 4)), 1),
    "TriuBackward0": lambda: gtorch.triu(_t(A(2, 3, 3)), -1),
    "RepeatBackward0": lambda: _t(A(2, 3)).repeat(2, 1, 3),
    "DiagonalBackward0": lambda: gtorch.diagonal(_t(A(2, 3, 4)), 1, 1, 2),
    "CumsumBackward0": lambda: gtorch.cumsum(_t(A(2, 4)), 1),
    "CumprodBackward0": lambda: gtorch.cumprod(
        _t([[1.0, 0.0, 2.0, 3.0], [2.0, 1.5, -1.0, 0.5]]), 1
    ),
    "LogsumexpBackward0": lambda: gtorch.logsumexp(_t(A(2, 4)), 1),
    "HardtanhBackward0": lambda: gtorch.nn.functional.hardtanh(_t(A(3, 4)), -0.5, 1.0),
    "VarBackward0": lambda: gtorch.var(_t(A(3, 4)), 1),
    "StdBackward0": lambda: _t(A(3, 4)).std(0, keepdim=True),
    "ProdBackward0": lambda: gtorch.prod(_t([[1.0, 0.0], [2.0, 3.0]])),
    "ProdBackward1": lambda: gtorch.prod(_t(A(3, 4)), 1),
    "AmaxBackward0": lambda: gtorch.amax(_t([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]]), 1),
    "AminBackward0": lambda: gtorch.amin(_t([[1.0, 3.0, 1.0], [2.0, 0.0, 1.0]]), 0, keepdim=True),
    "MaxBackward1": lambda: gtorch.max(_t([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]])),
    "MinBackward1": lambda: gtorch.min(_t([[1.0, 3.0, 0.0], [2.0, 0.0, 1.0]])),
    "MaxBackward0": lambda: gtorch.max(_t(A(3, 4)), 1)[0],
    "MinBackward0": lambda: gtorch.min(_t(A(3, 4)), 0, keepdim=True)[0],
    "SortBackward0": lambda: gtorch.sort(_t(A(3, 4)), 0, descending=True)[0],
    "SortBackward1": lambda: gtorch.sort(_t(A(3, 4)), stable=True)[0],
    "TopkBackward0": lambda: gtorch.topk(_t(A(3, 5)), 2, 1, largest=False)[0],
    "KthvalueBackward0": lambda: gtorch.kthvalue(_t(A(4, 3)), 2, 0)[0],
    "DiagEmbedBackward0": lambda: gtorch.diag_embed(_t(A(2, 3)), -1, 0, 2),
    "DiagonalBackward0_copy": lambda: gtorch.diag(_t(A(3, 4)), 1),
    "TraceBackward0": lambda: gtorch.trace(_t(A(3, 4))),
    "LinalgVectorNormBackward0": lambda: gtorch.norm(_t(A(3, 4)), dim=1),
    "DistBackward0": lambda: gtorch.dist(_t(A(3)), _t(A(3))),
    "BmmBackward0": lambda: gtorch.bmm(_t(A(2, 3, 4)), _t(A(2, 4, 5))),
    "AddmvBackward0": lambda: gtorch.addmv(_t(A(3)), _t(A(3, 4)), _t(A(4)), beta=0.5, alpha=2),
    "LeakyReluBackward0": lambda: F.leaky_relu(_t(A(6)), 0.1),
    "LeakyReluBackward1": lambda: F.leaky_relu(_nonleaf(A(6)), 0.1, inplace=True),
    "EluBackward0": lambda: F.elu(_t(A(6)), alpha=0.7),
    "EluBackward1": lambda: F.elu(_nonleaf(A(6)), alpha=0.7, inplace=True),
    # the further activations (ops/activation.py)
    "PreluKernelBackward0": lambda: F.prelu(_t(A(2, 3, 2)), _t(A(3))),
    "CeluBackward0": lambda: F.celu(_t(A(6)), alpha=0.7),
    "CeluBackward1": lambda: F.celu(_nonleaf(A(6)), alpha=0.7, inplace=True),
    "MishBackward0": lambda: F.mish(_t(A(6))),
    "LogSigmoidBackward0": lambda: F.logsigmoid(_t(A(6))),
    "HardswishBackward0": lambda: F.hardswish(_t(A(8, lo=-4, hi=4))),
    "HardsigmoidBackward0": lambda: F.hardsigmoid(_t(A(8, lo=-4, hi=4))),
    "SoftshrinkBackward0": lambda: F.softshrink(_t(A(8)), 0.6),
    "HardshrinkBackward0": lambda: F.hardshrink(_t(A(8)), 0.6),
    "ThresholdBackward0": lambda: F.threshold(_t(A(8)), 0.3, -1.0),
    "ThresholdBackward1": lambda: F.threshold(_nonleaf(A(8)), 0.3, -1.0, inplace=True),
    "GluBackward0": lambda: F.glu(_t(A(3, 4)), 1),
    # the further losses (ops/loss.py) and sub.Scalar
    "HuberLossBackward0": lambda: F.huber_loss(_t(A(3, 4)), _t(A(3, 4)), delta=0.8),
    "SoftMarginLossBackward0": lambda: F.soft_margin_loss(
        _t(A(3, 4)), gtorch.tensor(np.sign(A(3, 4)))
    ),
    "XlogyBackward0": lambda: loss.xlogy(_t(A(3, 4)), _t(A(3, 4, lo=0.1, hi=2))),
    "SubBackward1": lambda: scalar.sub_scalar(_t(A(2, 3)), 0.5),
    # padding and upsampling (ops/padding.py, ops/upsample.py)
    "ReflectionPad1DBackward0": lambda: F.pad(_t(A(2, 4)), (2, 3), mode="reflect"),
    "ReflectionPad2DBackward0": lambda: F.pad(_t(A(1, 3, 4)), (2, 1, 1, 2), mode="reflect"),
    "ReflectionPad3DBackward0": lambda: F.pad(
        _t(A(1, 2, 3, 3)), (1, 1, 0, 2, 1, 0), mode="reflect"
    ),
    "ReplicationPad1DBackward0": lambda: F.pad(_t(A(2, 4)), (3, 1), mode="replicate"),
    "ReplicationPad2DBackward0": lambda: F.pad(_t(A(1, 3, 4)), (2, 0, 1, 3), mode="replicate"),
    "ReplicationPad3DBackward0": lambda: F.pad(
        _t(A(1, 2, 3, 3)), (1, 2, 0, 1, 1, 1), mode="replicate"
    ),
    "PixelShuffleBackward0": lambda: F.pixel_shuffle(_t(A(1, 8, 2, 3)), 2),
    "PixelUnshuffleBackward0": lambda: F.pixel_unshuffle(_t(A(1, 2, 4, 6)), 2),
    "UpsampleNearest1DBackward0": lambda: F.interpolate(_t(A(1, 2, 3)), scale_factor=2.5),
    "UpsampleNearest2DBackward0": lambda: F.interpolate(_t(A(1, 2, 3, 2)), size=(4, 5)),
    "UpsampleNearest3DBackward0": lambda: F.interpolate(_t(A(1, 1, 2, 2, 3)), scale_factor=2),
    "UpsampleNearestExact1DBackward0": lambda: F.interpolate(
        _t(A(1, 2, 5)), size=3, mode="nearest-exact"
    ),
    "UpsampleNearestExact2DBackward0": lambda: F.interpolate(
        _t(A(1, 2, 3, 2)), scale_factor=1.5, mode="nearest-exact"
    ),
    "UpsampleNearestExact3DBackward0": lambda: F.interpolate(
        _t(A(1, 1, 2, 2, 3)), size=(3, 3, 2), mode="nearest-exact"
    ),
    "UpsampleLinear1DBackward0": lambda: F.interpolate(_t(A(1, 2, 3)), size=7, mode="linear"),
    "UpsampleBilinear2DBackward0": lambda: F.interpolate(
        _t(A(1, 2, 3, 2)), scale_factor=1.7, mode="bilinear"
    ),
    "UpsampleTrilinear3DBackward0": lambda: F.interpolate(
        _t(A(1, 1, 2, 2, 3)), size=(3, 4, 2), mode="trilinear", align_corners=True
    ),
    "SiluBackward0": lambda: F.silu(_t(A(6))),
    "GeluBackward0": lambda: F.gelu(_t(A(6))),
    "SmoothL1LossBackward0": lambda: F.smooth_l1_loss(_t(A(6)), _t(A(6)), beta=0.5),
    "NllLoss2DBackward0": lambda: F.nll_loss(
        _t(A(2, 3, 2, 2)), gtorch.tensor([[[0, 2], [1, 1]], [[2, 0], [0, 1]]])
    ),
    "ZeroBackward0": lambda: _nonleaf(A(3)).zero_(),
    "FillBackward2": lambda: _nonleaf(A(3)).fill_(2.0),
    "FillBackward3": lambda: _nonleaf(A(3)).fill_(_t(2.0)),
    "CopyBackwards": lambda: _nonleaf(A(2, 3)).copy_(_t(A(3))),
    "AsStridedBackward0": lambda: _view_after_write(),
    # conv2d(padding="same") pads an even kernel's extra row and column at the end
    "ConstantPadNdBackward0": lambda: conv._pad_end(_t(A(1, 1, 2, 3)), 1, 2, 2),
    "AdaptiveMaxPool2DBackward0": lambda: F.adaptive_max_pool2d(_t(A(2, 5, 4)), (2, 3)),
    "MaxUnpool2DBackward0": lambda: F.max_unpool2d(
        _t(A(1, 2, 2, 2)), gtorch.tensor([[[[0, 3], [9, 14]], [[5, 2], [12, 11]]]]), 2
    ),
    "BaddbmmBackward0": lambda: gtorch.baddbmm(
        _t(A(1, 2, 3)), _t(A(2, 2, 4)), _t(A(2, 4, 3)), beta=0.5, alpha=2
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_formula_matches_backward(name):
    check_formula(CASES[name](), name)


def test_smooth_l1_without_reduction_and_std_of_everything():
    check_formula(F.smooth_l1_loss(_t(A(6)), _t(A(6)), reduction="none"), "SmoothL1LossBackward0")
    check_formula(gtorch.var(_t(A(3, 4))), "VarBackward0")
    check_formula(_t(A(3, 4)).std(), "StdBackward0")
    check_formula(gtorch.roll(_t(A(2, 3)), 2), "RollBackward0")
