"""Keywords PyTorch's argument parser accepts beyond the documented names: NumPy's
`axis=`/`keepdims=`, `input=`, `size=` and `out=` — gradshell agrees with PyTorch on the
result, the out= tensor and the error."""

from __future__ import annotations

import warnings

import pytest
from support.differential import compare

CALLS = [
    "r = torch.ones(2, 3).sum(axis=0)",
    "r = torch.ones(2, 3).sum(axis=1, keepdims=True)",
    "r = torch.sum(torch.ones(2, 3), axis=0)",
    "r = torch.ones(2, 3).mean(axis=1)",
    "r = torch.mean(torch.ones(2, 3), axis=0, keepdims=True)",
    "r = torch.arange(3.).cumsum(axis=0)",
    "r = torch.cumsum(torch.arange(3.), axis=0)",
    "r = torch.randn(size=(2,)).shape",
    "r = torch.rand(size=(2, 3)).shape",
    "r = torch.zeros(size=(2,))",
    "r = torch.ones(size=(1, 2))",
    "r = torch.ones(2, 3).max(axis=1)",
    "r = torch.max(torch.ones(2, 3), axis=1)",
    "r = torch.arange(6.).reshape(2, 3).std(axis=0)",
    "r = torch.arange(6.).reshape(2, 3).var(axis=1, keepdims=True)",
    "r = torch.arange(6.).reshape(2, 3).prod(axis=0)",
    "r = torch.ones(2, 3).sum(dim=0, keepdims=True)",
    "r = torch.arange(6.).reshape(2, 3).amax(axis=0)",
    "r = torch.arange(6.).reshape(2, 3).argmax(axis=0)",
    "r = torch.ones(2, 3).softmax(axis=1)",
    "r = torch.ones(1, 3).squeeze(axis=0)",
    "r = torch.cat([torch.ones(2)], axis=0)",
    "r = torch.ones(2, 3).any(axis=0)",
    "r = torch.ones(2, 3).sum(axis=0, dim=1)",
    "r = torch.ones(2, 3).sum(0, keepdim=True, keepdims=True)",
    "r = torch.matmul(input=torch.ones(2, 2), other=torch.ones(2, 2))",
    "r = torch.add(input=torch.ones(2), other=torch.ones(2), alpha=2)",
    "r = torch.mul(input=torch.ones(2), other=3)",
    "r = torch.exp(input=torch.zeros(2))",
    "r = torch.sum(input=torch.ones(2))",
    "r = torch.mm(input=torch.ones(2, 2), mat2=torch.ones(2, 2))",
    "r = torch.sigmoid(input=torch.zeros(1))",
    "r = torch.pow(input=torch.ones(2), exponent=2)",
    "r = torch.clamp(input=torch.ones(2), min=0)",
    "r = torch.ones(2).add(other=torch.ones(2))",
    "c = torch.empty(2, 2)\nr = torch.matmul(input=torch.ones(2, 2), other=torch.ones(2, 2), out=c)"
    "\nsame = r is c",
    "c = torch.empty(2)\nr = torch.exp(torch.zeros(2), out=c)\nsame = r is c",
    "c = torch.empty(2)\nr = torch.sum(torch.ones(2, 2), 0, out=c)",
    "c = torch.empty(0)\nr = torch.sigmoid(torch.zeros(3), out=c)",
    "c = torch.empty(3)\nr = torch.mm(torch.ones(2, 2), torch.ones(2, 2), out=c)",
    "c = torch.empty(2, dtype=torch.int64)\nr = torch.add(torch.ones(2), 1, out=c)",
    "c = torch.empty(2, dtype=torch.float64)\nr = torch.exp(torch.zeros(2), out=c)",
    "c = torch.empty(2)\nr = torch.exp(torch.zeros(2, requires_grad=True), out=c)",
    "c = torch.empty(2)\nwith torch.no_grad():\n    r = torch.exp(torch.zeros(2, requires_grad=True), out=c)",
]


@pytest.mark.parametrize("source", CALLS)
def test_keyword_forms_agree_with_pytorch(real_torch, source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(source, real_torch)


def test_resizing_a_non_empty_out_tensor_warns_as_pytorch_does(real_torch):
    from gradshell import torch as gtorch

    texts = []
    for torch in (gtorch, real_torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.exp(torch.zeros(2), out=torch.empty(3))
        texts.append([(w.category, str(w.message), w.filename) for w in caught])
    assert [t[:2] for t in texts[0]] == [t[:2] for t in texts[1]]
    assert texts[0][0][2] == __file__  # points at the caller's line, not into gradshell
