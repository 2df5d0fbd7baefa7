"""A page's outline: its headings with their levels, anchors and sizes, without the body, so
that a reader of a long page can choose the section to read. Read by `pages.outline`."""

from __future__ import annotations

from dataclasses import dataclass

from codna.markdown.render import slug
from codna.markdown.sections import scan_headings


@dataclass(frozen=True)
class OutlineHeading:
    """One heading: its level (1 to 6), plain text, the `id` the rendered page gives it (a
    link's `#anchor`), and the characters of its section, subsections included."""

    level: int
    text: str
    anchor: str
    chars: int


@dataclass(frozen=True)
class Outline:
    """A page's headings in order, and the size of its body in characters."""

    address: str
    title: str
    version: int
    size: int
    headings: tuple[OutlineHeading, ...]


def outline_of(address: str, title: str, version: int, body: str) -> Outline:
    """The outline of a page's body, its headings found by the heading scanner and named as
    the rendered page names them (the same slug, repeats numbered -2, -3, …)."""
    used: set[str] = set()
    headings = []
    for heading in scan_headings(body):
        anchor = base = slug(heading.text)
        number = 1
        while anchor in used:
            number += 1
            anchor = f"{base}-{number}"
        used.add(anchor)
        headings.append(
            OutlineHeading(heading.level, heading.text, anchor, heading.end - heading.start)
        )
    return Outline(address, title, version, len(body), tuple(headings))
