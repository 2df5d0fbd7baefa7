"""The rows the services read, as small typed records: what a table holds, field by field.

`of` makes one from a result row (`Connection.execute(...).mappings()`); JSON lists come back
as tuples, so a record is immutable throughout.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, Self

from sqlalchemy.engine import RowMapping


class _Record:
    """A record made from a row by its field names."""

    @classmethod
    def of(cls, row: RowMapping | Mapping[str, Any]) -> Self:
        values = {}
        for field in fields(cls):  # type: ignore[arg-type]
            value = row[field.name]
            values[field.name] = tuple(value) if isinstance(value, list) else value
        return cls(**values)


@dataclass(frozen=True)
class PageHead(_Record):
    """A page's row without its body: for listings and views that never read the text."""

    id: int
    space: str
    path: str
    title: str
    tags: tuple[str, ...]
    version: int
    created_by: int
    created_at: datetime
    updated_by: int
    updated_at: datetime
    trashed_at: datetime | None

    @property
    def in_trash(self) -> bool:
        return self.trashed_at is not None


@dataclass(frozen=True)
class PageRow(PageHead):
    """A page's row, with its body."""

    body: str


@dataclass(frozen=True)
class RevisionRow(_Record):
    """One saved version of a page."""

    page_id: int
    version: int
    title: str
    tags: tuple[str, ...]
    body: str
    author_id: int
    summary: str
    kind: str
    created_at: datetime


@dataclass(frozen=True)
class StoredVersion(_Record):
    """How one version's text is stored: whole (`delta` None) or as a delta against the
    version before it, and the hash it must rebuild to (schema.py, revisions)."""

    version: int
    body: str
    delta: str | None
    sha256: str
    snapshot_version: int
    chain_chars: int


@dataclass(frozen=True)
class Decided(_Record):
    """What suggested changes and suggested links hold alike: who suggested what on which
    page, and what became of it."""

    id: int
    page_id: int
    reason: str
    suggester_id: int
    status: str
    decided_by: int | None
    decided_at: datetime | None
    decision_reason: str | None
    accepted_version: int | None
    reverted_in_version: int | None  # the version that undid what accepting made, if any
    created_at: datetime


@dataclass(frozen=True)
class SuggestionRow(Decided):
    """A suggested change (ADR 0024)."""

    base_version: int
    edits: tuple[dict[str, str], ...]
    title: str | None
    title_was: str | None
    tags_add: tuple[str, ...]
    tags_remove: tuple[str, ...]
    via: str | None
    diff: str
    edits_hash: str


@dataclass(frozen=True)
class LinkRow(Decided):
    """A suggested link from the page `page_id` to `target_page_id`."""

    target_page_id: int
    anchor: str | None
