"""Where nothing needs refusing, the shell raises Python's own error: subscripting None
(`p.grad[0]` after `zero_grad()`) is a TypeError, as in Python."""

from __future__ import annotations

import pytest

from gradshell.shell.session import Session


@pytest.mark.parametrize(
    "code,error",
    [
        ("x = None\nx[0]", "TypeError: 'NoneType' object is not subscriptable"),
        ("x = 3\nx[0]", "TypeError: 'int' object is not subscriptable"),
        ("x = None\nx[0] = 1", "TypeError: 'NoneType' object does not support item assignment"),
        (
            "import torch\np = torch.nn.Parameter(torch.ones(2))\np.sum().backward()\n"
            "p.grad = None\np.grad[0]",
            "TypeError: 'NoneType' object is not subscriptable",
        ),
    ],
)
def test_pythons_error_for_unsubscriptable_values(code, error):
    result = Session(viz=False).run_script(code + "\n", "<prog>")
    assert result.output.rstrip().splitlines()[-1] == error, result.output
    with pytest.raises(TypeError) as info:
        exec(
            compile(code.replace("import torch", "from gradshell import torch"), "<p>", "exec"), {}
        )  # noqa: S102
    assert f"TypeError: {info.value}" == error
