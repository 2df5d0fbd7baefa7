"""Pages as HTML, kept per version: only the first view after a change renders the Markdown,
and on a big page only the sections that changed.

A version's text never changes, so its HTML is kept under the page's address, version and the
moment that version was made (a page deleted for good and made again at the same address is
another key). A page is rendered for its own view: relative links resolve against its
folder, headings get their anchor links, and a long page its table of contents.

A big page is rendered section by section (its top-level headings cut it, as the heading
scanner finds them), so a new version renders what changed and reuses the rest. Every
heading's id is decided first, over the whole page, from the scanner's list of its headings
(render.heading_ids: the slug of its text, numbered where it repeats), and each section is
rendered with the ids of its own headings, anchors and all: nothing is rewritten after. A
section's HTML is kept by its folder (a relative link means another page in another
folder), its text and those ids, so it is never reused where its headings get other ids. The
table of contents is made of all the page's headings. Where the renderer reads a section's
headings otherwise than the scanner (a heading in a block quote, which the scanner does not
see), the page is rendered whole instead; so is a page that defines reference links or
footnotes (`[x]: url`, `[^x]: note`), which may be used in any section.

A page's headings never take the ids the templates it is shown in give their own elements
(`main`, the menu's …): TEMPLATE_IDS are kept clear. What is kept is bounded by its total
size; the least recently used goes first.
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
from codna.markdown.render import HeadingIds, HeadingsDiffer, heading_ids, render, render_parts
from codna.markdown.render import Rendered as RenderedParts
from codna.markdown.render import slug as slug_of
from codna.markdown.sections import Heading, scan_headings
from codna.markdown.toc import with_contents
from codna.web.templating import page_url, templates

BUDGET = 64 * 1024 * 1024  # characters of HTML kept, in all
BIG = 64 * 1024  # a body this long or longer is rendered section by section
# Sections rendered one by one at most: each render has a budget of its own, so a page of more
# (a megabyte of `# a` lines) is rendered whole, within one render's budget.
MOST_SECTIONS = 2_000
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.M)

# The templates a rendered page is shown in: the page, an old version of it, its edit form.
SHOWN_IN = ("page.html", "revision.html", "edit.html")
_TEMPLATE_ID = re.compile(r"""\sid=["']([^"']+)["']""")
_TEMPLATE_USES = re.compile(r"""{%-?\s*(?:extends|include)\s+["']([^"']+)["']""")
# An included template's ids may be made of the `id` it is given (`{{ id }}-preview`).
_GIVEN_ID = re.compile(r"""{%-?\s*with\s+id\s*=\s*["']([^"']+)["']""")


def _template_ids(names: tuple[str, ...]) -> frozenset[str]:
    """The ids the templates `names` give their elements, with those of the templates they
    extend and include; an id made of the `id` an include is given, with each one given, and
    any other made of a template's variables left out (it is not known here)."""
    written: set[str] = set()
    given: set[str] = set()
    seen: set[str] = set()
    waiting = list(names)
    while waiting:
        name = waiting.pop()
        if name in seen:
            continue
        seen.add(name)
        assert templates.env.loader is not None
        source = templates.env.loader.get_source(templates.env, name)[0]
        written.update(_TEMPLATE_ID.findall(source))
        given.update(_GIVEN_ID.findall(source))
        waiting += _TEMPLATE_USES.findall(source)
    found = {i.replace("{{ id }}", g) for i in written for g in given if "{{ id }}" in i}
    found.update(i for i in written if "{" not in i)
    return frozenset(found)


TEMPLATE_IDS = _template_ids(SHOWN_IN)


def _cuts(body: str, headings: list[Heading]) -> list[int]:
    """Where the body is cut: before each of its top headings, those of the lowest levels that
    make more than one section (under a page's one `#` title, its `##` sections), where they
    stand apart (_apart). A page of more than MOST_SECTIONS sections is cut into runs of
    sections instead, at most MOST_SECTIONS of them (_fewer_cuts)."""
    levels = sorted({h.level for h in headings})
    top = next((n for n in levels if sum(h.level <= n for h in headings) > 1), 6)
    cuts = [h.start for h in headings if h.level <= top and h.start > 0 and _apart(body, h.start)]
    if len(cuts) >= MOST_SECTIONS:
        cuts = _fewer_cuts(body, cuts)
    return cuts


def _apart(body: str, start: int) -> bool:
    """Whether the heading whose line starts at `start` starts a block of the page itself,
    however the lines before it read: it is not indented (so not in a list item) and follows
    a blank line (so no table row or paragraph before it takes its line in). Only there is
    the page cut: the sections then read as they do in the page."""
    if body[start] in " \t":
        return False
    before = body.rfind("\n", 0, start - 1)
    return not body[before + 1 : start - 1].strip(" \t")


def sections(body: str) -> list[str]:
    """The body cut before each of its top headings (_cuts)."""
    cuts = _cuts(body, scan_headings(body))
    return [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]


def _sections_with_ids(body: str, headings: list[Heading]) -> list[tuple[str, HeadingIds]]:
    """The body's sections (_cuts), each with the ids its headings get: decided over the whole
    page (heading_ids), by the line each heading starts on in its section."""
    slugs = [slug_of(h.text) for h in headings]
    ids = heading_ids(slugs, TEMPLATE_IDS)
    cuts = _cuts(body, headings)
    found: list[tuple[str, HeadingIds]] = []
    at, first_line = 0, 0  # the heading the section starts at or after, and its first line
    for start, end in zip([0, *cuts], [*cuts, len(body)], strict=True):
        given: dict[int, tuple[str, str]] = {}
        if at < len(headings) and headings[at].start == start:
            first_line = headings[at].line
        while at < len(headings) and headings[at].start < end:
            heading = headings[at]
            given[heading.line - first_line] = (slugs[at], ids[at])
            at += 1
        found.append((body[start:end], given))
    return found


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
            html = None
            if len(body) >= BIG and not _REFERENCE.search(body):
                html = self._by_sections(address, body)
            if html is None:
                html = render(
                    body, page_url=page_url, at=address, navigation=True, reserved=TEMPLATE_IDS
                )
            found = html.encode()  # sanitised by render, section by section
            self._keep(key, found)
        assert isinstance(found, bytes)
        return found

    def _by_sections(self, address: str, body: str) -> str | None:
        """The page's HTML made of its sections' (each kept), or None where it is rendered
        whole: one section (or more than MOST_SECTIONS, within the one render's budget), or
        headings the renderer reads otherwise than the scanner."""
        parts = _sections_with_ids(body, scan_headings(body))
        if not 1 < len(parts) <= MOST_SECTIONS:
            return None
        try:
            made = [self._section(address, text, ids) for text, ids in parts]
        except HeadingsDiffer:
            return None
        return with_contents("".join(m.html for m in made), [h for m in made for h in m.headings])

    def _section(self, address: str, text: str, ids: HeadingIds) -> RenderedParts:
        key = (
            "section",
            folder_of(address),
            text,
            tuple(heading_id for _, heading_id in ids.values()),
        )
        found = self._get(key)
        if found is None:
            found = render_parts(text, page_url=page_url, at=address, navigation=True, ids=ids)
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
