"""Line and word diffs between two versions of a page, fast and bounded on long pages.

`unified_diff` prints what `difflib.unified_diff` prints for the lines of the two texts, with
two decisions of ours:

- **Lines end at `\\n` only.** Bodies are normalised to `\\n`; `str.splitlines` would also
  split at form feeds, `\\x1c`-`\\x1e`, `\\x85`, `\\u2028` and `\\u2029`, which we keep inside a
  line. For text without those the lines are the same.
- **A last line without a newline** is printed as `git diff` prints it: the line, a newline,
  and the marker line `\\ No newline at end of file`.
- **Each hunk names its section**, as `git diff` names a hunk's function: its `@@` line ends
  with the heading path of the section its first line is in, in the old text.

The lines both versions begin and end with are cut off before difflib runs (found by
comparing the strings in blocks, then backing up to a line boundary), so a one-paragraph
change to a 1 MB page costs what the paragraph costs; difflib only sees the middle, and the hunks
get their line numbers and context back from the cut lines. The hunks are therefore the
hunks of difflib's matching of the middle. That is difflib's result for the whole texts
whenever difflib keeps the common first and last lines matched in place, which is the usual
case; where it would not (it can pair a repeated line across the change, and on texts of 200
lines or more its "autojunk" heuristic ignores frequent lines such as blank ones), ours is
the smaller, more local diff.

**The matching is bounded**, as git and GNU diff bound theirs. difflib's time grows with the
product of the middles' lengths, and more than that on many repeated lines, so its steps
(each line of the old middle it scans, each place in the new one that line could match) are
counted, and past `_STEPS` (some 0.1 s) it is stopped and the middle matched coarser,
patience-style: the lines found once in each middle, in the longest order both keep, are
anchors, grown to the runs of equal lines around them; difflib matches each gap between the
runs with a share of a second `_STEPS`, and a gap it cannot match within its share is
anchored again on the lines found once in it. A gap with no such lines, or any once the
budget is spent, is one block of removed lines followed by the added ones. Coarser means
that lines a finer matching keeps may be shown removed and added again, never a wrong diff:
the hunks still turn the old text into the new. The rest of the work (splitting, the common
ends, printing) is linear, and `word_diff` is bounded the same way.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import accumulate, repeat

from codna.markdown.sections import scan_headings

Opcode = tuple[str, int, int, int, int]
Block = tuple[int, int, int]  # a run of equal items: (start in a, start in b, length)
Span = tuple[int, int, int, int]  # the items a[alo:ahi] and b[blo:bhi]: (alo, ahi, blo, bhi)

_NO_NEWLINE = "\n\\ No newline at end of file\n"


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its `\\n` (the last one may lack it)."""
    if not text:
        return []
    lines = text.split("\n")
    last = lines.pop()
    result = [line + "\n" for line in lines]
    if last:
        result.append(last)
    return result


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b`."""
    limit = min(len(a), len(b))
    low, step = 0, 512
    # Compare growing blocks until one differs, then halve the differing block.
    while low < limit:
        high = min(limit, low + step)
        if a[low:high] != b[low:high]:
            break
        low, step = high, step * 2
    else:
        return limit
    while high - low > 16:
        middle = (low + high) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle
    while low < high and a[low] == b[low]:
        low += 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the longest common suffix of `a` and `b`, at most `limit`."""
    len_a, len_b = len(a), len(b)
    low, step = 0, 512
    while low < limit:
        high = min(limit, low + step)
        if a[len_a - high : len_a - low] != b[len_b - high : len_b - low]:
            break
        low, step = high, step * 2
    else:
        return limit
    while high - low > 16:
        middle = (low + high) // 2
        if a[len_a - middle : len_a - low] == b[len_b - middle : len_b - low]:
            low = middle
        else:
            high = middle
    while low < high and a[len_a - low - 1] == b[len_b - low - 1]:
        low += 1
    return low


def trim_common_lines(old: str, new: str) -> tuple[int, int, int]:
    """Where the common leading and trailing lines end and begin: `(head, old_tail, new_tail)`.

    `old[:head] == new[:head]` and `old[old_tail:] == new[new_tail:]` are whole lines, as
    many as possible, and they do not overlap (`head <= old_tail`, `head <= new_tail`).
    """
    head = _common_prefix(old, new)
    head = old.rfind("\n", 0, head) + 1
    tail = _common_suffix(old, new, min(len(old), len(new)) - head)
    old_tail, new_tail = len(old) - tail, len(new) - tail
    at_line_start = (old_tail == 0 or old[old_tail - 1] == "\n") and (
        new_tail == 0 or new[new_tail - 1] == "\n"
    )
    if not at_line_start:
        newline = old.find("\n", old_tail)
        if newline < 0:
            return head, len(old), len(new)
        new_tail += newline + 1 - old_tail
        old_tail = newline + 1
    return head, old_tail, new_tail


# The bound on matching, in steps of difflib's find_longest_match: one for each place in `b`
# an item of `a` could match, _ITEM_STEPS for each item of `a` it looks at (about what they
# cost). A diff may take _STEPS with difflib on the whole middle and _STEPS more to match it
# coarsely (on this project's 2-core machine under 0.1 s each); a gap between anchors may
# try difflib with _GAP_STEPS for each of its items.
_STEPS = 500_000
_ITEM_STEPS = 2
_GAP_STEPS = 256


class _OverBudget(Exception):
    """Matching would take more steps than it may."""


class _Budget:
    """The steps a matching may take, and those it took."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.spent = 0

    def spend(self, steps: int) -> None:
        if self.spent + steps > self.steps:
            raise _OverBudget
        self.spent += steps

    def share(self, steps: int) -> _Budget:
        """A budget of at most `steps` out of those left; add its `spent` back when done."""
        return _Budget(min(steps, self.steps - self.spent))


class _BoundedMatcher(difflib.SequenceMatcher[Hashable]):
    """difflib's matcher, stopped by _OverBudget before a search that would go past its budget."""

    def __init__(self, a: Sequence[Hashable], b: Sequence[Hashable], budget: _Budget) -> None:
        super().__init__(None, a, b)
        self._budget = budget
        self._lengths = len(a), len(b)
        # The places in `b` an item of `a` could match; difflib's autojunk ignores items that
        # fill more than 1% of a `b` of 200 items or more.
        popular = len(b) // 100 + 1 if len(b) >= 200 else len(b)
        places = {item: count for item, count in Counter(b).items() if count <= popular}
        self._places_before = [0, *accumulate(map(places.get, a, repeat(0)))]

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> difflib.Match:
        ahi = self._lengths[0] if ahi is None else ahi
        bhi = self._lengths[1] if bhi is None else bhi
        places = self._places_before[ahi] - self._places_before[alo]
        self._budget.spend(_ITEM_STEPS * (ahi - alo) + places)
        return super().find_longest_match(alo, ahi, blo, bhi)


def _difflib_blocks(
    a: Sequence[Hashable], b: Sequence[Hashable], span: Span, budget: _Budget
) -> list[Block]:
    """difflib's matching blocks of the span's items; _OverBudget past `budget`."""
    alo, ahi, blo, bhi = span
    matcher = _BoundedMatcher(a[alo:ahi], b[blo:bhi], budget)
    return [(alo + i, blo + j, size) for i, j, size in matcher.get_matching_blocks() if size]


def _matching_blocks(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[Block]:
    """The runs of equal items of `a` and `b`, in order: difflib's, or coarser past the bound."""
    try:
        return _difflib_blocks(a, b, (0, len(a), 0, len(b)), _Budget(_STEPS))
    except _OverBudget:
        # The first anchoring, of the whole middle, is linear work and never refused.
        return _anchored_blocks(a, b, _Budget(len(a) + len(b) + _STEPS))


def _anchored_blocks(a: Sequence[Hashable], b: Sequence[Hashable], budget: _Budget) -> list[Block]:
    """Runs of equal items grown from anchors, the gaps between them matched within `budget`.

    The anchors are the items found once in each span (patience diff's). difflib matches a
    gap with a share of the budget in proportion to its size; a gap it cannot match so is
    anchored on its own, and a span without anchors, or any once the budget is spent, is
    left unmatched. Each anchoring costs the span's size, so the work is bounded.
    """
    blocks: list[Block] = []
    spans = [(0, len(a), 0, len(b))]
    while spans:
        alo, ahi, blo, bhi = spans.pop()
        try:
            budget.spend(ahi - alo + bhi - blo)
        except _OverBudget:
            break
        runs = _anchor_runs(a, b, (alo, ahi, blo, bhi))
        if not runs:
            continue
        blocks += runs
        i, j = alo, blo
        for start_a, start_b, size in [*runs, (ahi, bhi, 0)]:
            if i < start_a and j < start_b:  # a gap with items on both sides
                gap = (i, start_a, j, start_b)
                trial = budget.share(_GAP_STEPS * (start_a - i + start_b - j))
                try:
                    blocks += _difflib_blocks(a, b, gap, trial)
                except _OverBudget:
                    spans.append(gap)
                budget.spent += trial.spent
            i, j = start_a + size, start_b + size
    return sorted(blocks)


def _anchor_runs(a: Sequence[Hashable], b: Sequence[Hashable], span: Span) -> list[Block]:
    """The anchors of a span, each grown to the run of equal items around it.

    The anchors are the items found once on each side, in the longest order both sides keep.
    """
    alo, ahi, blo, bhi = span
    in_a, in_b = Counter(a[alo:ahi]), Counter(b[blo:bhi])
    where = {item: i for i, item in enumerate(a[alo:ahi], alo) if in_a[item] == 1}
    pairs = [(where[x], j) for j, x in enumerate(b[blo:bhi], blo) if in_b[x] == 1 and x in where]
    runs: list[Block] = []
    end_a, end_b = alo, blo
    for i, j in _longest_increasing(pairs):
        if i < end_a:  # inside the run grown from the anchor before
            continue
        start_a, start_b = i, j
        while start_a > end_a and start_b > end_b and a[start_a - 1] == b[start_b - 1]:
            start_a, start_b = start_a - 1, start_b - 1
        end_a, end_b = i + 1, j + 1
        while end_a < ahi and end_b < bhi and a[end_a] == b[end_b]:
            end_a, end_b = end_a + 1, end_b + 1
        runs.append((start_a, start_b, end_a - start_a))
    return runs


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of `pairs` whose first items increase, by patience sorting."""
    tops: list[int] = []  # the first item on top of each pile
    top_at: list[int] = []  # where in `pairs` that top is
    below: list[int] = []  # for each pair, the top of the pile before when it was laid
    for at, (i, _) in enumerate(pairs):
        pile = bisect_left(tops, i)
        below.append(top_at[pile - 1] if pile else -1)
        if pile == len(tops):
            tops.append(i)
            top_at.append(at)
        else:
            tops[pile], top_at[pile] = i, at
    chain: list[tuple[int, int]] = []
    at = top_at[-1] if top_at else -1
    while at >= 0:
        chain.append(pairs[at])
        at = below[at]
    return chain[::-1]


def _opcodes(blocks: list[Block], len_a: int, len_b: int) -> list[Opcode]:
    """difflib's get_opcodes for matching blocks of two sequences (in order, none touching)."""
    codes: list[Opcode] = []
    i = j = 0
    for start_a, start_b, size in [*blocks, (len_a, len_b, 0)]:
        if i < start_a or j < start_b:
            tag = "delete" if j == start_b else "insert" if i == start_a else "replace"
            codes.append((tag, i, start_a, j, start_b))
        i, j = start_a + size, start_b + size
        if size:
            codes.append(("equal", start_a, i, start_b, j))
    return codes


def opcodes(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[Opcode]:
    """difflib's get_opcodes from `a` to `b`, any items, matched within the same bound as
    lines are (coarser past it, never slower)."""
    return _opcodes(_matching_blocks(a, b), len(a), len(b))


def _middle_opcodes(old_lines: list[str], new_lines: list[str], offset: int) -> list[Opcode]:
    blocks = _matching_blocks(old_lines, new_lines)
    return [
        (tag, i1 + offset, i2 + offset, j1 + offset, j2 + offset)
        for tag, i1, i2, j1, j2 in _opcodes(blocks, len(old_lines), len(new_lines))
    ]


def line_opcodes(old: str, new: str) -> tuple[list[str], list[str], list[Opcode]]:
    """The lines of both texts and difflib opcodes between them, the common ends cut first.

    The opcodes cover every line, like SequenceMatcher.get_opcodes(); the common leading and
    trailing lines are one `equal` opcode each. Past the bound they are the coarser ones.
    """
    head, old_tail, new_tail = trim_common_lines(old, new)
    prefix = split_lines(old[:head])
    suffix = split_lines(old[old_tail:])
    old_middle, new_middle = split_lines(old[head:old_tail]), split_lines(new[head:new_tail])
    codes = _join(len(prefix), _middle_opcodes(old_middle, new_middle, len(prefix)), len(suffix))
    return prefix + old_middle + suffix, prefix + new_middle + suffix, codes


def _join(prefix: int, middle: list[Opcode], suffix: int) -> list[Opcode]:
    """Opcodes for the whole texts: the common lines before and after the middle's opcodes."""
    codes: list[Opcode] = []
    if prefix:
        codes.append(("equal", 0, prefix, 0, prefix))
    end_old = end_new = prefix
    for code in middle:
        if code[1] == code[2] and code[3] == code[4]:
            continue
        if codes and code[0] == "equal" and codes[-1][0] == "equal":
            _, i1, _, j1, _ = codes.pop()
            code = ("equal", i1, code[2], j1, code[4])
        codes.append(code)
        end_old, end_new = code[2], code[4]
    if suffix:
        tail: Opcode = ("equal", end_old, end_old + suffix, end_new, end_new + suffix)
        if codes and codes[-1][0] == "equal":
            _, i1, _, j1, _ = codes.pop()
            tail = ("equal", i1, tail[2], j1, tail[4])
        codes.append(tail)
    return codes


def _groups(codes: list[Opcode], context: int) -> list[list[Opcode]]:
    """difflib's SequenceMatcher.get_grouped_opcodes, on opcodes we already have."""
    if not codes:
        codes = [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def _range(start: int, stop: int) -> str:
    # difflib's _format_range_unified: "start,length", 1-based, "start" alone for one line.
    beginning = start + 1
    length = stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _lines_before(text: str, end: int, count: int) -> list[str]:
    """Up to `count` whole lines of `text` that end at `end` (a line start)."""
    start = end
    for _ in range(count):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    return split_lines(text[start:end])


def _lines_after(text: str, start: int, count: int) -> list[str]:
    """Up to `count` lines of `text` from `start` (a line start) on."""
    end = start
    for _ in range(count):
        if end >= len(text):
            break
        newline = text.find("\n", end)
        end = len(text) if newline < 0 else newline + 1
    return split_lines(text[start:end])


class _SectionPaths:
    """The heading path of the section each line of a text is in, from one scan of its
    headings: `Decision > Limits` for a line under `## Limits` under `# Decision`."""

    def __init__(self, text: str) -> None:
        headings = scan_headings(text)
        self._lines = [heading.line for heading in headings]
        self._texts = [" ".join(heading.text.split()) for heading in headings]
        self._parents: list[int] = []
        open_headings: list[int] = []
        for index, heading in enumerate(headings):
            while open_headings and headings[open_headings[-1]].level >= heading.level:
                open_headings.pop()
            self._parents.append(open_headings[-1] if open_headings else -1)
            open_headings.append(index)

    def of_line(self, line: int) -> str:
        """The path of the 0-based `line`; "" above the first heading."""
        index = bisect_right(self._lines, line) - 1
        path: list[str] = []
        while index >= 0:
            path.append(self._texts[index])
            index = self._parents[index]
        return " > ".join(reversed(path))


