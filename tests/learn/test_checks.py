"""Checks look at state, not spelling: equivalent answers pass, wrong ones do not, and
feedback speaks only about what the learner changed."""

from __future__ import annotations

import pytest
from lessonkit import run_all, runtime_at

from gradshell.learn.checks import Status, evaluate_check
from gradshell.learn.lesson import Check, Text

# --- equivalent answers pass --------------------------------------------------------------

EQUIVALENT = [
    ("accumulation", "zero", ["x.grad.zero_()"]),
    ("accumulation", "zero", ["x.grad.data.zero_()"]),
    ("accumulation", "zero", ["x.grad = None"]),
    ("accumulation", "zero", ["x.grad.mul_(0)"]),
    ("accumulation", "zero-then-sum", ["x.grad.zero_()", "x.sum().backward()"]),
    ("accumulation", "zero-then-sum", ["x.grad.data.zero_()", "x.sum().backward()"]),
    ("accumulation", "zero-then-sum", ["x.grad = None", "(x * 1).sum().backward()"]),
    (
        "chain",
        "build",
        [
            "x = torch.ones(2, 2, requires_grad=True)",
            "y = x + 2",
            "z = y * y * 3",
            "out = z.mean()",
        ],
    ),
    (
        "chain",
        "build",
        [
            "x = torch.tensor([[1., 1.], [1., 1.]], requires_grad=True)",
            "y = 2 + x",
            "z = 3 * (y * y)",
            "out = torch.mean(z)",
        ],
    ),
    (
        "chain-rule",
        "leaves",
        [
            "w2 = torch.full((2, 2), 6.0, requires_grad=True)",
            "w1 = torch.tensor([[5., 5.], [5., 5.]], requires_grad=True)",
            "x1 = (2 * torch.ones(2, 2)).requires_grad_()",
        ],
    ),
    (
        "chain-rule",
        "from-the-middle",
        [
            "x1.grad.zero_()",
            "w1.grad.data.zero_()",
            "w2.grad = None",
            "y = (x1 * w1) * w2",
            "y.backward(torch.full((2, 2), -1.0))",
        ],
    ),
    (
        "gradient-argument",
        "matrix",
        [
            "x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)",
            "y = x * 2",
            "y.backward(torch.ones(2, 2))",
        ],
    ),
    (
        "gradient-argument",
        "matrix",
        [
            "x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)",
            "(x * 2).sum().backward()",
        ],
    ),
    ("requires-grad", "integers", ["torch.ones(3, dtype=torch.int64, requires_grad=True)"]),
    (
        "requires-grad",
        "from-numpy",
        [
            "import numpy as np",
            "d = torch.from_numpy(np.array([1., 2., 3.]))",
            "d.requires_grad = True",
        ],
    ),
    (
        "requires-grad",
        "floats",
        ["e = torch.tensor([2, 3], dtype=torch.float64, requires_grad=True)"],
    ),
    ("graph", "first-node", ["y = x + 2", "print(y.grad_fn)"]),
    (
        "fit-a-line",
        "parameters",
        [
            "b = torch.zeros((), requires_grad=True)",
            "w = torch.zeros(1).requires_grad_()",
        ],
    ),
    (
        "fit-a-line",
        "train",
        [
            "loss_fn = torch.nn.MSELoss()",
            "for _ in range(200):\n    loss = loss_fn(model(X), Y)\n    opt.zero_grad()\n    loss.backward()\n    opt.step()\n",
        ],
    ),
    (
        "old-code",
        "translate",
        [
            "v = torch.tensor([1, 2, 3], dtype=torch.float32).requires_grad_()",
            "loss = v.pow(2).sum()",
            "loss.backward()",
            "loss.data[0]",
            "print(loss.item())",
        ],
    ),
]


@pytest.mark.parametrize(("name", "step_id", "inputs"), EQUIVALENT)
def test_equivalent_answers_pass(name, step_id, inputs):
    rt, step = runtime_at(name, step_id)
    run_all(rt, *inputs)
    verdict = rt.check(step)
    assert verdict.passed, verdict.first_failure


# --- wrong answers do not ---------------------------------------------------------------

