"""Expected versus actual output: the matching rules of a transcript.

After normalisation (see `normalise`) the two sides must be equal line for line, with
two relaxations:

* a line that is exactly `...` in the expected output matches any run of lines,
  including none (doctest's ELLIPSIS, line-wise);
* a traceback matches on its exception: from a `Traceback (most recent call last):`
  line, the stack lines (indented, or a `...` line) are skipped on both sides and only
  what follows them (the `Type: message` lines) is compared, together with whatever
  was printed before the traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gradshell.replay.normalise import normalise, output_lines

ELLIPSIS = "..."
TRACEBACK = "Traceback (most recent call last):"


@dataclass(frozen=True)
class Comparison:
    """The outcome of matching one example.

    `want` and `got` are the lines as compared (normalised, traceback stacks left
    out). `want_index[k]` is the index in the example's expected lines that `want[k]`
    came from. `first_diff` is the index in `want` of the first expected line that
    does not match (`len(want)` when the actual output has extra lines at the end);
    None when the outputs match.
    """

    ok: bool
    want: list[str]
    got: list[str]
    want_index: list[int]
    first_diff: int | None

    def first_diff_line(self, want_line: int) -> int:
        """The transcript line of the first difference, given the first expected line."""
        if self.first_diff is None:
            return want_line
        if self.first_diff < len(self.want_index):
            return want_line + self.want_index[self.first_diff]
        return want_line + (self.want_index[-1] + 1 if self.want_index else 0)


def _is_stack_line(line: str) -> bool:
    return line[:1].isspace() or line == ELLIPSIS


def reduce_traceback(pairs: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Keep the output before a traceback, its header, and its exception lines only."""
    headers = [k for k, (_, line) in enumerate(pairs) if line == TRACEBACK]
    if not headers:
        return pairs
    last = headers[-1]
    k = last + 1
    while k < len(pairs) and _is_stack_line(pairs[k][1]):
        k += 1
    return pairs[: headers[0]] + [pairs[last]] + pairs[k:]


def lines_match(pattern: Sequence[str], got: Sequence[str]) -> bool:
    """True if `got` matches `pattern`, where a `...` line matches any run of lines."""
    return _first_mismatch(pattern, got) is None


def _split(pattern: Sequence[str]) -> list[list[str]]:
    segments: list[list[str]] = [[]]
    for line in pattern:
        if line == ELLIPSIS:
            segments.append([])
        else:
            segments[-1].append(line)
    return segments


def _find(segment: list[str], got: Sequence[str], start: int, end: int) -> int:
    width = len(segment)
    first = segment[0]
    for pos in range(start, end - width + 1):
        if got[pos] == first and list(got[pos : pos + width]) == segment:
            return pos
    return -1


def _first_mismatch(pattern: Sequence[str], got: Sequence[str]) -> int | None:
    """Index in `pattern` of the first line that cannot match, or None on a match."""
    if ELLIPSIS not in pattern:
        for k, (want, have) in enumerate(zip(pattern, got, strict=False)):
            if want != have:
                return k
        if len(pattern) != len(got):
            return min(len(pattern), len(got))
        return None
    segments = _split(pattern)
    head, tail, middle = segments[0], segments[-1], segments[1:-1]
    for k, want in enumerate(head):
        if k >= len(got) or got[k] != want:
            return k
    tail_start = len(pattern) - len(tail)
    if len(got) < len(head) + len(tail):
        return tail_start
    offset = len(got) - len(tail)
    for j, want in enumerate(tail):
        if got[offset + j] != want:
            return tail_start + j
    pos, end = len(head), offset
    index = len(head) + 1  # index in `pattern` of the current middle segment
    for segment in middle:
        if segment:
            found = _find(segment, got, pos, end)
            if found < 0:
                return index
            pos = found + len(segment)
        index += len(segment) + 1
    return None


def compare(want: Sequence[str], got: str) -> Comparison:
    """Match an example's expected lines against the output a session produced."""
    want_pairs = normalise(want)
    got_pairs = normalise(output_lines(got))
    if any(line == TRACEBACK for _, line in want_pairs):
        want_pairs = reduce_traceback(want_pairs)
        if any(line == TRACEBACK for _, line in got_pairs):
            got_pairs = reduce_traceback(got_pairs)
    want_lines = [line for _, line in want_pairs]
    got_lines = [line for _, line in got_pairs]
    first = _first_mismatch(want_lines, got_lines)
    return Comparison(
        ok=first is None,
        want=want_lines,
        got=got_lines,
        want_index=[index for index, _ in want_pairs],
        first_diff=first,
    )
