"""Pages as HTML, kept per version: only the first view after a change renders the Markdown.

A version's text never changes, so its HTML is kept under the page's address, version and the
moment that version was made (a page deleted for good and made again at the same address is
another key). What is kept is bounded by its total size; the least recently shown goes first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime

from markupsafe import Markup

from codna.markdown.render import render
from codna.web.templating import page_url

Key = tuple[str, int, datetime]
BUDGET = 64 * 1024 * 1024  # characters of HTML kept, in all


class Rendered:
    """HTML by page version, at most `budget` characters of it."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self._kept: OrderedDict[Key, Markup] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def html(self, address: str, version: int, made_at: datetime, body: str) -> Markup:
        """The sanitised HTML of `body`, the text of `address` at `version`."""
        key = (address, version, made_at)
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
        html = Markup(render(body, page_url=page_url))  # sanitised by render
        with self._lock:
            if key not in self._kept and len(html) <= self.budget:
                self._kept[key] = html
                self._size += len(html)
                while self._size > self.budget:
                    _, dropped = self._kept.popitem(last=False)
                    self._size -= len(dropped)
        return html


rendered = Rendered()
