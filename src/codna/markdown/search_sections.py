"""A page cut into the rows the search index holds, so that a hit names the smallest section
that holds the words and a save re-indexes only what it changed.

The rows, by ordinal:

- `-1`, the page's title (as the row's heading) and its tags (as its text, one a line);
- `0`, the text before the first heading, when it holds more than white space;
- `1`, `2`, … one per heading, in order: the heading and its content down to the next
  heading of any level (a `##` section's `###` subsections are rows of their own).

Each row carries the anchor the rendered page gives its heading (the heading's slug, repeats
numbered -2, -3, … over the page, as outlines number them) and the SHA-256 of its text as
written, by which a save tells the rows it changed from those it kept. Used by the search
service and by the migration that made the index.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, islice

from codna.markdown.delta import Splice
from codna.markdown.headings import plain_text
from codna.markdown.render import slug
from codna.markdown.sections import heading_lines, scan_headings

TITLE_ORDINAL = -1


@dataclass(frozen=True, slots=True)
class IndexedSection:
    """One row of the index: `heading` is the heading's plain text (None before the first
    heading, the title on the title row), `text` what is searched besides it (the content
    below the heading's line; the tags on the title row), `digest` the SHA-256 of the section
    as written (heading line included), hex."""

    ordinal: int
    heading: str | None
    anchor: str | None
    text: str
    digest: str
    chars: int

    @property
    def is_title(self) -> bool:
        return self.ordinal == TITLE_ORDINAL


def digest(*parts: str) -> str:
    """The SHA-256 a row keeps of its section as written (or of the title and tags), hex."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def index_sections(title: str, tags: Sequence[str], body: str) -> list[IndexedSection]:
    """The rows of a page with this title, tags and (newline-normalised) body, in order."""
    rows = [title_row(title, tags)]
    headings = scan_headings(body)
    before = body[: headings[0].start] if headings else body
    if before.strip():
        rows.append(IndexedSection(0, None, None, before, digest(before), len(before)))
    ends = [h.start for h in headings[1:]] + [len(body)] if headings else []
    named = anchors([h.text for h in headings])
    for ordinal, (heading, end, anchor) in enumerate(zip(headings, ends, named, strict=True), 1):
        content = body[heading.content_start : end]
        written = body[heading.start : end]
        rows.append(
            IndexedSection(ordinal, heading.text, anchor, content, digest(written), len(written))
        )
    return rows


def anchors(headings: Sequence[str]) -> list[str]:
    """The anchors the rendered page gives headings of this plain text, in order: each one's
    slug, repeats numbered -2, -3, … over the page."""
    used: set[str] = set()
    found = []
    for text in headings:
        anchor = base = slug(text)
        number = 1
        while anchor in used:
            number += 1
            anchor = f"{base}-{number}"
        used.add(anchor)
        found.append(anchor)
    return found


def path_ordinals(head: str, ordinal: int) -> list[int]:
    """The ordinals (their rows') of the `ordinal`-th heading of `head` (a page's text from its
    start through that heading's lines, or further) and of the headings it is under,
    outermost first; empty if `head` has fewer headings."""
    levels = [level for level, _, _, _ in islice(heading_lines(head), ordinal)]
    if len(levels) < ordinal:
        return []
    chosen: list[int] = []
    below = 7
    for index in range(ordinal - 1, -1, -1):
        if levels[index] < below:
            chosen.append(index + 1)
            below = levels[index]
    return chosen[::-1]


def title_row(title: str, tags: Sequence[str]) -> IndexedSection:
    return IndexedSection(TITLE_ORDINAL, title, None, "\n".join(tags), digest(title, *tags), 0)


# --- what a change touched -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch the splices changed: `old_start:old_stop` of the text before them became
    `new_start:new_stop` of the text after; outside the spans the two texts are the same."""

    old_start: int
    old_stop: int
    new_start: int
    new_stop: int

    @property
    def growth(self) -> int:
        return (self.new_stop - self.new_start) - (self.old_stop - self.old_start)


def changed_spans(splices: Sequence[Splice]) -> list[Span]:
    """The stretches `splices` change, in order, merged where they touch. Each splice's
    offsets are in the text the ones before it left (as the edit engine makes them)."""
    spans: list[Span] = []
    for start, stop, text in splices:
        grow = len(text) - (stop - start)
        before: list[Span] = []
        after: list[Span] = []
        low, high, old_low, old_high = start, stop, -1, -1
        shift = overlapped = 0  # the growth of the spans before `start`; of those it touches
        for span in spans:
            if span.new_stop < start:
                before.append(span)
                shift += span.growth
            elif span.new_start > stop:
                after.append(
                    Span(span.old_start, span.old_stop, span.new_start + grow, span.new_stop + grow)
                )
            else:
                if span.new_start < low:
                    low, old_low = span.new_start, span.old_start
                if span.new_stop > high:
                    high, old_high = span.new_stop, span.old_stop
                overlapped += span.growth
        old_low = start - shift if old_low < 0 else old_low
        old_high = stop - shift - overlapped if old_high < 0 else old_high
        spans = [*before, Span(old_low, old_high, low, high + grow), *after]
    return spans


@dataclass(frozen=True, slots=True)
class Rewrite:
    """The rows of ordinals `first` to `first + len(sections) - 1` as they are now, where the
    page had as many before (`anchor` is left to the caller: the anchors stay as they were
    when the headings' slugs did)."""

    first: int
    sections: list[IndexedSection]


def changed_sections(
    old: str, new: str, splices: Sequence[Splice], lengths: Sequence[int]
) -> list[Rewrite] | None:
    """The sections of `new` that `splices` (which made it of `old`) may have changed, found by
    scanning from the start of each changed stretch's section only until a heading that `old`
    has at the same place with the same text after it; or None where only a full
    index_sections can tell: a change that adds or removes a heading, or `lengths` (the
    stored rows' `chars` by ordinal from 0, the text before the first heading, whatever it
    holds) that do not add up to `old`.

    From such a heading on the scan would find what it found in `old`: a heading begins
    outside any fence and paragraph (heading_lines). The caller checks the headings' slugs.
    """
    if sum(lengths) != len(old):
        return None
    starts = list(accumulate(lengths, initial=0))[:-1]
    spans = changed_spans(splices)
    rewrites: list[Rewrite] = []
    at, grown = 0, 0  # the first span not yet in a rewrite; the growth of those before it
    while at < len(spans):
        opened = at
        first = _opening(starts, spans[at])
        begin = starts[first] + grown if first else 0
        found: list[tuple[int, str, int, int]] = []
        end, last = len(new), len(starts)  # unless the scan meets a heading kept as it was
        for heading in heading_lines(new, begin):
            position = heading[2]
            while at < len(spans) and spans[at].new_stop <= position:
                grown += spans[at].growth
                at += 1
            if at > opened and (at == len(spans) or spans[at].new_start > position):
                index = bisect_right(starts, position - grown) - 1
                later = at == len(spans) or _opening(starts, spans[at]) >= index
                if index > first and starts[index] == position - grown and later:
                    end, last = position, index
                    break
            found.append(heading)
        else:
            at = len(spans)
        if first and (not found or found[0][2] != begin):
            return None  # pragma: no cover - the heading a scan starts from stays where it was
        rewrite = _rewrite(new, first, end, last, found)
        if rewrite is None:
            return None
        rewrites.append(rewrite)
    return rewrites


def _opening(starts: list[int], span: Span) -> int:
    """The section a scan for `span` starts from: the one before the section holding the
    character before the span, so that its heading, lines and all, comes before the change
    and stays the heading it was, where it was (a change at the start of a line can join it
    to the paragraph above, or split a heading's line)."""
    return max(bisect_right(starts, span.old_start - 1) - 2, 0)


def _rewrite(
    new: str, first: int, end: int, last: int, found: list[tuple[int, str, int, int]]
) -> Rewrite | None:
    """The rows of ordinals `first` to `last - 1` from the headings `found` in `new` before
    `end`, or None if they are not as many as before."""
    low = max(first, 1)  # the first heading's ordinal
    if len(found) != last - low:
        return None
    sections: list[IndexedSection] = []
    if first == 0:
        before = new[: found[0][2] if found else end]
        sections.append(IndexedSection(0, None, None, before, digest(before), len(before)))
    ends = [h[2] for h in found[1:]] + [end] if found else []
    for ordinal, ((_, raw, start, content_start), stop) in enumerate(
        zip(found, ends, strict=True), low
    ):
        written = new[start:stop]
        sections.append(
            IndexedSection(
                ordinal,
                plain_text(raw),
                None,
                new[content_start:stop],
                digest(written),
                len(written),
            )
        )
    return Rewrite(first, sections)
