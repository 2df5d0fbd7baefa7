"""Keeping blocks apart: the blank lines an inserted or appended text needs around it.

A writer who appends `## Consequences` to a page that ends with a paragraph means a heading,
not a line of that paragraph. Text that goes in on lines of its own, next to a line that is
not blank, is kept apart from it by one blank line, on each side where that holds:

- only where the inserted text's first (or last) line that is not blank is a whole line of
  its own: text that continues a line, or that the line it meets continues, is left alone;
- never where a blank line is there already, and never more than one;
- never between lines of one list (an item next to an item, or an item after an indented
  line), one table (`|` rows) or one block quote (`>` lines), nor before an indented line or
  a setext underline (`===`), which continue what is above them.

Text that starts a block is put on lines of its own first, where it goes in next to text on
the same line; then the rules above keep it apart. It starts a block when its first line that
is not blank is a heading, a list item, a fence, a quote, a table row or a thematic break, or
when it is whole lines (it ends with a newline, or holds a blank line); never when it starts
with a space or a tab. Text without a newline starts a block only as one whole block line
(`## Consequences`, `- one`, `| a |`) that goes in at a line's end or start: inside a line,
and as a prefix that ends in a space (`## `, `> `), it joins the line. So:

- where the point ends a line (the anchor's line goes on no further), the text goes after that
  line, as if anchored on its newline: a newline goes first, and one newline it ends with
  goes, as the line's own takes its place;
- where the point starts a line that goes on, a newline goes after the text if it has none;
- where the point is inside a line, the line is split: a newline before the text and one after
  it (if it has none), and the rest of the line is a block of its own after it, kept apart by
  a blank line unless the two belong to one list, table or quote.

Whether the text goes inside fenced code, where a blank line would change the code, is for the
caller to say: it knows the whole page (see edits.py).
"""

from __future__ import annotations

import re

_SPACE = " \t\n"
_THEMATIC_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})\Z")
_LIST_ITEM = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|\Z)")
_UNDERLINE = re.compile(r"=+[ \t]*\Z")
# The first line of text that starts a block: a heading, a list item, a fence, a quote, a row.
_BLOCK_START = re.compile(r"#{1,6}(?:[ \t]|\Z)|(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|\Z)|```|~~~|>|\|")
# Text without a newline that is one whole block line, not a prefix that joins a line.
_WHOLE_BLOCK_LINE = re.compile(
    r"(?:(?:#{1,6}|[-+*]|[0-9]{1,9}[.)]|>)[ \t]+\S(?:.*\S)?|\|.*\||```.*|~~~.*)\Z"
)

# Neighbouring lines (the one above, the one below) that belong to one block.
_TOGETHER = {("list", "list"), ("indented", "list"), ("table", "table"), ("quote", "quote")}


def _kind(line: str) -> str:
    """What a line is, as far as keeping blocks apart goes."""
    if line[:1] in (" ", "\t"):
        return "indented"
    if _THEMATIC_BREAK.match(line):
        return "break"
    if _LIST_ITEM.match(line):
        return "list"
    if line[:1] == "|":
        return "table"
    if line[:1] == ">":
        return "quote"
    if _UNDERLINE.match(line):
        return "underline"
    return "block"  # a heading, a fence, a paragraph: a block of its own


def _apart(above: str, below: str) -> bool:
    """Whether a blank line goes between these two neighbouring lines, neither blank."""
    lower = _kind(below)
    if lower in ("indented", "underline"):
        return False
    return (_kind(above), lower) not in _TOGETHER


def _newline_before(text: str, start: int, end: int) -> int | None:
    """Where a newline makes a blank line above the first line of `text[start:end]` (what goes
    in), or None where none is needed."""
    inserted = text[start:end]
    first = start + len(inserted) - len(inserted.lstrip(_SPACE))
    line_start = text.rfind("\n", 0, first) + 1
    line_end = text.find("\n", first)
    line_end = len(text) if line_end < 0 else line_end
    if line_start == 0 or line_start < start or line_end > end:
        return None  # at the top of the page, or not a line of its own
    before = text[: line_start - 1]
    kept = before.rstrip(_SPACE)
    if not kept or "\n" in before[len(kept) :]:
        return None  # only blank lines above it, or a blank line already
    above = kept[kept.rfind("\n") + 1 :]
    return line_start if _apart(above, text[line_start:line_end]) else None


