"""The lesson tutor: a `Tutor` takes the learner's inputs one at a time and answers.

The Tutor holds no terminal: `handle(text)` takes one input (code, a command, a menu
choice or a prediction), writes everything to `out`, and `prompt()` says what to ask
next; `gradshell.learn.terminal` reads inputs from a terminal or a pipe and feeds them.

Modes: the menu (`learn ›`), a lesson step (`(5.2) >>>`), a prediction (`predict ›`),
play (`(play) >>>`, nothing checked until `next`) and a finished lesson. In a step,
code runs in the lesson's shell session (`LessonRuntime`) and the step's checks run
after each input; the commands are `hint`, `skip`, `back`, `next`, `play`, `reset`,
`again`, `menu`, `progress`, `help` and `bye` (Ctrl-D, `exit()` too). Progress is saved
after every move, so a learner can leave at any moment and resume at the same step.
"""

from __future__ import annotations

import ast
import re
from enum import Enum
from typing import Any, TextIO

from gradshell.learn import checks
from gradshell.learn.checks import Status
from gradshell.learn.i18n import LANGS, command_word, tr
from gradshell.learn.lesson import Lesson, Step, find_lesson
from gradshell.learn.progress import ProgressStore
from gradshell.learn.runtime import LessonRuntime

COMMANDS = (
    "hint",
    "skip",
    "back",
    "next",
    "play",
    "reset",
    "again",
    "menu",
    "progress",
    "help",
    "bye",
)

#: Inputs that went wrong (an error, or a wrong state) before the learner is pointed at
#: `hint`; or this many inputs more than the reference solution needs.
NUDGE_AFTER = 2

#: The most inputs of one step kept to be re-run when the lesson is opened again.
MAX_WORK = 200


class Mode(Enum):
    """What the Tutor is waiting for."""

    MENU = "menu"
    STEP = "step"
    PREDICT = "predict"
    PLAY = "play"
    DONE = "done"
    QUIT = "quit"


class _NoPrediction:
    def __repr__(self) -> str:
        return "NO_PREDICTION"


NO_PREDICTION: Any = _NoPrediction()
"""Not asked yet."""


class _Declined:
    def __repr__(self) -> str:
        return "DECLINED"


DECLINED: Any = _Declined()
"""The learner chose not to predict (Enter alone, or `play`)."""

_TENSOR_LITERAL = re.compile(r"^\s*tensor\((.*)\)\s*$", re.S)


def parse_prediction(text: str) -> Any:
    """A typed prediction as a value: `4.5`, `[0.2, 2, 20]`, `True`, `None`, or a tensor
    as PyTorch prints it (`tensor([0.2, 2., 20.])`); raises ValueError."""
    body = text.strip()
    m = _TENSOR_LITERAL.match(body)
    if m:
        body = re.sub(r",\s*(requires_grad|grad_fn|dtype)=.*$", "", m.group(1), flags=re.S)
    try:
        value = ast.literal_eval(body)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ValueError("give a number, a list of numbers, True/False or None") from None
    if isinstance(value, tuple):
        value = list(value)
    if not _plain(value):
        raise ValueError("give a number, a list of numbers, True/False or None")
    return value


_BLOCK_START = re.compile(r"^(\s*([-*+]|\d+[.)])\s|\s{4}|```|~~~|#|>|\|)")


def _cjk_punctuation(char: str) -> bool:
    code = ord(char)
    return 0x3000 <= code <= 0x303F or 0xFF00 <= code <= 0xFFEF


def _cjk(char: str) -> bool:
    code = ord(char)
    return 0x2E80 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or _cjk_punctuation(char)


def _joiner(before: str, after: str) -> str:
    """What a soft line break between two characters becomes: nothing between Chinese
    characters or next to Chinese punctuation, a space otherwise."""
    if _cjk_punctuation(before) or _cjk_punctuation(after):
        return ""
    if _cjk(before) and _cjk(after):
        return ""
    return " "


