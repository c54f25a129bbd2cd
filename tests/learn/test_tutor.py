"""The Tutor: steps, predictions, hints, every command, saving and resuming — driven
in-process with inputs as a learner would type them."""

from __future__ import annotations

import io
import re

import pytest
from lessonkit import course, lesson

from gradshell.learn.progress import ProgressStore
from gradshell.learn.tutor import Mode, Tutor, parse_prediction, unwrap


class Learner:
    """A Tutor and everything it wrote, input by input."""

    def __init__(self, tmp_path, lang="en", name="accumulation"):
        self.out = io.StringIO()
        self.store = ProgressStore(tmp_path / "progress.json")
        self.tutor = Tutor(course(), lang=lang, store=self.store, out=self.out, width=100)
        self.tutor.start(name)

    def type(self, *inputs: str) -> str:
        """Feed inputs; return what was written meanwhile."""
        start = len(self.out.getvalue())
        for text in inputs:
            self.tutor.handle(text)
        return self.out.getvalue()[start:]

    @property
    def at(self) -> tuple[str, int]:
        return self.tutor.lesson.id if self.tutor.lesson else "", self.tutor.index

    def value(self, expr: str):
        return self.tutor.session.namespace[expr]


def grad(learner: Learner, name: str = "x") -> list:
    return learner.value(name).grad.tolist()


def test_a_whole_lesson_with_its_solutions(tmp_path):
    les = lesson("accumulation")
    me = Learner(tmp_path)
    for step in les.steps:
        if step.predict is not None:
            assert me.tutor.mode is Mode.PREDICT
            me.type("1")
        me.type(*step.reference_code())
    assert me.tutor.mode is Mode.DONE
    saved = ProgressStore(tmp_path / "progress.json").load().lessons["accumulation"]
    assert saved.finished and set(saved.done) == {s.id for s in les.steps}


def test_wrong_answer_feedback_then_hints_then_skip(tmp_path):
    me = Learner(tmp_path)
    text = me.type("x = torch.tensor([2., 2., 2.], requires_grad=True)", "y = x * 3")
    assert "Not yet" not in text  # nothing wrong yet: x.grad is untouched
    text = me.type("y.backward(torch.tensor([0.1, 1.0, 10.0]))")
    assert "Not yet" not in text  # a later backward() could still add to x.grad
    text = me.type("x.grad")  # looking at the result: now it is wrong, answer not given
    assert "Not yet: x.grad holds [0.3, 3, 30], which is not what the task's backward()" in text
    assert "[0.2, 2, 20]" not in text
    assert "Stuck?" not in text
    text = me.type("y.backward(torch.tensor([0.1, 1.0, 10.0]))")  # the graph was freed
    assert "Stuck? Type hint" in text  # a second input that went wrong
    assert "Hint 1/2: Three lines of code" in me.type("hint")
    assert "Hint 2/2:" in me.type("hint")
    assert "That was the last hint" in me.type("hint")
    text = me.type("skip")
    assert ">>> y = x * 2" in text and "tensor([ 0.2000,  2.0000, 20.0000])" in text
    assert "counts as skipped" in text and "Step 2/6" in text
    assert grad(me) == pytest.approx([0.2, 2.0, 20.0])
    entry = me.store.progress.lessons["accumulation"]
    assert entry.skipped == ["first-backward"] and entry.step == "second-backward"


def test_skip_restores_the_state_when_the_learners_is_in_the_way(tmp_path):
    me = Learner(tmp_path)
    me.type("skip")
    me.type("")  # no prediction
    me.type("x = torch.zeros(5, requires_grad=True)")  # x is no longer the lesson's x
    text = me.type("skip")
    assert "did not pass" not in text
    assert grad(me) == pytest.approx([0.4, 4.0, 40.0])
    assert me.at == ("accumulation", 2)


