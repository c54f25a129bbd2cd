"""pytest plugin: transcripts as tests, one test item per transcript session.

Configure the folders in pytest's ini options::

    [tool.pytest.ini_options]
    gradshell_transcripts = ["tests/transcripts", "lessons"]

`*.gsh` and Markdown files under those folders are collected when they hold sessions
(Markdown without `pycon`/`gradshell` blocks is not a transcript and is left alone; a
`.gsh` file without prompts is left alone with a warning). A file that cannot be read
as a transcript becomes one failing item with the reason. Missing or empty folders are
fine. When pytest runs its `testpaths` (no paths on the command line), configured
folders outside them are collected too. `--gradshell-style` replays every session in
one style.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from gradshell.core.era import STYLES
from gradshell.replay.model import Transcript, TranscriptError, TranscriptSession
from gradshell.replay.parser import (
    MARKDOWN_SUFFIXES,
    NOTEBOOK_SUFFIXES,
    NoSessionsError,
    read_transcript,
)
from gradshell.replay.report import render, session_report
from gradshell.replay.runner import SessionResult, run_session

INI_KEY = "gradshell_transcripts"
SUFFIXES = (".gsh", *MARKDOWN_SUFFIXES, *NOTEBOOK_SUFFIXES)


class TranscriptMismatch(Exception):
    """A session whose output did not match; carries the result for the report."""

    def __init__(self, result: SessionResult) -> None:
        super().__init__(f"{result.failed} mismatch(es) in session {result.session.name!r}")
        self.result = result


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ini key naming transcript folders and the style override."""
    parser.addini(
        INI_KEY,
        "folders whose .gsh and Markdown transcripts are collected as tests",
        type="paths",
        default=[],
    )
    group = parser.getgroup("gradshell", "gradshell transcript replay")
    group.addoption(
        "--gradshell-style",
        choices=STYLES,
        default=None,
        help="replay every transcript session in this print style",
    )


def _folders(config: pytest.Config) -> list[Path]:
    try:
        raw = config.getini(INI_KEY)
    except (ValueError, KeyError):
        return []
    return [Path(p).resolve() for p in raw or []]


def pytest_configure(config: pytest.Config) -> None:
    """Add configured folders outside `testpaths` when pytest runs its testpaths."""
    source = getattr(config, "args_source", None)
    if source is None or source != pytest.Config.ArgsSource.TESTPATHS:
        return
    args = [Path(a).resolve() for a in config.args]
    for folder in _folders(config):
        if folder.is_dir() and not any(_under(folder, a) for a in args):
            config.args.append(str(folder))


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect `.gsh` and Markdown files that lie under a configured transcript folder."""
    if file_path.suffix.lower() not in SUFFIXES:
        return None
    resolved = file_path.resolve()
    if not any(_under(resolved, folder) for folder in _folders(parent.config)):
        return None
    return TranscriptFile.from_parent(parent, path=file_path)


class TranscriptFile(pytest.File):
    """A transcript file; its items are its sessions."""

    def _display_name(self) -> str:
        try:
            return str(self.path.relative_to(self.config.rootpath))
        except ValueError:
            return str(self.path)

    def collect(self) -> Iterator[pytest.Item]:
        """One item per session, or one failing item if the file cannot be parsed."""
        try:
            transcript = read_transcript(self.path, name=self._display_name())
        except NoSessionsError as exc:
            if self.path.suffix.lower() == ".gsh":
                warnings.warn(
                    pytest.PytestCollectionWarning(f"gradshell: {exc}; not collected"),
                    stacklevel=1,
                )
            return
        except TranscriptError as exc:
            yield BrokenTranscriptItem.from_parent(self, name="transcript", error=exc)
            return
        except Exception as exc:  # never let one odd file stop the whole collection
            error = TranscriptError(f"cannot read the transcript: {type(exc).__name__}: {exc}")
            error.path = str(self.path)
            yield BrokenTranscriptItem.from_parent(self, name="transcript", error=error)
            return
        if not transcript.sessions:
            return
        for session in transcript.sessions:
            yield TranscriptItem.from_parent(
                self, name=session.name, transcript=transcript, transcript_session=session
            )


class TranscriptItem(pytest.Item):
    """One transcript session, replayed in a fresh gradshell session."""

    def __init__(
        self, *, transcript: Transcript, transcript_session: TranscriptSession, **kwargs: object
    ) -> None:
        super().__init__(**kwargs)
        self.transcript = transcript
        self.transcript_session = transcript_session

    def runtest(self) -> None:
        """Replay the session; raise with the report if anything did not match."""
        style = self.config.getoption("gradshell_style", default=None)
        result = run_session(self.transcript.path, self.transcript_session, style=style)
        if not result.ok:
            raise TranscriptMismatch(result)

    def repr_failure(self, excinfo, style=None):  # type: ignore[override]
        """The same report as `gradshell replay` prints."""
        if isinstance(excinfo.value, TranscriptMismatch):
            color = self.config.get_terminal_writer().hasmarkup
            return render(session_report(excinfo.value.result), color=color).rstrip("\n")
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Location of the session in the transcript (0-based line, as pytest wants)."""
        return self.path, self.transcript_session.line - 1, f"transcript session: {self.name}"


class BrokenTranscriptItem(pytest.Item):
    """Stands for a transcript that could not be read; fails with the reason."""

    def __init__(self, *, error: TranscriptError, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        """Always fails: the transcript is unreadable."""
        raise self.error

    def repr_failure(self, excinfo, style=None):  # type: ignore[override]
        """The parse error, one line."""
        if isinstance(excinfo.value, TranscriptError):
            return f"cannot replay: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Location of the problem."""
        line = (self.error.line or 1) - 1
        return self.path, line, "unreadable transcript"
