"""A window of a page's body: a section named as edits name headings, and a range of its
characters, so that no read answers more than a caller can take in at once (READ_BUDGET)."""

from __future__ import annotations

from dataclasses import dataclass

from codna.errors import InvalidRequest
from codna.markdown.sections import (
    SectionAmbiguous,
    SectionNotFound,
    find_section,
    scan_headings,
)

# The most characters of page text one read answers, all its pages together.
READ_BUDGET = 20_000
INTRO_CHARS = 2_000  # of the text above a page's first heading, in its outline


def intro(body: str) -> str | None:
    """The text above the body's first heading, or under a `#` title that opens it (a
    record's status line, as a rule), at most INTRO_CHARS of it; None when there is none."""
    headings = scan_headings(body)
    begin = 0
    if headings and headings[0].level == 1 and not body[: headings[0].start].strip():
        begin, headings = headings[0].content_start, headings[1:]
    above = body[begin : headings[0].start if headings else len(body)].strip()
    return above[:INTRO_CHARS] or None


@dataclass(frozen=True)
class Part:
    """`text`, the characters `start` to `end` of the body (or of its `section`), of
    `total` in it."""

    text: str
    start: int
    end: int
    total: int
    section: str | None = None

    @property
    def cut(self) -> bool:
        return self.start > 0 or self.end < self.total

    def how_to_go_on(self, address: str, *, sections: bool = True) -> str | None:
        """What a reader who got a cut window passes to read the rest (`start`, or a
        section when `sections` may be asked for); None when whole."""
        if not self.cut:
            return None
        where = f" of section {self.section!r}" if self.section else ""
        told = f"{address}: characters {self.start:,}–{self.end:,} of {self.total:,}{where}."
        if self.end < self.total:
            told += f" For the rest pass start={self.end}"
            if sections and not self.section:
                told += ", or a section (outline=true lists them)"
            told += "."
        return told


def window(
    body: str, *, section: str | None = None, start: int = 0, chars: int = READ_BUDGET
) -> Part:
    """The part of `body` asked for: its `section` (a heading's name, `Decision > Limits` or
    `## Limits`, with what is under it) or the whole body, from character `start`, at most
    `chars` of it. Raises InvalidRequest (a section that is not there, or names several; a
    start past the end; chars out of 1 to READ_BUDGET)."""
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise InvalidRequest("start is a character offset: 0 or more.", field="start")
    if isinstance(chars, bool) or not isinstance(chars, int) or not 1 <= chars <= READ_BUDGET:
        raise InvalidRequest(f"chars is 1 to {READ_BUDGET:,}.", field="chars", limit=READ_BUDGET)
    text = body
    if section is not None:
        try:
            found = find_section(body, section)
        except SectionNotFound as missing:
            near = f" Did you mean {' or '.join(map(repr, missing.suggestions))}?"
            raise InvalidRequest(
                f"No heading {section!r} on the page.{near if missing.suggestions else ''} "
                "outline=true lists its headings.",
                field="section",
            ) from None
        except SectionAmbiguous as several:
            hints = f" Such as {' or '.join(map(repr, several.hints))}." if several.hints else ""
            raise InvalidRequest(
                f"{several.count} headings are named {section!r}; name the one you mean with "
                f"the headings above it.{hints}",
                field="section",
            ) from None
        text = body[found.start : found.end]
    if start > len(text) or (start == len(text) and start > 0):
        raise InvalidRequest(
            f"start is past the end: the text has {len(text):,} characters.",
            field="start",
            total=len(text),
        )
    end = min(len(text), start + chars)
    return Part(text[start:end], start, end, len(text), section)
