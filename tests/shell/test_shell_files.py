"""The file rules of gradshell's file commands (gradshell.shell.files and .ledger): hidden
names are off limits however a path reaches them, an existing file is written over only
if gradshell wrote it in this session or the learner says so, and nothing written is
executable. The same for learner code's torch.save/torch.load opener."""

from __future__ import annotations

import os
import stat

import pytest

from gradshell.shell.files import (
    HIDDEN,
    FileAccessError,
    LocalFiles,
    PathPolicy,
    make_opener,
    typed_hidden,
)

# Paths into hidden names, each reached another way. `link` is a symlink to `.ssh`,
# `notes-link.py` one to `.bashrc`.
HIDDEN_PATHS = [
    ".bashrc",
    ".ssh/authorized_keys",
    "a/.git/hooks/pre-commit",
    "sub/../.profile",
    "./.profile",
    "link/authorized_keys",
    "notes-link.py",
]


@pytest.fixture
def home(tmp_path):
    """A session directory that looks like a learner's home."""
    (tmp_path / ".bashrc").write_text("# the learner's shell\n")
    (tmp_path / ".profile").write_text("# profile\n")
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "authorized_keys").write_text("ssh-ed25519 AAAA learner\n")
    (tmp_path / "a" / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / ".ssh")
    (tmp_path / "notes-link.py").symlink_to(tmp_path / ".bashrc")
    return tmp_path


