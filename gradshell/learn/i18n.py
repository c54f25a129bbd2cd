"""The lesson engine's own words, in English and Chinese, and the default language.

Lesson content carries its own two languages (see `gradshell.learn.lesson`); this module
holds what the engine says around it: prompts, feedback, the menu, progress notices.
"""

from __future__ import annotations

import locale
import os

LANGS = ("en", "zh")


def default_lang(environ: dict[str, str] | None = None) -> str:
    """'zh' when the user's locale is Chinese, else 'en'.

    Reads `LC_ALL`, `LC_MESSAGES`, `LANG` (the first one set, as the C library does) and
    `LANGUAGE` (a priority list), then Python's own idea of the locale.
    """
    env = os.environ if environ is None else environ
    candidates = []
    for key in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(key)
        if value:
            candidates.append(value)
            break
    language = env.get("LANGUAGE")
    if language:
        candidates.insert(0, language.split(":")[0])
    if environ is None and not candidates:
        try:
            candidates.append(locale.getlocale()[0] or "")
        except (ValueError, TypeError):
            pass
    for value in candidates:
        code = value.strip().lower()
        if code in ("", "c", "posix") or code.startswith("c."):
            continue
        return "zh" if code.startswith("zh") else "en"
    return "en"


MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "lesson_header": "Lesson {number}: {title}",
        "step_header": "Step {index}/{total} · {title}",
        "task": "Your turn:",
        "commands_line": (
            "Commands: hint · skip · back · next · play · reset · menu · progress · bye "
            "(help lists them)"
        ),
        "help": (
            "At the lesson prompt, type Python (the same shell as `gradshell`), or one of:\n"
            "  hint      the next hint for this step\n"
            "  skip      run the reference solution, show it, and go on\n"
            "  back      go back one step (variables restored to that step's start)\n"
            "  next      go on to the next step\n"
            "  play      experiment freely; type next to come back\n"
            "  reset     start this step again (its variables restored)\n"
            "  again     show this step's text again\n"
            "  menu      the list of lessons\n"
            "  progress  how far you are in each lesson\n"
            "  bye       save and leave (Ctrl-D does the same)\n"
            "A variable called like a command can be shown with print(hint) or (hint)."
        ),
        "passed": "✓ Well done.",
        "not_yet": "Not yet: {reason}",
        "nudge": "(Stuck? Type hint for a hint, or skip to see the solution.)",
        "hint": "Hint {n}/{total}: {text}",
        "no_more_hints": "That was the last hint. Type skip to see and run the solution.",
        "skip_intro": "The reference solution:",
        "skip_done": "(The step counts as skipped; you can come back with back.)",
        "next_unfinished": (
            "Moving on. The reference solution ran quietly, so the next steps find the "
            "variables they need (type back to return)."
        ),
        "back_first": "This is the first step.",
        "rebuilt": "(Variables restored to the start of this step from the earlier steps' solutions.)",
        "resumed": "Welcome back: resuming lesson {number} at step {index} of {total}.",
        "work_back": "Your work in this step came back: {names}.",
        "work_lost": "These inputs of yours could not run again, so what they made is missing: {inputs}",
        "restart_finished": "You finished this lesson before; here it is again from the start.",
        "play_on": "Play mode: try anything. Nothing is checked. Type next to return to the lesson.",
        "play_off": "Back to the lesson. (reset restores this step's starting variables.)",
        "play_prompt_help": "In play mode; type next to return to the lesson, bye to leave.",
        "predict_question": "Predict first: {question}",
        "predict_how": (
            "Type your prediction (a number, or a list such as [1, 2, 3]; True/False; None); "
            "Enter alone to just watch."
        ),
        "predict_bad": "I could not read {text!r} as a value: {reason}",
        "predict_saved": "Noted: you predict {value}. Now run the code.",
        "predict_code": "(No prediction this time: that line runs as code.)",
        "predict_none": "No prediction this time: run the code and watch.",
        "reveal_value": "You predicted {predicted}; {expr} is {actual}. {verdict}",
        "reveal_right": "✓ Right!",
        "reveal_wrong": "✗ Not quite; read the explanation below.",
        "lesson_done": "★ Lesson {number} complete: {title}",
        "lesson_done_next": "Type next for lesson {number} ({title}), menu for the list, bye to leave.",
        "course_done": "That was the last lesson. Type menu for the list, bye to leave.",
        "done_prompt_help": "The lesson is over; type next, menu or bye (code still runs).",
        "menu_title": "gradshell lessons",
        "menu_pick": ("Type a lesson's number or name to open it{resume}; progress; bye to leave."),
        "menu_resume": ", Enter to continue lesson {number}",
        "menu_unknown": "There is no lesson {name!r}. Type a number from 1 to {count}.",
        "menu_col_lesson": "Lesson",
        "menu_col_progress": "Progress",
        "status_new": "not started",
        "status_done": "complete",
        "status_at": "{done}/{total} steps, at step {index}",
        "progress_title": "Your progress",
        "bye": "Progress saved. See you next time!",
        "bye_unsaved": "Bye. (Progress could not be saved this time.)",
        "unknown_lesson": "gradshell learn: there is no lesson {name!r}; try gradshell learn --list",
        "reset_done": "Progress of {what} reset.",
        "reset_all": "all lessons",
        "no_lessons": "gradshell learn: no lessons found in {where}",
        "lesson_broken": "gradshell learn: a lesson file is broken: {error}",
        "reference_failed": (
            "gradshell: the reference solution of this step did not pass its own checks "
            "({reason}); please report this. Moving on anyway."
        ),
        "store_corrupt": (
            "Your progress file {path} could not be read ({detail}). It was moved aside to "
            "{moved}; starting with empty progress."
        ),
        "store_future": (
            "Your progress file {path} was written by a newer gradshell (format version "
            "{version}; this one reads version {supported}). It was moved aside to {moved}; "
            "starting with empty progress."
        ),
        "store_unmovable": (
            "Your progress file {path} cannot be used ({detail}) and could not be moved aside "
            "({error}); it is left untouched and progress will not be saved this time."
        ),
        "store_unwritable": (
            "Progress cannot be saved in {path} ({error}); this session's progress will not be kept."
        ),
        "store_unreadable": (
            "Your progress file {path} cannot be read ({error}); progress will not be saved "
            "this time, so that it is not overwritten."
        ),
        "interrupted": "KeyboardInterrupt",
    },
    "zh": {
        "lesson_header": "第 {number} 课：{title}",
        "step_header": "第 {index}/{total} 步 · {title}",
        "task": "动手试试：",
        "commands_line": (
            "命令：hint 提示 · skip 跳过 · back 上一步 · next 下一步 · play 自由练习 · "
            "reset 重来 · menu 目录 · progress 进度 · bye 退出（help 查看说明）"
        ),
        "help": (
            "在课程提示符后面，可以直接写 Python 代码（和 `gradshell` 是同一个 shell），也可以输入下面的命令：\n"
            "  hint      看这一步的下一条提示\n"
            "  skip      运行并展示参考答案，然后继续\n"
            "  back      回到上一步（变量恢复到那一步开始时的样子）\n"
            "  next      进入下一步\n"
            "  play      自由练习，不做检查；输入 next 回到课程\n"
            "  reset     重做这一步（变量恢复到这一步开始时的样子）\n"
            "  again     再看一遍这一步的说明\n"
            "  menu      课程目录\n"
            "  progress  查看每一课的进度\n"
            "  bye       保存并退出（按 Ctrl-D 也一样）\n"
            "如果你的变量恰好和命令同名，可以用 print(hint) 或 (hint) 来查看它。"
        ),
        "passed": "✓ 做得好！",
        "not_yet": "还差一点：{reason}",
        "nudge": "（卡住了？输入 hint 看提示，或者输入 skip 看参考答案。）",
        "hint": "提示 {n}/{total}：{text}",
        "no_more_hints": "提示已经用完了。输入 skip 可以查看并运行参考答案。",
        "skip_intro": "参考答案：",
        "skip_done": "（这一步记为“已跳过”，输入 back 可以回来再做。）",
        "next_unfinished": (
            "继续往下走。参考答案已经在后台运行过了，后面几步要用到的变量都准备好了"
            "（输入 back 可以回到这一步）。"
        ),
        "back_first": "这已经是第一步了。",
        "rebuilt": "（已根据前面几步的参考答案，把变量恢复到这一步开始时的样子。）",
        "resumed": "欢迎回来！从第 {number} 课的第 {index} 步（共 {total} 步）继续。",
        "work_back": "你在这一步做的已经恢复：{names}。",
        "work_lost": "你的这些输入没能重新运行，它们做出的变量不在了：{inputs}",
        "restart_finished": "这一课你已经学完了，现在从头再来一遍。",
        "play_on": "自由练习模式：随便试，不做任何检查。输入 next 回到课程。",
        "play_off": "回到课程了。（输入 reset 可以把变量恢复到这一步开始时的样子。）",
        "play_prompt_help": "现在是自由练习模式；输入 next 回到课程，输入 bye 退出。",
        "predict_question": "先猜一猜：{question}",
        "predict_how": (
            "输入你的预测（一个数，或者像 [1, 2, 3] 这样的列表；也可以是 True/False 或 None）；"
            "直接按回车表示不猜，只看结果。"
        ),
        "predict_bad": "没能把 {text!r} 读成一个值：{reason}",
        "predict_saved": "记下了：你猜是 {value}。现在运行代码看看。",
        "predict_code": "（这次没有预测：你输入的这一行按代码运行。）",
        "predict_none": "这次不猜也行，运行代码看看结果吧。",
        "reveal_value": "你猜的是 {predicted}；{expr} 实际是 {actual}。{verdict}",
        "reveal_right": "✓ 猜对了！",
        "reveal_wrong": "✗ 不太对，看看下面的解释。",
        "lesson_done": "★ 第 {number} 课完成：{title}",
        "lesson_done_next": "输入 next 进入第 {number} 课（{title}），menu 回到目录，bye 退出。",
        "course_done": "这是最后一课了。输入 menu 回到目录，bye 退出。",
        "done_prompt_help": "这一课已经结束；可以输入 next、menu 或 bye（代码照样能运行）。",
        "menu_title": "gradshell 课程",
        "menu_pick": "输入课程编号或名称打开它{resume}；progress 查看进度；bye 退出。",
        "menu_resume": "，直接按回车继续第 {number} 课",
        "menu_unknown": "没有叫 {name!r} 的课程。请输入 1 到 {count} 之间的编号。",
        "menu_col_lesson": "课程",
        "menu_col_progress": "进度",
        "status_new": "未开始",
        "status_done": "已完成",
        "status_at": "已完成 {done}/{total} 步，停在第 {index} 步",
        "progress_title": "学习进度",
        "bye": "进度已保存，下次见！",
        "bye_unsaved": "再见。（这次的进度没能保存。）",
        "unknown_lesson": "gradshell learn：没有叫 {name!r} 的课程；试试 gradshell learn --list",
        "reset_done": "已清除{what}的进度。",
        "reset_all": "所有课程",
        "no_lessons": "gradshell learn：在 {where} 没有找到课程",
        "lesson_broken": "gradshell learn：课程文件有错误：{error}",
        "reference_failed": (
            "gradshell：这一步的参考答案没有通过它自己的检查（{reason}），请报告这个问题。"
            "先继续往下走。"
        ),
        "store_corrupt": (
            "进度文件 {path} 读不出来（{detail}）。已把它移到 {moved}，进度从头开始记录。"
        ),
        "store_future": (
            "进度文件 {path} 是更新版本的 gradshell 写的（格式版本 {version}，这个版本只认识 "
            "{supported}）。已把它移到 {moved}，进度从头开始记录。"
        ),
        "store_unmovable": (
            "进度文件 {path} 用不了（{detail}），也没能把它移开（{error}）。文件保持原样，"
            "这次的进度不会保存。"
        ),
        "store_unwritable": "无法在 {path} 保存进度（{error}）；这次学习的进度不会保留。",
        "store_unreadable": (
            "进度文件 {path} 读不了（{error}）；为了不覆盖它，这次的进度不会保存。"
        ),
        "interrupted": "KeyboardInterrupt",
    },
}


def tr(lang: str, key: str, **fields: object) -> str:
    """The engine's message `key` in `lang` (English if missing), with `fields` filled in."""
    table = MESSAGES.get(lang, MESSAGES["en"])
    text = table.get(key) or MESSAGES["en"][key]
    return text.format(**fields) if fields else text


#: The command words shown in each language, as learners may type them: the commands
#: line shows `hint 提示`, so `提示` works too, whichever language the lesson is in.
COMMAND_WORDS = {
    "提示": "hint",
    "跳过": "skip",
    "上一步": "back",
    "下一步": "next",
    "自由练习": "play",
    "重来": "reset",
    "再看一遍": "again",
    "目录": "menu",
    "进度": "progress",
    "帮助": "help",
    "说明": "help",
    "查看说明": "help",
    "退出": "bye",
}


def command_word(text: str) -> str:
    """The lesson command `text` names in either language (lower-cased; unchanged when
    it names none)."""
    word = text.strip().lower()
    return COMMAND_WORDS.get(word, word)