def unified_diff(
    old: str, new: str, *, old_label: str = "before", new_label: str = "after", context: int = 3
) -> str:
    """The unified diff from `old` to `new` (`---`, `+++`, `@@` lines), "" if they are equal.

    One string of whole lines; a last line without a newline is followed by the line
    `\\ No newline at end of file`. As git names a hunk's function, each `@@` line ends with
    the heading path of the section the hunk's first line is in, in `old` (`@@ -18,3 +18,5 @@
    Decision > Limits`); a hunk above the first heading names none.
    """
    if old == new:
        return ""
    head, old_tail, new_tail = trim_common_lines(old, new)
    first = old.count("\n", 0, head)  # the number of common leading lines
    before = _lines_before(old, head, context)
    after = _lines_after(old, old_tail, context)
    old_middle, new_middle = split_lines(old[head:old_tail]), split_lines(new[head:new_tail])
    # Only `context` of the common lines at either end can be shown, so only those are kept.
    window_old = before + old_middle + after
    window_new = before + new_middle + after
    offset = first - len(before)
    # The common leading lines stand as one `equal` opcode from line 0, as in difflib; the
    # grouping keeps only its last `context` lines, which are the ones in the window.
    codes = _join(first, _middle_opcodes(old_middle, new_middle, first), len(after))
    out = [f"--- {old_label}\n", f"+++ {new_label}\n"]
    paths = _SectionPaths(old)
    for group in _groups(codes, context):
        first_code, last_code = group[0], group[-1]
        path = paths.of_line(first_code[1])
        out.append(
            f"@@ -{_range(first_code[1], last_code[2])} +{_range(first_code[3], last_code[4])} @@"
            + (f" {path}\n" if path else "\n")
        )
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in window_old[i1 - offset : i2 - offset])
                continue
            if tag in ("replace", "delete"):
                out.extend("-" + line for line in window_old[i1 - offset : i2 - offset])
            if tag in ("replace", "insert"):
                out.extend("+" + line for line in window_new[j1 - offset : j2 - offset])
    # Only the last line of either text can lack its newline, and it can show in the middle
    # of the output (a removed last line followed by an added one).
    return "".join(line if line.endswith("\n") else line + _NO_NEWLINE for line in out)


