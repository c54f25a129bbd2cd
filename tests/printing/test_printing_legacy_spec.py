"""Every worked example (E1–E18) of ../shared/legacy-format.md, byte for byte."""

import io

import numpy as np
import pytest
from printing_doubles import FakeNode, FakeParameter, FakeTensor

from gradshell.core import dtypes
from gradshell.printing import node_repr, set_printoptions, tensor_repr

pytestmark = pytest.mark.usefixtures("legacy")

F32 = dtypes.float32


def var(values, dtype=F32, **kw):
    """A Variable that requires grad (a leaf the learner made)."""
    return FakeTensor(np.asarray(values), dtype, requires_grad=True, **kw)


def op_result(values, dtype=F32, node="MulConstantBackward", **kw):
    """A Variable produced by an op (has a grad_fn)."""
    legacy = "torch.autograd.function." + node
    return FakeTensor(np.asarray(values), dtype, grad_fn=FakeNode("X", legacy), **kw)


def plain(values, dtype=F32, **kw):
    return FakeTensor(np.asarray(values), dtype, **kw)


def test_e1_variable_2x2_integers():
    z = op_result(np.full((2, 2), 27.0))
    assert repr(z) == "Variable containing:\n 27  27\n 27  27\n[torch.FloatTensor of size 2x2]\n"


def test_e2_grad_is_a_variable():
    grad = plain(np.full((2, 2), 4.5), legacy_variable=True)
    assert (
        repr(grad)
        == "Variable containing:\n 4.5000  4.5000\n 4.5000  4.5000\n[torch.FloatTensor of size 2x2]\n"
    )


def test_e3_zero_dim_result_prints_as_size_1():
    out = op_result(np.float32(27.0), node="MeanBackward")
    assert repr(out) == "Variable containing:\n 27\n[torch.FloatTensor of size 1]\n"


def test_e4_plain_tensor_has_leading_newline():
    assert repr(plain(np.zeros(3))) == "\n 0\n 0\n 0\n[torch.FloatTensor of size 3]\n"


def test_e5_negative_and_wide_values():
    y = op_result([-1296.5227, 499.0783, 778.8971])
    assert (
        repr(y)
        == "Variable containing:\n-1296.5227\n  499.0783\n  778.8971\n[torch.FloatTensor of size 3]\n"
    )


def test_e6_exponent_spread_within_precision():
    g = plain([102.4, 1024, 0.1024], legacy_variable=True)
    assert (
        repr(g)
        == "Variable containing:\n  102.4000\n 1024.0000\n    0.1024\n[torch.FloatTensor of size 3]\n"
    )


def test_e7_logspace_small():
    v = np.logspace(0.1, 1.0, 5, dtype=np.float32)
    assert (
        repr(plain(v))
        == "\n  1.2589\n  2.1135\n  3.5481\n  5.9566\n 10.0000\n[torch.FloatTensor of size 5]\n"
    )


def test_e8_logspace_wide_goes_scientific():
    v = np.logspace(-10, 10, 5, dtype=np.float32)
    assert repr(plain(v)) == (
        "\n 1.0000e-10\n 1.0000e-05\n 1.0000e+00\n 1.0000e+05\n 1.0000e+10\n"
        "[torch.FloatTensor of size 5]\n"
    )


def test_e9_mixed_matrix():
    m = var([[0.3378, -1.2], [12.5, 0.0057]])
    assert (
        repr(m)
        == "Variable containing:\n  0.3378  -1.2000\n 12.5000   0.0057\n[torch.FloatTensor of size 2x2]\n"
    )


@pytest.mark.parametrize(
    "values, text",
    [
        ([1e-4, 2e-4], "\n1.00000e-04 *\n  1.0000\n  2.0000\n[torch.FloatTensor of size 2]\n"),
        (
            [[123456.7, 100000.5], [200000, 150000.25]],
            "\n1.00000e+05 *\n  1.2346  1.0000\n  2.0000  1.5000\n[torch.FloatTensor of size 2x2]\n",
        ),
        ([0, 0.001], "\n1.00000e-03 *\n  0.0000\n  1.0000\n[torch.FloatTensor of size 2]\n"),
        ([0.01], "\n1.00000e-03 *\n 10.0000\n[torch.FloatTensor of size 1]\n"),
    ],
)
def test_e10_scale_factor(values, text):
    assert repr(plain(values)) == text