def test_predict_then_reveal(tmp_path):
    me = Learner(tmp_path)
    me.type(*lesson("accumulation").steps[0].reference_code())
    assert me.tutor.mode is Mode.PREDICT
    assert "Predict first:" in me.out.getvalue()
    assert "could not read '[0.2, 2'" in me.type("[0.2, 2").replace("I could", "could")
    assert "you predict [0.2, 2, 20]" in me.type("tensor([0.2, 2., 20.])")
    text = me.type("y = x * 2", "y.backward(torch.tensor([0.1, 1.0, 10.0]))")
    assert "You predicted [0.2, 2, 20]; x.grad is [0.4, 4, 40]. ✗ Not quite" in text


def test_code_at_the_prediction_prompt_runs_as_code(tmp_path):
    me = Learner(tmp_path)
    me.type(*lesson("accumulation").steps[0].reference_code())
    text = me.type("x.grad")  # a look: shown, and the question stays
    assert "tensor([ 0.2000,  2.0000, 20.0000])" in text and me.tutor.mode is Mode.PREDICT
    text = me.type("y = x * 2")  # an action: on to the task
    assert "No prediction this time" in text and me.tutor.mode is Mode.STEP
    text = me.type("y.backward(torch.tensor([0.1, 1.0, 10.0]))")
    assert "Well done" in text and "You predicted" not in text


def test_declining_to_predict_and_predicting_none(tmp_path):
    me = Learner(tmp_path, name="chain")
    me.type("skip", "skip", "skip", "skip", "skip")  # to step 6, a value prediction
    assert me.tutor.mode is Mode.PREDICT
    me.type("")
    text = me.type(*lesson("chain").steps[5].reference_code())
    assert "Well done" in text and "You predicted" not in text
    me.type("back")
    me.type("None")
    text = me.type(*lesson("chain").steps[5].reference_code())
    assert "You predicted None; w.grad is 3. ✗ Not quite" in text


def test_gradient_predictions_show_the_finite_difference_table(tmp_path):
    me = Learner(tmp_path, name="chain")
    me.type(*lesson("chain").steps[0].reference_code())
    me.type("4.5")
    text = me.type("out.backward()")
    assert "your prediction of ∂" in text and "finite diff" in text and "All 4 right." in text


def test_back_next_and_reset_rebuild_the_state(tmp_path):
    me = Learner(tmp_path)
    me.type("skip", "", "skip")  # steps 1 and 2 done by the reference
    assert me.at == ("accumulation", 2) and grad(me) == pytest.approx([0.4, 4.0, 40.0])
    me.type("x.grad.zero_()")  # step 3 passes
    assert me.at == ("accumulation", 3)
    text = me.type("back")
    assert me.at == ("accumulation", 2) and "restored" in text
    assert grad(me) == pytest.approx([0.4, 4.0, 40.0])  # as at the start of step 3
    me.type("x.grad.mul_(5)")  # mess it up, then start the step again
    me.type("reset")
    assert grad(me) == pytest.approx([0.4, 4.0, 40.0])
    text = me.type("next")  # unfinished: the reference runs quietly
    assert "reference solution ran quietly" in text
    assert me.at == ("accumulation", 3) and grad(me) == pytest.approx([0.0, 0.0, 0.0])
    me.type("back", "back", "back")
    assert me.at == ("accumulation", 0)
    assert "This is the first step." in me.type("back")


def test_play_checks_nothing_until_nxt(tmp_path):
    me = Learner(tmp_path)
    assert "Play mode" in me.type("play")
    assert me.tutor.prompt() == "(play) >>> "
    me.type(*lesson("accumulation").steps[0].reference_code())
    assert me.at == ("accumulation", 0)  # the task was done, but nothing is checked
    assert "Back to the lesson" in me.type("nxt")
    assert me.tutor.prompt() == "(5.1) >>> "
    me.type("x.grad")  # the next input is checked again: the state passes
    assert me.at == ("accumulation", 1)


