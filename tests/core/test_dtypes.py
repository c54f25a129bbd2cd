"""dtypes and type promotion, compared with PyTorch."""

import itertools

import pytest

from gradshell import torch as gtorch
from gradshell.core import dtypes

NAMES = ["float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64", "bool"]


def test_names_and_reprs():
    assert repr(gtorch.float32) == "torch.float32"
    assert gtorch.float is gtorch.float32 and gtorch.double is gtorch.float64
    assert gtorch.long is gtorch.int64 and gtorch.half is gtorch.float16
    assert gtorch.float32.is_floating_point and not gtorch.int64.is_floating_point
    assert gtorch.float32.itemsize == 4
    assert not gtorch.uint8.is_signed and gtorch.int8.is_signed


@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
def test_promote_types_matches_pytorch(real_torch, a, b):
    ours = gtorch.promote_types(getattr(gtorch, a if a != "bool" else "bool"), getattr(gtorch, b))
    theirs = real_torch.promote_types(getattr(real_torch, a), getattr(real_torch, b))
    assert repr(ours) == repr(theirs)


SCALARS = [True, 3, 2.5, -1000]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scalar", SCALARS)
@pytest.mark.parametrize("zero_dim", [False, True])
def test_tensor_scalar_result_type(real_torch, name, scalar, zero_dim):
    shape = () if zero_dim else (2,)
    ours = gtorch.ones(shape, dtype=getattr(gtorch, name))
    theirs = real_torch.ones(shape, dtype=getattr(real_torch, name))
    assert repr(dtypes.result_type(ours, scalar)) == repr(real_torch.result_type(theirs, scalar))


@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
def test_zero_dim_vs_dimensioned(real_torch, a, b):
    ours = dtypes.result_type(
        gtorch.ones((), dtype=getattr(gtorch, a)), gtorch.ones(2, dtype=getattr(gtorch, b))
    )
    theirs = real_torch.result_type(
        real_torch.ones((), dtype=getattr(real_torch, a)),
        real_torch.ones(2, dtype=getattr(real_torch, b)),
    )
    assert repr(ours) == repr(theirs)


def test_default_dtype_switch():
    try:
        gtorch.set_default_dtype(gtorch.float64)
        assert gtorch.tensor([1.5]).dtype is gtorch.float64
        assert gtorch.ones(2).dtype is gtorch.float64
    finally:
        gtorch.set_default_dtype(gtorch.float32)
    with pytest.raises(TypeError):
        gtorch.set_default_dtype(gtorch.int64)