@pytest.mark.parametrize(
    "values, dtype, text",
    [
        ([1, 2, 3], dtypes.int64, "\n 1\n 2\n 3\n[torch.LongTensor of size 3]\n"),
        (
            [1, 123456],
            dtypes.int64,
            "\n 1.0000e+00\n 1.2346e+05\n[torch.LongTensor of size 2]\n",
        ),
        ([1, 0, 1], dtypes.uint8, "\n 1\n 0\n 1\n[torch.ByteTensor of size 3]\n"),
        (
            np.arange(6).reshape(2, 3),
            dtypes.int64,
            "\n 0  1  2\n 3  4  5\n[torch.LongTensor of size 2x3]\n",
        ),
    ],
)
def test_e11_integer_types(values, dtype, text):
    assert repr(plain(values, dtype)) == text


def test_e12_non_finite():
    nan, inf = float("nan"), float("inf")
    assert repr(plain([1, nan, inf])) == "\n  1\nnan\ninf\n[torch.FloatTensor of size 3]\n"
    assert (
        repr(plain([1.5, nan, -inf]))
        == "\n 1.5000\n    nan\n   -inf\n[torch.FloatTensor of size 3]\n"
    )


def test_e13_width_5_quirk_and_column_blocks():
    assert repr(plain(np.ones((2, 7)))) == (
        "\n    1     1     1     1     1     1     1\n"
        "    1     1     1     1     1     1     1\n[torch.FloatTensor of size 2x7]\n"
    )
    row10 = "  ".join(["0.5000"] * 10)  # 7-wide cells, one space apart
    expected = (
        "\n\nColumns 0 to 9 \n"
        + "".join(" " + row10 + "\n" for _ in range(4))
        + "\nColumns 10 to 10 \n"
        + " 0.5000\n" * 4
        + "[torch.FloatTensor of size 4x11]\n"
    )
    assert repr(plain(np.full((4, 11), 0.5))) == expected
    assert expected.startswith(
        "\n\nColumns 0 to 9 \n 0.5000  0.5000  0.5000  0.5000  0.5000  0.5000  0.5000  0.5000"
    )


def test_e14_three_dimensions():
    assert repr(plain(np.ones((2, 2, 2)))) == (
        "\n(0 ,.,.) = \n  1  1\n  1  1\n\n(1 ,.,.) = \n  1  1\n  1  1\n"
        "[torch.FloatTensor of size 2x2x2]\n"
    )
    assert repr(plain(np.arange(24).reshape(2, 3, 4))) == (
        "\n(0 ,.,.) = \n   0   1   2   3\n   4   5   6   7\n   8   9  10  11\n"
        "\n(1 ,.,.) = \n  12  13  14  15\n  16  17  18  19\n  20  21  22  23\n"
        "[torch.FloatTensor of size 2x3x4]\n"
    )
    assert repr(plain(np.full((1, 2, 13), 0.5))) == (
        "\n(0 ,.,.) = \n\nColumns 0 to 8 \n"
        "   0.5000  0.5000  0.5000  0.5000  0.5000  0.5000  0.5000  0.5000  0.5000\n"
        "  0.5000  0.5000  0.5000  0.5000  0.5000  0.5000  0.5000  0.5000  0.5000\n"
        "\nColumns 9 to 12 \n   0.5000  0.5000  0.5000  0.5000\n"
        "  0.5000  0.5000  0.5000  0.5000\n[torch.FloatTensor of size 1x2x13]\n"
    )


def test_e14_four_dimensional_header():
    text = repr(plain(np.ones((1, 2, 2, 2))))
    assert text.startswith("\n(0 ,0 ,.,.) = \n  1  1\n  1  1\n\n(0 ,1 ,.,.) = \n")
    assert text.endswith("[torch.FloatTensor of size 1x2x2x2]\n")


