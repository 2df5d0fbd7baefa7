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
from collections.abc import Sequence
from dataclasses import dataclass

from codna.markdown.render import slug
from codna.markdown.sections import scan_headings

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

    @property
    def is_title(self) -> bool:
        return self.ordinal == TITLE_ORDINAL


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def index_sections(title: str, tags: Sequence[str], body: str) -> list[IndexedSection]:
    """The rows of a page with this title, tags and (newline-normalised) body, in order."""
    rows = [IndexedSection(TITLE_ORDINAL, title, None, "\n".join(tags), _digest(title, *tags))]
    headings = scan_headings(body)
    before = body[: headings[0].start] if headings else body
    if before.strip():
        rows.append(IndexedSection(0, None, None, before, _digest(before)))
    ends = [h.start for h in headings[1:]] + [len(body)] if headings else []
    used: set[str] = set()
    for ordinal, (heading, end) in enumerate(zip(headings, ends, strict=True), 1):
        anchor = base = slug(heading.text)
        number = 1
        while anchor in used:
            number += 1
            anchor = f"{base}-{number}"
        used.add(anchor)
        content = body[heading.content_start : end]
        written = body[heading.start : end]
        rows.append(IndexedSection(ordinal, heading.text, anchor, content, _digest(written)))
    return rows