WRONG = [
    (
        "accumulation",
        "first-backward",
        [
            "x = torch.tensor([2., 2., 2.], requires_grad=True)",
            "y = x * 3",
            "y.backward(torch.tensor([0.1, 1.0, 10.0]))",
            "x.grad",
        ],
        "x.grad holds [0.3, 3, 30], which is not what the task's backward() gives",
    ),
    (
        "accumulation",
        "zero-then-sum",
        ["x.sum().backward()"],
        "backward() added onto the old x.grad: clear it before the next backward()",
    ),
    (
        "chain-rule",
        "leaves",
        [
            "x1 = 2 * torch.ones(2, 2, requires_grad=True)",
        ],
        "x1.is_leaf is False; the task wants True",
    ),
    (
        "requires-grad",
        "dtype",
        ["c = torch.tensor([2, 3], requires_grad=True, dtype=torch.float32)"],
        "c has dtype torch.float32; the task wants torch.float64",
    ),
    ("fit-a-line", "one-step", ["w = w - 0.1 * w.grad"], "w.is_leaf is False; the task wants True"),
    (
        "graph",
        "leaf-again",
        ["x1 = torch.ones(2, 2, requires_grad=True)"],
        "x1 holds [[1, 1], [1, 1]]; the task wants [[2, 2], [2, 2]]",
    ),
    (
        "chain",
        "build",
        ["x = torch.ones(3, requires_grad=True)"],
        "x has shape [3]; the task wants shape [2, 2]",
    ),
]


@pytest.mark.parametrize(("name", "step_id", "inputs", "message"), WRONG)
def test_wrong_answers_fail_with_a_reason(name, step_id, inputs, message):
    rt, step = runtime_at(name, step_id)
    run_all(rt, *inputs)
    verdict = rt.check(step)
    assert not verdict.passed
    failure = verdict.first_failure
    assert failure.status is Status.WRONG
    assert failure.message == message


def test_reasons_in_chinese():
    rt, step = runtime_at("accumulation", "first-backward", lang="zh")
    run_all(
        rt,
        "x = torch.tensor([2., 2., 2.], requires_grad=True)",
        "(x * 3).sum().backward()",
        "print(x.grad)",
    )
    failure = rt.check(step).first_failure
    assert failure.message == "x.grad 的值是 [3, 3, 3]，和题目里的 backward() 应该得到的结果不一样"


def test_untouched_subjects_are_pending_not_wrong():
    """Half-way through a task, what the learner has not reached yet is not 'wrong'."""
    rt, step = runtime_at("accumulation", "second-backward")
    run_all(rt, "y = x * 2")  # x.grad is still the first pass's [0.2, 2, 20]
    failure = rt.check(step).first_failure
    assert failure.status is Status.PENDING
    run_all(rt, "y.backward(torch.tensor([0.1, 1.0, 10.0]))")
    assert rt.check(step).passed


def test_missing_variables_are_pending():
    rt, step = runtime_at("chain-rule", "forward")
    failure = rt.check(step).first_failure
    assert failure.status is Status.PENDING
    assert failure.message == "x2 does not exist yet"


def test_an_expected_error_must_really_be_raised():
    rt, step = runtime_at("gradient-argument", "scalar-only")
    run_all(rt, "x = torch.tensor([2., 2., 2.], requires_grad=True)", "y = x * 2")
    assert rt.check(step).first_failure.status is Status.PENDING
    run_all(rt, "y.sum().backward()")  # works: no error
    assert not rt.check(step).passed
    run_all(rt, "undefined_name")  # a different error
    assert not rt.check(step).passed
    run_all(rt, "y.backward()")
    assert rt.check(step).passed


def test_zeroing_before_the_second_backward_is_checked_by_what_happened():
    rt, step = runtime_at("retain-graph", "recompute")
    # the right final value without clearing: a fresh a instead of a cleared a.grad
    run_all(rt, "a = torch.tensor([2., 3.], requires_grad=True)", "out = ((a + 3) ** 2 * 3).mean()")
    run_all(rt, "out.backward()")
    verdict = rt.check(step)
    assert not verdict.passed
    assert verdict.first_failure.status is Status.PENDING  # nothing was cleared


# --- each kind on its own ---------------------------------------------------------------


def _rt():
    rt, _ = runtime_at("accumulation", "first-backward")
    return rt


def _outcome(rt, kind, subject, **props):
    message = props.pop("message", None)
    return evaluate_check(Check(kind, subject, props, message), rt)


