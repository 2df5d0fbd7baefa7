"""The heading scanner: where each section of a page begins and ends, and how one is named.

What counts as a heading follows CommonMark as markdown-it-py's "commonmark" preset reads it,
for the shapes a wiki page is made of:

- ATX headings: 0-3 spaces, 1-6 `#`, then a space, a tab or the end of the line;
- setext headings: a paragraph underlined with `=` (level 1) or `-` (level 2); the paragraph
  may run over several lines, and the heading starts on its first line;
- no heading inside fenced code (``` or ~~~, three or more, 0-3 spaces of indent, closed by a
  fence of the same character at least as long; an unclosed fence runs to the end of the
  page) or indented code (4 or more columns, not continuing a paragraph);
- `---` after a blank line, a heading or code is a thematic break, not a heading.

The page is never parsed as a whole, nor split into lines: one regular expression finds the
few lines that can matter (ATX lines, fence lines, underlines and thematic breaks), and only
an underline looks back at the lines before it. Only the text of a heading goes through
markdown-it's inline parser, and only when it holds a character inline Markdown could change.
Finding one named section without this full scan, and keeping up with edits, is the work of
section_finder.py.

Left out, where CommonMark gets exotic (the scanner does the simple thing below, and the test
that compares it with markdown-it does not generate these shapes):

- block quotes: `> # Title` is not a heading here;
- list items: an ATX heading on its own line with 0-3 spaces of indent counts (`  # Title`
  under an item), one on the marker line (`- # Title`) does not; an underline below a
  paragraph that begins with or contains a list item or block quote line is never a setext
  heading (a `---` there is a thematic break); a fence after a list marker (`- `````) is not
  seen, while an indented fence inside an item is;
- HTML blocks: a `#` line inside `<div>` ... `</div>` with no blank line counts as a heading;
- link reference definitions: a heading's text is parsed on its own, so `[text][ref]` keeps its
  brackets; a definition line is taken as paragraph text.

The body must already have its newlines normalised to `\\n` (limits.normalise_newlines).
"""

from __future__ import annotations

