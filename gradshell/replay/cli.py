"""`gradshell replay FILE…`: replay transcripts and report every mismatch.

Each session of each transcript runs in a fresh shell session. For each mismatch the
command prints the file and line, the statement and a coloured expected/got diff, then
a closing line `N passed, N failed` (counted in statements). The exit status is 1 if
anything failed or a file could not be read, 0 otherwise; with `--update` the expected
output of failed statements is rewritten in place instead, and only files that could
not be replayed make the status 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.text import Text

from gradshell.core.era import STYLES
from gradshell.replay.parser import MARKDOWN_SUFFIXES, NOTEBOOK_SUFFIXES, read_transcript
from gradshell.replay.report import make_console, session_report, summary
from gradshell.replay.runner import SessionFactory, run_transcript
from gradshell.replay.update import update_file

TRANSCRIPT_SUFFIXES = (".gsh", ".txt", *MARKDOWN_SUFFIXES, *NOTEBOOK_SUFFIXES)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `gradshell replay`."""
    parser = argparse.ArgumentParser(
        prog="gradshell replay",
        description="Replay transcripts (>>> or In [n]: prompts, Markdown pycon blocks) "
        "and compare what gradshell prints with the expected output.",
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="transcript files (.gsh, .txt, .md, .ipynb), or folders to search for .gsh and .md files",
    )
    parser.add_argument(
        "--update", action="store_true", help="rewrite the expected output in place"
    )
    parser.add_argument(
        "--style", choices=STYLES, help="print style to replay in (overrides the detected one)"
    )
    parser.add_argument("--no-color", action="store_true", help="plain text output")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only failures and the closing line"
    )
    return parser


def expand(paths: Sequence[str]) -> list[tuple[str, bool]]:
    """(file, named directly?) for files named directly and .gsh/Markdown files in folders."""
    files: list[tuple[str, bool]] = []
    for name in paths:
        p = Path(name)
        if p.is_dir():
            found = sorted(
                str(f)
                for f in p.rglob("*")
                if f.is_file() and f.suffix.lower() in (".gsh", *MARKDOWN_SUFFIXES)
            )
            files.extend((f, False) for f in found)
        else:
            files.append((name, True))
    return files


def _print_parts(console: Console, parts: Sequence[Text]) -> None:
    for part in parts:
        console.print(part, end="")


def main(argv: Sequence[str] | None = None, *, factory: SessionFactory | None = None) -> int:
    """Run `gradshell replay` with `argv` (without the program name); returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # --help or a usage error
        return int(exc.code or 0)
    color = not args.no_color and sys.stdout.isatty()
    console = make_console(sys.stdout, color=color)
    passed = failed = updated = broken = 0
    for name, named in expand(args.files):
        try:
            transcript = read_transcript(name)
        except ValueError as exc:  # TranscriptError: a clear one-line reason
            console.print(f"ERROR {exc}", style="bold red")
            broken += 1
            continue
        if not transcript.sessions:  # Markdown without pycon/gradshell blocks
            if named:
                console.print(
                    f"ERROR {name}: no ```pycon or ```gradshell code blocks: nothing to replay",
                    style="bold red",
                )
                broken += 1
            continue
        results = run_transcript(transcript, factory=factory, style=args.style)
        file_passed = sum(r.passed for r in results)
        file_failed = sum(r.failed for r in results)
        passed += file_passed
        if args.update and Path(name).suffix.lower() in NOTEBOOK_SUFFIXES:
            console.print(f"{name}: --update does not rewrite notebooks; run them in Jupyter")
            broken += 1
            continue
        if args.update:
            changed = update_file(name, transcript.text, results)
            updated += changed
            errors = [r for r in results if r.error is not None]
            broken += len(errors)
            for r in errors:
                _print_parts(console, session_report(r))
            if changed:
                console.print(f"updated {name}: {changed} statement(s) rewritten")
            failed += file_failed
            continue
        failed += file_failed
        for r in results:
            if not r.ok:
                _print_parts(console, session_report(r))
        if not args.quiet:
            mark = "ok" if file_failed == 0 else "FAILED"
            console.print(f"{name}: {mark} ({file_passed} passed, {file_failed} failed)")
    line = summary(passed, failed + broken)
    if args.update and updated:
        line += f" ({updated} updated)"
    console.print(line, style="bold green" if failed + broken == 0 else "bold red")
    if args.update:
        return 1 if broken else 0
    return 1 if failed or broken else 0
