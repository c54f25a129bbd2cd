"""Chinese lesson text wraps by display width, between characters, never inside code."""

from __future__ import annotations

import io

from rich.cells import cell_len

from gradshell.learn.lesson import load_course
from gradshell.learn.progress import ProgressStore
from gradshell.learn.tutor import Tutor
from gradshell.learn.wrapping import prewrap, units, wrap_line

TEXT = (
    "先从经典教程里的例子开始：`x` 里是三个 2，`y = x * 2`。`y` 不是一个单独的数，所以调用 "
    "`backward()` 时要给它一个权重张量，运行 `y.backward(torch.tensor([0.1, 1.0, 10.0]))`，"
    "然后看看 `x.grad`。"
)


def test_code_spans_are_units_and_punctuation_stays_with_its_word():
    pieces = units(TEXT)
    assert "`y.backward(torch.tensor([0.1, 1.0, 10.0]))`，" in pieces
    assert not any(p.startswith(("，", "。")) for p in pieces)


def test_lines_fill_the_width_and_never_split_code():
    for width in (30, 44, 70):
        lines = wrap_line(TEXT, width)
        for line in lines:
            assert line.count("`") % 2 == 0, line  # no code span is cut
            shown = line.replace("`", "")
            long_code = "y.backward(torch.tensor([0.1, 1.0, 10.0]))" in shown
            assert cell_len(shown) <= width or long_code, (width, line)
        # lines end near the width: at most one unit short (a Chinese character, a span)
        for line, nxt in zip(lines, lines[1:], strict=False):
            first = units(nxt)[0].replace("`", "")
            assert cell_len(line.replace("`", "")) + 1 + cell_len(first) > width


def test_prewrap_leaves_code_blocks_and_wraps_list_items_under_their_bullet():
    md = "- " + TEXT + "\n\n```\n>>> x = 1\n```\n"
    out = prewrap(md, 40)
    assert "```\n>>> x = 1\n```" in out
    first, *rest = out.split("\\\n")
    assert first.startswith("- ") and all(r.startswith("  ") for r in rest[:-1])


def test_a_chinese_lesson_at_70_columns(tmp_path):
    out = io.StringIO()
    store = ProgressStore(tmp_path / "progress.json")
    tutor = Tutor(load_course(), lang="zh", store=store, out=out, width=70, color=False)
    tutor.start("5")
    tutor.handle("next")
    text = out.getvalue()
    assert "y.backward(torch.tensor([0.1, 1.0, 10.0]))" in text  # whole, on one line
    for line in text.splitlines():
        if "命令：" in line or "输入你的预测" in line or "继续往下走" in line:
            continue  # one-line notices: the terminal wraps them
        assert cell_len(line) <= 70, line
