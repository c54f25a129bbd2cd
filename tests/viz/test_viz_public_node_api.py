"""Visualisation reads graph nodes only through their public, documented views
(`saved_values`, `freed`, `kept_after_free`, `input_metadata`, `sequence_nr`,
`has_hooks`, `existing_accumulator`), never the core's private fields, and it has no
copy of the engine: %explain's preview is the engine's own dry run."""

from __future__ import annotations

import ast
from pathlib import Path

VIZ = Path(__file__).resolve().parents[2] / "gradshell" / "viz"

#: The core's private node and autograd fields.
PRIVATE = {
    "_saved",
    "_legacy_kept",
    "_freed",
    "_seq",
    "_meta",
    "_tensor_hooks",
    "_pre_hooks",
    "_post_hooks",
    "_hooks",
    "_accumulator",
    "_post_accumulate_hooks",
}


def _private_reads(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in PRIVATE:
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id == "self":
                continue  # a viz class's own field of that name
            found.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in PRIVATE
        ):
            found.append(f"{path.name}:{node.lineno} getattr(..., {node.args[1].value!r})")
    return found


def test_viz_reads_no_private_node_field():
    found = [hit for path in sorted(VIZ.glob("*.py")) for hit in _private_reads(path)]
    assert found == []


def test_viz_has_no_copy_of_the_engine():
    # the engine's ready queue is a heap; a preview of its own would need one too
    for path in sorted(VIZ.glob("*.py")):
        assert "heapq" not in path.read_text(encoding="utf-8"), path.name
