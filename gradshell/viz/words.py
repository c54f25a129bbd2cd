"""The visual channel's words in English and Chinese (`%lang en|zh`): panels, `%ledger`,
`%graph` and `%explain` read their fixed phrases here, so a learner who switched to
Chinese reads no English chrome around the numbers."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

current: ContextVar[str] = ContextVar("gradshell_viz_lang", default="en")
"""The language of the view being drawn (set by `use_lang` around a magic)."""

WORDS: dict[str, dict[str, str]] = {
    "en": {
        # panels
        "first_gradient": "first gradient",
        "zeros": "zeros",
        "note_assign": "assigned",
        "note_inplace": "changed in place",
        "note_unseen": "changed while recording was off",
        "more_changes": "… {n} more change(s); %ledger shows all",
        "more_changes_compact": "… {n} more change(s) (%ledger)",
        "panel_failed": "panel failed: {error}",
        # causes (ledger entries)
        "cause_backward": "backward #{n}",
        "cause_retain": "backward #{n} (retain_grad)",
        "cause_zero": "zeroed",
        "cause_none": "set to None",
        "cause_assign": "assigned",
        "cause_inplace": "changed in place",
        "cause_unseen": "changed while recording was off",
        "from": "from {who}",
        # %ledger
        "ledger_title": "{name}.grad: every change, oldest first",
        "col_step": "step",
        "col_cause": "cause",
        "col_added": "added",
        "col_result": "result",
        "wiped": "wiped {value}",
        "dropped": "dropped {value}",
        "was": "was {value}",
        "summary_title": "gradients recorded in this session",
        "col_tensor": "tensor",
        "col_changes": "changes",
        "col_last": "last change",
        "col_now": ".grad now",
        # %graph
        "graph_header": "%graph {label}: the grad_fn graph (edges are next_functions)",
        "value": "value",
        "grad": "grad",
        "constant": "a constant, or a tensor that does not require grad (no_grad / detach())",
        "no_flow": "no gradient flows here: {what}",
        "freed": "saved values freed by backward()",
        # %explain
        "explain_did": "what {root}.backward() did ({cause})",
        "explain_preview": "what {root}.backward() would do — a preview: no .grad changes",
        "each_of": "each of {n}",
        "sum_of_edges": "sum of {n} edges",
        "constant_c": "c stands for a constant: no gradient flows to it",
        "broadcast": "{name} was broadcast to {n} elements: the gradients of its copies add up",
        "no_formula": "no formula available for {node}; this is the gradient it computed",
        "why": "why ∂{root}/∂{leaf} is {value}:",
        "leaf": "leaf",
        "in": "in    ",
        "local": "local ",
        "the_number": "the number {n}",
        "no_gradient_reached": "no gradient reached this node",
        "given_to_backward": "the gradient given to backward",
        "no_gradient_needed": "no gradient needed",
        "uses_twice": "{expr} uses {name} twice: one edge for each use",
        "nothing_ran": "no node ran: nothing to explain",
        "stopped_error": "this pass stopped with an error: {error}",
        "note": "note: {note}",
        "no_require": "{name}, which does not require grad",
        "saved": "saved {parts}",
        "saved_freed": "saved {parts} (tensors freed by backward)",
        "own_result": "its own result",
        "shares": (
            "{name} shares data with {who} but is outside the graph "
            "(detach(), .data or no_grad): no gradient flows to it"
        ),
        "leaf_graph": (
            "{label} is a leaf that requires grad: it has no grad_fn; backward passes end in "
            "its AccumulateGrad, which adds into {label}.grad"
        ),
        "no_graph": (
            "{label} does not require grad, so it has no graph (grad_fn is None): it was made "
            "from tensors that do not require grad, under torch.no_grad(), or by detach()"
        ),
        "more_nodes": "… {n} more node(s) not drawn; %graph {label} --dot FILE has them all",
        "used_again": "see #{n}: this input is used again",
    },
    "zh": {
        "first_gradient": "第一次得到梯度",
        "zeros": "全零",
        "note_assign": "被直接赋值",
        "note_inplace": "被原地修改",
        "note_unseen": "在记录关闭期间被修改",
        "more_changes": "……还有 {n} 次改动；%ledger 可以看到全部",
        "more_changes_compact": "……还有 {n} 次改动（%ledger）",
        "panel_failed": "面板出错：{error}",
        "cause_backward": "第 {n} 次反向传播",
        "cause_retain": "第 {n} 次反向传播（retain_grad）",
        "cause_zero": "清零",
        "cause_none": "设为 None",
        "cause_assign": "直接赋值",
        "cause_inplace": "原地修改",
        "cause_unseen": "在记录关闭期间被修改",
        "from": "来自 {who}",
        "ledger_title": "{name}.grad：每一次改动，从早到晚",
        "col_step": "步",
        "col_cause": "原因",
        "col_added": "加上",
        "col_result": "结果",
        "wiped": "清掉了 {value}",
        "dropped": "丢掉了 {value}",
        "was": "原来是 {value}",
        "summary_title": "本次会话记录到的梯度",
        "col_tensor": "张量",
        "col_changes": "改动次数",
        "col_last": "最近一次改动",
        "col_now": "现在的 .grad",
        "graph_header": "%graph {label}：grad_fn 计算图（边就是 next_functions）",
        "value": "值",
        "grad": "梯度",
        "constant": "常数，或不要求梯度的张量（no_grad / detach()）",
        "no_flow": "这里没有梯度流过：{what}",
        "freed": "保存的值已被 backward() 释放",
        "explain_did": "{root}.backward() 做了什么（{cause}）",
        "explain_preview": "{root}.backward() 将会做什么——只是预览：不改变任何 .grad",
        "each_of": "{n} 个元素都是这个值",
        "sum_of_edges": "{n} 条边之和",
        "constant_c": "c 表示常数：没有梯度流向它",
        "broadcast": "{name} 被广播成了 {n} 个元素：各个副本的梯度要加起来",
        "no_formula": "没有 {node} 的公式；这是它实际算出的梯度",
        "why": "为什么 ∂{root}/∂{leaf} 是 {value}：",
        "leaf": "叶子",
        "in": "传入  ",
        "local": "局部  ",
        "the_number": "数字 {n}",
        "no_gradient_reached": "没有梯度传到这个节点",
        "given_to_backward": "传给 backward 的梯度",
        "no_gradient_needed": "不需要梯度",
        "uses_twice": "{expr} 用了两次 {name}：每用一次就有一条边",
        "nothing_ran": "没有节点运行：没有可解释的内容",
        "stopped_error": "这次反向传播因出错而中止：{error}",
        "note": "注意：{note}",
        "no_require": "{name}，它不要求梯度",
        "saved": "保存了 {parts}",
        "saved_freed": "保存了 {parts}（张量已被 backward 释放）",
        "own_result": "它自己的结果",
        "shares": (
            "{name} 和 {who} 共用数据，但它在计算图之外（detach()、.data 或 no_grad）：没有梯度流向它"
        ),
        "leaf_graph": (
            "{label} 是要求梯度的叶子：它没有 grad_fn；反向传播走到它的 AccumulateGrad 为止，"
            "由它把梯度加进 {label}.grad"
        ),
        "no_graph": (
            "{label} 不要求梯度，所以没有计算图（grad_fn 是 None）：它是由不要求梯度的张量算出来的，"
            "或是在 torch.no_grad() 里算的，或是 detach() 得到的"
        ),
        "more_nodes": "……还有 {n} 个节点没有画出来；%graph {label} --dot FILE 可以导出全部",
        "used_again": "见 #{n}：这个输入又用了一次",
    },
}


@contextlib.contextmanager
def use_lang(lang: str) -> Iterator[None]:
    """Draw views in `lang` inside the block."""
    token = current.set(lang)
    try:
        yield
    finally:
        current.reset(token)


def word(lang: str | None, key: str, **fields: Any) -> str:
    """The phrase `key` in `lang` (None: the current view's language; English when the
    language or key is unknown)."""
    table = WORDS.get(lang or current.get(), WORDS["en"])
    text = table.get(key, WORDS["en"][key])
    return text.format(**fields) if fields else text


__all__ = ["WORDS", "current", "use_lang", "word"]