def diff_stats(diff: str) -> tuple[int, int]:
    """The number of lines a unified diff adds and removes."""
    added = removed = 0
    in_hunk = False
    for line in diff.split("\n"):
        if line.startswith("@@"):
            in_hunk = True
        elif in_hunk and line.startswith("+"):
            added += 1
        elif in_hunk and line.startswith("-"):
            removed += 1
    return added, removed


_WORD = re.compile(r"\w+|\s+|[^\w\s]")


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """The change from `old` to `new` word by word: runs tagged "equal", "delete" or "insert".

    A word is a run of letters and digits, a run of white space or any other one character. A
    replaced run is its deletion followed by its insertion; the equal and deleted runs make
    `old`, the equal and inserted runs make `new`. The common first and last words are cut
    off before matching, which is bounded as the lines' is.
    """
    a, b = _WORD.findall(old), _WORD.findall(new)
    shorter = min(len(a), len(b))
    head = 0
    while head < shorter and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < shorter - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle_a, middle_b = a[head : len(a) - tail], b[head : len(b) - tail]
    runs = [("equal", "".join(a[:head]))]
    for tag, i1, i2, j1, j2 in _opcodes(
        _matching_blocks(middle_a, middle_b), len(middle_a), len(middle_b)
    ):
        if tag == "equal":
            runs.append(("equal", "".join(middle_a[i1:i2])))
        if tag in ("replace", "delete"):
            runs.append(("delete", "".join(middle_a[i1:i2])))
        if tag in ("replace", "insert"):
            runs.append(("insert", "".join(middle_b[j1:j2])))
    runs.append(("equal", "".join(a[len(a) - tail :])))
    return [run for run in runs if run[1]]
