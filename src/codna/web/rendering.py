"""Pages as HTML, kept per version: only the first view after a change renders the Markdown,
and on a big page only the sections that changed.

A version's text never changes, so its HTML is kept under the page's address, version and the
moment that version was made (a page deleted for good and made again at the same address is
another key). A big page is rendered section by section (its top-level headings cut it, as
the section scanner finds them), each section's HTML kept by its text, so a new version
renders what changed and reuses the rest; heading ids are then made unique over the whole
page. A page that defines reference links (`[x]: url`), which may be used in any section, is
rendered whole. What is kept is bounded by its total size; the least recently used goes first.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Hashable
from datetime import datetime

from markupsafe import Markup

from codna.markdown.render import render, unique_id
from codna.markdown.sections import scan_headings
from codna.web.templating import page_url

BUDGET = 64 * 1024 * 1024  # characters of HTML kept, in all
BIG = 64 * 1024  # a body this long or longer is rendered section by section
# Sections rendered one by one at most: each render has a budget of its own, so a page of more
# (a megabyte of `# a` lines) is rendered whole, within one render's budget.
MOST_SECTIONS = 2_000
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.M)
_ID = re.compile(r'(<h[1-6] id=")([^"]*)(")')


def sections(body: str) -> list[str]:
    """The body cut before each of its top headings: those of the lowest levels that make
    more than one section (under a page's one `#` title, its `##` sections)."""
    headings = scan_headings(body)
    levels = sorted({h.level for h in headings})
    top = next((n for n in levels if sum(h.level <= n for h in headings) > 1), 6)
    cuts = [h.start for h in headings if h.level <= top and h.start > 0]
    return [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]


def _unique_ids(html: str) -> str:
    """Heading ids made unique over the page: a repeat gets the first free -2, -3 …, as
    render numbers them (unique_id: each base's search goes on where it stopped)."""
    used: set[str] = set()
    last: dict[str, int] = {}

    def unique(match: re.Match[str]) -> str:
        return match.group(1) + unique_id(match.group(2), used, last) + match.group(3)

    return _ID.sub(unique, html)


class Rendered:
    """HTML by page version and by section text, at most `budget` characters of it."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self._kept: OrderedDict[Hashable, str | bytes] = OrderedDict()
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
                html = render(body, page_url=page_url)  # within the one render's budget
            else:
                html = _unique_ids("".join(self._section(text) for text in parts))
            found = html.encode()  # sanitised by render, section by section
            self._keep(key, found)
        assert isinstance(found, bytes)
        return found

    def _section(self, text: str) -> str:
        key = ("section", text)
        found = self._get(key)
        if found is None:
            found = render(text, page_url=page_url)
            self._keep(key, found)
        assert isinstance(found, str)
        return found

    def _get(self, key: Hashable) -> str | bytes | None:
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def _keep(self, key: Hashable, html: str | bytes) -> None:
        with self._lock:
            if key in self._kept or len(html) > self.budget:
                return
            self._kept[key] = html
            self._size += len(html)
            while self._size > self.budget:
                _, dropped = self._kept.popitem(last=False)
                self._size -= len(dropped)


rendered = Rendered()
