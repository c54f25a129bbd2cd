"""gradshell.replay: run transcripts and compare what gradshell prints with them.

    from gradshell.replay import read_transcript, run_transcript

    transcript = read_transcript("tests/transcripts/seed_002.gsh")
    for result in run_transcript(transcript):
        print(result.session.name, result.passed, result.failed)

Modules: `parser` (text → sessions of examples), `normalise`, `matcher` (expected vs
got), `runner` (fresh shell session per transcript session), `diskless` (a kernel that
writes no files), `report` (rich diff), `update` (`--update`), `cli` (`gradshell
replay`), `pytest_plugin`.
"""

from gradshell.replay.matcher import Comparison, compare, lines_match
from gradshell.replay.model import Example, Transcript, TranscriptError, TranscriptSession
from gradshell.replay.parser import parse_transcript, read_transcript
from gradshell.replay.runner import ExampleResult, SessionResult, run_session, run_transcript

__all__ = [
    "Comparison",
    "Example",
    "ExampleResult",
    "SessionResult",
    "Transcript",
    "TranscriptError",
    "TranscriptSession",
    "compare",
    "lines_match",
    "parse_transcript",
    "read_transcript",
    "run_session",
    "run_transcript",
]