def test_menu_progress_and_choosing_a_lesson(tmp_path):
    me = Learner(tmp_path)
    me.type("skip")
    text = me.type("menu")
    assert me.tutor.mode is Mode.MENU and me.tutor.prompt() == "learn › "
    assert re.search(r"5 │ Gradients add up.*│ 1/6 steps, at step 2", text)
    assert "Enter to continue lesson 5" in text
    assert "There is no lesson 'nope'" in me.type("nope")
    me.type("3")
    assert me.at == ("chain", 0)
    me.type("menu", "")  # Enter: continue where we were last
    assert me.at == ("chain", 0)
    me.type("menu", "accumulation")
    assert me.at == ("accumulation", 1)
    assert "Welcome back" in me.out.getvalue()
    assert "Step 2/6" in me.type("progress")


def test_bye_saves_and_a_new_tutor_resumes_at_the_same_step(tmp_path):
    me = Learner(tmp_path)
    me.type("skip", "[0.4, 4, 40]", "y = x * 2", "y.backward(torch.tensor([0.1, 1.0, 10.0]))")
    assert me.at == ("accumulation", 2)
    assert "Progress saved" in me.type("bye")
    assert me.tutor.finished
    again = Learner(tmp_path)
    text = again.out.getvalue()
    assert "Welcome back: resuming lesson 5 at step 3 of 6." in text
    assert again.at == ("accumulation", 2)
    assert grad(again) == pytest.approx([0.4, 4.0, 40.0])  # the state of step 3
    again.type("x.grad.data.zero_()")
    assert again.at == ("accumulation", 3)


def test_exit_and_eof_leave_like_bye(tmp_path):
    me = Learner(tmp_path)
    me.type("exit()")
    assert me.tutor.finished and "Progress saved" in me.out.getvalue()
    other = Learner(tmp_path)
    other.tutor.eof()
    assert other.tutor.finished


def test_finishing_offers_the_next_lesson_and_reopening_starts_over(tmp_path):
    les = lesson("retain-graph")
    me = Learner(tmp_path, name="retain-graph")
    for step in les.steps:
        if step.predict is not None:
            me.type("")
        me.type(*step.reference_code())
    text = me.out.getvalue()
    assert "★ Lesson 7 complete" in text and "Type next for lesson 8" in text
    assert me.tutor.prompt() == "(7 ✓) >>> "
    me.type("a")  # code still runs
    me.type("next")
    assert me.at == ("chain-rule", 0)
    me.type("menu", "7")
    assert "You finished this lesson before" in me.out.getvalue()
    assert me.at == ("retain-graph", 0)
    me.type("", *les.steps[0].reference_code(), "bye")  # a second time through, then leave
    again = Learner(tmp_path, name="retain-graph")
    assert again.at == ("retain-graph", 1)  # resumes the second pass where it was left


def test_chinese_throughout(tmp_path):
    me = Learner(tmp_path, lang="zh")
    text = me.out.getvalue()
    assert "第 5 课：梯度会累加" in text and "第 1/6 步" in text and "动手试试：" in text
    text = me.type(
        "x = torch.tensor([2., 2., 2.], requires_grad=True)",
        "(x * 3).sum().backward()",
        "print(x.grad)",
    )
    assert "还差一点：x.grad 的值是 [3, 3, 3]，和题目里的 backward() 应该得到的结果不一样" in text
    assert "提示 1/2：" in me.type("hint")
    assert "预测 › " == (me.type("skip") and me.tutor.prompt())
    assert "进度已保存" in me.type("bye")


def test_commands_named_like_variables_can_still_be_shown(tmp_path):
    me = Learner(tmp_path)
    me.type("hint = 3")
    assert "3" in me.type("print(hint)")
    assert "Hint 1/2" in me.type("hint")


def test_unknown_lesson_on_start(tmp_path):
    out = io.StringIO()
    tutor = Tutor(course(), store=ProgressStore(tmp_path / "p.json"), out=out)
    assert tutor.start("99") is False
    assert "there is no lesson '99'" in out.getvalue()
    assert tutor.finished


