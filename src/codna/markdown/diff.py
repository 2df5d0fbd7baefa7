"""Line diffs between two versions of a page, fast on long pages.

`unified_diff` prints what `difflib.unified_diff` prints for the lines of the two texts, with
two decisions of ours:

- **Lines end at `\\n` only.** Bodies are normalised to `\\n`; `str.splitlines` would also
  split at form feeds, `\\x1c`-`\\x1e`, `\\x85`, `\\u2028` and `\\u2029`, which we keep inside a
  line. For text without those the lines are the same.
- **A last line without a newline** is printed as `git diff` prints it: the line, a newline,
  and the marker line `\\ No newline at end of file`.

The lines both versions begin and end with are cut off before difflib runs (found by
comparing the strings in blocks, then backing up to a line boundary), so a one-paragraph
change to a 1 MB page diffs in a few milliseconds; difflib only sees the middle, and the hunks
get their line numbers and context back from the cut lines. The hunks are therefore the
hunks of difflib's matching of the middle. That is difflib's result for the whole texts
whenever difflib keeps the common first and last lines matched in place, which is the usual
case; where it would not (it can pair a repeated line across the change, and on texts of 200
lines or more its "autojunk" heuristic ignores frequent lines such as blank ones), ours is
the smaller, more local diff.
"""

from __future__ import annotations

import difflib

Opcode = tuple[str, int, int, int, int]

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


def _middle_opcodes(old_lines: list[str], new_lines: list[str], offset: int) -> list[Opcode]:
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines)
    return [
        (tag, i1 + offset, i2 + offset, j1 + offset, j2 + offset)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    ]


def line_opcodes(old: str, new: str) -> tuple[list[str], list[str], list[Opcode]]:
    """The lines of both texts and difflib opcodes between them, the common ends cut first.

    The opcodes cover every line, like SequenceMatcher.get_opcodes(); the common leading and
    trailing lines are one `equal` opcode each.
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


def unified_diff(
    old: str, new: str, *, old_label: str = "before", new_label: str = "after", context: int = 3
) -> str:
    """The unified diff from `old` to `new` (`---`, `+++`, `@@` lines), "" if they are equal.

    One string of whole lines; a last line without a newline is followed by the line
    `\\ No newline at end of file`.
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
    for group in _groups(codes, context):
        first_code, last_code = group[0], group[-1]
        out.append(
            f"@@ -{_range(first_code[1], last_code[2])} +{_range(first_code[3], last_code[4])} @@\n"
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