def _newline_after(text: str, start: int, end: int) -> int | None:
    """Where a newline makes a blank line below the last line of `text[start:end]`, or None."""
    last = len(text[:end].rstrip(_SPACE))
    line_start = text.rfind("\n", 0, last) + 1
    line_end = text.find("\n", last)
    if line_end < 0 or line_start < start or line_end > end:
        return None  # at the end of the page, or not a line of its own
    after = text[line_end + 1 :]
    kept = after.lstrip(_SPACE)
    if not kept or "\n" in after[: len(after) - len(kept)]:
        return None  # only blank lines below it, or a blank line already
    below_end = after.find("\n")
    below = after if below_end < 0 else after[:below_end]
    return line_end if _apart(text[line_start:line_end], below) else None


def _first_line(text: str) -> str:
    """The first line of `text` that is not blank, without its newline."""
    rest = text.lstrip("\n")
    return rest.split("\n", 1)[0]


def _starts_block(text: str) -> bool:
    """Whether `text`, going in next to text on the same line, starts a block of its own."""
    if text[:1] in (" ", "\t") or not text.strip(_SPACE):
        return False
    if "\n" not in text:
        return bool(_WHOLE_BLOCK_LINE.match(text) or _THEMATIC_BREAK.match(text))
    first = _first_line(text)
    if first[:1] in (" ", "\t"):
        return False
    if _BLOCK_START.match(first) or _THEMATIC_BREAK.match(first):
        return True
    core = text.strip("\n")
    return text.endswith("\n") or re.search(r"\n[ \t]*\n", core) is not None


def _own_lines(before: str, text: str, after: str) -> tuple[str, bool]:
    """`text` put on lines of its own where it starts a block and meets text on its line, and
    whether it splits a line whose rest goes on after it."""
    line_start = not before or before.endswith("\n")
    line_end = not after or after.startswith("\n")
    if (line_start and line_end) or not _starts_block(text):
        return text, False
    if "\n" not in text and not line_start and not line_end:
        return text, False  # one line within a line: it joins it
    if line_end:  # after the line: its newline stands for the one the text ends with
        if text.startswith("\n"):
            return text, False
        return "\n" + (text.removesuffix("\n") if after else text), False
    if not line_start and not text.startswith("\n"):
        text = "\n" + text
    if not text.endswith("\n"):
        text += "\n"
    return text, not line_start


def keep_apart(before: str, text: str, after: str) -> str:
    """`text`, to go between `before` and `after`, with the newlines that keep it apart from them
    as the module says: text that starts a block put on lines of its own, and one blank line at
    most on each side.

    `before` is the page before it from the start of a line, holding the last line before it
    that is not blank (or all there is); `after` the page after it up to the end of the first
    line after it that is not blank (or all there is).
    """
    if not text.strip(_SPACE):
        return text
    text, split = _own_lines(before, text, after)
    rest = after.split("\n", 1)[0]
    kept = text.rstrip(_SPACE)
    if split and rest.strip(" \t") and text[len(kept) :].count("\n") < 2:
        # The rest of a split line is a block of its own: apart from the text's last line
        # unless they belong together, whatever spaces it starts with.
        last = kept[kept.rfind("\n") + 1 :]
        if _apart(last, rest.lstrip(" \t")):
            text += "\n"
    joined = before + text + after
    start, end = len(before), len(before) + len(text)
    below = _newline_after(joined, start, end)
    above = _newline_before(joined, start, end)
    for at in (below, above):  # the later first, so the earlier offset still holds
        if at is not None:
            text = f"{text[: at - start]}\n{text[at - start :]}"
    return text
