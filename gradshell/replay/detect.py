"""Which print style and which prompt a transcript session was written in.

An option written in the transcript wins. Otherwise the expected output decides:
`Variable containing:` or a `[torch.FloatTensor of size …]` footer means the legacy
(PyTorch 0.2/0.3) style, and any `In [n]:` prompt or `Out[n]:` result means IPython's
display (seed 000 types at `>>>` but shows `Out[n]:`).
"""

from __future__ import annotations

import re

from gradshell.replay.model import TranscriptSession

#: Output in PyTorch 0.3's style.
LEGACY_OUTPUT = re.compile(
    r"Variable containing:|Parameter containing:"
    r"|\[torch\.(?:cuda\.)?[A-Za-z]*Tensor (?:of size|with no dimension)"
)
_OUT = re.compile(r"^\s*Out\[\d*\]:")


def detect_style(session: TranscriptSession) -> str:
    """'legacy' if the expected output is in PyTorch 0.3's style, else 'modern'."""
    for example in session.examples:
        for line in example.want:
            if ("containing:" in line or "Tensor " in line) and LEGACY_OUTPUT.search(line):
                return "legacy"
    return "modern"


def detect_prompt(session: TranscriptSession) -> str:
    """'ipython' if the session uses `In [n]:` prompts or shows `Out[n]:`, else 'python'."""
    for example in session.examples:
        if example.prompt == "ipython":
            return "ipython"
        for line in example.want:
            if line.lstrip().startswith("Out[") and _OUT.match(line):
                return "ipython"
    return "python"


def resolve_style(session: TranscriptSession, override: str | None = None) -> str:
    """The style to replay in: the override (`--style`), the session's option, or detection."""
    return override or session.style or detect_style(session)


def resolve_prompt(session: TranscriptSession) -> str:
    """The prompt to replay with: the session's option, or detection."""
    return session.prompt or detect_prompt(session)
