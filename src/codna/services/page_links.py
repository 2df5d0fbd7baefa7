"""Links between pages, kept for backlinks: each page's row of the addresses its text links to
(markdown/outgoing.py finds them), brought in step by every save."""

from __future__ import annotations

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


def keep_links(
    conn: Connection, page_id: int, where: Address, body: str, *, before: str | None = None
) -> None:
    """Bring the page's links in step with `body`, its text now (`before`, its text until
    now, if it had one): the rows it no longer links to go, the new ones come. A save that
    links to the same pages as before costs no statement."""
    wanted = _links(where, body)
    if before is not None and _links(where, before) == wanted:
        return
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
