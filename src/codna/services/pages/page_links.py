"""Links between pages, kept for backlinks: each page's row of the addresses its text links to
(markdown/outgoing.py finds them), brought in step by every save."""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.markdown.outgoing import outgoing_links
from codna.services.addresses import Address, parse_address
from codna.storage.schema import page_links


def _links(where: Address, body: str) -> set[tuple[str, str]]:
    """The pages `body` links to, but the page itself: its link to itself is no backlink."""
    here = str(where)
    return {
        (to.space, to.path)
        for to in map(parse_address, outgoing_links(body, at=here))
        if str(to) != here
    }


def _changed(before: str, after: str) -> tuple[int, int]:
    """How many characters the two texts share at their start and, past that, at their end:
    found by halving, each step one comparison of slices in C, never a loop over characters."""

    def shared(a: str, b: str, same: Callable[[str, str, int], bool]) -> int:
        low, high = 0, min(len(a), len(b))
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if same(a, b, middle) else (low, middle - 1)
        return low

    head = shared(before, after, lambda a, b, n: a[:n] == b[:n])
    tail = shared(before[head:], after[head:], lambda a, b, n: a[len(a) - n :] == b[len(b) - n :])
    return head, tail


def _same_links_around_the_change(where: Address, before: str, after: str) -> bool:
    """Whether the save leaves the page linking to the pages it did, judged from the lines it
    changed alone: outgoing_links reads links within a line, so lines the save left as they
    were link as they did; a fence opened or closed in the changed lines could hide or show
    any line after it, and is judged on the whole page."""
    head, tail = _changed(before, after)
    start = before.rfind("\n", 0, head) + 1  # whole lines, from the line the change is on

    def lines(text: str) -> str:
        end = text.find("\n", len(text) - tail)
        return text[start : len(text) if end < 0 else end]

    old, new = lines(before), lines(after)
    if any(fence in old or fence in new for fence in ("```", "~~~")):
        return _links(where, before) == _links(where, after)
    return _links(where, old) == _links(where, new)


def keep_links(
    conn: Connection, page_id: int, where: Address, body: str, *, before: str | None = None
) -> None:
    """Bring the page's links in step with `body`, its text now (`before`, its text until
    now, if it had one): the rows it no longer links to go, the new ones come. A save that
    links to the same pages as before costs no statement."""
    if before is not None and _same_links_around_the_change(where, before, body):
        return
    wanted = _links(where, body)
    kept = {
        (r.space, r.path)
        for r in conn.execute(
            sa.select(page_links.c.space, page_links.c.path).where(page_links.c.page_id == page_id)
        )
    }
    gone = kept - wanted
    if gone:
        conn.execute(
            page_links.delete().where(
                page_links.c.page_id == page_id,
                sa.tuple_(page_links.c.space, page_links.c.path).in_(sorted(gone)),
            )
        )
    new = wanted - kept
    if new:
        conn.execute(
            page_links.insert(),
            [{"page_id": page_id, "space": s, "path": p} for s, p in sorted(new)],
        )
