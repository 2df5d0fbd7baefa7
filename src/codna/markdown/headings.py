"""The heading grammar the scanner (sections.py) is made of: which lines may be headings, how
a heading's text is read, and how a name is made of segments. See sections.py for what counts
as a heading.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from markdown_it import MarkdownIt

# CommonMark's whitespace, as markdown-it trims heading text with it.
TRIM = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
TRIM_IN_LINE = TRIM.replace("\n", "")

# Characters inline Markdown may change: without any of them a heading's text is itself.
MARKUP_CHARS = r"\\&`*_\[<\x00"
MARKUP = re.compile(f"[{MARKUP_CHARS}\n]")
# The longest heading whose markup is parsed to find its plain text (plain_text).
MOST_PARSED = 2_000

# Every ATX line.
ANY_ATX = r"(?P<hashes>#{1,6})(?P<rest>[ \t][^\n]*+)?"


def lines_pattern(atx: str) -> re.Pattern[str]:
    """The lines that may matter, each found by the newline before it.

    The lookahead keeps the engine from trying the alternatives on the lines that cannot be
    any of them, which is nearly all.
    """
    return re.compile(
        r"\n {0,3}(?=[#`~=*_-])(?:" + atx + r"|(?P<fence>`{3,})[^`\n]*"
        r"|(?P<tildes>~{3,})[^\n]*"
        r"|(?P<underline>=+|-+)[ \t]*"
        r"|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,}"  # a thematic break
        r")(?=\n|\Z)"
    )


ALL_LINES = lines_pattern(ANY_ATX)

ATX_LINE = re.compile(r" {0,3}#{1,6}(?=[ \t\n]|\Z)")

# A line that opens a block quote or a list item, which the scanner does not follow.
CONTAINER = re.compile(r" {0,3}(?:>|(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t\n]|\Z))")

_LEVEL_PREFIX = re.compile(r"(#{1,6})[ \t]+(\S.*)", re.DOTALL)


def trim(text: str) -> str:
    """The text without CommonMark whitespace around it."""
    return text.strip(TRIM)


# --- a heading's text ------------------------------------------------------------------------


@functools.cache
def _inline_parser() -> MarkdownIt:
    return MarkdownIt("commonmark")


def _tokens_text(tokens: list[Any]) -> str:
    parts: list[str] = []
    for token in tokens:
        kind = token.type
        if kind in ("text", "code_inline"):
            parts.append(token.content)
        elif kind in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif kind == "image":
            parts.append(_tokens_text(token.children or []))
    return "".join(parts)


def inline_tokens_text(tokens: list[Any]) -> str:
    """The plain text of markdown-it inline tokens: text and code kept, markup dropped."""
    return trim(_tokens_text(tokens))


@functools.lru_cache(maxsize=8192)
def plain_text(raw: str) -> str:
    """A heading's plain text from its raw Markdown: inline markup stripped, spaces trimmed.

    `**Limits**` is `Limits`, `` `code` `` is `code`, `[text](url)` is `text`; a line break
    in a multi-line setext heading is a space. A heading longer than MOST_PARSED characters
    is its raw text: parsing costs time for each `![` it holds.
    """
    raw = trim(raw)
    if MARKUP.search(raw) is None or len(raw) > MOST_PARSED:
        return raw
    tokens = _inline_parser().parseInline(raw)
    return inline_tokens_text(tokens[0].children or [])


def atx_raw(rest: str | None) -> str:
    # markdown-it's rule: drop trailing spaces, then a run of `#` if a space precedes it.
    if not rest:
        return ""
    text = rest.rstrip(" \t")
    if text.endswith("#"):
        without = text.rstrip("#")
        if without and without[-1] in " \t":
            text = without
    return trim(text)


def text_is(raw: str, text: str) -> bool:
    """Whether the heading with this raw text has the plain text `text`."""
    if MARKUP.search(raw) is None:
        return raw == text
    # Without entities, inline parsing only removes characters (or makes line breaks
    # spaces): a cheap test rules out most headings before the parser runs.
    if "&" not in raw and "\x00" not in raw and not set(text) <= set(raw) | {" "}:
        return False
    return plain_text(raw) == text


def paragraph_start(body: str, low: int, line_start: int, origin: int = 0) -> int | None:
    """Where the paragraph an underline at `line_start` would close begins, or None.

    `low` is the start of the first line after the last fence, thematic break or setext
    heading; an ATX heading on the way also stops the paragraph. Offsets are the body's, which
    starts at `origin` in `body` (1 in a text with a newline in front).
    """
    lines: list[tuple[int, bool]] = []  # (start, indented), bottom up
    end = line_start - 1
    while end >= low:
        newline = body.rfind("\n", low + origin, end + origin) - origin
        start = newline + 1 if newline >= low else low
        line = body[start + origin : end + origin]
        stripped = line.lstrip(" \t")
        if not stripped or ATX_LINE.match(line) is not None:
            break
        lead = line[: len(line) - len(stripped)]
        lines.append((start, "\t" in lead or len(lead) >= 4))
        if start == low:
            break
        end = start - 1
    paragraph: int | None = None
    for start, indented in reversed(lines):
        if indented:
            continue  # indented code before the paragraph, or a lazy line inside it
        if paragraph is None:
            paragraph = start
        if CONTAINER.match(body, start + origin) is not None:
            return None
    return paragraph


Segment = tuple[int | None, str]


def segment(text: str) -> Segment:
    text = trim(text)
    prefixed = _LEVEL_PREFIX.fullmatch(text)
    if prefixed is None:
        return None, text
    return len(prefixed[1]), trim(prefixed[2])


def parse_name(name: str) -> list[Segment]:
    """A heading name as (level or None, text) segments, outermost first.

    `"Decision > ### Limits"` is `[(None, "Decision"), (3, "Limits")]`. The text after a
    level is taken as it is: `"## Limits ##"` names a heading whose text is `Limits ##`.
    """
    return [segment(part) for part in name.split(">")]
