"""A long page's table of contents: a `<nav class="toc">` of links to its `##` and `###`
headings, nested, put before the first of them (after the page's title and introduction).

A page is long enough for one when it has at least MIN_ENTRIES such headings outside lists
and quotes; past MOST_ENTRIES it gets none (a list that long is no help to find one's way,
and the page's HTML would grow by the size of its headings again).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

LEVELS = (2, 3)
MIN_ENTRIES = 4
MOST_ENTRIES = 500


@dataclass(frozen=True)
class Heading:
    """A heading as rendered: its level, its `id`, its plain text, and whether it stands at
    the top of the page (not in a list, a quote or a footnote)."""

    level: int
    id: str
    text: str
    top: bool = True


def _link(heading: Heading) -> str:
    return f'<a href="#{html.escape(heading.id)}">{html.escape(heading.text, quote=False)}</a>'


def contents(headings: list[Heading]) -> str:
    """The table of contents of a page with these headings, in their order; '' when the page
    is not long enough for one, or too long."""
    entries = [h for h in headings if h.top and h.level in LEVELS]
    if not MIN_ENTRIES <= len(entries) <= MOST_ENTRIES:
        return ""
    parts = ['<nav class="toc" aria-label="Contents"><p class="toc-title">Contents</p>\n<ul>']
    in_item = in_sublist = False  # an open `##` item, and a list of `###` inside it
    for heading in entries:
        if heading.level == LEVELS[0] or not in_item:
            if in_sublist:
                parts.append("</ul>")
            if in_item:
                parts.append("</li>\n")
            parts.append(f"<li>{_link(heading)}")
            in_item, in_sublist = heading.level == LEVELS[0], False
            if not in_item:
                parts.append("</li>\n")
        else:
            if not in_sublist:
                parts.append("\n<ul>")
                in_sublist = True
            parts.append(f"\n<li>{_link(heading)}</li>")
    if in_sublist:
        parts.append("</ul>")
    if in_item:
        parts.append("</li>\n")
    parts.append("</ul></nav>\n")
    return "".join(parts)


def with_contents(page_html: str, headings: list[Heading]) -> str:
    """The page's HTML with its table of contents before the first heading it lists (as it
    is when the page is long enough; unchanged otherwise)."""
    toc = contents(headings)
    if not toc:
        return page_html
    first = next(h for h in headings if h.top and h.level in LEVELS)
    at = page_html.find(f'<h{first.level} id="{html.escape(first.id)}"')
    if at < 0:
        return page_html
    return page_html[:at] + toc + page_html[at:]
