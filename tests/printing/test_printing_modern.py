"""Modern style: fixed examples (PyTorch 2.13's output pasted verbatim), print options,
format(), small objects. These run without torch; the differential test compares live."""

import math

import numpy as np
import pytest
from printing_doubles import FakeNode, FakeParameter, FakeTensor

from gradshell.core import dtypes
from gradshell.printing import (
    get_print_style,
    get_printoptions,
    node_repr,
    print_style,
    printoptions,
    return_types_repr,
    set_print_style,
    set_printoptions,
    size_repr,
    tensor_format,
    tensor_repr,
)

F64, I64 = dtypes.float64, dtypes.int64
NAN, INF = math.nan, math.inf


def make(values, dtype=dtypes.float32, **kw):
    return FakeTensor(np.asarray(values), dtype, **kw)


CASES = [
    pytest.param(make([1.0, 2.0]), {}, "tensor([1., 2.])", id="float_vector"),
    pytest.param(make(3.0), {}, "tensor(3.)", id="scalar"),
    pytest.param(make(7, I64), {}, "tensor(7)", id="scalar_int"),
    pytest.param(make(1e-5), {}, "tensor(1.0000e-05)", id="scalar_sci"),
    pytest.param(make([]), {}, "tensor([])", id="empty"),
    pytest.param(make(np.zeros((0, 3))), {}, "tensor([], size=(0, 3))", id="empty_0x3"),
    pytest.param(make([], I64), {}, "tensor([], dtype=torch.int64)", id="empty_int"),
    pytest.param(
        make(np.zeros((2, 0)), F64, requires_grad=True),
        {},
        "tensor([], size=(2, 0), dtype=torch.float64, requires_grad=True)",
        id="empty_f64_grad",
    ),
    pytest.param(make([1e-5, 1.0]), {}, "tensor([1.0000e-05, 1.0000e+00])", id="mixed_sci"),
    pytest.param(make([1.0, 1000.0]), {}, "tensor([   1., 1000.])", id="ratio_1000"),
    pytest.param(make([1.0, 1000.5]), {}, "tensor([1.0000e+00, 1.0005e+03])", id="ratio_over_1000"),
    pytest.param(make([1e8, 1.0]), {}, "tensor([1.0000e+08, 1.0000e+00])", id="big"),
    pytest.param(
        make([NAN, INF, -0.0, 1.5]), {}, "tensor([   nan,    inf, -0.0000, 1.5000])", id="nonfinite"
    ),
    pytest.param(
        make([NAN, -INF, 2.0, -0.0]), {}, "tensor([nan, -inf, 2., -0.])", id="nonfinite_int_mode"
    ),
    pytest.param(make([NAN, NAN]), {}, "tensor([nan, nan])", id="all_nan"),
    pytest.param(make([True, False], dtypes.bool_), {}, "tensor([ True, False])", id="bool"),
    pytest.param(
        make([[1, -2], [3, 100]], dtypes.int8),
        {},
        "tensor([[  1,  -2],\n        [  3, 100]], dtype=torch.int8)",
        id="int8",
    ),
    pytest.param(
        make([0, 255], dtypes.uint8), {}, "tensor([  0, 255], dtype=torch.uint8)", id="uint8"
    ),
    pytest.param(
        make([1.5, 2.25], dtypes.float16),
        {},
        "tensor([1.5000, 2.2500], dtype=torch.float16)",
        id="float16",
    ),
    pytest.param(
        make([[0.1, 2.0], [3.0, 4.5]], F64),
        {},
        "tensor([[0.1000, 2.0000],\n        [3.0000, 4.5000]], dtype=torch.float64)",
        id="float64",
    ),
    pytest.param(
        make(np.arange(30, dtype=np.float32) / np.float32(7)),
        {},
        "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286,\n        2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, 3.7143,\n        3.8571, 4.0000, 4.1429])",
        id="wrap",
    ),
    pytest.param(
        make(np.arange(2000.0)),
        {},
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])",
        id="summary_1d",
    ),
    pytest.param(
        make(np.arange(2000).reshape(40, 50), I64),
        {},
        "tensor([[   0,    1,    2,  ...,   47,   48,   49],\n        [  50,   51,   52,  ...,   97,   98,   99],\n        [ 100,  101,  102,  ...,  147,  148,  149],\n        ...,\n        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n        [1950, 1951, 1952,  ..., 1997, 1998, 1999]])",
        id="summary_2d",
    ),
    pytest.param(
        make(np.arange(12.0).reshape(2, 3, 2)),
        {},
        "tensor([[[ 0.,  1.],\n         [ 2.,  3.],\n         [ 4.,  5.]],\n\n        [[ 6.,  7.],\n         [ 8.,  9.],\n         [10., 11.]]])",
        id="three_d",
    ),
    pytest.param(
        make(np.ones((2, 2)), requires_grad=True),
        {},
        "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)",
        id="requires_grad",
    ),
    pytest.param(
        make(np.full((2, 2), 3.0), grad_fn=FakeNode("AddBackward0")),
        {},
        "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)",
        id="grad_fn",
    ),
    pytest.param(
        make(27.0, grad_fn=FakeNode("MeanBackward0")),
        {},
        "tensor(27., grad_fn=<MeanBackward0>)",
        id="mean",
    ),
    pytest.param(
        make(
            np.arange(8, dtype=np.float32) * np.float32(1000.123),
            F64,
            grad_fn=FakeNode("ToCopyBackward0"),
        ),
        {},
        "tensor([   0.0000, 1000.1230, 2000.2460, 3000.3689, 4000.4919, 5000.6147,\n        6000.7378, 7000.8608], dtype=torch.float64, grad_fn=<ToCopyBackward0>)",
        id="long_suffix",
    ),
    pytest.param(make([1.12345, 2.5]), {"precision": 2}, "tensor([1.12, 2.50])", id="precision_2"),
    pytest.param(
        make([1.5, 2.0]), {"sci_mode": True}, "tensor([1.5000e+00, 2.0000e+00])", id="sci_true"
    ),
    pytest.param(
        make([1e-8, 1.0]), {"sci_mode": False}, "tensor([0.0000, 1.0000])", id="sci_false"
    ),
    pytest.param(
        make(np.arange(10), I64),
        {"threshold": 5},
        "tensor([0, 1, 2,  ..., 7, 8, 9])",
        id="threshold_5",
    ),
    pytest.param(
        make(np.arange(10), I64),
        {"threshold": 5, "edgeitems": 0},
        "tensor([...], size=(10,))",
        id="edgeitems_0",
    ),
    pytest.param(
        make(np.ones((4, 4))),
        {"threshold": 5, "edgeitems": 0},
        "tensor([...], size=(4, 4))",
        id="edgeitems_0_2d",
    ),
    pytest.param(
        make(np.arange(2000, dtype=np.float32) / np.float32(3)),
        {"profile": "short"},
        "tensor([0.00e+00, 3.33e-01,  ..., 6.66e+02, 6.66e+02])",
        id="short",
    ),
    pytest.param(
        make(np.arange(12.0) * 1.5),
        {"linewidth": 30},
        "tensor([ 0.0000,  1.5000,\n         3.0000,  4.5000,\n         6.0000,  7.5000,\n         9.0000, 10.5000,\n        12.0000, 13.5000,\n        15.0000, 16.5000])",
        id="linewidth_30",
    ),
]


