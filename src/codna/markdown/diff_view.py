"""A diff as a reader sees it: changed lines with the words that changed marked.

`word_runs` pairs one old line with one new line (the history page shows each pair as two
rows); `read_hunks` reads a unified diff text, as `diff.unified_diff` writes it, into hunks
whose removed and added lines are paired into one changed line each (the review card shows
the words removed and inserted inside the line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from codna.markdown.diff import word_diff

Run = tuple[bool, str]  # (changed, text): a stretch of a line, highlighted if changed
WordRun = tuple[str, str]  # ("equal" | "delete" | "insert", text)

# Word highlights cost a word-level match per pair of changed lines; past these sizes the
# lines are shown whole (still marked removed and added), so a huge rewrite stays fast.
WORD_DIFF_LINE_CHARS = 20_000
WORD_DIFF_PAGE_CHARS = 200_000


def whole(line: str) -> tuple[Run, ...]:
    """A line as one unchanged run, without its newline."""
    return ((False, line.removesuffix("\n")),)


def _merged(runs: list[Run]) -> tuple[Run, ...]:
    out: list[Run] = []
    for changed, text in runs:
        if out and out[-1][0] == changed:
            out[-1] = (changed, out[-1][1] + text)
        else:
            out.append((changed, text))
    return tuple(out)


def line_word_diff(old: str, new: str) -> list[WordRun] | None:
    """The words that changed from line `old` to line `new` (newlines aside), or None where
    the lines share no word (white space aside): then all of each changed."""
    runs = word_diff(old.removesuffix("\n"), new.removesuffix("\n"))
    if not any(tag == "equal" and text.strip() for tag, text in runs):
        return None
    return runs


def word_runs(old: str, new: str) -> tuple[tuple[Run, ...], tuple[Run, ...]]:
    """The old and the new line, with the words that changed between them marked. Lines
    that share no word (white space aside) are left unmarked: all of each changed."""
    runs = line_word_diff(old, new)
    if runs is None:
        return whole(old), whole(new)
    removed = _merged([(tag == "delete", text) for tag, text in runs if tag != "insert"])
    added = _merged([(tag == "insert", text) for tag, text in runs if tag != "delete"])
    return removed, added


# Hunks of a unified diff -------------------------------------------------------------------


@dataclass(frozen=True)
class HunkLine:
    """One line of a hunk: kept, removed, added, or changed (a removed line and the added line
    in its place, shown as one). `runs` make the line: a kept line's are "equal", a removed
    line's "delete", an added line's "insert", a changed line's all three."""

    kind: Literal["same", "removed", "added", "changed"]
    runs: tuple[WordRun, ...]


@dataclass(frozen=True)
class Hunk:
    """A hunk: where it starts in the old and the new text (1-based), the heading path of the
    section it starts in (None above the first heading, or in a diff written without one),
    and its lines."""

    old_start: int
    new_start: int
    path: str | None
    lines: tuple[HunkLine, ...]


_HEADER = re.compile(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(?: (.*))?")


class _Budget:
    """The characters of changed lines that may still be matched word by word."""

    def __init__(self) -> None:
        self.left = WORD_DIFF_PAGE_CHARS

    def take(self, size: int) -> bool:
        if size > WORD_DIFF_LINE_CHARS or size > self.left:
            return False
        self.left -= size
        return True


def _changed(removed: list[str], added: list[str], budget: _Budget) -> list[HunkLine]:
    """A run of removed lines and the added lines after it, paired line by line."""
    out: list[HunkLine] = []
    for old, new in zip(removed, added, strict=False):
        runs = line_word_diff(old, new) if budget.take(len(old) + len(new)) else None
        if runs is None:
            out += [HunkLine("removed", (("delete", old),)), HunkLine("added", (("insert", new),))]
        else:
            out.append(HunkLine("changed", tuple(runs)))
    paired = min(len(removed), len(added))
    out += [HunkLine("removed", (("delete", line),)) for line in removed[paired:]]
    out += [HunkLine("added", (("insert", line),)) for line in added[paired:]]
    return out


def read_hunks(diff: str) -> list[Hunk]:
    """The hunks of a unified diff, their removed and added lines paired into changed lines.

    The `---` and `+++` lines are skipped and a `\\ No newline at end of file` marker is
    dropped (the line it follows is shown as it is). Lines are the diff's lines without their
    newline; lines before the first `@@` line are ignored.
    """
    hunks: list[Hunk] = []
    header: re.Match[str] | None = None
    lines: list[HunkLine] = []
    removed: list[str] = []
    added: list[str] = []
    budget = _Budget()

    def flush_changes() -> None:
        if removed or added:
            lines.extend(_changed(removed, added, budget))
            removed.clear()
            added.clear()

    def flush_hunk() -> None:
        flush_changes()
        if header is not None:
            path = header[3].strip() if header[3] else None
            hunks.append(Hunk(int(header[1]), int(header[2]), path or None, tuple(lines)))
        lines.clear()

    for line in diff.split("\n"):
        if line.startswith("@@"):
            flush_hunk()
            header = _HEADER.match(line)
            continue
        if header is None or not line or line.startswith("\\"):
            continue
        kind, text = line[0], line[1:]
        if kind == "-":
            if added:  # a removed line after added ones starts a new run
                flush_changes()
            removed.append(text)
        elif kind == "+":
            added.append(text)
        else:
            flush_changes()
            lines.append(HunkLine("same", (("equal", text),)))
    flush_hunk()
    return hunks
