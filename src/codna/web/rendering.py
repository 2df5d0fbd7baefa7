"""Pages as HTML, kept per version: only the first view after a change renders the Markdown,
and on a big page only the sections that changed.

A version's text never changes, so its HTML is kept under the page's address, version and the
moment that version was made (a page deleted for good and made again at the same address is
another key). A page is rendered for its own view: relative links resolve against its
folder, headings get their anchor links, and a long page its table of contents.

A big page is rendered section by section (its top-level headings cut it, as the section
scanner finds them), each section's HTML kept by its folder and text (a relative link means
another page in another folder), so a new version renders what changed and reuses the rest;
heading ids (and the anchors that link to them) are then made unique over the whole page, and
the table of contents made of all its headings. A page that defines reference links or
footnotes (`[x]: url`, `[^x]: note`), which may be used in any section, is rendered whole.
What is kept is bounded by its total size; the least recently used goes first.
"""

from __future__ import annotations

import re
import threading
import zlib
from collections import OrderedDict
from collections.abc import Hashable
from datetime import datetime

from markupsafe import Markup

from codna.markdown.relative import folder_of
from codna.markdown.render import Rendered as RenderedParts
from codna.markdown.render import render, render_parts, unique_id
from codna.markdown.sections import scan_headings
from codna.markdown.toc import Heading, with_contents
from codna.web.templating import page_url

BUDGET = 64 * 1024 * 1024  # characters of HTML kept, in all
BIG = 64 * 1024  # a body this long or longer is rendered section by section
# Sections rendered one by one at most: each render has a budget of its own, so a page of more
# (a megabyte of `# a` lines) is rendered whole, within one render's budget.
MOST_SECTIONS = 2_000
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.M)
# A heading's id, or its anchor's link to it, which follows it before the next heading.
_ID = re.compile(
    r'(?P<heading><h[1-6] id=")(?P<id>[^"]*)"|(?P<anchor><a class="anchor" href="#)[^"]*"'
)


def sections(body: str) -> list[str]:
    """The body cut before each of its top headings: those of the lowest levels that make
    more than one section (under a page's one `#` title, its `##` sections). A page of more
    than MOST_SECTIONS sections is cut into runs of sections instead, at most MOST_SECTIONS
    of them (_fewer_cuts)."""
    headings = scan_headings(body)
    levels = sorted({h.level for h in headings})
    top = next((n for n in levels if sum(h.level <= n for h in headings) > 1), 6)
    cuts = [h.start for h in headings if h.level <= top and h.start > 0]
    if len(cuts) >= MOST_SECTIONS:
        cuts = _fewer_cuts(body, cuts)
    return [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]


def _fewer_cuts(body: str, cuts: list[int]) -> list[int]:
    """Fewer than MOST_SECTIONS of `cuts`, chosen by the heading each starts (its line's
    checksum), so that a change to one section leaves the other runs as they were and their
    HTML kept; every n-th cut where the checksums leave too many or too few."""
    every = -(-(len(cuts) + 1) // (MOST_SECTIONS // 2))  # runs of about this many sections
    kept = [
        cut for cut in cuts if zlib.crc32(body[cut : body.find("\n", cut)].encode()) % every == 0
    ]
    if not len(cuts) // (4 * every) <= len(kept) < MOST_SECTIONS:  # headings much alike
        kept = cuts[every - 1 :: every]
    return kept


def _unique_ids(html: str, headings: list[Heading]) -> tuple[str, list[Heading]]:
    """Heading ids made unique over the page, each anchor following its heading's: a repeat
    gets the first free -2, -3 …, as render numbers them (unique_id: each base's search goes
    on where it stopped). The headings come back renamed; none if they do not match the
    HTML's, which only a bug would make, so that no contents link to the wrong place."""
    used: set[str] = set()
    last: dict[str, int] = {}
    renamed: list[str] = []

    def unique(match: re.Match[str]) -> str:
        if match["heading"] is not None:
            renamed.append(unique_id(match["id"], used, last))
            return f'{match["heading"]}{renamed[-1]}"'
        return f'{match["anchor"]}{renamed[-1] if renamed else ""}"'

    html = _ID.sub(unique, html)
    if len(renamed) != len(headings):
        return html, []
    return html, [h.renamed(new) for h, new in zip(headings, renamed, strict=True)]


class Rendered:
    """HTML by page version and by section text, at most `budget` characters of it."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self._kept: OrderedDict[Hashable, bytes | RenderedParts] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def html(self, address: str, version: int, made_at: datetime, body: str) -> Markup:
        """The sanitised HTML of `body`, the text of `address` at `version`."""
        return Markup(self.encoded(address, version, made_at, body).decode())

    def encoded(self, address: str, version: int, made_at: datetime, body: str) -> bytes:
        """The same HTML as UTF-8, as it is kept: what a page view sends as it is."""
        key = (address, version, made_at)
        found = self._get(key)
        if found is None:
            parts = sections(body) if len(body) >= BIG and not _REFERENCE.search(body) else []
            if not 1 < len(parts) <= MOST_SECTIONS:
                # within the one render's budget
                html = render(body, page_url=page_url, at=address, navigation=True)
            else:
                made = [self._section(address, text) for text in parts]
                joined, headings = _unique_ids(
                    "".join(m.html for m in made), [h for m in made for h in m.headings]
                )
                html = with_contents(joined, headings)
            found = html.encode()  # sanitised by render, section by section
            self._keep(key, found)
        assert isinstance(found, bytes)
        return found

    def _section(self, address: str, text: str) -> RenderedParts:
        key = ("section", folder_of(address), text)
        found = self._get(key)
        if found is None:
            found = render_parts(text, page_url=page_url, at=address, navigation=True)
            self._keep(key, found)
        assert isinstance(found, RenderedParts)
        return found

    def _get(self, key: Hashable) -> bytes | RenderedParts | None:
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def _keep(self, key: Hashable, html: bytes | RenderedParts) -> None:
        with self._lock:
            if key in self._kept or _size(html) > self.budget:
                return
            self._kept[key] = html
            self._size += _size(html)
            while self._size > self.budget:
                _, dropped = self._kept.popitem(last=False)
                self._size -= _size(dropped)


def _size(kept: bytes | RenderedParts) -> int:
    """What a kept rendering counts for: its HTML's length (and its headings' text)."""
    if isinstance(kept, bytes):
        return len(kept)
    return len(kept.html) + sum(len(h.text) + len(h.id) for h in kept.headings)


rendered = Rendered()