@pytest.mark.parametrize("tensor, options, expected", CASES)
def test_matches_pytorch_output(tensor, options, expected):
    set_printoptions(**options)
    assert repr(tensor) == expected
    assert str(tensor) == expected
    assert tensor_repr(tensor) == expected


# -- device suffixes (no CUDA torch here: PyTorch's documented forms, built by its rule:
#    device first, then size/dtype, then grad_fn/requires_grad) ----------------------------


def test_cuda_suffixes():
    assert repr(make([1.0, 2.0], device="cuda:0")) == "tensor([1., 2.], device='cuda:0')"
    assert repr(make([1, 2], dtypes.int32, device="cuda")) == (
        "tensor([1, 2], device='cuda:0', dtype=torch.int32)"
    )
    y = make([[3.0, 3.0]], device="cuda:0", grad_fn=FakeNode("AddBackward0"))
    assert repr(y) == "tensor([[3., 3.]], device='cuda:0', grad_fn=<AddBackward0>)"
    assert repr(make(np.zeros((0, 2)), device="cuda:1")) == (
        "tensor([], device='cuda:1', size=(0, 2))"
    )


def test_suffixes_wrap_onto_their_own_line():
    t = make(np.arange(6, dtype=np.float32) * np.float32(1000.123), F64, requires_grad=True)
    assert repr(t) == (
        "tensor([   0.0000, 1000.1230, 2000.2460, 3000.3689, 4000.4919, 5000.6147],\n"
        "       dtype=torch.float64, requires_grad=True)"
    )
    set_printoptions(linewidth=20)
    assert repr(make([1.0], F64, requires_grad=True)) == (
        "tensor([1.],\n       dtype=torch.float64,\n       requires_grad=True)"
    )


