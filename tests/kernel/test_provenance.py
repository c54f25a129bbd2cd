"""Before confining, the kernel checks that every module came from a read-only tree."""

from __future__ import annotations

import sys
import types

from gradshell.kernel.confine import default_read_dirs
from gradshell.kernel.provenance import untrusted_imports


def test_this_interpreters_modules_all_come_from_read_only_trees(tmp_path):
    modules = {name: sys.modules[name] for name in ("os", "json", "numpy", "gradshell")}
    assert untrusted_imports(default_read_dirs(), [tmp_path], modules) == []


def test_a_module_from_a_writable_folder_is_named(tmp_path):
    planted = types.ModuleType("json")
    planted.__file__ = str(tmp_path / "json.py")
    found = untrusted_imports(default_read_dirs(), [tmp_path], {"json": planted})
    assert found == [f"module json from {tmp_path / 'json.py'}"]


def test_a_module_inside_a_read_only_tree_but_under_a_writable_one_is_named(tmp_path):
    """A writable folder inside a read-only tree (a workspace in a source checkout) does
    not make what is in it trusted."""
    inside = tmp_path / "ws"
    planted = types.ModuleType("numpy")
    planted.__file__ = str(inside / "numpy.py")
    found = untrusted_imports([tmp_path], [inside], {"numpy": planted})
    assert found and "numpy" in found[0]