def test_value_checks():
    rt = _rt()
    run_all(rt, "n = 3", "s = 'hi'", "flag = True", "m = torch.nn.Linear(1, 1)")
    assert _outcome(rt, "value", "n", equals=3).status is Status.PASS
    assert _outcome(rt, "value", "n", equals=4).status is Status.WRONG
    assert _outcome(rt, "value", "s", equals="hi").status is Status.PASS
    assert _outcome(rt, "value", "flag", equals=True).status is Status.PASS
    assert _outcome(rt, "value", "n", equals=True).status is Status.WRONG
    assert _outcome(rt, "value", "m", type="Linear").status is Status.PASS
    assert _outcome(rt, "value", "m", type="Module").status is Status.PASS  # a base class
    assert _outcome(rt, "value", "m", type="SGD").status is Status.WRONG
    assert _outcome(rt, "value", "nothing_here").status is Status.PENDING


def test_shown_counts_displays_and_prints_of_that_very_value():
    rt = _rt()
    run_all(rt, "x = torch.tensor([1., 2.], requires_grad=True)", "y = x * 2")
    assert _outcome(rt, "shown", "y.grad_fn").status is Status.PENDING
    run_all(rt, "print(y.grad_fn)")
    assert _outcome(rt, "shown", "y.grad_fn").status is Status.PASS
    assert _outcome(rt, "shown", "y").status is Status.PENDING
    run_all(rt, "z = y")
    assert _outcome(rt, "shown", "y").status is Status.PENDING
    run_all(rt, "z")
    assert _outcome(rt, "shown", "y").status is Status.PASS


def test_ran_style_backward_from_and_true():
    rt = _rt()
    run_all(rt, "x = torch.ones(2, requires_grad=True)", "out = (x * x).sum()")
    assert _outcome(rt, "ran", "explain").status is Status.PENDING
    assert _outcome(rt, "backward_from", "out").status is Status.PENDING
    run_all(rt, "out.backward()", "%explain out", "%style legacy")
    assert _outcome(rt, "ran", "explain").status is Status.PASS
    assert _outcome(rt, "ran", "graph").status is Status.PENDING
    assert _outcome(rt, "backward_from", "out").status is Status.PASS
    assert _outcome(rt, "style", "legacy").status is Status.PASS
    assert _outcome(rt, "style", "modern").status is Status.PENDING
    msg = Text("nope", "不对")
    assert _outcome(rt, "true", "x.grad.sum().item() == 4", message=msg).status is Status.PASS
    wrong = _outcome(rt, "true", "x.grad.sum().item() == 5", message=msg)
    assert wrong.status is Status.WRONG and wrong.message == "nope"


def test_grad_states():
    rt = _rt()
    run_all(rt, "x = torch.ones(2, requires_grad=True)")
    assert _outcome(rt, "tensor", "x", grad_none=True).status is Status.PASS
    assert _outcome(rt, "tensor", "x", grad=[1.0, 1.0]).status is Status.PENDING
    run_all(rt, "x.sum().backward()")
    assert _outcome(rt, "tensor", "x", grad=[1.0, 1.0]).status is Status.PASS
    assert _outcome(rt, "tensor", "x", grad=1.0).status is Status.PASS  # one number: all
    assert _outcome(rt, "tensor", "x", grad_none=True).status is Status.WRONG
    # not cleared yet: a later line of the task may clear it, so it is judged on a look
    assert _outcome(rt, "tensor", "x", grad_cleared=True).status is Status.PENDING
    run_all(rt, "x.grad")
    assert _outcome(rt, "tensor", "x", grad_cleared=True).status is Status.WRONG
    run_all(rt, "x.grad.zero_()")
    assert _outcome(rt, "tensor", "x", grad_cleared=True).status is Status.PASS


def test_odd_learner_objects_never_crash_a_check():
    rt = _rt()
    run_all(
        rt,
        "class Odd:\n    @property\n    def grad(self):\n        raise ValueError('boom')\n",
        "o = Odd()",
    )
    outcome = _outcome(rt, "tensor", "o.grad", grad=[1.0])
    assert outcome.status is Status.PENDING
    assert "boom" in outcome.message
    assert _outcome(rt, "tensor", "o", values=1.0).status is Status.WRONG  # not a tensor