def test_parameter():
    p = FakeParameter(np.ones(2))
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert str(p) == repr(p)
    q = FakeParameter(np.arange(2), dtypes.int32, requires_grad=False)
    assert repr(q) == "Parameter containing:\ntensor([0, 1], dtype=torch.int32)"


def test_default_dtype_float64_changes_the_dtype_suffix():
    dtypes.set_default_dtype(dtypes.float64)
    try:
        assert repr(make([1.5], F64)) == "tensor([1.5000])"
        assert repr(make([1.5])) == "tensor([1.5000], dtype=torch.float32)"
        assert repr(make([], F64)) == "tensor([])"
    finally:
        dtypes.set_default_dtype(dtypes.float32)


# -- print options ---------------------------------------------------------------------------


def test_printoption_defaults_and_profiles():
    defaults = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
    assert get_printoptions() == {**defaults, "sci_mode": None}
    assert list(get_printoptions()) == [
        "precision",
        "threshold",
        "edgeitems",
        "linewidth",
        "sci_mode",
    ]
    set_printoptions(profile="short")
    assert get_printoptions() == {
        "precision": 2,
        "threshold": 1000,
        "edgeitems": 2,
        "linewidth": 80,
        "sci_mode": None,
    }
    set_printoptions(profile="full", precision=6)
    assert get_printoptions()["threshold"] == math.inf
    assert get_printoptions()["precision"] == 6
    assert "..." not in repr(make(np.arange(1500), I64))
    set_printoptions(profile="default")
    assert get_printoptions() == {**defaults, "sci_mode": None}


def test_set_printoptions_resets_sci_mode_and_ignores_unknown_profiles():
    set_printoptions(sci_mode=True)
    assert repr(make([1.5])) == "tensor([1.5000e+00])"
    set_printoptions(precision=3)  # PyTorch resets sci_mode to None on every call
    assert get_printoptions()["sci_mode"] is None
    assert repr(make([1.5])) == "tensor([1.500])"
    set_printoptions(profile="no-such-profile")
    assert get_printoptions()["precision"] == 3


def test_set_printoptions_argument_errors():
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        set_printoptions(foo=1)
    with pytest.raises(TypeError):
        set_printoptions(1, 2, 3, 4, "default", None, 7)


def test_invalid_option_values_fail_clearly_at_print_time():
    set_printoptions(precision=-1, sci_mode=False)
    with pytest.raises(ValueError):
        repr(make([1.5]))
    set_printoptions(threshold=2, edgeitems=-1)
    with pytest.raises(ValueError, match="edgeitems=-1"):
        repr(make([1.0, 2.0, 3.0]))


def test_printoptions_context_manager_restores():
    with printoptions(precision=1, sci_mode=True):
        assert repr(make([1.25])) == "tensor([1.2e+00])"
    assert get_printoptions()["precision"] == 4
    assert get_printoptions()["sci_mode"] is None


def test_print_style_switching():
    t = make([1.0, 2.0], requires_grad=True)
    assert get_print_style() == "modern"
    set_print_style("legacy")
    assert repr(t) == "Variable containing:\n 1\n 2\n[torch.FloatTensor of size 2]\n"
    set_print_style("modern")
    assert repr(t) == "tensor([1., 2.], requires_grad=True)"
    with print_style("legacy"):
        assert get_print_style() == "legacy"
    assert get_print_style() == "modern"
    with pytest.raises(ValueError, match="unknown print style 'fancy'"):
        set_print_style("fancy")


