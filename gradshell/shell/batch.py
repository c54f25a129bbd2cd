"""Running without a terminal: piped stdin, `-c CODE`, `FILE.py`.

Piped input runs through the same evaluator as the REPL and echoes each input after
its prompt, so `gradshell < session.py` prints a transcript like the seed tutorials'.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

from gradshell.shell.inputsplit import echo, iter_chunks
from gradshell.shell.terminal_text import visible

if TYPE_CHECKING:
    from gradshell.shell.session import Session


def run_piped(session: Session, lines: Iterable[str], out: TextIO, visual: TextIO) -> int:
    """Run a stream of input lines as a REPL would, echoing prompts and inputs.

    Returns 0 if nothing raised, 1 if some input raised, or the code given to exit().
    Visual output goes to `visual` (stderr), keeping `out` a clean transcript.
    """
    session.stream = out
    failed = False
    first = True
    for chunk in iter_chunks(lines):
        if chunk.kind == "blank":
            if session.prompt == "python":
                out.write("\n")
            continue
        if session.prompt == "ipython" and not first:
            out.write("\n")
        first = False
        # the piped input is shown as it reads: a control character in it drives nothing
        out.write(visible(echo(chunk.text, session.ps1(), session.ps2())))
        out.flush()
        result = session.run_cell(chunk.text)
        if result.visual and session.viz:
            visual.write(result.visual)
            visual.flush()
        if result.exit_code is not None:
            return result.exit_code
        if result.error is not None:
            failed = True
    return 1 if failed else 0


def run_program(session: Session, source: str, filename: str, out: TextIO, err: TextIO) -> int:
    """Run a whole program (`-c CODE` or a file) as Python runs scripts."""
    session.stream = out
    session.error_stream = err
    result = session.run_script(source, filename)
    if result.visual and session.viz:
        err.write(result.visual)
    if result.exit_code is not None:
        return result.exit_code
    return 0 if result.error is None else 1