def test_notices_about_the_progress_file_are_shown(tmp_path):
    (tmp_path / "progress.json").write_text("{oops")
    me = Learner(tmp_path)
    assert "could not be read" in me.out.getvalue()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("4.5", 4.5),
        ("[0.2, 2, 20]", [0.2, 2, 20]),
        ("(1, 2)", [1, 2]),
        ("True", True),
        ("None", None),
        ("tensor([ 0.2000,  2.0000, 20.0000])", [0.2, 2.0, 20.0]),
        ("tensor(3., requires_grad=True)", 3.0),
        ("tensor([[1., 1.],\n        [1., 1.]])", [[1.0, 1.0], [1.0, 1.0]]),
    ],
)
def test_predictions_are_read_as_values(text, value):
    assert parse_prediction(text) == value


@pytest.mark.parametrize("text", ["x.grad", "__import__('os')", "{'a': 1}", "[1, 'a']", "1 +"])
def test_predictions_that_are_not_plain_values_are_refused(text):
    with pytest.raises(ValueError):
        parse_prediction(text)


def test_unwrap_joins_lines_as_each_language_reads():
    assert unwrap("one\ntwo") == "one two"
    assert unwrap("第一行，\n第二行") == "第一行，第二行"
    assert unwrap("中文 `x`\nand more") == "中文 `x` and more"
    assert unwrap("里算\n`y2 = x`") == "里算 `y2 = x`"
    assert unwrap("和 `y`，\n再看") == "和 `y`，再看"
    assert unwrap("- a\n- b") == "- a\n- b"
    assert unwrap("```python\nx = 1\ny = 2\n```") == "```python\nx = 1\ny = 2\n```"
    assert unwrap("para\n\nnext") == "para\n\nnext"


ENGLISH_IN_CHINESE = re.compile(
    r"first gradient|backward #\d|zeroed|Not yet|Well done|Step \d|Task:|Hint \d|(?<!_)seed",
    re.I,
)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", [les.id for les in course()])
def test_every_lesson_walked_with_its_solutions_in_both_languages(tmp_path, name, lang):
    les = lesson(name)
    me = Learner(tmp_path, lang=lang, name=name)
    for step in les.steps:
        at = me.tutor.index
        if step.predict is not None:
            assert me.tutor.mode is Mode.PREDICT
            me.type("")  # no prediction
        said = me.type(*step.reference_code())
        # each step passes at its last line, never earlier, and says nothing is wrong
        assert me.tutor.index != at or me.tutor.mode is Mode.DONE, (name, step.id)
        assert "Not yet" not in said and "还差一点" not in said, (name, step.id, said)
    assert me.tutor.mode is Mode.DONE
    if lang == "zh":
        found = ENGLISH_IN_CHINESE.findall(me.out.getvalue())
        assert found == [], (name, found)


@pytest.mark.parametrize("name", [les.id for les in course()])
def test_no_step_passes_before_its_last_line(tmp_path, name):
    les = lesson(name)
    me = Learner(tmp_path, name=name)
    for step in les.steps:
        if step.predict is not None:
            me.type("")
        code = step.reference_code()
        at = me.tutor.index
        for k, line in enumerate(code):
            me.type(line)
            last = k == len(code) - 1
            moved = me.tutor.index != at or me.tutor.mode is Mode.DONE
            if moved and not last:
                rest = code[k + 1 :]
                # what is left may only look at results (a look, a print) or draw them
                assert all(_only_looks(src) for src in rest), (name, step.id, line, rest)
                break


def _only_looks(source: str) -> bool:
    import ast

    if source.startswith("%"):
        return True
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return all(
        isinstance(s, ast.Expr)
        and (
            isinstance(s.value, ast.Name | ast.Attribute | ast.Subscript | ast.Tuple | ast.Compare)
            or (isinstance(s.value, ast.Call) and getattr(s.value.func, "id", "") == "print")
        )
        for s in tree.body
    )


def test_object_help_in_a_lesson(tmp_path):
    me = Learner(tmp_path)
    text = me.type("torch.ones?")
    assert "Signature:   ones(*size" in text and "SyntaxError" not in text
    assert me.tutor.attempts == 0  # looking something up is not an attempt at the step
    assert "Help on torch.ones:" in me.type("help(torch.ones)")


