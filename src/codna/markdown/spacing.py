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

Whether the text goes inside fenced code, where a blank line would change the code, is for the
caller to say: it knows the whole page (see edits.py).
"""

from __future__ import annotations

import re

_SPACE = " \t\n"
_THEMATIC_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})\Z")
_LIST_ITEM = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|\Z)")
_UNDERLINE = re.compile(r"=+[ \t]*\Z")

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


def keep_apart(before: str, text: str, after: str) -> str:
    """`text`, to go between `before` and `after`, with the newlines (one at most on each side)
    that keep it apart from them as the module says.

    `before` is the page before it from the start of a line, holding the last line before it
    that is not blank (or all there is); `after` the page after it up to the end of the first
    line after it that is not blank (or all there is).
    """
    if not text.strip(_SPACE):
        return text
    joined = before + text + after
    start, end = len(before), len(before) + len(text)
    below = _newline_after(joined, start, end)
    above = _newline_before(joined, start, end)
    for at in (below, above):  # the later first, so the earlier offset still holds
        if at is not None:
            text = f"{text[: at - start]}\n{text[at - start :]}"
    return text