def test_legacy_style_has_no_sci_mode():
    set_print_style("legacy")
    with pytest.raises(TypeError, match="unexpected keyword argument 'sci_mode'"):
        set_printoptions(sci_mode=True)
    set_printoptions(precision=2)
    assert get_printoptions()["precision"] == 2


# -- format() ----------------------------------------------------------------------------------


def test_format_zero_dim_like_python_numbers():
    assert f"{make(2.5):.2f}" == "2.50"
    assert f"{make(2.5, requires_grad=True):.3e}" == "2.500e+00"
    assert f"{make(3, I64):05d}" == "00003"
    assert f"{make(True, dtypes.bool_)}" == "True"
    assert format(make(1 / 3), "") == str(float(np.float32(1 / 3)))
    with pytest.raises(ValueError, match="Unknown format code 'd'"):
        format(make(3.5), "d")


def test_format_other_tensors():
    t = make([1.5, 2.0])
    assert format(t, "") == "tensor([1.5000, 2.0000])"
    with pytest.raises(TypeError, match=r"^unsupported format string passed to Tensor.__format__$"):
        format(t, ".2f")
    p = FakeParameter(np.float32(1.5))
    with pytest.raises(TypeError, match="passed to Parameter.__format__"):
        format(p, ".2f")


def test_format_legacy():
    set_print_style("legacy")
    v = make(2.5, requires_grad=True)
    assert format(v, "") == "Variable containing:\n 2.5000\n[torch.FloatTensor of size 1]\n"
    with pytest.raises(TypeError, match="passed to Variable.__format__"):
        format(v, ".2f")
    with pytest.raises(TypeError, match="passed to FloatTensor.__format__"):
        tensor_format(make(2.5), ".2f")


# -- small objects -----------------------------------------------------------------------------


def test_node_reprs():
    node = FakeNode("AddBackward0", "torch.autograd.function.AddConstantBackward")
    addr = hex(id(node))
    assert node_repr(node) == f"<AddBackward0 object at {addr}>"
    assert node_repr(node, ipython=True) == f"<AddBackward0 at {addr}>"
    other = FakeNode("AccumulateGrad")
    assert node_repr(other) != node_repr(node)  # distinct live objects, distinct addresses
    assert (
        repr(((other, 0), (None, 0)))
        == f"((<AccumulateGrad object at {hex(id(other))}>, 0), (None, 0))"
    )


def test_size_dtype_device():
    assert size_repr((2, 2)) == "torch.Size([2, 2])"
    assert size_repr(()) == "torch.Size([])"
    assert repr(dtypes.float32) == "torch.float32"
    assert repr(make([1.0]).device) == "device(type='cpu')"


def test_return_types():
    values = make([4.0], grad_fn=FakeNode("MaxBackward0"))
    indices = make([1], I64)
    text = return_types_repr("max", [("values", values), ("indices", indices)])
    assert text == (
        "torch.return_types.max(\nvalues=tensor([4.], grad_fn=<MaxBackward0>),\n"
        "indices=tensor([1]))"
    )
    set_print_style("legacy")
    text = return_types_repr("max", [("values", values), ("indices", indices)])
    assert text == (
        "(Variable containing:\n 4\n[torch.FloatTensor of size 1]\n, "
        "\n 1\n[torch.LongTensor of size 1]\n)"
    )


def test_containers_use_element_reprs():
    a, b = make([1.0]), make([2], dtypes.int32)
    assert repr((a, b)) == "(tensor([1.]), tensor([2], dtype=torch.int32))"
    assert str([a]) == "[tensor([1.])]"


def test_style_listeners_follow_every_change():
    from gradshell.printing import add_style_listener

    seen = []
    remove = add_style_listener(seen.append)
    set_print_style("legacy")
    set_print_style("modern")
    remove()
    set_print_style("legacy")
    assert seen == ["modern", "legacy", "modern"]


def test_printing_imports_no_shell_or_ui():
    import subprocess
    import sys

    code = (
        "import sys, gradshell.printing\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('rich', 'prompt_toolkit')"
        " or m.startswith('gradshell.shell')]\n"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
