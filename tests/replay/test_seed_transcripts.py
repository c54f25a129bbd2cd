"""The seed transcripts: code kept as the seeds wrote it, output as PyTorch prints it.

The modern transcripts are replayed against real PyTorch 2.13 (skipped where it is not
installed); the legacy ones are checked against legacy-format.md's worked examples.
Replaying them in gradshell is the pytest plugin's job (tests/transcripts/).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from replay_pysession import pytorch_session

from gradshell.replay.detect import resolve_prompt, resolve_style
from gradshell.replay.parser import read_transcript
from gradshell.replay.runner import run_session

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "tests" / "transcripts"
SEEDS = ROOT / "tests" / "transcripts" / "seeds"
MODERN = ["seed_002_modern.gsh", "seed_003_modern.gsh"]
LEGACY = ["seed_000_legacy.gsh", "seed_001_legacy.gsh"]


def modern_sessions():
    for name in MODERN:
        for session in read_transcript(TRANSCRIPTS / name).sessions:
            yield pytest.param(name, session, id=f"{name}::{session.name}")


@pytest.mark.parametrize(("name", "session"), list(modern_sessions()))
def test_modern_transcripts_are_what_real_pytorch_prints(real_torch, name, session):
    result = run_session(name, session, factory=pytorch_session)
    assert result.ok, [(f.example.line, f.got) for f in result.failures]


@pytest.mark.parametrize(
    ("name", "style", "prompt"),
    [
        ("seed_000_legacy.gsh", "legacy", "ipython"),
        ("seed_001_legacy.gsh", "legacy", "python"),
        ("seed_002_modern.gsh", "modern", "python"),
        ("seed_003_modern.gsh", "modern", "python"),
    ],
)
def test_each_seed_transcript_has_its_seed_style(name, style, prompt):
    for session in read_transcript(TRANSCRIPTS / name).sessions:
        assert resolve_style(session) == style
        assert resolve_prompt(session) == prompt


def test_seed_000_is_typed_as_the_seed_typed_it():
    seed = read_transcript(SEEDS / "000_5d0aa6e366bca92f.txt")
    ours = read_transcript(TRANSCRIPTS / "seed_000_legacy.gsh")
    assert [e.source for e in ours.examples] == [e.source for e in seed.examples]
    # Outputs differ only where the blog copy collapsed the column spacing.
    for mine, theirs in zip(ours.examples, seed.examples, strict=True):
        assert [" ".join(line.split()) for line in mine.want] == [
            " ".join(line.split()) for line in theirs.want
        ]


def seed_002_scripts() -> list[str]:
    """The code of seed 002's six examples, from `import torch` to `my_grad()`."""
    text = (SEEDS / "002_9206209347e5e592.txt").read_text()
    scripts, current = [], None
    for line in text.splitlines():
        if line == "import torch":
            current = []
        if current is not None:
            if line.strip():
                current.append(line.rstrip())
            if line == "    my_grad()":
                scripts.append("\n".join(current))
                current = None
    return scripts


def test_seed_002_code_is_kept_as_written():
    sessions = read_transcript(TRANSCRIPTS / "seed_002_modern.gsh").sessions
    scripts = seed_002_scripts()
    assert len(scripts) == len(sessions) == 6
    for script, session in zip(scripts, sessions, strict=True):
        typed = "\n".join(
            line.rstrip() for e in session.examples for line in e.source.split("\n") if line.strip()
        )
        assert typed == script


# legacy-format.md §7: the exact text of the values seeds 000 and 001 print.
E1 = ("Variable containing:", " 27  27", " 27  27", "[torch.FloatTensor of size 2x2]")
E2 = (
    "Variable containing:",
    " 4.5000  4.5000",
    " 4.5000  4.5000",
    "[torch.FloatTensor of size 2x2]",
)
E3 = ("Variable containing:", " 27", "[torch.FloatTensor of size 1]")
E4 = ("", " 0", " 0", " 0", "[torch.FloatTensor of size 3]")
E5 = (
    "Variable containing:",
    "-1296.5227",
    "  499.0783",
    "  778.8971",
    "[torch.FloatTensor of size 3]",
)
E6 = (
    "Variable containing:",
    "  102.4000",
    " 1024.0000",
    "    0.1024",
    "[torch.FloatTensor of size 3]",
)
E17 = (*E1, " Variable containing:", " 27", E3[-1])


def wants(name: str) -> dict[str, tuple[str, ...]]:
    examples = read_transcript(TRANSCRIPTS / name).examples
    return {e.source.split("#")[0].strip(): e.want for e in examples if e.want}


def test_seed_000_outputs_follow_the_legacy_spec():
    w = wants("seed_000_legacy.gsh")
    assert w["z"] == ("Out[10]: ", *E1)
    assert w["x.grad"] == (
        "Out[63]: ",
        "Variable containing:",
        "  0.2000",
        "  2.0000",
        " 20.0000",
        E4[-1],
    )
    assert w["out"] == ("Out[20]: ", *E3)
    # The Tensor's leading empty line (E4) is where IPython's Out[n]: line stands.
    assert w["x.grad.data.zero_()"] == ("Out[60]: ", *E4[1:])


def test_seed_001_outputs_follow_the_legacy_spec():
    w = wants("seed_001_legacy.gsh")
    assert w["print(z, out)"] == E17
    examples = read_transcript(TRANSCRIPTS / "seed_001_legacy.gsh").examples
    assert [e.want for e in examples if e.mode == "random"] == [E5, E6]
    assert [e.want for e in examples if e.source == "print(x.grad)"][0] == E2
