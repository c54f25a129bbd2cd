"""Autograd errors explained (`%xmode explain`, `%lang en|zh`).

The shell prints PyTorch's exact message first, so it can be searched; in explain mode
this module adds, on the visual channel, two or three plain sentences on what happened,
the learner's line, and a one-line fix — in English or Chinese.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gradshell.shell.session import CellResult, Session


@dataclass(frozen=True)
class Kind:
    """One kind of autograd error: how to recognise it and what to say (per language)."""

    key: str
    pattern: re.Pattern
    what: dict[str, str]
    fix: dict[str, str]


def _k(key: str, pattern: str, what: dict[str, str], fix: dict[str, str]) -> Kind:
    return Kind(key, re.compile(pattern), what, fix)


# `{t}` in a fix is the tensor the learner's line called backward() on (or `out`), `{ti}`
# the same without outer parentheses, `{x}` the tensor the line names first.
KINDS: tuple[Kind, ...] = (
    _k(
        "backward_twice",
        r"backward through the graph a second time",
        {
            "en": "The first backward() freed the values the graph had saved for computing "
            "gradients (the inputs of y * y, a saved factor such as the 2 of x * 2...). "
            "A second backward() through the same graph finds them gone.",
            "zh": "第一次 backward() 结束后，计算图为求梯度而保存的中间值（比如 y * y 的输入、"
            "x * 2 里保存的那个 2）已经被释放了。再对同一张图调用 backward()，就找不到这些值了。",
        },
        {
            "en": "pass retain_graph=True to the first {t}.backward(...) if you need a second "
            "pass, or compute {t} again before calling backward once more.",
            "zh": "如果确实要反向传播两次，第一次调用时写 {t}.backward(..., retain_graph=True)；"
            "或者先重新计算一遍 {t}，再调用 backward。",
        },
    ),
    _k(
        "non_scalar",
        r"grad can be implicitly created only for (real )?scalar outputs",
        {
            "en": "backward() with no argument only works when the output is a single number: "
            "then the starting gradient is simply 1. Your output has several elements (or is "
            "not a float), so PyTorch does not know how to weight each of them.",
            "zh": "不带参数的 backward() 只适用于输出是一个标量的情况，这时起始梯度就是 1。"
            "而这里的输出有多个元素（或者不是浮点数），PyTorch 不知道每个元素该按什么权重求梯度。",
        },
        {
            "en": "give one weight per element, e.g. {t}.backward(torch.ones_like({ti})), or "
            "reduce it first: {t}.sum().backward().",
            "zh": "为每个元素给出权重，比如 {t}.backward(torch.ones_like({ti}))；"
            "或者先把它变成标量：{t}.sum().backward()。",
        },
    ),
    _k(
        "no_grad_fn",
        r"does not require grad and does not have a grad_fn",
        {
            "en": "Nothing in this computation was being tracked: no input had "
            "requires_grad=True (or it ran under torch.no_grad(), or after detach()), "
            "so the result has no grad_fn and there is no graph to go backward through.",
            "zh": "这次计算没有被记录下来：没有任何输入设置了 requires_grad=True"
            "（或者是在 torch.no_grad() 里、detach() 之后算的），所以结果没有 grad_fn，"
            "也就没有可以反向传播的计算图。",
        },
        {
            "en": "create the input with requires_grad=True (e.g. torch.ones(2, 2, "
            "requires_grad=True)) and compute {t} outside torch.no_grad().",
            "zh": "创建输入时加上 requires_grad=True（例如 torch.ones(2, 2, requires_grad=True)），"
            "并且不要在 torch.no_grad() 里计算 {t}。",
        },
    ),
    _k(
        "int_requires_grad",
        r"(?i)only Tensors of floating point",
        {
            "en": "Gradients are only defined for tensors of floating-point numbers. An "
            "integer tensor such as torch.tensor([1, 2, 3]) cannot require grad, because "
            "you cannot nudge an integer by a tiny amount.",
            "zh": "只有浮点数张量才有梯度。像 torch.tensor([1, 2, 3]) 这样的整数张量不能 "
            "requires_grad，因为整数没法做“微小的变化”。",
        },
        {
            "en": "use floats: torch.tensor([1., 2., 3.], requires_grad=True) or "
            "dtype=torch.float32.",
            "zh": "改用浮点数：torch.tensor([1., 2., 3.], requires_grad=True)，"
            "或者指定 dtype=torch.float32。",
        },
    ),
    _k(
        "leaf_inplace",
        r"leaf Variable that requires grad is being used in an in-place operation",
        {
            "en": "You changed a leaf tensor that requires grad in place (x += 1, x.add_(1), "
            "x[0] = 0...). Autograd needs a leaf's value to stay as it was, so it refuses.",
            "zh": "你原地修改了一个需要梯度的叶子张量（x += 1、x.add_(1)、x[0] = 0 之类）。"
            "autograd 要求叶子张量的值保持不变，所以拒绝了这个操作。",
        },
        {
            "en": "make a new tensor instead (x = x + 1), or change the data inside "
            "`with torch.no_grad():` (as optimizers do).",
            "zh": "改为生成新张量（x = x + 1），或者把修改放进 `with torch.no_grad():` 里"
            "（优化器就是这么做的）。",
        },
    ),
    _k(
        "modified_saved",
        r"has been modified by an inplace operation",
        {
            "en": "A tensor that the graph saved for computing gradients was changed in place "
            "after it was saved. Its version counter moved on, so backward() would use a "
            "wrong value and stops instead.",
            "zh": "计算图为求梯度而保存的某个张量，在保存之后被原地修改了。它的版本号变了，"
            "backward() 如果继续就会用到错误的值，所以直接报错。",
        },
        {
            "en": "do not modify it in place: write y = y * 2 instead of y *= 2 / y.mul_(2), "
            "or use a clone() where you need to change it.",
            "zh": "不要原地修改它：把 y *= 2 或 y.mul_(2) 改成 y = y * 2，"
            "或者在需要修改的地方先 clone() 一份。",
        },
    ),
    _k(
        "grad_shape",
        r"Mismatch in shape: grad_output",
        {
            "en": "The gradient you gave backward() must have exactly the output's shape: it "
            "holds one weight for each element of the output. The one given has another shape.",
            "zh": "传给 backward() 的梯度必须和输出的形状完全一样：它为输出的每个元素各给一个权重。"
            "这里给的梯度形状不对。",
        },
        {
            "en": "give a gradient shaped like {t}, e.g. {t}.backward(torch.ones_like({ti})).",
            "zh": "给一个和 {t} 形状相同的梯度，例如 {t}.backward(torch.ones_like({ti}))。",
        },
    ),
    _k(
        "broadcast",
        r"must match the size of tensor|cannot be broadcast",
        {
            "en": "Elementwise operations pair up elements, so the shapes must be equal or "
            "broadcastable (compared from the right, each size equal or 1). Here one "
            "dimension has two different sizes, neither of them 1.",
            "zh": "逐元素运算要把元素一一配对，所以两个形状必须相同或者可以广播"
            "（从最右边的维度开始比，每一维要么相等，要么其中一个是 1）。这里有一维的大小不同，"
            "而且都不是 1。",
        },
        {
            "en": "print the shapes ({x}.shape) and reshape, slice or unsqueeze one side so "
            "they line up.",
            "zh": "先打印形状（{x}.shape），再用 reshape、切片或 unsqueeze 调整其中一边，让它们对齐。",
        },
    ),
    _k(
        "matmul_shape",
        r"shapes cannot be multiplied",
        {
            "en": "A matrix product (n×k) @ (k×m) needs the inner sizes to be equal: the "
            "columns of the left matrix must match the rows of the right one.",
            "zh": "矩阵乘法 (n×k) @ (k×m) 要求中间的两个维度相等：左边矩阵的列数必须等于右边矩阵的行数。",
        },
        {
            "en": "check both shapes ({x}.shape); transposing one side (.t()) is often the fix.",
            "zh": "检查两边的形状（{x}.shape）；很多时候把其中一边转置（.t()）就好了。",
        },
    ),
    _k(
        "nonleaf_grad",
        r"\.grad attribute of a Tensor that is not a leaf Tensor is being accessed",
        {
            "en": "This tensor was computed from others (it has a grad_fn), so it is not a "
            "leaf. backward() only stores gradients in the .grad of leaves; for "
            "intermediate results .grad stays None.",
            "zh": "这个张量是由其他张量计算出来的（有 grad_fn），不是叶子张量。backward() "
            "只会把梯度存进叶子张量的 .grad，中间结果的 .grad 一直是 None。",
        },
        {
            "en": "call {x}.retain_grad() before backward() to keep its gradient, or read the "
            "gradient of the leaf you created instead.",
            "zh": "在 backward() 之前调用 {x}.retain_grad() 来保留它的梯度，"
            "或者去看你创建的那个叶子张量的 .grad。",
        },
    ),
    _k(
        "nonleaf_requires_grad",
        r"you can only change requires_grad flags of leaf variables",
        {
            "en": "requires_grad can only be changed on leaves, tensors you created yourself. "
            "This one was computed from others and already follows their setting.",
            "zh": "只有叶子张量（你自己创建的张量）才能修改 requires_grad。"
            "这个张量是计算出来的，它是否需要梯度由它的输入决定。",
        },
        {
            "en": "set requires_grad on the input you created, or use {x}.detach() for a "
            "copy outside the graph.",
            "zh": "在你创建的输入上设置 requires_grad，或者用 {x}.detach() 得到一个脱离计算图的张量。",
        },
    ),
    _k(
        "numpy_requires_grad",
        r"Can't call numpy\(\) on Tensor that requires grad",
        {
            "en": "A NumPy array cannot carry a graph, so PyTorch will not hand out a tensor "
            "that requires grad as an array silently.",
            "zh": "NumPy 数组无法记录计算图，所以 PyTorch 不会悄悄地把需要梯度的张量转成数组。",
        },
        {
            "en": "use {x}.detach().numpy().",
            "zh": "改用 {x}.detach().numpy()。",
        },
    ),
)


#: A misspelt or not-yet-defined name, and an attribute that does not exist: beginners'
#: most common errors. `{name}` is the name, `{tip}` Python's suggestion in words ('').
TYPO_KINDS: tuple[Kind, ...] = (
    _k(
        "name_typo",
        r"^name '[^']+' is not defined",
        {
            "en": "Python looked for the name {name} among your variables and the "
            "built-in functions and found nothing: it was never assigned in this session "
            "(or the line that assigns it has not run yet), or it is spelt differently "
            "(Python tells upper and lower case apart).",
            "zh": "Python 在你的变量和内置函数里找名字 {name}，没有找到：它在这次会话里从来没被赋值"
            "（或者给它赋值的那一行还没运行），或者拼写不一样（Python 区分大小写）。",
        },
        {
            "en": "check the spelling of {name}{tip}, or run the line that defines it first.",
            "zh": "检查 {name} 的拼写{tip}，或者先运行定义它的那一行。",
        },
    ),
    _k(
        "attribute_typo",
        r"object has no attribute '[^']+'",
        {
            "en": "The object before the dot has no attribute or method called {name}; "
            "often it is a typo, or a name from another library or PyTorch version.",
            "zh": "点号前面的对象没有叫 {name} 的属性或方法；多半是拼写错了，"
            "或者是别的库、别的 PyTorch 版本里的名字。",
        },
        {
            "en": "check the spelling{tip}; dir(obj) lists what the object has.",
            "zh": "检查拼写{tip}；dir(obj) 可以列出这个对象有哪些属性。",
        },
    ),
)

#: How Python's suggestion is told in the fix line, per language.
_TIP = {"en": " (Python suggests {s})", "zh": "（Python 猜你想写的是 {s}）"}


def _typo_fields(exc: BaseException | None, shown: str, lang: str) -> dict[str, str]:
    """{name} and {tip} for a typo kind's texts: the name from the error, the suggestion
    from what the shell printed (Python's `Did you mean: 'print'?`)."""
    name = str(getattr(exc, "name", "") or "?") if exc is not None else "?"
    found = re.search(r"Did you mean: '([^']+)'", shown)
    tip = _TIP[lang].format(s=found.group(1)) if found else ""
    return {"name": name, "tip": tip}


def classify(text: str) -> Kind | None:
    """The kind of autograd error `text` (a message or printed output) is, or None."""
    for kind in KINDS:
        if kind.pattern.search(text):
            return kind
    return None


_FIRST_NAME = re.compile(r"[A-Za-z_]\w*")
_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*=[^=]")
_CLOSERS = {")": "(", "]": "["}


def receiver(line: str, method: str = "backward") -> str:
    """The expression `.method(` is called on in `line` ('y', '(x*3)', 'z.sum()'), or ''."""
    at = line.find("." + method + "(")
    if at <= 0:
        return ""
    i = at
    while i > 0:
        ch = line[i - 1]
        if ch in _CLOSERS:
            depth, j = 0, i - 1
            while j >= 0:
                if line[j] == ch:
                    depth += 1
                elif line[j] == _CLOSERS[ch]:
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            if j < 0:
                return ""
            i = j
        elif ch.isalnum() or ch in "_.":
            i -= 1
        else:
            break
    return line[i:at].strip()


def names_in(line: str) -> tuple[str, str]:
    """(t, x): the tensor a line calls backward() on, and the first name the line uses."""
    t = receiver(line)
    x = ""
    for word in _FIRST_NAME.findall(line.split("=", 1)[-1] if _ASSIGNED.match(line) else line):
        if word not in ("torch", "print", "with", "np", "math"):
            x = word
            break
    return t or x or "out", x or t or "x"


def learner_line(session: Session, exc: BaseException | None, output: str, source: str) -> str:
    """The learner's line where the error (or warning) came from."""
    if exc is not None:
        found = ""
        for frame, lineno in traceback.walk_tb(exc.__traceback__):
            name = frame.f_code.co_filename
            if name in session.sources:
                found = session.sources.line(name, lineno)
        if found:
            return found
    m = re.search(r":(\d+): UserWarning: The \.grad attribute", output)
    lines = source.splitlines()
    if m and 0 < int(m.group(1)) <= len(lines):
        return lines[int(m.group(1)) - 1].strip()
    return lines[-1].strip() if lines else ""


_LABELS = {
    "en": {
        "title": "what happened",
        "line": "your line",
        "culprit": "probably changed by",
        "fix": "fix",
    },
    "zh": {"title": "发生了什么", "line": "出错的代码", "culprit": "可能是这里改的", "fix": "改法"},
}


def explanation(
    kind: Kind,
    line: str,
    lang: str = "en",
    culprit: str | None = None,
    fields: dict[str, str] | None = None,
) -> Any:
    """The explanation of `kind` for the learner's `line`, as a rich renderable;
    `fields` fill in its texts' other blanks (a typo's name and Python's suggestion)."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    lang = lang if lang in _LABELS else "en"
    labels = _LABELS[lang]
    t, x = names_in(line)
    fields = fields or {}
    body = [Text(kind.what[lang].format(**fields) if fields else kind.what[lang])]
    if line:
        row = Text(f"{labels['line']}: ", style="bold")
        row.append(line, style="cyan")
        body.append(row)
    if culprit:
        row = Text(f"{labels['culprit']}: ", style="bold")
        row.append(culprit, style="cyan")
        body.append(row)
    fix = Text(f"{labels['fix']}: ", style="bold green")
    inner = t[1:-1] if t.startswith("(") and t.endswith(")") else t
    fix.append(kind.fix[lang].format(t=t, x=x, ti=inner, **fields))
    body.append(fix)
    return Panel(
        Group(*body),
        title=Text(labels["title"], style="bold yellow"),
        title_align="left",
        expand=False,
        padding=(0, 1),
    )


def explain_result(session: Session, result: CellResult, lang: str = "en") -> Any:
    """The explanation for a cell's autograd error or warning (None when there is none)."""
    exc = result.error
    kind = None
    if exc is not None and isinstance(exc, Exception):
        kind = classify(str(exc))
    if kind is None and "UserWarning" in result.output:
        kind = classify(result.output)
        if kind is not None and kind.key != "nonleaf_grad":
            kind = None
        exc = None
    fields: dict[str, str] = {}
    if kind is None and isinstance(exc, NameError | AttributeError):
        kind = next((k for k in TYPO_KINDS if k.pattern.search(str(exc))), None)
        shown = result.output + getattr(result, "error_text", "")
        fields = _typo_fields(exc, shown, lang if lang in _TIP else "en")
    if kind is None:
        return None
    line = learner_line(session, exc, result.output, result.source)
    extra = _culprit(session) if kind.key == "modified_saved" else None
    return explanation(kind, line, lang, extra, fields)


_INPLACE = re.compile(r"\b[A-Za-z_]\w*(\.\w+)*\s*([-+*/@]|\*\*|//)=|\.[a-z]\w*_\(|\]\s*=[^=]")


def _culprit(session: Session) -> str | None:
    """The learner's latest earlier input that changed a tensor in place, if any."""
    for entry in reversed(session.history):  # this cell is not in the history yet
        if "Error" in entry.output:
            continue  # a statement that failed changed nothing
        for line in reversed(entry.source.splitlines()):
            if _INPLACE.search(line) and ".backward(" not in line:
                return line.strip()
    return None
