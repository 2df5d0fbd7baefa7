"""Links between pages, for backlinks; revisions by time, for recent changes.

`page_links` holds, for each page, the addresses of the pages its text links to (internal
addresses, and relative links resolved against its folder), kept by every save. This migration
fills it for the pages there are with the rule it was written with, frozen here: an inline
link's or a reference definition's destination that is an internal address or a relative path.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-07
"""

import posixpath
import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SPACES = ("wiki", "raw", "output")
_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_DESTINATION = re.compile(r"\]\(\s*<?([^\s)<>]+)>?|^ {0,3}\[[^\]\n]+\]:\s*<?([^\s<>]+)>?", re.M)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _target(at_space: str, at_path: str, destination: str) -> tuple[str, str] | None:
    destination = destination.split("#", 1)[0]
    space, colon, path = destination.partition(":")
    if colon and space in _SPACES:
        parts = path.split("/")
    elif _SCHEME.match(destination) or destination.startswith(("/", "\\")) or not destination:
        return None
    else:
        space = at_space
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(at_path), destination))
        if joined.startswith("..") or joined == ".":
            return None
        parts = joined.removesuffix(".md").split("/")
    if not all(_SEGMENT.fullmatch(part) for part in parts):
        return None
    return space, "/".join(parts)


def upgrade() -> None:
    op.create_table(
        "page_links",
        sa.Column(
            "page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("space", sa.String(20), nullable=False),
        sa.Column("path", sa.String(500), nullable=False),
        sa.PrimaryKeyConstraint("page_id", "space", "path"),
    )
    op.create_index("ix_page_links_target", "page_links", ["space", "path"])
    op.create_index("ix_revisions_created_at", "revisions", ["created_at"])
    conn = op.get_bind()
    links = sa.table("page_links", sa.column("page_id"), sa.column("space"), sa.column("path"))
    batch = sa.text(
        "SELECT id, space, path, body FROM pages WHERE id > :after ORDER BY id LIMIT 200"
    )
    after = 0
    while rows := conn.execute(batch, {"after": after}).all():
        after = rows[-1][0]
        for page_id, space, path, body in rows:
            found = set()
            for match in _DESTINATION.finditer(body):
                target = _target(space, path, match.group(1) or match.group(2))
                if target is not None and target != (space, path):
                    found.add(target)
            if found:
                conn.execute(
                    links.insert(),
                    [{"page_id": page_id, "space": s, "path": p} for s, p in sorted(found)],
                )


def downgrade() -> None:
    op.drop_index("ix_revisions_created_at", table_name="revisions")
    op.drop_index("ix_page_links_target", table_name="page_links")
    op.drop_table("page_links")