import bisect
import difflib
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from codna.markdown.headings import (
    ALL_LINES,
    Segment,
    atx_raw,
    paragraph_start,
    parse_name,
    plain_text,
    segment,
    text_is,
    trim,
)


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading and the section it opens.

    `text` is the heading's plain text, `start` the offset where its first line begins,
    `content_start` where its content begins (after its line, or after a setext underline),
    `end` where its section ends (the next heading of the same or a higher level, or the end
    of the page) and `line` the 0-based number of its first line.
    """

    level: int
    text: str
    start: int
    content_start: int
    end: int
    line: int


class SectionLookupError(LookupError):
    """A heading name that does not pick out exactly one heading (the edits module reports it)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class SectionNotFound(SectionLookupError):
    """No heading has that name; `suggestions` are names of headings that come close."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        super().__init__(name)
        self.suggestions = suggestions


class SectionAmbiguous(SectionLookupError):
    """Several headings have that name: `count` of them; `hints` name some of them uniquely."""

    def __init__(self, name: str, count: int, hints: list[str]) -> None:
        super().__init__(name)
        self.count = count
        self.hints = hints


# --- the scan --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _closing_fence(marker: str, length: int) -> re.Pattern[str]:
    return re.compile(r"\n {0,3}" + re.escape(marker) + "{" + str(length) + r",}[ \t]*(?=\n|\Z)")


def heading_lines(
    body: str, start: int = 0, pattern: re.Pattern[str] = ALL_LINES, text: str | None = None
) -> Iterator[tuple[int, str, int, int]]:
    """The headings of `body` from offset `start` on, as they are found: (level, raw text,
    start, content start). `start` must begin a line outside any fenced block and paragraph,
    as 0 and a heading's start do: a heading begins at it or its line ends a paragraph, so
    nothing before it changes what the scan makes of the lines after (paragraph_start stops at
    an ATX line). `text` is `"\n" + body`, when the caller has it."""
    text = "\n" + body if text is None else text
    size = len(body)
    low = start  # no paragraph reaches back before this offset
    position = start
    while position < size:
        restart = size
        for match in pattern.finditer(text, position):
            line_start = match.start()
            next_line = match.end()  # the offset in body of the next line
            hashes = match["hashes"]
            if hashes is not None:
                yield len(hashes), atx_raw(match["rest"]), line_start, min(next_line, size)
                continue
            fence = match["fence"] or match["tildes"]
            if fence is not None:
                closing = _closing_fence(fence[0], len(fence)).search(text, next_line)
                restart = low = size if closing is None else closing.end()
                break
            underline = match["underline"]
            if underline is not None:
                paragraph = paragraph_start(body, low, line_start)
                if paragraph is not None:
                    level = 1 if underline[0] == "=" else 2
                    raw = trim(body[paragraph : line_start - 1])
                    yield level, raw, paragraph, min(next_line, size)
                    low = next_line
                elif underline[0] == "-" and len(underline) >= 3:
                    low = next_line  # a thematic break
                # otherwise the line is paragraph text
                continue
            low = next_line  # a thematic break
        position = restart


class _Outline:
    """Every heading of a body as parallel lists, cheaper than an object per heading.

    Ends, parents and line numbers are worked out when asked for.
    """

    __slots__ = ("_parents", "body", "content_starts", "levels", "raws", "starts", "text")

    def __init__(self, body: str) -> None:
        self.body = body
        # With a newline in front, every line of the body starts after one, and the line
        # that starts at offset k of the body is found by the newline at offset k of `text`.
        self.text = "\n" + body
        self.levels: list[int] = []
        self.raws: list[str] = []
        self.starts: list[int] = []
        self.content_starts: list[int] = []
        self._parents: list[int] | None = None
        self._scan(ALL_LINES)

    def _scan(self, pattern: re.Pattern[str]) -> None:
        levels, raws = self.levels, self.raws
        starts, content_starts = self.starts, self.content_starts
        for level, raw, start, content_start in heading_lines(self.body, 0, pattern, self.text):
            levels.append(level)
            raws.append(raw)
            starts.append(start)
            content_starts.append(content_start)

    def __len__(self) -> int:
        return len(self.levels)

    @property
    def parents(self) -> list[int]:
        if self._parents is None:
            parents = [-1] * len(self.levels)
            open_headings: list[int] = []
            for index, level in enumerate(self.levels):
                while open_headings and self.levels[open_headings[-1]] >= level:
                    open_headings.pop()
                if open_headings:
                    parents[index] = open_headings[-1]
                open_headings.append(index)
            self._parents = parents
        return self._parents

    def end(self, index: int) -> int:
        level, levels = self.levels[index], self.levels
        for later in range(index + 1, len(levels)):
            if levels[later] <= level:
                return self.starts[later]
        return len(self.body)

    def text_of(self, index: int) -> str:
        return plain_text(self.raws[index])

    def heading(self, index: int, line: int | None = None) -> Heading:
        start = self.starts[index]
        return Heading(
            level=self.levels[index],
            text=self.text_of(index),
            start=start,
            content_start=self.content_starts[index],
            end=self.end(index),
            line=self.body.count("\n", 0, start) if line is None else line,
        )

    def headings(self) -> list[Heading]:
        found: list[Heading] = []
        line, offset = 0, 0
        for index, start in enumerate(self.starts):
            line += self.body.count("\n", offset, start)
            offset = start
            found.append(self.heading(index, line))
        return found

    def text_is(self, index: int, text: str) -> bool:
        return text_is(self.raws[index], text)


def scan_headings(body: str) -> list[Heading]:
    """The headings of a page, in order, each with the section it opens."""
    return _Outline(body).headings()


# --- naming a heading ------------------------------------------------------------------------


def _matches(outline: _Outline, segments: list[Segment]) -> list[int]:
    *ancestors, (level, text) = segments
    found: list[int] = []
    levels = outline.levels
    for index in range(len(outline)):
        if level is not None and levels[index] != level:
            continue
        if not outline.text_is(index, text):
            continue
        if not ancestors:
            found.append(index)
            continue
        parents = outline.parents
        parent = parents[index]
        for ancestor_level, ancestor_text in reversed(ancestors):
            if parent < 0:
                break
            if ancestor_level is not None and levels[parent] != ancestor_level:
                break
            if not outline.text_is(parent, ancestor_text):
                break
            parent = parents[parent]
        else:
            found.append(index)
    return found


def _lookup(outline: _Outline, name: str) -> list[int]:
    segments = parse_name(name)
    found = _matches(outline, segments)
    # A heading whose own text holds `>` or starts with `#`s: the whole name as its text,
    # after a level or not.
    wholes: list[list[Segment]] = [[segment(name)], [(None, trim(name))]]
    for whole in wholes:
        if found:
            break
        if whole != segments:
            found = _matches(outline, whole)
    return found


def _unique_name(outline: _Outline, index: int) -> str | None:
    """A name that picks out just this heading, for a refusal to suggest: parents first."""
    chain = [index]
    while len(chain) < 4 and outline.parents[chain[-1]] >= 0:
        chain.append(outline.parents[chain[-1]])
    paths = [list(reversed(chain[: depth + 1])) for depth in range(len(chain))]
    for with_levels in (False, True):
        for path in paths:
            name = " > ".join(
                ("#" * outline.levels[i] + " " if with_levels else "") + outline.text_of(i)
                for i in path
            )
            if _lookup(outline, name) == [index]:
                return name
    return None


def heading_name(body: str, start: int) -> str | None:
    """The shortest name that picks out just the heading whose first line starts at `start`:
    its text alone where no other heading has it, else with the headings above it, then with
    levels; None where there is no heading there, or no name of up to four parts picks it out.
    """
    outline = _Outline(body)
    index = bisect.bisect_left(outline.starts, start)
    if index == len(outline) or outline.starts[index] != start:
        return None
    return _unique_name(outline, index)


def find_fully(body: str, name: str) -> Heading:
    """find_section (in section_finder.py) by the full scan."""
    outline = _Outline(body)
    found = _lookup(outline, name)
    if len(found) == 1:
        return outline.heading(found[0])
    if not found:
        texts = list(dict.fromkeys(outline.text_of(i) for i in range(len(outline))))
        wanted = parse_name(name)[-1][1]
        folded = [text for text in texts if text.casefold() == wanted.casefold()]
        close = difflib.get_close_matches(wanted, texts, n=3, cutoff=0.6)
        raise SectionNotFound(name, list(dict.fromkeys(folded + close))[:3])
    hints = [hint for index in found[:5] if (hint := _unique_name(outline, index)) is not None]
    raise SectionAmbiguous(name, len(found), hints)
