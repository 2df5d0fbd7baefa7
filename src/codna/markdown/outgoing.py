"""The pages a body links to, found cheaply: a few regular expressions over the text, no
Markdown parse.

What is read: inline link destinations (`](dest)`, `](dest "title")`, `](<dest>)`), reference
definitions (`[x]: dest` at a line's start) and internal autolinks (`<wiki:x>`). Each
destination that is an internal address (`wiki:decisions/0024#limits`) or a relative link
(relative.py, read against the page's own folder) counts, without its fragment. Fenced code
blocks (``` and ~~~ at a line's start) and single-backtick code spans are skipped; other
code (indented blocks, fences inside lists or quotes, longer code spans) and images are not
told apart, so an address written there counts too. Each expression matches in time linear
in the text (no nested repeats, every repeat bounded by a character class that stops at the
next delimiter), whatever it holds.
"""

from __future__ import annotations

import re

from codna.markdown.relative import folder_of, resolve
from codna.vocabulary import SEGMENT, SPACES

_INTERNAL = re.compile(rf"(?P<address>(?:{'|'.join(SPACES)}):{SEGMENT}(?:/{SEGMENT})*)(?:#.*)?")
# A destination that may be a page's starts with a letter, a digit or a `.`.
_INLINE = re.compile(
    r"\]\([ \t]*(?:<(?P<angled>[A-Za-z0-9.][^<>\n]*)>|(?P<plain>[A-Za-z0-9.][^\s()<>]*))"
)
# Lines are found by the newline before them (the text gets one in front), which the engine
# finds far faster than a MULTILINE `^`.
_DEFINITION = re.compile(
    r"\n {0,3}\[[^\]\n]+\]:[ \t]*(?:<(?P<angled>[A-Za-z0-9.][^<>\n]*)>|(?P<plain>[A-Za-z0-9.]\S*))"
)
_AUTOLINK = re.compile(rf"<(?P<plain>(?:{'|'.join(SPACES)}):[^\s<>]*)>")
_FENCE = re.compile(r"\n {0,3}(?P<marks>`{3,}|~{3,})(?P<rest>[^\n]*)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")


def _without_fences(body: str) -> str:
    """`body` (a newline in front) with each fenced code block's lines left out (a fence
    left open runs to the end, as in CommonMark)."""
    kept: list[str] = []
    start = 0  # where the text outside fences goes on from
    opened: str | None = None  # the open fence's marks
    for line in _FENCE.finditer(body):
        marks, rest = line["marks"], line["rest"]
        if opened is None:
            if marks[0] == "`" and "`" in rest:
                continue  # an info string with a backtick: not a fence
            kept.append(body[start : line.start()])
            opened = marks
        elif marks[0] == opened[0] and len(marks) >= len(opened) and not rest.strip():
            opened = None
            start = line.end()
    if opened is None:
        kept.append(body[start:])
    return "".join(kept)


def outgoing_links(body: str, *, at: str) -> set[str]:
    """The page addresses (`wiki:decisions/0024`, no fragment) that `body`, the text of the
    page at `at`, links to: internal addresses as written and relative links resolved
    against the page's folder. Raises nothing."""
    lines = "\n" + body.replace("\r\n", "\n").replace("\r", "\n")
    text = _CODE_SPAN.sub("", _without_fences(lines))
    folder = folder_of(at)
    destinations = {
        match["plain"] or match.groupdict().get("angled") or ""
        for pattern in (_INLINE, _DEFINITION, _AUTOLINK)
        for match in pattern.finditer(text)
    }
    found: set[str] = set()
    for destination in destinations:
        internal = _INTERNAL.fullmatch(destination)
        if internal is not None:
            found.add(internal["address"])
        elif (relative := resolve(destination, folder=folder)) is not None:
            found.add(relative[0])
    return found
