"""The `gradshell` command: the REPL, `-c CODE`, `FILE.py`, piped input, subcommands.

Exit status: 0 on success, 1 when the learner's code raised, 2 for usage errors.
`gradshell replay FILE...` and `gradshell learn` hand over to their packages.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

import gradshell

SUBCOMMANDS = {
    "replay": "gradshell.replay.cli",
    "learn": "gradshell.learn.cli",
    "kernel": "gradshell.jupyter.install",
}

DEFAULT_TIME_LIMIT = 60.0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gradshell",
        description="An interactive teaching shell for PyTorch autograd.",
        epilog="subcommands: gradshell replay FILE... | gradshell learn | gradshell kernel install",
    )
    p.add_argument("-c", dest="command", metavar="CODE", help="run CODE and exit")
    p.add_argument("file", nargs="?", help="run a Python file (the DSL) and exit")
    p.add_argument(
        "--style",
        choices=("modern", "legacy"),
        default="modern",
        help="print as PyTorch 2.x (modern) or 0.3 (legacy)",
    )
    p.add_argument(
        "--prompt",
        choices=("python", "ipython"),
        default="python",
        help="'>>> ' prompts or IPython's In [n]/Out[n]",
    )
    p.add_argument(
        "--unsafe",
        action="store_true",
        help="run unrestricted Python in this process (with gradshell's torch), without "
        "the sandboxed kernel; never the default",
    )
    p.add_argument(
        "--checker",
        choices=("on", "off"),
        default="on",
        help="off: run plain Python in the sandboxed kernel, held by the operating "
        "system's wall alone (for red teams and learners who want no refusals)",
    )
    p.add_argument(
        "--workdir",
        metavar="DIR",
        default=None,
        help="the folder your code writes in (default: gradshell-files/ in the directory "
        "gradshell was started in); relative paths in torch.save and open resolve there",
    )
    p.add_argument(
        "--device",
        default="cpu",
        metavar="cpu|cuda",
        help="where new tensors go (cuda needs CuPy and an NVIDIA GPU)",
    )
    p.add_argument("--no-viz", action="store_true", help="no visual panels")
    p.add_argument(
        "--viz",
        action="store_true",
        help="visual panels (on stderr) for -c CODE and FILE runs too (off there by default)",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"per-statement limit when not interactive (default {DEFAULT_TIME_LIMIT:g}; 0: none)",
    )
    p.add_argument(
        "--max-elements",
        type=int,
        default=10**8,
        metavar="N",
        help="largest tensor or array, in elements (default 10^8)",
    )
    p.add_argument(
        "--allow-path",
        action="append",
        default=[],
        metavar="DIR",
        help="let %%save, %%load and %%graph use DIR too (default: only the directory gradshell "
        "was started in)",
    )
    p.add_argument(
        "-i",
        dest="interactive",
        action="store_true",
        help="enter the REPL after running -c CODE or FILE",
    )
    p.add_argument("--version", action="version", version=f"gradshell {gradshell.__version__}")
    return p


def _subcommand(name: str, argv: list[str]) -> int:
    try:
        module = importlib.import_module(SUBCOMMANDS[name])
    except ImportError:
        print(f"gradshell: '{name}' is not available in this installation", file=sys.stderr)
        return 2
    entry = getattr(module, "main", None)
    if entry is None:
        print(f"gradshell: '{name}' is not available in this installation", file=sys.stderr)
        return 2
    code = entry(argv)
    return int(code or 0)


def device_description() -> str:
    """The active default device: 'cpu (NumPy)' or 'cuda:0 (CuPy, <GPU>)'."""
    if "gradshell.ops.creation" not in sys.modules:
        # Nothing in this (front-end) process chose another device; importing the ops
        # only to read the default would slow the first prompt down.
        return "cpu (NumPy)"
    from gradshell.shell.device import describe_default_device

    return describe_default_device()


def banner(style: str, prompt: str, unsafe: bool, *, checker: bool = True) -> str:
    """The REPL's first lines: version, style, device (and the unsafe or checker-off
    warning)."""
    lines = [
        f"gradshell {gradshell.__version__} - PyTorch autograd, shown step by step",
        f"style: {style} | prompt: {prompt} | device: {device_description()}",
        "Type %help for the shell's commands, Ctrl-D to exit.",
    ]
    if not unsafe:
        lines.append("Your code runs in a sandboxed kernel process (%sandbox shows how).")
        if not checker:
            lines.append("The checker is off (--checker off): plain Python, inside the sandbox.")
    else:
        lines.append("UNSAFE MODE IS ON: code runs as unrestricted Python (--unsafe).")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `gradshell` command; returns the exit status."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("\nKeyboardInterrupt", file=sys.stderr)
        return 130


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in SUBCOMMANDS:
        return _subcommand(args_list[0], args_list[1:])
    try:
        args = _parser().parse_args(args_list)
    except SystemExit as exc:  # --help, --version (0) or a usage error (2)
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    if args.command is not None and args.file is not None:
        print("gradshell: give either -c CODE or FILE, not both", file=sys.stderr)
        return 2
    if args.max_elements <= 0:
        print("gradshell: --max-elements must be positive", file=sys.stderr)
        return 2
    if args.device != "cpu":
        from gradshell.shell.device import set_default_device

        try:
            set_default_device(args.device)
        except AssertionError as exc:
            print(f"AssertionError: {exc}", file=sys.stderr)
            print(getattr(exc, "hint", ""), file=sys.stderr)
            return 2
        except RuntimeError as exc:
            print(
                f"gradshell: {exc}".replace("gradshell: gradshell:", "gradshell:"), file=sys.stderr
            )
            return 2

    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    program = args.command is not None or args.file is not None
    limit = args.time_limit
    if limit is None:
        limit = None if (interactive and not program) else DEFAULT_TIME_LIMIT
    if limit is not None and limit <= 0:
        limit = None
    # Programs print what Python would print; their visual panels are opt-in (--viz).
    viz = not args.no_viz and (args.viz or not program or args.interactive)
    from gradshell.kernel.workspace import WorkspaceError

    try:
        session = _make_session(args, viz=viz, limit=limit)
    except WorkspaceError as exc:
        print(f"gradshell: {exc}", file=sys.stderr)
        return 2
    if args.unsafe and not interactive:
        print("gradshell: UNSAFE MODE IS ON (--unsafe)", file=sys.stderr)
    try:
        return _run(args, session, interactive=interactive, program=program)
    finally:
        close = getattr(session, "close", None)
        if close is not None:
            close()


def _make_session(args: argparse.Namespace, *, viz: bool, limit: float | None) -> Any:
    """The learner's session: a sandboxed kernel process, or (--unsafe) this process."""
    from gradshell.shell.files import LocalFiles, PathPolicy

    policy = PathPolicy.here(args.allow_path)
    if args.unsafe:
        from gradshell.shell.session import Session

        files = LocalFiles(policy)
        session = Session(
            style=args.style,
            prompt=args.prompt,
            unsafe=True,
            viz=viz,
            time_limit=limit,
            max_elements=args.max_elements,
            files=files,
        )
        session.interactive = sys.stdin.isatty() and sys.stdout.isatty()
        files.confirm = session.confirm_overwrite  # asks at this terminal, if there is one
        return session
    from gradshell.kernel.client import KernelSession

    return KernelSession(
        style=args.style,
        prompt=args.prompt,
        viz=viz,
        time_limit=limit,
        max_elements=args.max_elements,
        policy=policy,
        device=args.device,
        checker=args.checker == "on",
        workdir=args.workdir,
    )