def snapshot(root) -> dict[str, tuple[bytes, int]]:
    """Every file below `root` (symlinks not followed): its bytes and mode."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                with open(path, "rb") as f:
                    found[os.path.relpath(path, root)] = (f.read(), os.stat(path).st_mode)
    return found


@pytest.mark.parametrize("path", HIDDEN_PATHS)
def test_hidden_paths_are_neither_read_nor_written(home, path):
    files = LocalFiles(PathPolicy(home), confirm=lambda question: True)
    before = snapshot(home)
    for attempt in (
        lambda: files.write_text(path, "pwned\n", force=True),
        lambda: files.read_text(path),
    ):
        with pytest.raises(FileAccessError) as caught:
            attempt()
        assert str(caught.value) == f"{path}: {HIDDEN}"
    assert snapshot(home) == before


def test_hidden_svg_is_refused_before_graphviz_runs(home, monkeypatch):
    monkeypatch.setenv("PATH", str(home / "no-such-bin"))  # Graphviz missing: not asked
    files = LocalFiles(PathPolicy(home))
    with pytest.raises(FileAccessError, match="hidden files and folders"):
        files.write_svg(".graph.svg", "digraph {}")


def test_a_folder_allowed_inside_a_hidden_one_is_judged_below_itself(home):
    course = home / ".cache" / "course"
    course.mkdir(parents=True)
    files = LocalFiles(PathPolicy(home, [course]))
    files.write_text(str(course / "notes.py"), "x = 1\n")
    assert (course / "notes.py").read_text() == "x = 1\n"
    with pytest.raises(FileAccessError, match="hidden"):
        files.write_text(str(course / ".hidden"), "x")
    with pytest.raises(FileAccessError, match="hidden"):
        files.write_text(str(home / ".cache" / "other.py"), "x")


def test_gradshell_writes_its_own_file_again_but_not_the_learners(tmp_path):
    files = LocalFiles(PathPolicy(tmp_path))
    assert files.write_text("notes.py", "one\n") == "notes.py"
    files.write_text("notes.py", "two\n")  # %save twice in one session just works
    assert (tmp_path / "notes.py").read_text() == "two\n"

    (tmp_path / "mine.py").write_text("the learner's\n")
    with pytest.raises(FileAccessError) as caught:
        files.write_text("mine.py", "gradshell's\n")
    assert "mine.py exists and gradshell did not write it in this session" in str(caught.value)
    assert "--force" in str(caught.value)
    assert (tmp_path / "mine.py").read_text() == "the learner's\n"
    files.write_text("mine.py", "gradshell's\n", force=True)
    assert (tmp_path / "mine.py").read_text() == "gradshell's\n"


def test_a_file_changed_since_gradshell_wrote_it_is_the_learners_again(tmp_path):
    files = LocalFiles(PathPolicy(tmp_path))
    files.write_text("notes.py", "one\n")
    (tmp_path / "notes.py").write_text("edited by the learner, same size\n")
    with pytest.raises(FileAccessError, match="did not write it"):
        files.write_text("notes.py", "two\n")
    (tmp_path / "notes.py").unlink()
    (tmp_path / "notes.py").write_text("one\n")  # a new file at the same name
    with pytest.raises(FileAccessError, match="did not write it"):
        files.write_text("notes.py", "two\n")


def test_another_session_has_its_own_ledger(tmp_path):
    LocalFiles(PathPolicy(tmp_path)).write_text("notes.py", "earlier session\n")
    with pytest.raises(FileAccessError, match="did not write it"):
        LocalFiles(PathPolicy(tmp_path)).write_text("notes.py", "this session\n")


@pytest.mark.parametrize(
    ("answer", "written"), [("y", True), ("yes", True), ("n", False), ("", False)]
)
def test_the_learner_is_asked_before_a_file_is_replaced(tmp_path, answer, written):
    asked = []

    def confirm(question: str) -> bool:
        asked.append(question)
        return answer.strip().lower() in ("y", "yes")

    (tmp_path / "mine.py").write_text("old\n")
    files = LocalFiles(PathPolicy(tmp_path), confirm=confirm)
    if written:
        files.write_text("mine.py", "new\n")
    else:
        with pytest.raises(FileAccessError):
            files.write_text("mine.py", "new\n")
    assert asked == [
        "File `mine.py` exists and gradshell did not write it in this session. Overwrite (y/[N])? "
    ]
    assert (tmp_path / "mine.py").read_text() == ("new\n" if written else "old\n")


def test_a_question_nobody_answers_means_no(tmp_path):
    def gone(question: str) -> bool:
        raise EOFError

    (tmp_path / "mine.py").write_text("old\n")
    with pytest.raises(FileAccessError):
        LocalFiles(PathPolicy(tmp_path), confirm=gone).write_text("mine.py", "new\n")
    assert (tmp_path / "mine.py").read_text() == "old\n"


def test_written_files_are_never_executable(tmp_path):
    files = LocalFiles(PathPolicy(tmp_path))
    files.write_text("new.py", "x = 1\n")
    assert stat.S_IMODE((tmp_path / "new.py").stat().st_mode) & ~0o644 == 0
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o4777)
    files.write_text("run.sh", "replaced\n", force=True)
    assert stat.S_IMODE(script.stat().st_mode) == 0o644


def test_a_hard_link_is_not_written_through_even_with_force(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched\n")
    os.link(victim, tmp_path / "notes.py")
    with pytest.raises(FileAccessError, match="hard links"):
        LocalFiles(PathPolicy(tmp_path)).write_text("notes.py", "pwned\n", force=True)
    assert victim.read_text() == "untouched\n"


def test_a_fifo_is_not_written_and_does_not_stall(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(FileAccessError, match="cannot write pipe"):
        LocalFiles(PathPolicy(tmp_path)).write_text("pipe", "x", force=True)


# --- learner code's torch.save / torch.load -------------------------------------------


@pytest.mark.parametrize("path", HIDDEN_PATHS)
def test_the_opener_neither_reads_nor_writes_hidden_names(home, path):
    opener = make_opener(PathPolicy(home), home)
    before = snapshot(home)
    for mode in ("wb", "rb"):
        with pytest.raises(PermissionError) as caught:
            opener(path, mode)
        assert HIDDEN in str(caught.value)
    with pytest.raises(PermissionError, match="hidden"):
        opener(str(home / path), "wb")
    assert snapshot(home) == before


def test_the_opener_reads_hidden_names_of_neither_directory(home, tmp_path_factory):
    workspace = tmp_path_factory.mktemp("workspace")
    (workspace / ".x.pt").write_bytes(b"data")
    opener = make_opener(PathPolicy(home), workspace)
    for path in (".x.pt", ".bashrc", str(home / ".profile")):
        with pytest.raises(PermissionError, match="hidden"):
            opener(path, "rb")


def test_the_opener_writes_only_in_the_writable_directory(home, tmp_path_factory):
    workspace = tmp_path_factory.mktemp("workspace")
    opener = make_opener(PathPolicy(home), workspace)
    with opener("w.pt", "wb") as f:
        f.write(b"weights")
    assert (workspace / "w.pt").read_bytes() == b"weights"
    with pytest.raises(PermissionError, match="your code saves files only in"):
        opener(str(home / "conftest.py"), "wb")
    assert not (home / "conftest.py").exists()
    (home / "given.pt").write_bytes(b"given")
    with opener("given.pt", "rb") as f:  # reads fall back to the session directory
        assert f.read() == b"given"


def test_the_opener_leaves_no_file_executable_and_no_link_written_through(tmp_path):
    opener = make_opener(PathPolicy(tmp_path), tmp_path)
    with opener("new.pt", "wb") as f:
        f.write(b"x")
    assert stat.S_IMODE((tmp_path / "new.pt").stat().st_mode) & ~0o644 == 0
    hook = tmp_path / "hook"
    hook.write_text("#!/bin/sh\n")
    hook.chmod(0o755)
    with opener("hook", "wb") as f:
        f.write(b"x")
    assert stat.S_IMODE(hook.stat().st_mode) == 0o644
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    os.link(victim, tmp_path / "hard.pt")
    with pytest.raises(OSError, match="hard links"):
        opener("hard.pt", "wb")
    assert victim.read_text() == "untouched"


# --- commands outside a session (gradshell learn --export FILE) ------------------------


def test_typed_hidden_names_any_hidden_step_of_a_path(tmp_path):
    (tmp_path / ".bashrc").write_text("")
    (tmp_path / "report.json").symlink_to(tmp_path / ".bashrc")
    assert typed_hidden("~/.bashrc") == ".bashrc"
    assert typed_hidden("reports/.git/x.json") == ".git"
    assert typed_hidden(tmp_path / "sub" / ".." / ".profile") == ".profile"
    assert typed_hidden(tmp_path / "report.json") == ".bashrc"
    assert typed_hidden("./reports/../progress.json") is None
