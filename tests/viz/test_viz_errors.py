"""Explained autograd errors: PyTorch's exact message first (torch channel), then the
explanation (visual channel) — for each kind, in English and Chinese."""

from __future__ import annotations

import pytest

from gradshell.viz.errors import KINDS, classify, names_in, receiver

# (setup lines, the failing line, kind, PyTorch's message start)
CASES = [
    (
        ["x = torch.ones(3, requires_grad=True)", "y = x * x", "y.sum().backward()"],
        "y.sum().backward()",
        "backward_twice",
        "RuntimeError: Trying to backward through the graph a second time",
    ),
    (
        ["x = torch.ones(3, requires_grad=True)", "y = x * 2"],
        "y.backward()",
        "non_scalar",
        "RuntimeError: grad can be implicitly created only for scalar outputs",
    ),
    (
        ["w = torch.ones(3)"],
        "w.sum().backward()",
        "no_grad_fn",
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    (
        [],
        "n = torch.tensor([1, 2], requires_grad=True)",
        "int_requires_grad",
        "RuntimeError: Only Tensors of floating point",
    ),
    (
        ["x = torch.ones(3, requires_grad=True)"],
        "x += 1",
        "leaf_inplace",
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    (
        ["x = torch.ones(3, requires_grad=True)", "a = x * 1", "b = a * a", "a.mul_(2)"],
        "b.sum().backward()",
        "modified_saved",
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation",
    ),
    (
        ["x = torch.ones(3, requires_grad=True)"],
        "(x * 3).backward(torch.ones(4))",
        "grad_shape",
        "RuntimeError: Mismatch in shape: grad_output[0]",
    ),
    (
        ["x = torch.ones(3, requires_grad=True)"],
        "x + torch.ones(4)",
        "broadcast",
        "RuntimeError: The size of tensor a (3) must match",
    ),
    (
        ["m = torch.ones(2, 3, requires_grad=True)"],
        "m @ m",
        "matmul_shape",
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)",
    ),
    (
        ["x = torch.ones(3, requires_grad=True)", "y = x * 2"],
        "y.requires_grad = False",
        "nonleaf_requires_grad",
        "RuntimeError: you can only change requires_grad flags of leaf variables",
    ),
    (
        ["x = torch.ones(3, requires_grad=True)"],
        "x.numpy()",
        "numpy_requires_grad",
        "RuntimeError: Can't call numpy() on Tensor that requires grad",
    ),
]


@pytest.mark.parametrize("setup,line,key,message", CASES, ids=[c[2] for c in CASES])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_error_is_explained_after_pytorchs_message(vs, setup, line, key, message, lang):
    vs.run_cell("%xmode explain")
    vs.run_cell(f"%lang {lang}")
    for s in setup:
        assert vs.run_cell(s).error is None
    r = vs.run_cell(line)
    assert r.error is not None
    assert message in r.output  # PyTorch's words, unchanged, on the torch channel
    kind = next(k for k in KINDS if k.key == key)
    assert classify(str(r.error)) is kind
    label = {"en": "your line", "zh": "出错的代码"}[lang]
    assert f"{label}: {line}" in r.visual
    assert kind.what[lang][:8] in r.visual
    assert ("fix:" if lang == "en" else "改法:") in r.visual


def test_non_leaf_grad_warning_is_explained(vs):
    vs.run_cell("%xmode explain")
    vs.run_cell("x = torch.ones(3, requires_grad=True)")
    vs.run_cell("y = x * 2")
    r = vs.run_cell("y.grad")
    assert "UserWarning: The .grad attribute of a Tensor that is not a leaf" in r.output
    assert "your line: y.grad" in r.visual
    assert "y.retain_grad()" in r.visual


def test_plain_mode_adds_nothing(vs):
    vs.run_cell("x = torch.ones(3, requires_grad=True)")
    r = vs.run_cell("(x * 2).backward()")
    assert "grad can be implicitly created" in r.output
    assert r.visual == ""


def test_modified_saved_names_the_likely_culprit(vs):
    vs.run_cell("%xmode explain")
    for s in ["x = torch.ones(3, requires_grad=True)", "a = x * 1", "b = a * a", "a.mul_(2)"]:
        vs.run_cell(s)
    r = vs.run_cell("b.sum().backward()")
    assert "probably changed by: a.mul_(2)" in r.visual


def test_unrelated_errors_are_not_explained(vs):
    vs.run_cell("%xmode explain")
    r = vs.run_cell("1 / 0")
    assert "ZeroDivisionError" in r.output and r.visual == ""


def test_names_in_lines():
    assert receiver("(x*3).backward(torch.ones(4))") == "(x*3)"
    assert receiver("z.sum().backward()") == "z.sum()"
    assert receiver("loss[0].backward(retain_graph=True)") == "loss[0]"
    assert names_in("y.backward()") == ("y", "y")
    assert names_in("z = y * 2") == ("y", "y")


def test_xmode_and_lang_usage(vs):
    assert vs.run_cell("%xmode").output == "exception mode: plain\n"
    assert "usage: %xmode plain|explain" in vs.run_cell("%xmode loud").output
    assert "usage: %lang en|zh" in vs.run_cell("%lang fr").output


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_typos_are_explained_in_plain_words(vs, lang):
    """A misspelt name or attribute: Python's suggestion after its message, and under
    `%xmode explain` a plain-words panel that repeats the suggestion in the fix."""
    vs.run_cell("%xmode explain")
    vs.run_cell(f"%lang {lang}")
    r = vs.run_cell("prnt(1)")
    assert "NameError: name 'prnt' is not defined. Did you mean: 'print'?" in r.output
    assert ("(Python suggests print)" if lang == "en" else "Python 猜你想写的是 print") in r.visual
    vs.run_cell("x = torch.ones(3, requires_grad=True)")
    r = vs.run_cell("x.gradd")
    assert "has no attribute 'gradd'. Did you mean: 'grad'?" in r.output
    assert "gradd" in r.visual and ("dir(obj)" in r.visual)
    r = vs.run_cell("zzz_unknown")
    assert "zzz_unknown" in r.visual and "suggests" not in r.visual