def _run(args: argparse.Namespace, session: Any, *, interactive: bool, program: bool) -> int:
    """Run the program, the piped input or the REPL in `session`."""
    from gradshell.shell import batch

    if program:
        if args.command is not None:
            source, filename = args.command, "<string>"
        else:
            # Python names a script by its absolute path (tracebacks, warnings, errors)
            filename = os.path.abspath(args.file)
            try:
                with open(filename, encoding="utf-8") as f:
                    source = f.read()
            except (OSError, UnicodeDecodeError) as exc:
                reason = f"[Errno {exc.errno}] {exc.strerror}" if isinstance(exc, OSError) else exc
                print(f"gradshell: can't open file '{filename}': {reason}", file=sys.stderr)
                return 2
        session.filename = filename
        code = batch.run_program(session, source, filename, sys.stdout, sys.stderr)
        if not (args.interactive and interactive):
            return code
        session.filename = "<stdin>"
        _set_time_limit(session, args.time_limit if args.time_limit else None)

    if not interactive:
        return batch.run_piped(session, sys.stdin, sys.stdout, sys.stderr)

    from gradshell.shell.repl import run_repl

    return run_repl(
        session, banner(args.style, args.prompt, args.unsafe, checker=args.checker == "on")
    )


def _set_time_limit(session: Any, limit: float | None) -> None:
    setter = getattr(session, "set_time_limit", None)
    if setter is not None:
        setter(limit)
    else:
        session.time_limit = limit
