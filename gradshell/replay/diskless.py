"""Replay that leaves the disk as it found it.

A transcript may come from anyone, and replaying it must not write on the replayer's
machine: not `%save ~/.bashrc`, not `%save notes.py` over the replayer's notes, not
`torch.save`. So a replayed session runs in a sandboxed kernel whose one writable
directory is a temporary folder, removed afterwards, and whose file magics go to
`ReplayFiles`, which keeps what they write in memory. Within one replay the files are
there to read back (`%save` then `%load`, `torch.save` then `torch.load`), so a
transcript prints what it printed when it was recorded; the runner names the files
that were kept off the disk, and the report shows them when a session fails.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from gradshell.shell.files import LocalFiles, PathPolicy, render_svg


class ReplayFiles:
    """A FileService that reads under a PathPolicy and writes into memory only.

    The policy's refusals hold as in a real session (outside the session directory,
    hidden names), so a transcript shows the messages a learner would get."""

    def __init__(self, policy: PathPolicy) -> None:
        self.policy = policy
        self._disk = LocalFiles(policy)
        self._kept: dict[Path, str] = {}
        #: The paths written, as the transcript named them, in order (each once).
        self.unwritten: list[str] = []

    def read_text(self, path: str) -> str:
        """What this replay wrote to `path`, else the file on disk."""
        target = self.policy.resolve(path)
        if target in self._kept:
            return self._kept[target]
        return self._disk.read_text(path)

    def write_text(self, path: str, text: str, *, force: bool = False) -> str:
        """Keep `text` as the content of `path` for the rest of this replay."""
        self._keep(path, text)
        return path

    def write_svg(self, path: str, dot_text: str, *, force: bool = False) -> str:
        """Render with Graphviz as a real session would (its absence says so), and keep
        the SVG in memory."""
        self.policy.resolve(path)
        self._keep(path, render_svg(dot_text))
        return path

    def show_graph(self, dot_text: str) -> None:
        """Replay compares text; there is no picture to show."""

    def _keep(self, path: str, text: str) -> None:
        self._kept[self.policy.resolve(path)] = text
        if path not in self.unwritten:
            self.unwritten.append(path)


class ReplayKernel:
    """A sandboxed kernel for one replayed session that writes nothing to disk: its
    file magics use `ReplayFiles`, and learner code's own writes go to a temporary
    directory removed by `close`."""

    def __init__(
        self, style: str, prompt: str, *, viz: bool = False, time_limit: float | None = None
    ) -> None:
        from gradshell.kernel.client import KernelSession

        self.files = ReplayFiles(PathPolicy.here())
        self.workdir = Path(tempfile.mkdtemp(prefix="gradshell-replay-"))
        try:
            self.kernel = KernelSession(
                style=style,
                prompt=prompt,
                viz=viz,
                time_limit=time_limit,
                policy=self.files.policy,
                files=self.files,
                workdir=self.workdir,
                interactive=False,  # nobody answers a question during replay
            )
        except BaseException:
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise

    def run_cell(self, source: str, *, display: bool = True) -> Any:
        """Run one input in the kernel (see `KernelSession.run_cell`)."""
        return self.kernel.run_cell(source, display=display)

    def unwritten(self) -> list[str]:
        """What the replay wrote but kept off the disk: the file magics' paths, then the
        files learner code saved (named relative to the temporary directory)."""
        saved = sorted(
            str(p.relative_to(self.workdir)) for p in self.workdir.rglob("*") if p.is_file()
        )
        return [*self.files.unwritten, *(n for n in saved if n not in self.files.unwritten)]

    def close(self) -> None:
        """Stop the kernel and remove the temporary directory with what it wrote."""
        try:
            self.kernel.close()
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)


__all__ = ["ReplayFiles", "ReplayKernel"]
