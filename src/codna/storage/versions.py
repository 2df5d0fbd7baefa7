"""How a version of a page is read back: the chain of stored rows it is rebuilt from (its
snapshot, the deltas after it, and itself), and its text rebuilt from them. The services read
a version with it, and so does the work after migrating (derived.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import sqlalchemy as sa

from codna.markdown import delta
from codna.storage.schema import revisions

_target = revisions.alias("target")


def chain(*columns: Any) -> sa.Select[Any]:
    """The rows of `columns` a version is rebuilt from, in order, for the bound `page_id` and
    `version`: its snapshot, the deltas after it, and itself."""
    return (
        sa.select(*columns)
        .where(
            revisions.c.page_id == sa.bindparam("page_id"),
            revisions.c.version <= sa.bindparam("version"),
            revisions.c.version
            >= sa.select(_target.c.snapshot_version)
            .where(
                _target.c.page_id == sa.bindparam("page_id"),
                _target.c.version == sa.bindparam("version"),
            )
            .scalar_subquery(),
        )
        .order_by(revisions.c.version)
    )


class Link(Protocol):
    """One stored version of a chain: whole (`delta` None) or a delta of the one before."""

    @property
    def body(self) -> str: ...

    @property
    def delta(self) -> str | None: ...


def rebuild(links: Sequence[Link]) -> str:
    """The text of the last version of `links`, from the last whole one and each delta after
    it. Raises DeltaError (a delta that cannot be read or applied, or no whole version)."""
    base: str | None = None
    deltas: list[list[delta.Splice]] = []
    for link in links:
        if link.delta is None:
            base, deltas = link.body, []
        else:
            deltas.append(delta.decode(link.delta))
    if base is None:
        raise delta.DeltaError("no whole version to rebuild it from")
    return delta.rebuild(base, deltas)