def test_e15_summarised():
    assert repr(plain(np.arange(1000))) == (
        "\n   0\n   1\n   2\n \u22ee  \n 997\n 998\n 999\n[torch.FloatTensor of size 1000]\n"
    )
    row = "    1     1     1  ...      1     1     1\n"
    assert repr(plain(np.ones((40, 40)))) == (
        "\n"
        + row * 3
        + "       ...          \u22f1          ...       \n"
        + row * 3
        + "[torch.FloatTensor of size 40x40]\n"
    )
    assert repr(plain(np.ones((1000, 2)))) == (
        "\n"
        + "    1     1\n" * 3
        + "     \u22ee      \n"
        + "    1     1\n" * 3
        + "[torch.FloatTensor of size 1000x2]\n"
    )


def test_e15_summarised_3d():
    text = repr(plain(np.ones((10, 10, 10))))
    assert text.startswith(
        "\n(0 ,.,.) = \n   1   1   1  ...    1   1   1\n   1   1   1  ...    1   1   1\n"
        "   1   1   1  ...    1   1   1\n     ...       \u22f1       ...    \n"
        "   1   1   1  ...    1   1   1\n"
    )
    slice2_end = text.index("(7 ,.,.) = \n")
    assert text[slice2_end - 5 : slice2_end] == "...\n\n"
    headers = [line for line in text.split("\n") if line.endswith(",.,.) = ")]
    assert headers == [f"({i} ,.,.) = " for i in (0, 1, 2, 7, 8, 9)]


def test_e16_empty_and_cuda():
    assert repr(plain(np.zeros(0))) == "[torch.FloatTensor with no dimension]\n"
    assert (
        repr(plain(np.zeros(0), legacy_variable=True))
        == "Variable containing:[torch.FloatTensor with no dimension]\n"
    )
    gpu = var([[1, 2], [3, 4]], device="cuda:0")
    assert repr(gpu) == (
        "Variable containing:\n 1  2\n 3  4\n[torch.cuda.FloatTensor of size 2x2 (GPU 0)]\n"
    )
    assert (
        repr(var(np.zeros(0), device="cuda:0"))
        == "Variable containing:[torch.cuda.FloatTensor with no dimension]\n"
    )


def test_e17_print_two_variables():
    z = op_result(np.full((2, 2), 27.0))
    out = op_result(np.float32(27.0), node="MeanBackward")
    buf = io.StringIO()
    print(z, out, file=buf)
    assert buf.getvalue() == (
        "Variable containing:\n 27  27\n 27  27\n[torch.FloatTensor of size 2x2]\n"
        " Variable containing:\n 27\n[torch.FloatTensor of size 1]\n\n"
    )


def test_e18_tuple_in_plain_repl():
    c_sum = op_result(np.float32(12.0), node="SumBackward")
    assert repr((12.0, c_sum)) == (
        "(12.0, Variable containing:\n 12\n[torch.FloatTensor of size 1]\n)"
    )


def test_grad_fn_reprs_0_2_names():
    node = FakeNode("AddBackward0", "torch.autograd.function.AddConstantBackward")
    addr = hex(id(node))
    assert node_repr(node) == f"<torch.autograd.function.AddConstantBackward object at {addr}>"
    assert node_repr(node, ipython=True) == (
        f"<torch.autograd.function.AddConstantBackward at {addr}>"
    )
    sink = FakeNode("AccumulateGrad", "AccumulateGrad")
    assert node_repr(sink) == f"<AccumulateGrad object at {hex(id(sink))}>"
    assert addr.startswith("0x7f") or addr.startswith("0x")


def test_parameter_containing():
    p = FakeParameter(np.ones(2))
    assert repr(p) == "Parameter containing:\n 1\n 1\n[torch.FloatTensor of size 2]\n"


def test_threshold_is_inclusive_in_0_3():
    # 999 elements: printed in full; 1000: summarised (modern torch would need 1001).
    assert "\u22ee" not in repr(plain(np.arange(999)))
    assert "\u22ee" in repr(plain(np.arange(1000)))
    set_printoptions(threshold=5)
    assert repr(plain(np.arange(5))) == (
        "\n 0\n 1\n 2\n\u22ee \n 2\n 3\n 4\n[torch.FloatTensor of size 5]\n"
    )


def test_data_of_a_variable_is_plain():
    x = var(np.ones(2))
    data = FakeTensor(x._data, F32)
    assert tensor_repr(data) == "\n 1\n 1\n[torch.FloatTensor of size 2]\n"
