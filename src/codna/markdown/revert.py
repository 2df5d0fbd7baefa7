"""Undoing one revision's change on a later version of the page.

The change from `before` to `after` is a list of hunks (difflib's line opcodes, the common
leading and trailing lines cut first). Each hunk is undone where the text it wrote is still
as it left it: the lines it wrote must be unchanged, in one piece, in the current version;
for a hunk that only inserted or only removed lines, the line on each side of it must be
unchanged and still next to it (or the start or end of the page still there), so that the
place is not in doubt. Then its lines go back to what they were. If any hunk's text changed
since, nothing is undone and the refusal names that hunk.
"""

from __future__ import annotations

import bisect
import json

from codna.errors import RevertConflict
from codna.markdown.diff import Opcode, line_opcodes


class _Map:
    """Where the lines of one version are in another, from the `equal` opcodes between them."""

    def __init__(self, codes: list[Opcode]) -> None:
        self.blocks = [(i1, i2, j1) for tag, i1, i2, j1, _ in codes if tag == "equal"]
        self.starts = [block[0] for block in self.blocks]

    def run(self, first: int, stop: int) -> int | None:
        """Where lines `first` to `stop` (exclusive, non-empty) are, unchanged and together."""
        at = bisect.bisect_right(self.starts, first) - 1
        if at < 0:
            return None
        i1, i2, j1 = self.blocks[at]
        if first < i1 or stop > i2:
            return None
        return j1 + first - i1


def _shown(lines: list[str], limit: int = 80) -> str:
    text = "".join(lines).rstrip("\n")
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def _place(hunk: Opcode, mapped: _Map, after_size: int, current_size: int) -> int | None:
    """Where in the current version the hunk's lines (as it left them) now start, if intact."""
    tag, _, _, a1, a2 = hunk
    pure = tag in ("insert", "delete")
    # With the neighbours of a pure insertion or removal, the run to find in the current
    # version; the start and end of the page stand for missing neighbours.
    first = a1 - 1 if pure and a1 > 0 else a1
    stop = a2 + 1 if pure and a2 < after_size else a2
    if first == stop:  # the whole of `after` is this hunk's and it wrote nothing
        return 0 if current_size == 0 else None
    found = mapped.run(first, stop)
    if found is None:
        return None
    start = found + (a1 - first)
    if pure and a1 == 0 and start != 0:
        return None
    if pure and a2 == after_size and start + (a2 - a1) != current_size:
        return None
    return start


def undo(before: str, after: str, current: str) -> str:
    """`current` with the change that turned `before` into `after` undone.

    If `current` is `after`, that is `before`. Otherwise each changed region is swapped back
    where the text it wrote is still as it left it. All or none.

    Raises RevertConflict (reason="changed_since", hunk: the 0-based index of the change,
    line: where it was in `after`, 1-based) when the text of a change was changed since.
    """
    if current == after:
        return before
    before_lines, after_lines, codes = line_opcodes(before, after)
    hunks = [code for code in codes if code[0] != "equal"]
    if not hunks:
        return current
    _, current_lines, since = line_opcodes(after, current)
    mapped = _Map(since)
    swaps: list[tuple[int, int, list[str]]] = []
    for number, hunk in enumerate(hunks):
        _, b1, b2, a1, a2 = hunk
        start = _place(hunk, mapped, len(after_lines), len(current_lines))
        if start is None:
            if a2 > a1:
                what = f"the text it wrote, {_shown(after_lines[a1:a2])}, has changed since"
            else:
                what = (
                    f"it removed {_shown(before_lines[b1:b2])}, and the text around that "
                    "place has changed since"
                )
            raise RevertConflict(
                f"Change {number} of this revision (line {a1 + 1}) cannot be undone: {what}. "
                "Edit the page by hand instead.",
                reason="changed_since",
                hunk=number,
                line=a1 + 1,
            )
        swaps.append((start, start + (a2 - a1), before_lines[b1:b2]))
    result = current_lines
    for start, stop, lines in reversed(swaps):
        result[start:stop] = lines
    return "".join(result)
