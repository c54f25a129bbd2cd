"""`gradshell kernel install [--user] [--prefix DIR] [--name NAME]`: register the kernel
with Jupyter (a kernelspec whose display name is "gradshell (PyTorch autograd)")."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

DISPLAY_NAME = "gradshell (PyTorch autograd)"
KERNEL_NAME = "gradshell"


def kernel_spec(python: str | None = None) -> dict[str, object]:
    """The kernel.json content: how Jupyter starts the gradshell kernel."""
    return {
        "argv": [python or sys.executable, "-m", "gradshell.jupyter", "-f", "{connection_file}"],
        "display_name": DISPLAY_NAME,
        "language": "python",
        "interrupt_mode": "signal",
        "metadata": {"debugger": False},
    }


def install(*, user: bool = False, prefix: str | None = None, name: str = KERNEL_NAME) -> str:
    """Install the kernelspec; returns the directory Jupyter will read it from."""
    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "kernel.json").write_text(json.dumps(kernel_spec(), indent=1) + "\n")
        return KernelSpecManager().install_kernel_spec(
            tmp, kernel_name=name, user=user, prefix=prefix
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `gradshell kernel`."""
    parser = argparse.ArgumentParser(prog="gradshell kernel", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    inst = sub.add_parser("install", help="register the gradshell kernel with Jupyter")
    inst.add_argument("--user", action="store_true", help="for this user only")
    inst.add_argument("--prefix", help="under this prefix (e.g. a virtual environment)")
    inst.add_argument("--name", default=KERNEL_NAME, help="the kernel's name")
    try:
        args = parser.parse_args(list(argv or []))
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    try:
        where = install(user=args.user, prefix=args.prefix, name=args.name)
    except ImportError:
        print(
            "gradshell: the Jupyter kernel needs the 'jupyter' extra: "
            "pip install 'gradshell[jupyter]'",
            file=sys.stderr,
        )
        return 2
    except OSError as exc:
        print(f"gradshell: could not install the kernel: {exc}", file=sys.stderr)
        return 1
    print(f"Installed the kernel '{DISPLAY_NAME}' in {where}")
    return 0


__all__ = ["DISPLAY_NAME", "KERNEL_NAME", "install", "kernel_spec", "main"]