# --- checks look at the moment the step asks for -----------------------------------------


def _verdict(name: str, step_id: str, *inputs: str, lang: str = "en"):
    rt, step = runtime_at(name, step_id, lang=lang)
    run_all(rt, *inputs)
    return rt.check(step)


def test_a_step_about_a_backward_waits_for_the_backward():
    made = "x1 = 2 * torch.ones(2, 2, requires_grad=True)"
    verdict = _verdict("graph", "not-a-leaf", made, "x1.is_leaf")
    assert not verdict.passed and verdict.first_failure.status is Status.PENDING
    verdict = _verdict("graph", "not-a-leaf", made, "x1.is_leaf", "x1.sum().backward()")
    assert not verdict.passed  # the task goes on: look at x1.grad (PyTorch warns)
    verdict = _verdict("graph", "not-a-leaf", made, "x1.is_leaf", "x1.sum().backward()", "x1.grad")
    assert verdict.passed, verdict.first_failure
    # a backward that does not go through x1 is not the one the step is about
    verdict = _verdict(
        "graph",
        "not-a-leaf",
        made,
        "x1.is_leaf",
        "torch.ones(1, requires_grad=True).sum().backward()",
        "x1.grad",
    )
    assert not verdict.passed and "gone through x1" in verdict.first_failure.message


def test_a_step_that_asks_for_a_print_waits_for_it():
    loss = "loss = ((w * x + b - y) ** 2).mean()"
    verdict = _verdict("fit-a-line", "loss-and-gradients", loss, "loss.backward()")
    assert not verdict.passed and verdict.first_failure.status is Status.PENDING
    assert verdict.first_failure.message == "w.grad has not been printed yet"
    printed = 'print(f"{w.grad.item():.4f} {b.grad.item():.4f}")'
    assert _verdict("fit-a-line", "loss-and-gradients", loss, "loss.backward()", printed).passed
    assert _verdict(
        "fit-a-line", "loss-and-gradients", loss, "loss.backward()", "print(w.grad, b.grad)"
    ).passed
    # a print of something else is not the print the task asks for
    verdict = _verdict("fit-a-line", "loss-and-gradients", loss, "loss.backward()", "print(w)")
    assert not verdict.passed


def test_two_values_shown_on_one_line_count_as_both_shown():
    assert _verdict("graph", "is-leaf", "y.is_leaf, y.requires_grad").passed
    assert _verdict("graph", "is-leaf", "y.is_leaf", "y.requires_grad").passed


def test_a_correct_intermediate_step_is_not_scolded_and_the_answer_is_not_given():
    # lesson 5, step 5: after z_mean.backward() x.grad holds 4.5; the task goes on
    lines = [
        "x = torch.ones(2, 2, requires_grad=True)",
        "y = x + 2",
        "z = y * y * 3",
        "z_mean = z.mean()",
        "z_mean.backward()",
    ]
    verdict = _verdict("accumulation", "two-outputs", *lines)
    assert verdict.first_failure.status is Status.PENDING
    # looking at the intermediate result says it is not the answer, but never the answer
    verdict = _verdict("accumulation", "two-outputs", *lines, "x.grad")
    assert verdict.first_failure.status is Status.WRONG
    assert "5.5" not in verdict.first_failure.message
    assert _verdict("accumulation", "two-outputs", *lines, "x.sum().backward()").passed
    # lesson 1, step 4: from_numpy, then requires_grad_() on the next line
    lines = ["import numpy as np", "n = np.array([1, 2, 3], dtype=np.float64)"]
    verdict = _verdict("requires-grad", "from-numpy", *lines, "d = torch.from_numpy(n)")
    assert verdict.first_failure.status is Status.PENDING
    assert _verdict(
        "requires-grad", "from-numpy", *lines, "d = torch.from_numpy(n)", "d.requires_grad_()"
    ).passed


def test_wrong_computed_values_never_reveal_the_expected_values():
    verdict = _verdict(
        "chain", "build", "x = torch.ones(2, 2, requires_grad=True)", "y = x + 3", "z = y * y * 3"
    )
    failure = verdict.first_failure
    assert failure.status is Status.WRONG
    assert failure.message == "y holds [[4, 4], [4, 4]], which is not what the task computes"
