"""The visible part of a session directory: hidden names and links are never granted."""

from __future__ import annotations

import os

from gradshell.kernel.visible import visible_tree


def _make(root, names):
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)


def test_a_folder_with_nothing_hidden_is_granted_whole(tmp_path):
    _make(tmp_path, ["a.txt", "data/x.csv", "data/deep/y.csv"])
    assert visible_tree(tmp_path).paths == [tmp_path]


def test_hidden_names_at_any_depth_are_left_out(tmp_path):
    _make(
        tmp_path,
        [".bashrc", ".ssh/id_ed25519", "notes.txt", "proj/.git/config", "proj/src/m.py", "data/d"],
    )
    tree = visible_tree(tmp_path)
    assert sorted(tree.paths) == sorted(
        [tmp_path / "data", tmp_path / "notes.txt", tmp_path / "proj" / "src"]
    )
    assert tree.unchecked == []


def test_links_are_never_granted(tmp_path):
    _make(tmp_path, [".ssh/key", "plain.txt"])
    os.symlink(tmp_path / ".ssh", tmp_path / "keys")
    os.symlink("/etc/passwd", tmp_path / "passwd")
    assert visible_tree(tmp_path).paths == [tmp_path / "plain.txt"]


def test_a_walk_past_its_budget_leaves_folders_out_and_says_so(tmp_path):
    _make(tmp_path, [".hidden", *(f"big/f{i}" for i in range(30)), "small.txt"])
    tree = visible_tree(tmp_path, budget=10)
    assert tree.paths == [tmp_path / "small.txt"]
    assert tree.unchecked == [tmp_path / "big"]