def _chain_learner(tmp_path):
    """A learner in the real course's lesson 3 (the chain), at its first step."""
    from gradshell.learn.lesson import load_course

    out = io.StringIO()
    store = ProgressStore(tmp_path / "progress.json")
    tutor = Tutor(load_course(), lang="en", store=store, out=out, width=100)
    tutor.start("03-chain")
    return tutor, out


def _typed(tutor, out, *inputs: str) -> str:
    start = len(out.getvalue())
    for text in inputs:
        tutor.handle(text)
    return out.getvalue()[start:]


def test_a_step_never_passes_on_a_command_that_failed(tmp_path):
    """`%explain ou` (a typo) runs the magic the step wants but fails: no ✓, same step."""
    tutor, out = _chain_learner(tmp_path)
    for _ in range(2):
        if tutor.mode is Mode.PREDICT:
            tutor.handle("1")
        _typed(tutor, out, *tutor.step.reference_code())
    assert tutor.step.id == "explain"
    text = _typed(tutor, out, "%explain ou")
    assert "NameError" in text and "Well done" not in text
    assert tutor.step.id == "explain"
    assert "Well done" in _typed(tutor, out, "%explain out")


def test_a_step_that_wants_an_error_still_passes_on_it(tmp_path):
    """A `raised` check's error is the point of its step, not a failure."""
    me = Learner(tmp_path, name="7")
    les = lesson("7")
    wanting = [i for i, s in enumerate(les.steps) if any(c.kind == "raised" for c in s.checks)]
    assert wanting, "lesson 7 has a step that wants an error"
    for step in les.steps[: wanting[0] + 1]:
        if me.tutor.mode is Mode.PREDICT:
            me.type("1")
        me.type(*step.reference_code())
    assert me.at[1] > wanting[0] or me.tutor.mode is Mode.DONE


def test_a_prediction_gets_one_verdict(tmp_path):
    """A wrong prediction is told once (✗), never after a ✓ for the same step."""
    tutor, out = _chain_learner(tmp_path)
    _typed(tutor, out, *tutor.step.reference_code())
    assert tutor.mode is Mode.PREDICT
    text = _typed(tutor, out, "1", *tutor.step.reference_code())
    assert "✗" in text and "Well done" not in text


def test_a_prediction_is_scored_after_skip(tmp_path):
    tutor, out = _chain_learner(tmp_path)
    _typed(tutor, out, *tutor.step.reference_code())
    text = _typed(tutor, out, "1", "skip")
    assert "differ" in text and "counts as skipped" in text


def test_lang_moves_the_lesson_and_its_hints(tmp_path):
    """`%lang en` in a Chinese lesson: the next hint is in English."""
    me = Learner(tmp_path, lang="zh", name="chain")
    chinese = me.type("hint")
    assert "提示 1/" in chinese
    me.type("%lang en")
    assert "Hint 2/" in me.type("hint")


@pytest.mark.parametrize(("word", "shows"), [("提示", "Hint 1/"), ("进度", "│"), ("帮助", "hint")])
def test_command_words_are_accepted_in_both_languages(tmp_path, word, shows):
    me = Learner(tmp_path, lang="en", name="chain")
    text = me.type(word)
    assert "NameError" not in text and shows in text


def test_leaving_in_the_middle_of_a_step_keeps_its_variables(tmp_path):
    """x and y made, bye, reopen: they are back, and the learner is told."""
    me = Learner(tmp_path, name="chain")
    me.type("x = torch.ones(2, 2, requires_grad=True)", "y = x + 2", "oops(")
    assert me.tutor.index == 0
    me.type("bye")
    again = Learner(tmp_path, name="chain")
    text = again.out.getvalue()
    assert "Your work in this step came back: x, y." in text
    assert again.value("y").tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_kept_work_that_cannot_run_again_is_named(tmp_path):
    me = Learner(tmp_path, name="chain")
    me.type("x = torch.ones(2, 2, requires_grad=True)")
    entry = me.store.load().lessons["chain"]
    entry.work.append("z = undefined_name + 1")
    me.store.save(["chain"])
    again = Learner(tmp_path, name="chain")
    assert "could not run again" in again.out.getvalue()
    assert "z = undefined_name + 1" in again.out.getvalue()
