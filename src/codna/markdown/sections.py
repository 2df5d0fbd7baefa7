"""The heading scanner: where each section of a page begins and ends, how one is named, and
how the page's headings are kept up with as edits change it.

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

The scanner answers in two ways, from the same rules:

- every heading in order (`scan_headings`, `heading_lines`, the outline): a Python step per
  heading;
- one named heading (`find_section`, `Sections`): the lines that could carry its text, its
  ancestors and where its section ends, found with a few regular expression passes and
  Python work only for those lines, so a page of thousands of headings costs little more
  than one of a few. `Sections` keeps what those passes found and keeps it up to date as
  edits change the page, rescanning only the lines each change touched; it makes the outline
  of every heading only when an answer needs it (a name that picks out none or several, for
  the refusal's hints; a heading without text).

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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from codna.markdown.headings import (
    ALL_LINES,
    ATX_LINE,
    MARKUP_CHARS,
    TRIM,
    TRIM_IN_LINE,
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

    def __init__(self, body: str, text: str | None = None) -> None:
        self.body = body
        # With a newline in front, every line of the body starts after one, and the line
        # that starts at offset k of the body is found by the newline at offset k of `text`
        # (given when the caller has it).
        self.text = "\n" + body if text is None else text
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
    return _name_at(_Outline(body), start)


def _name_at(outline: _Outline, start: int) -> str | None:
    index = bisect.bisect_left(outline.starts, start)
    if index == len(outline) or outline.starts[index] != start:
        return None
    return _unique_name(outline, index)


def _answer(outline: _Outline, name: str) -> Heading:
    """The one heading `name` names, from the outline of every heading; raises as
    find_section does."""
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


# --- finding one heading, and keeping up with edits ------------------------------------------
#
# The outline takes a Python step for every heading, which adds up on a page of a megabyte
# and thousands of headings. A section edit names one heading, and `Sections` finds it, its
# ancestors and where its section ends with two passes of regular expressions over the page,
# and Python work only for the lines that could matter:
#
# - one pass over the lines that start with a space, a fence character or an underline
#   character: every fenced block (matched whole, opening fence to closing fence, so the lines
#   inside are passed over), every indented ATX line and every underline (the last two rare);
# - one pass over the ATX lines without indent, keeping those that could carry one of the
#   texts asked for (the text itself, or inline markup); ancestors and ends are searched for
#   near the heading;
# - a setext heading: an underline is decided by replaying heading_lines' rules over the lines
#   above it, from the last blank or ATX line or fence before it (nothing earlier changes
#   what the scan makes of them).
#
# What the passes found is kept, and kept up to date as edits change the page: a change
# rescans only the lines it touched (one that touches a fence line, the page), so the section
# edits of one call share the two passes.
#
# A name without text, and every name that does not pick out exactly one heading (the refusal
# needs the whole outline for its hints), is answered from the outline of the same page; tests
# compare the two ways on generated pages, and after generated edits.

# The lines the first pass keeps, each found by the newline before it. The lookahead keeps the
# engine from trying the alternatives on the lines that cannot be any of them, ATX lines
# without indent included.
_STRUCTURE = re.compile(
    r"\n(?=[ `~=-]) {0,3}+(?:"
    r"(?P<ticks>```(?P<more_ticks>`*+)[^`\n]*+(?=\n|\Z)"
    r"(?P<ticks_closed>(?:\n[^\n]*+)*?\n {0,3}```(?P=more_ticks)`*+[ \t]*+(?=\n|\Z))?)"
    r"|(?P<tildes>~~~(?P<more_tildes>~*+)[^\n]*+"
    r"(?P<tildes_closed>(?:\n[^\n]*+)*?\n {0,3}~~~(?P=more_tildes)~*+[ \t]*+(?=\n|\Z))?)"
    r"|(?P<underline>=++|-++)[ \t]*+(?=\n|\Z)"
    r"|(?P<hashes>#{1,6}+)(?P<rest>[ \t][^\n]*+)?(?=\n|\Z)"
    r")"
)


@functools.lru_cache(maxsize=256)
def _naming_atx(texts: tuple[str, ...]) -> re.Pattern[str]:
    """The ATX lines without indent that could have one of `texts`: with it, or with markup."""
    markup = r"[^\n" + MARKUP_CHARS + r"]*+[" + MARKUP_CHARS + "]"
    if texts:
        named = "|".join(re.escape(text) for text in texts)
        literal = r"[" + TRIM_IN_LINE + r"]*+(?:" + named + r")(?=[" + TRIM + r"#]|\Z)"
        markup = f"(?:{literal}|{markup})"
    return re.compile(r"\n#(?P<more>#{0,5}+)(?P<rest>[ \t]" + markup + r"[^\n]*+)")


@functools.lru_cache(maxsize=8)
def _atx_up_to(level: int) -> re.Pattern[str]:
    """The ATX lines without indent of `level` or a higher one."""
    return re.compile(r"\n#(?P<more>#{0," + str(level - 1) + r"})(?P<rest>[ \t][^\n]*+)?(?=\n|\Z)")


class _Unsure(Exception):
    """The passes cannot decide this name: the outline will."""


# (start, level, raw text, content start) of a heading the passes found, or of an ATX line.
_Found = tuple[int, int, str, int]
# (start, end in the text, "=" or "-") of an underline.
_Underline = tuple[int, int, str]


def _start(line: _Found | _Underline) -> int:
    return line[0]


def _has_fence(text: str, start: int, end: int) -> bool:
    """Whether a line of `text[start:end]` could open or close a fenced block."""
    return text.find("```", start, end) >= 0 or text.find("~~~", start, end) >= 0


def _moved(lines: list[_Found], first: int, last: int, shift: int, new: list[_Found]) -> None:
    """`lines` with those starting from `first` to before `last` replaced by `new`, and those
    after moved by `shift`."""
    low = bisect.bisect_left(lines, first, key=_start)
    high = bisect.bisect_left(lines, last, key=_start)
    lines[low:] = new + [
        (start + shift, level, raw, content_start + shift)
        for start, level, raw, content_start in lines[high:]
    ]


def _texts_of(name: str) -> list[str]:
    """The heading texts looking up `name` may ask for (see Sections.find)."""
    return [parse_name(name)[-1][1], segment(name)[1], trim(name)]


class Sections:
    """The sections of one page, found as they are asked for, kept up with as edits change it.

    `text` is the page's body with a newline in front (so that every line starts after one,
    and the line that starts at offset k of the body is found by the newline at offset k of
    `text`). Finding a name whose texts are among `names`' costs no pass over the page; any
    other name costs one.
    """

    __slots__ = (
        "_candidates",
        "_naming",
        "_outline",
        "_texts",
        "fence_ends",
        "fence_starts",
        "indented",
        "size",
        "text",
        "underlines",
    )

    def __init__(self, text: str, names: Iterable[str] = ()) -> None:
        texts = {text for name in names for text in _texts_of(name) if text}
        self._texts = frozenset(texts)
        self._naming = _naming_atx(tuple(sorted(texts)))
        self._scan(text)

    def _scan(self, text: str) -> None:
        self.text = text
        self._outline: _Outline | None = None
        self.size = len(text) - 1  # the body's length
        self.fence_starts: list[int] = []
        self.fence_ends: list[int] = []  # len(text) for a fence never closed
        self.indented: list[_Found] = []
        self.underlines: list[_Underline] = []
        self._scan_lines(text, 0, len(text), self.indented, self.underlines)
        self._candidates = _scan_atx(self._naming, text, 0, len(text))

    def _scan_lines(
        self, text: str, low: int, high: int, indented: list[_Found], underlines: list[_Underline]
    ) -> None:
        """The first pass, over the whole lines of `text[low:high]`."""
        size = len(text) - 1
        for match in _STRUCTURE.finditer(text, low, high):
            start = match.start()
            underline = match["underline"]
            if underline is not None:
                underlines.append((start, match.end(), underline[0]))
                continue
            hashes = match["hashes"]
            if hashes is not None:
                raw = atx_raw(match["rest"])
                indented.append((start, len(hashes), raw, min(match.end(), size)))
                continue
            self.fence_starts.append(start)
            if match["ticks_closed"] is None and match["tildes_closed"] is None:
                self.fence_ends.append(len(text))  # never closed: the rest of the page is code
                break
            self.fence_ends.append(match.end())

    def update(self, text: str, start: int, stop: int, length: int) -> None:
        """Catches up with a change: `text` is the page after the body's `start:stop` became
        `length` characters."""
        shift = length - (stop - start)
        self._outline = None
        # The lines that changed, in the text (where offset k of the body is at k + 1): from
        # the newline before the change to the first newline after what was put in.
        first = text.rfind("\n", 0, start + 1)
        last = text.find("\n", start + 1 + length)
        if last < 0:
            last = len(text)
        old_last = last - shift
        if _has_fence(self.text, first, old_last) or _has_fence(text, first, last):
            self._scan(text)  # a fence may open or close, and with it any line below
            return
        # No fence line changed, so every fence pairs as before: those below move.
        for offsets in (self.fence_starts, self.fence_ends):
            at = bisect.bisect_left(offsets, old_last)
            offsets[at:] = [offset + shift for offset in offsets[at:]]
        indented: list[_Found] = []
        underlines: list[_Underline] = []
        self._scan_lines(text, first, last, indented, underlines)
        _moved(self.indented, first, old_last, shift, indented)
        _moved(self._candidates, first, old_last, shift, _scan_atx(self._naming, text, first, last))
        low = bisect.bisect_left(self.underlines, first, key=_start)
        high = bisect.bisect_left(self.underlines, old_last, key=_start)
        self.underlines[low:] = underlines + [
            (line_start + shift, end + shift, char)
            for line_start, end, char in self.underlines[high:]
        ]
        self.text, self.size = text, len(text) - 1

    # fenced code

    def in_fence(self, offset: int) -> bool:
        """Whether the line starting at `offset` is inside fenced code (its fences included)."""
        at = bisect.bisect_right(self.fence_starts, offset) - 1
        return at >= 0 and offset < self.fence_ends[at]

    def inside_fence(self, offset: int) -> bool:
        """Whether a line that starts at `offset` is inside fenced code: after its opening
        fence's line, up to and with its closing fence's."""
        at = bisect.bisect_left(self.fence_starts, offset) - 1
        return at >= 0 and offset < self.fence_ends[at]

    # setext headings

    def setext(self, start: int, end: int) -> tuple[int, str] | None:
        """The setext heading the underline at `start` (not in fenced code) closes, if any.

        Its start and raw text. `end` is where the underline's line ends in `text`.
        """
        text = self.text  # offset k of the body is at k + 1 here
        at = bisect.bisect_right(self.fence_starts, start) - 1
        low = self.fence_ends[at] if at >= 0 else 0
        first = start
        while first > low:
            line_end = first - 1
            newline = text.rfind("\n", low + 1, line_end + 1) - 1
            line_start = newline + 1 if newline >= low else low
            line = text[line_start + 1 : line_end + 1]
            if not line.strip(" \t") or ATX_LINE.match(line) is not None:
                break
            first = line_start
        # Between `first` and the underline there are only paragraph lines, underlines and
        # thematic breaks: the full scan, replayed from `first`, decides as it would.
        low = first
        for match in ALL_LINES.finditer(text, first, end):
            line_start = match.start()
            underline = match["underline"]
            paragraph = None
            if underline is not None:
                paragraph = paragraph_start(text, low, line_start, origin=1)
            if line_start == start:
                if paragraph is None:
                    return None
                return paragraph, trim(text[paragraph + 1 : start])
            if paragraph is not None or underline is None or underline[:3] == "---":
                low = match.end()
        raise _Unsure  # pragma: no cover - the underline is always among the lines

    # headings

    def named(self, level: int | None, text: str) -> list[_Found]:
        """Every heading with this text (and level, if given), in order."""
        found: list[_Found] = []
        if text in self._texts:
            atx = self._candidates
        else:
            atx = _scan_atx(_naming_atx((text,)), self.text, 0, len(self.text))
        for line in (*atx, *self.indented):
            same_level = level is None or line[1] == level
            if same_level and text_is(line[2], text) and not self.in_fence(line[0]):
                found.append(line)
        size = self.size
        for start, end, char in self.underlines:
            underline_level = 1 if char == "=" else 2
            if (level is None or underline_level == level) and not self.in_fence(start):
                setext = self.setext(start, end)
                if setext is not None and text_is(setext[1], text):
                    found.append((setext[0], underline_level, setext[1], min(end, size)))
        found.sort()
        return found

    def parent(self, start: int, level: int) -> _Found | None:
        """The nearest heading before the one at `start` with a level below `level`."""
        if level == 1:
            return None
        text = self.text
        atx = _atx_up_to(level - 1)
        indented, underlines = self.indented, self.underlines
        high, width = start, 4096
        while high > 0:
            low = max(0, high - width)
            nearest, best = -1, None  # the line it is found by, and the heading
            for match in atx.finditer(text, low, start):
                if match.start() >= high:
                    break
                if not self.in_fence(match.start()):
                    nearest = match.start()
                    best = (nearest, len(match["more"]) + 1, atx_raw(match["rest"]), 0)
            for at in range(bisect.bisect_left(indented, high, key=_start) - 1, -1, -1):
                line = indented[at]
                if line[0] < low or line[0] <= nearest:
                    break
                if line[1] < level and not self.in_fence(line[0]):
                    nearest, best = line[0], line
                    break
            for at in range(bisect.bisect_left(underlines, high, key=_start) - 1, -1, -1):
                underline, end, char = underlines[at]
                if underline < low or underline <= nearest:
                    break
                underline_level = 1 if char == "=" else 2
                if underline_level < level and not self.in_fence(underline):
                    setext = self.setext(underline, end)
                    if setext is not None:
                        nearest, best = underline, (setext[0], underline_level, setext[1], 0)
                        break
            if best is not None:
                return best
            high, width = low, width * 2
        return None

    def end(self, level: int, content_start: int) -> int:
        """Where a section of `level` whose content starts at `content_start` ends."""
        found = self.size
        for match in _atx_up_to(level).finditer(self.text, content_start):
            if not self.in_fence(match.start()):
                found = match.start()
                break
        indented = self.indented
        for line in indented[bisect.bisect_left(indented, content_start, key=_start) :]:
            if line[0] >= found:
                break
            if line[1] <= level and not self.in_fence(line[0]):
                found = line[0]
                break
        underlines = self.underlines
        for underline, end, char in underlines[
            bisect.bisect_left(underlines, content_start, key=_start) :
        ]:
            if underline >= found:
                break
            if (1 if char == "=" else 2) <= level and not self.in_fence(underline):
                setext = self.setext(underline, end)
                if setext is not None:
                    found = setext[0]
                    break
        return found

    def matches(self, segments: list[Segment]) -> list[_Found]:
        """As _matches does on the full outline."""
        *ancestors, (level, text) = segments
        if not text:
            raise _Unsure
        found: list[_Found] = []
        for heading in self.named(level, text):
            start, heading_level = heading[0], heading[1]
            for ancestor_level, ancestor_text in reversed(ancestors):
                parent = self.parent(start, heading_level)
                if parent is None:
                    break
                if ancestor_level is not None and parent[1] != ancestor_level:
                    break
                if not text_is(parent[2], ancestor_text):
                    break
                start, heading_level = parent[0], parent[1]
            else:
                found.append(heading)
        return found

    # the answers

    @property
    def outline(self) -> _Outline:
        """Every heading of the page as it now is, made when first asked for."""
        if self._outline is None:
            self._outline = _Outline(self.text[1:], self.text)
        return self._outline

    def find(self, name: str) -> tuple[_Found, int] | None:
        """The one heading `name` names and where its section ends, found by the passes; None
        when they cannot decide, or when no heading or several have the name (the outline
        then says which)."""
        try:
            segments = parse_name(name)
            found = self.matches(segments)
            # As _lookup: the whole name as one heading's text, after a level or not.
            wholes: list[list[Segment]] = [[segment(name)], [(None, trim(name))]]
            for whole in wholes:
                if found:
                    break
                if whole != segments:
                    found = self.matches(whole)
            if len(found) != 1:
                return None
            heading = found[0]
            return heading, self.end(heading[1], heading[3])
        except _Unsure:
            return None

    def heading(self, name: str) -> Heading:
        """The one heading `name` names, with its section; raises as find_section does."""
        quick = self.find(name)
        if quick is None:
            return _answer(self.outline, name)
        (start, level, raw, content_start), end = quick
        line = self.text.count("\n", 1, start + 1)
        return Heading(level, plain_text(raw), start, content_start, end, line)

    def bounds(self, name: str) -> tuple[int, int, int]:
        """Where the section `name` names is: its start, its content's start and its end.

        Raises as find_section does.
        """
        quick = self.find(name)
        if quick is not None:
            (start, _, _, content_start), end = quick
            return start, content_start, end
        heading = _answer(self.outline, name)
        return heading.start, heading.content_start, heading.end

    def name_of(self, start: int) -> str | None:
        """heading_name of the page as it now is."""
        return _name_at(self.outline, start)


def _scan_atx(pattern: re.Pattern[str], text: str, low: int, high: int) -> list[_Found]:
    """The ATX lines of `text[low:high]` (whole lines) that `pattern` finds."""
    size = len(text) - 1
    return [
        (match.start(), len(match["more"]) + 1, atx_raw(match["rest"]), min(match.end(), size))
        for match in pattern.finditer(text, low, high)
    ]


def find_section(body: str, name: str) -> Heading:
    """The one heading `name` names, with its section.

    A name is the heading's plain text, optionally with its level (`"### Limits"`) and the
    headings above it (`"Decision > Limits"`: a Limits whose parent is Decision;
    `"A > B > C"`: a C under B under A). If nothing matches that reading, the whole name is
    tried as one heading's text, after a level or not (for a heading whose text holds `>`).
    Matching is exact.

    Raises SectionNotFound (with close names as suggestions) or SectionAmbiguous (with the
    count, and names that pick out some of them).
    """
    return Sections("\n" + body, [name]).heading(name)