def unwrap(text: str) -> str:
    """Join a Markdown paragraph's lines as a reader expects: with a space in English,
    with nothing between Chinese characters (a soft line break there is no space)."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            out.append(line)
            continue
        prev = out[-1] if out else ""
        if (
            fenced
            or not stripped
            or not prev.strip()
            or _BLOCK_START.match(line)
            or prev.startswith("    ")
            or prev.strip().startswith(("```", "~~~"))
        ):
            out.append(line)
            continue
        head = prev.rstrip()
        out[-1] = head + _joiner(head[-1], stripped[0]) + stripped
    return "\n".join(out)


def _code_kind(text: str) -> str | None:
    """'look' for an expression that only shows something (`x.grad`, `y`), 'action' for
    other Python (an assignment, a call...), None for text that is not Python."""
    try:
        tree = ast.parse(text.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not tree.body:
        return None
    looks = all(
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Name | ast.Attribute | ast.Subscript | ast.Tuple)
        for stmt in tree.body
    )
    return "look" if looks else "action"


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | float):
        return True
    return isinstance(value, list) and all(_plain(v) for v in value)


class Tutor:
    """One learner's lesson session: a course, their progress, and the current place."""

    def __init__(
        self,
        course: list[Lesson],
        *,
        lang: str = "en",
        store: ProgressStore | None = None,
        out: TextIO,
        time_limit: float | None = None,
        width: int | None = None,
        color: bool | None = False,
        learner_out: TextIO | None = None,
    ) -> None:
        self.course = course
        self.lang = lang
        self.store = store if store is not None else ProgressStore()
        self.out = out
        #: Where the learner's code prints (default: `out`). In a kernel it is a stream of
        #: its own, which the front end shows without any escape codes, while `out`
        #: carries the lesson's styled text.
        self.learner_out = learner_out if learner_out is not None else out
        self.time_limit = time_limit
        self.width = width
        self.color = color
        self.mode = Mode.MENU
        self.lesson: Lesson | None = None
        self.runtime: LessonRuntime | None = None
        self.index = 0
        self.hints_shown = 0
        self.attempts = 0
        self.failures = 0
        self.nudged = False
        self.prediction: Any = NO_PREDICTION
        #: The inputs of this step that ran without an error (kept with the progress).
        self.work: list[str] = []
        self.last_feedback = ""
        self.saved_ok = True
        self._mode_before_play = Mode.STEP

    # -- output -----------------------------------------------------------------------------
    def say(self, text: str) -> None:
        """Write a line (or lines) of the Tutor's own text."""
        self.out.write(text if text.endswith("\n") else text + "\n")
        self.out.flush()

    def t(self, key: str, **fields: Any) -> str:
        """The engine's message `key` in the learner's language."""
        return tr(self.lang, key, **fields)

    def _render(self, renderable: Any) -> str:
        from gradshell.viz.common import render

        return render(renderable, self.width, self.color)

    def markdown(self, text: str) -> None:
        """Show lesson text (Markdown) formatted for the terminal."""
        from rich.markdown import Markdown

        text = unwrap(text)
        if self.lang == "zh":  # Chinese breaks between characters, never inside code
            from gradshell.learn.wrapping import prewrap

            text = prewrap(text, self._columns())
        markdown = Markdown(text, code_theme="default", inline_code_lexer=None)
        self.out.write(self._render(markdown))
        self.out.flush()

    def _columns(self) -> int:
        """The width lesson text is drawn at (as the renderer decides it)."""
        import shutil

        from gradshell.viz.common import DEFAULT_WIDTH, MAX_WIDTH

        if self.width is not None:
            return self.width
        return min(shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns, MAX_WIDTH)

    def rule(self, title: str) -> None:
        """A horizontal rule with a title."""
        from rich.rule import Rule

        self.out.write(self._render(Rule(title, style="bold")))

    def show_notices(self) -> None:
        """Tell the learner about problems with their progress file (once each)."""
        for notice in self.store.take_notices():
            self.say(self.t(f"store_{notice.kind}", **notice.fields))

    # -- starting ---------------------------------------------------------------------------
    def start(self, name: str | None = None) -> bool:
        """Load progress, then open lesson `name` (or show the menu); False if no such lesson."""
        self.store.load()
        self.show_notices()
        if name is None:
            self.show_menu()
            return True
        lesson = find_lesson(self.course, name)
        if lesson is None:
            self.say(self.t("unknown_lesson", name=name))
            self.mode = Mode.QUIT
            return False
        self.open_lesson(lesson)
        return True

    @property
    def finished(self) -> bool:
        """True once the learner has left."""
        return self.mode is Mode.QUIT

    @property
    def step(self) -> Step:
        """The current step."""
        assert self.lesson is not None
        return self.lesson.steps[self.index]

    def prompt(self) -> str:
        """The prompt for the next input."""
        if self.mode is Mode.MENU:
            return "learn › "
        if self.mode is Mode.PREDICT:
            return "预测 › " if self.lang == "zh" else "predict › "
        if self.mode is Mode.PLAY:
            return "(play) >>> "
        assert self.lesson is not None
        if self.mode is Mode.DONE:
            return f"({self.lesson.number} ✓) >>> "
        return f"({self.lesson.number}.{self.index + 1}) >>> "

    @property
    def session(self) -> Any:
        """The shell session code runs in now (None in the menu)."""
        return self.runtime.session if self.runtime is not None else None

    # -- the menu and progress --------------------------------------------------------------
    def _status(self, lesson: Lesson) -> str:
        entry = self.store.progress.lessons.get(lesson.id)
        total = len(lesson.steps)
        if entry is None or (
            not entry.done and not entry.skipped and not entry.finished and entry.step is None
        ):
            return self.t("status_new")
        if entry.finished:
            return self.t("status_done")
        done = sum(1 for s in lesson.steps if s.id in entry.done or s.id in entry.skipped)
        index = (lesson.step_index(entry.step) if entry.step else 0) or 0
        return self.t("status_at", done=done, total=total, index=index + 1)

    def lesson_table(self) -> str:
        """The course as a table: number, title, progress."""
        from rich.table import Table

        table = Table(title=self.t("menu_title"), title_justify="left", show_edge=False)
        table.add_column("#", justify="right")
        table.add_column(self.t("menu_col_lesson"))
        table.add_column(self.t("menu_col_progress"))
        for lesson in self.course:
            table.add_row(str(lesson.number), lesson.title.get(self.lang), self._status(lesson))
        return self._render(table)

    def _resume_target(self) -> Lesson | None:
        last = self.store.progress.last
        if last is None:
            return None
        return next((lesson for lesson in self.course if lesson.id == last), None)

    def show_menu(self) -> None:
        """Show the list of lessons with progress and wait for a choice."""
        self._leave_lesson()
        self.mode = Mode.MENU
        self.out.write(self.lesson_table())
        target = self._resume_target()
        resume = self.t("menu_resume", number=target.number) if target is not None else ""
        self.say(self.t("menu_pick", resume=resume))

    def show_progress(self) -> None:
        """Show how far the learner is in each lesson."""
        self.out.write(self.lesson_table())
        if self.lesson is not None and self.mode in (Mode.STEP, Mode.PREDICT):
            self.say(
                self.t(
                    "step_header",
                    index=self.index + 1,
                    total=len(self.lesson.steps),
                    title=self.step.title.get(self.lang),
                )
            )

    def _menu_input(self, text: str) -> None:
        word = text.strip()
        low = word.lower()
        if low in ("bye", "quit", "exit", "q"):
            self.bye()
            return
        if low == "progress":
            self.show_progress()
            return
        if low in ("help", "menu", "?"):
            self.show_menu()
            return
        if not word:
            target = self._resume_target() or (self.course[0] if self.course else None)
            if target is not None:
                self.open_lesson(target)
            return
        lesson = find_lesson(self.course, word)
        if lesson is None:
            self.say(self.t("menu_unknown", name=word, count=len(self.course)))
            return
        self.open_lesson(lesson)

    # -- lessons ----------------------------------------------------------------------------
    def _leave_lesson(self) -> None:
        self.runtime = None
        self.lesson = None

    def open_lesson(self, lesson: Lesson) -> None:
        """Enter `lesson` at the step its progress says (the first one for a new lesson)."""
        self._leave_lesson()
        self.lesson = lesson
        self.runtime = LessonRuntime(
            lesson, lang=self.lang, stream=self.learner_out, time_limit=self.time_limit
        )
        from gradshell.viz.magics import state_of

        state = state_of(self.runtime.session)
        state.width = self.width
        state.color = self.color
        entry = self.store.progress.lessons.get(lesson.id)
        index = 0
        note = None
        if entry is not None and entry.step is not None:
            found = lesson.step_index(entry.step)
            index = found if found is not None else 0
            if index > 0:
                note = self.t(
                    "resumed", number=lesson.number, index=index + 1, total=len(lesson.steps)
                )
        if index == 0 and entry is not None and entry.finished:
            note = self.t("restart_finished")
        self.rule(self.t("lesson_header", number=lesson.number, title=lesson.title.get(self.lang)))
        if note:
            self.say(note)
        if index == 0:
            self.markdown(lesson.summary.get(self.lang))
        self.say(self.t("commands_line"))
        self.runtime.rebuild(index)
        kept = (
            list(entry.work) if entry is not None and entry.step == lesson.steps[index].id else []
        )
        self.enter_step(index, restore=kept)

    def enter_step(
        self, index: int, *, note: str | None = None, restore: list[str] | None = None
    ) -> None:
        """Make step `index` current (state already in place), save, and show it;
        `restore`: the learner's inputs kept from an earlier visit, re-run quietly."""
        assert self.lesson is not None and self.runtime is not None
        self.index = index
        self.hints_shown = 0
        self.attempts = 0
        self.failures = 0
        self.nudged = False
        self.last_feedback = ""
        self.prediction = NO_PREDICTION
        self.runtime.begin_step(self.step)
        self.work = []
        self._save(step=self.step.id)
        if restore:
            note = "\n".join(filter(None, [note, self._restore_work(restore)]))
        self.show_step(note=note)

    def _restore_work(self, inputs: list[str]) -> str:
        """Re-run the learner's kept inputs of this step, quietly; says which variables
        came back, and which inputs could not run again."""
        assert self.runtime is not None
        namespace = self.runtime.session.namespace
        before = {name: id(value) for name, value in namespace.items()}
        failed = []
        for source, result in zip(inputs, self.runtime.run_quietly(inputs), strict=True):
            if result.error is None:
                self.work.append(source)
            else:
                failed.append(source.strip().splitlines()[0] if source.strip() else source)
        self._save(work=self.work)
        made = [
            name
            for name, value in namespace.items()
            if not name.startswith("_") and before.get(name) != id(value)
        ]
        lines = []
        if made:
            lines.append(self.t("work_back", names=", ".join(made)))
        if failed:
            lines.append(self.t("work_lost", inputs="; ".join(failed)))
        return "\n".join(lines)

    def show_step(self, note: str | None = None) -> None:
        """Show the current step's text and task (and its prediction question)."""
        assert self.lesson is not None
        step = self.step
        self.out.write("\n")
        self.say(
            self.t(
                "step_header",
                index=self.index + 1,
                total=len(self.lesson.steps),
                title=step.title.get(self.lang),
            )
        )
        if note:
            self.say(note)
        self.markdown(step.text.get(self.lang))
        if step.predict is not None and self.prediction is NO_PREDICTION:
            self.markdown(self.t("predict_question", question=step.predict.question.get(self.lang)))
            self.say(self.t("predict_how"))
            self.mode = Mode.PREDICT
            return
        self.show_task()

    def show_task(self) -> None:
        """Show the step's task and wait for code."""
        self.markdown(f"**{self.t('task')}** " + self.step.task.get(self.lang))
        self.mode = Mode.STEP

    def _save(self, **fields: Any) -> None:
        assert self.lesson is not None
        self.saved_ok = self.store.record(self.lesson.id, **fields) and self.saved_ok
        self.show_notices()

    # -- input ------------------------------------------------------------------------------
    def handle(self, text: str) -> None:
        """Take one input from the learner."""
        if self.mode is Mode.QUIT:
            return
        if self.mode is Mode.MENU:
            self._menu_input(text)
            return
        word = text.strip()
        low = command_word(word)
        if self.mode is Mode.PLAY:
            if low in ("nxt", "next"):
                self.mode = self._mode_before_play
                self.say(self.t("play_off"))
                if self.mode is Mode.STEP:
                    self.show_task()
                return
            if low == "bye":
                self.bye()
                return
            if low == "help":
                self.say(self.t("play_prompt_help"))
                return
            if self.inspect(text):
                return
            self.run_code(text, check=False)
            return
        if low in COMMANDS or low == "nxt":
            self.command(low)
            return
        if self.mode is Mode.PREDICT:
            self.take_prediction(text)
            return
        if not word:
            return
        if self.inspect(text):
            return
        self.run_code(text, check=self.mode is Mode.STEP)

    def inspect(self, text: str) -> bool:
        """`x?` / `torch.ones?`: the object's help, as at the shell's prompt (True if it
        was such a request)."""
        from gradshell.shell.inspection import inspect_request

        name = inspect_request(text)
        if name is None or self.runtime is None:
            return False
        from gradshell.shell.completion import describe_name

        found = describe_name(self.runtime.session, name)
        self.say(found if found is not None else f"Object `{name}` not found.")
        return True

    def command(self, name: str) -> None:
        """Run a lesson command."""
        if name == "bye":
            self.bye()
        elif name == "help":
            self.say(self.t("help"))
        elif name == "menu":
            self.show_menu()
        elif name == "progress":
            self.show_progress()
        elif name == "play":
            self._mode_before_play = self.mode if self.mode is not Mode.PREDICT else Mode.STEP
            if self.mode is Mode.PREDICT:
                self.prediction = DECLINED
            self.mode = Mode.PLAY
            self.say(self.t("play_on"))
        elif name == "nxt":
            self.say(
                self.t("play_prompt_help") if self.mode is Mode.PLAY else self.t("commands_line")
            )
        elif self.mode is Mode.DONE:
            self._done_command(name)
        elif name == "hint":
            self.hint()
        elif name == "skip":
            self.skip()
        elif name == "next":
            self.next()
        elif name == "back":
            self.back()
        elif name == "reset":
            self.reset_step()
        elif name == "again":
            self.show_step()

    def _done_command(self, name: str) -> None:
        assert self.lesson is not None
        if name == "next":
            following = self._following()
            if following is None:
                self.say(self.t("course_done"))
            else:
                self.open_lesson(following)
        elif name == "back":
            assert self.runtime is not None
            last = len(self.lesson.steps) - 1
            self.runtime.rebuild(last)
            self.enter_step(last, note=self.t("rebuilt"))
        elif name in ("again", "reset"):
            self.open_lesson(self.lesson)
        else:
            self.say(self.t("done_prompt_help"))

    def _following(self) -> Lesson | None:
        assert self.lesson is not None
        later = [lesson for lesson in self.course if lesson.number > self.lesson.number]
        return later[0] if later else None

    # -- steps ------------------------------------------------------------------------------
    def run_code(self, text: str, *, check: bool) -> None:
        """Run the learner's code; in a step, check the state afterwards."""
        assert self.runtime is not None
        result = self.runtime.run_cell(text)
        self._follow_lang()
        if result.visual:
            self.out.write(result.visual)
            self.out.flush()
        if result.exit_code is not None:
            self.bye()
            return
        if not check:
            self._keep_work(text, result)
            return
        self.attempts += 1
        verdict = self.runtime.check(self.step)
        if verdict.passed and self._error_allowed(result.error):
            self.passed()
            return
        self._keep_work(text, result)
        failure = verdict.first_failure
        wrong = failure is not None and failure.status is Status.WRONG
        if result.error is not None or wrong:
            self.failures += 1
        if wrong and result.error is None and failure is not None:
            if failure.message != self.last_feedback:
                self.say(self.t("not_yet", reason=failure.message))
                self.last_feedback = failure.message
        many = self.attempts >= len(self.step.solution) + NUDGE_AFTER + 1
        if (self.failures >= NUDGE_AFTER or many) and not self.nudged and self.hints_shown == 0:
            self.nudged = True
            self.say(self.t("nudge"))

    def _keep_work(self, text: str, result: Any) -> None:
        """Keep an input that ran without an error in the learner's progress, so that
        leaving in the middle of a step and coming back brings its variables back."""
        if result.error is not None or self.lesson is None or len(self.work) >= MAX_WORK:
            return
        self.work.append(text)
        self._save(work=self.work)

    def _follow_lang(self) -> None:
        """`%lang en|zh` typed in a lesson moves the lesson too: its texts, hints,
        feedback and checks' messages, not only the panels."""
        from gradshell.viz.magics import state_of

        assert self.runtime is not None
        lang = state_of(self.runtime.session).lang
        if lang != self.lang and lang in LANGS:
            self.lang = self.runtime.lang = lang

    def _error_allowed(self, error: BaseException | None) -> bool:
        """Whether the input's outcome lets the step pass: no error, or the error the
        step asks for (a `raised` check). A command that failed — a typo in a magic's
        argument, a NameError beside the right call — never passes a step."""
        if error is None:
            return True
        wanted = [c.subject for c in self.step.checks if c.kind == "raised"]
        return any(want in checks._type_names(error) for want in wanted)

    def take_prediction(self, text: str) -> None:
        """Record the learner's prediction, then ask for the code."""
        if not text.strip():
            self.prediction = DECLINED
            self.say(self.t("predict_none"))
            self.show_task()
            return
        try:
            value = parse_prediction(text)
        except ValueError as exc:
            kind = _code_kind(text)
            if kind == "look":  # looking around before predicting is fine
                self.run_code(text, check=False)
                return
            if kind == "action":  # the learner went straight to the task
                self.prediction = DECLINED
                self.mode = Mode.STEP
                self.say(self.t("predict_code"))
                self.run_code(text, check=True)
                return
            self.say(self.t("predict_bad", text=text.strip(), reason=str(exc)))
            return
        self.prediction = value
        self.say(self.t("predict_saved", value=checks._show_any(value)))
        self.show_task()

    def _has_prediction(self) -> bool:
        """Whether this step asked for a prediction and the learner made one."""
        return (
            self.step.predict is not None
            and self.prediction is not NO_PREDICTION
            and self.prediction is not DECLINED
        )

    def reveal(self) -> None:
        """After the step passed: the prediction beside the real value."""
        step = self.step
        assert step.predict is not None and self.runtime is not None
        if self.prediction is NO_PREDICTION or self.prediction is DECLINED:
            return
        predict = step.predict
        if predict.grad_of is not None:
            from gradshell.viz.common import ExpressionError
            from gradshell.viz.magics import reveal_in_session
            from gradshell.viz.predict import PredictError, reveal_view

            try:
                result = reveal_in_session(
                    self.runtime.session, predict.grad_of, predict.wrt or "x", self.prediction
                )
            except (PredictError, ExpressionError) as exc:
                self.say(str(exc))
                return
            self.out.write(self.runtime.render(reveal_view(result, self.lang)))
            return
        assert predict.value is not None
        try:
            actual = checks._evaluate(self.runtime, predict.value)
        except Exception:
            return
        if self.prediction is None:
            right = actual is None
        else:
            right = actual is not None and checks._equal(
                actual, self.prediction, {"rtol": 1e-3, "atol": 1e-4}
            )
        verdict = self.t("reveal_right" if right else "reveal_wrong")
        self.say(
            self.t(
                "reveal_value",
                predicted=checks._show_any(self.prediction),
                expr=predict.value,
                actual=checks._show_any(actual),
                verdict=verdict,
            )
        )

    def passed(self) -> None:
        """The step's checks passed: praise, explain, reveal, and go on."""
        step = self.step
        if self._has_prediction():
            self.reveal()  # one verdict: the prediction's, the task being done
        else:
            self.say(self.t("passed"))
        if step.done is not None:
            self.markdown(step.done.get(self.lang))
        self._save(done=step.id)
        self.advance()

    def advance(self) -> None:
        """Go to the next step, or finish the lesson."""
        assert self.lesson is not None
        if self.index + 1 < len(self.lesson.steps):
            self.enter_step(self.index + 1)
            return
        self.finish_lesson()

    def finish_lesson(self) -> None:
        """The last step is done: record it and offer the next lesson."""
        assert self.lesson is not None
        lesson = self.lesson
        self._save(step=lesson.steps[0].id, finished=True)
        self.out.write("\n")
        self.rule(self.t("lesson_done", number=lesson.number, title=lesson.title.get(self.lang)))
        if lesson.recap is not None:
            self.markdown(lesson.recap.get(self.lang))
        following = self._following()
        if following is None:
            self.say(self.t("course_done"))
        else:
            self.say(
                self.t(
                    "lesson_done_next",
                    number=following.number,
                    title=following.title.get(self.lang),
                )
            )
        self.mode = Mode.DONE

    def hint(self) -> None:
        """Show the next hint (they get more precise)."""
        hints = self.step.hints
        if self.hints_shown >= len(hints):
            self.say(self.t("no_more_hints"))
            return
        self.hints_shown += 1
        text = hints[self.hints_shown - 1].get(self.lang)
        self.markdown(self.t("hint", n=self.hints_shown, total=len(hints), text=text))

    def _run_reference(self, *, show: bool) -> None:
        """Run the step's reference solution (shown, or quietly) so that its checks pass,
        restoring the step's starting state first if the learner's state is in the way."""
        from gradshell.shell.inputsplit import echo

        assert self.runtime is not None
        step = self.step
        if show:
            self.say(self.t("skip_intro"))
            for source in step.reference_code():
                self.out.write(echo(source, ">>> ", "... "))
                self.out.flush()
                result = self.runtime.run_cell(source)
                if result.visual:
                    self.out.write(result.visual)
        else:
            self.runtime.run_quietly(step.reference_code())
        if self.runtime.check(step).passed:
            return
        self.runtime.rebuild(self.index)
        self.runtime.run_quietly(step.reference_code())
        verdict = self.runtime.check(step)
        if not verdict.passed:
            failure = verdict.first_failure
            self.say(self.t("reference_failed", reason=failure.message if failure else "?"))

    def skip(self) -> None:
        """Run and show the reference solution, count the step as skipped, go on."""
        self._run_reference(show=True)
        if self._has_prediction():
            self.reveal()  # the prediction made before skipping is still scored
        self.say(self.t("skip_done"))
        self._save(skipped=self.step.id)
        self.advance()

    def next(self) -> None:
        """Go on; an unfinished step's reference runs quietly so later steps have their state."""
        assert self.runtime is not None
        if self.runtime.check(self.step).passed:
            self._save(done=self.step.id)
        else:
            self._run_reference(show=False)
            self.say(self.t("next_unfinished"))
            self._save(skipped=self.step.id)
        self.advance()

    def back(self) -> None:
        """Go back one step, with that step's starting state."""
        assert self.runtime is not None
        if self.index == 0:
            self.say(self.t("back_first"))
            return
        self.runtime.rebuild(self.index - 1)
        self.enter_step(self.index - 1, note=self.t("rebuilt"))

    def reset_step(self) -> None:
        """Start this step again from its starting state."""
        assert self.runtime is not None
        self.runtime.rebuild(self.index)
        self.enter_step(self.index, note=self.t("rebuilt"))

    # -- leaving ----------------------------------------------------------------------------
    def bye(self) -> None:
        """Save and leave (the `bye` command, Ctrl-D, exit())."""
        if self.lesson is not None and self.mode in (Mode.STEP, Mode.PREDICT, Mode.PLAY):
            self._save(step=self.step.id)
        self.say(self.t("bye") if self.saved_ok else self.t("bye_unsaved"))
        self.mode = Mode.QUIT
        self._leave_lesson()

    def eof(self) -> None:
        """Ctrl-D (end of input): the same as `bye`."""
        if self.mode is not Mode.QUIT:
            self.bye()


__all__ = ["COMMANDS", "DECLINED", "NO_PREDICTION", "Mode", "Tutor", "parse_prediction"]
