"""Revisions are stored as deltas: a version's text is kept whole (a snapshot) or as the
splices that make it of the version before, with a snapshot whenever the deltas since the last
one would add up to more than the body (markdown/delta.py), and each version keeps the SHA-256
of its text. The four columns are added, and every revision is converted, in order of page and
version, BATCH at a time, each batch its own transaction: its hash is worked out from its full
text, its delta against the version before, and only once that delta, read back from its
stored form, rebuilds the text exactly is the full copy dropped.

It can be stopped at any point and run again: the columns are added only where they are not
yet, a row converted already (its hash set) is skipped, and the version before the first row
left is rebuilt from what is stored and checked against its hash. A batch cut off halfway is
rolled back as a whole.

The space the full copies took is reused by the database for what comes next; to give it back
to the file system, run VACUUM on SQLite (VACUUM FULL revisions on PostgreSQL) once it is done.

The stored form is a storage format, which the running code reads (markdown/delta.py): the
code that writes it is frozen here, copied as it was when this migration was written (from
markdown/delta.py and markdown/diff.py's trim_common_lines), so that it writes the same rows
whatever later becomes of those modules. tests/storage/test_revision_deltas_migration.py reads
what it writes with the running code.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-08
"""

import hashlib
import json
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, count

import sqlalchemy as sa
from alembic import op
from alembic.operations import Operations
from sqlalchemy.engine import Connection

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500  # revisions per transaction: at most BATCH full texts are read in one

_revisions = sa.table(
    "revisions",
    sa.column("id", sa.Integer),
    sa.column("page_id", sa.Integer),
    sa.column("version", sa.Integer),
    sa.column("body", sa.Text),
    sa.column("delta", sa.Text),
    sa.column("sha256", sa.String),
    sa.column("snapshot_version", sa.Integer),
    sa.column("chain_chars", sa.Integer),
)
_STORED = (
    _revisions.c.version,
    _revisions.c.body,
    _revisions.c.delta,
    _revisions.c.sha256,
    _revisions.c.snapshot_version,
    _revisions.c.chain_chars,
)


# --- frozen: the stored form and the rule, as markdown/delta.py had them -----------------

Splice = tuple[int, int, str]

# The most deltas between a snapshot and any version rebuilt from it. With one-paragraph edits
# the size rule alone would let a 1 MB page chain thousands; this bounds what a read applies
# (bench/storage.py prints it), and costs a 1 MB page a snapshot's 1 KB per revision.
MAX_CHAIN = 1000

# Texts are rebuilt in pieces of about this many characters, so that a splice copies a piece
# or two instead of the whole text (a chain of a thousand splices on a megabyte would copy a
# gigabyte otherwise).
_PIECE = 8192
# A changed middle longer than this is split at a line both sides keep (splices_between), so
# that a restore that changes a few places far apart stores those places, not everything
# between them; at most _DEPTH splits deep, trying _TRIES lines for each.
_MATCH_FROM = 4096
_DEPTH = 40
_TRIES = 16


class DeltaError(ValueError):
    """A stored delta that cannot be read, or that does not fit the text it is applied to."""


def digest(body: str) -> str:
    """The SHA-256 of the body's UTF-8, in hex: what a version's text is checked against."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def encode(splices: Sequence[Splice]) -> str:
    """The splices as stored: compact JSON."""
    return json.dumps(
        [[start, stop, text] for start, stop, text in splices],
        ensure_ascii=False,
        separators=(",", ":"),
    )


def decode(stored: str) -> list[Splice]:
    """The splices a stored delta holds. Raises DeltaError if it is not one."""
    try:
        value = json.loads(stored)
    except ValueError:
        raise DeltaError("the delta is not JSON") from None
    if not isinstance(value, list):
        raise DeltaError("the delta is not a list of splices")
    splices: list[Splice] = []
    for item in value:
        match item:
            case [int() as start, int() as stop, str() as text] if (
                not isinstance(start, bool) and not isinstance(stop, bool) and 0 <= start <= stop
            ):
                splices.append((start, stop, text))
            case _:
                raise DeltaError("a splice of the delta is not [start, stop, text]")
    return splices


def snapshot_due(*, chain_chars: int, delta_chars: int, chain_length: int, body_chars: int) -> bool:
    """Whether the next version is stored whole: its delta would take the deltas since the
    last snapshot (`chain_chars` in `chain_length` deltas) past the body's size, or the chain
    past MAX_CHAIN deltas."""
    return chain_chars + delta_chars > body_chars or chain_length + 1 > MAX_CHAIN


@dataclass(frozen=True)
class Stored:
    """How one version's text is stored: whole (`delta` None, `body` the text) or as a delta
    (`body` empty); the snapshot it is rebuilt from, the characters of the deltas from there
    to it, and the SHA-256 of its text."""

    body: str
    delta: str | None
    sha256: str
    snapshot_version: int
    chain_chars: int

    def columns(self) -> dict[str, object]:
        """As the revisions table's columns."""
        return {
            "body": self.body,
            "delta": self.delta,
            "sha256": self.sha256,
            "snapshot_version": self.snapshot_version,
            "chain_chars": self.chain_chars,
        }


@dataclass(frozen=True)
class Before:
    """The version before the one being stored: its text, and where its chain stands."""

    version: int
    body: str
    snapshot_version: int
    chain_chars: int


def store(
    version: int,
    body: str,
    *,
    before: Before | None = None,
    splices: Sequence[Splice] | None = None,
) -> Stored:
    """How version `version`, whose text is `body`, is stored: as a delta against `before`
    (the version just before it), or whole, when there is none or snapshot_due says so.

    `splices` are what made the change (the edit engine's, or a diff's the caller worked out
    already); they are checked to rebuild the body (a copy and a compare), and otherwise, or
    without them, the delta is splices_between.
    Whatever it is, a delta is stored only once it has been read back from its stored form and
    rebuilt the body exactly.
    """
    sha256 = digest(body)
    whole = Stored(body, None, sha256, version, 0)
    if before is None or before.version != version - 1:
        return whole
    engine = [] if splices is None else [splices]
    for candidate in [*engine, None]:  # None: a diff, if there are no splices or they fail
        stored = encode(splices_between(before.body, body) if candidate is None else candidate)
        due = snapshot_due(
            chain_chars=before.chain_chars,
            delta_chars=len(stored),
            chain_length=before.version - before.snapshot_version,
            body_chars=len(body),
        )
        if due:
            return whole
        if _rebuilds(before.body, stored, body):
            chain_chars = before.chain_chars + len(stored)
            return Stored("", stored, sha256, before.snapshot_version, chain_chars)
    return whole  # pragma: no cover - splices_between is exact


def _rebuilds(before: str, stored: str, body: str) -> bool:
    """Whether the stored delta, read back, makes `body` of `before`."""
    try:
        return apply(before, decode(stored)) == body
    except DeltaError:
        return False


class _Pieces:
    """A text being rebuilt, as a list of strings of about _PIECE characters."""

    __slots__ = ("_parts",)

    def __init__(self, text: str) -> None:
        self._parts = [text[at : at + _PIECE] for at in range(0, len(text), _PIECE)] or [""]

    def splice(self, start: int, stop: int, text: str) -> None:
        parts = self._parts
        starts = list(accumulate(map(len, parts), initial=0))
        if not 0 <= start <= stop <= starts[-1]:
            raise DeltaError(
                f"the splice {start}:{stop} does not fit a text of {starts[-1]} characters"
            )
        first = min(bisect_right(starts, start) - 1, len(parts) - 1)
        last = max(first, min(bisect_right(starts, stop) - 1, len(parts) - 1))
        if stop == starts[last] and last > first:
            last -= 1  # `stop` is where piece `last` starts: the piece before ends there
        merged = parts[first][: start - starts[first]] + text + parts[last][stop - starts[last] :]
        if len(merged) > 2 * _PIECE:
            new = [merged[at : at + _PIECE] for at in range(0, len(merged), _PIECE)]
        else:
            new = [merged] if merged or len(parts) == last - first + 1 else []
        parts[first : last + 1] = new

    def whole(self) -> str:
        return "".join(self._parts)


def rebuild(base: str, deltas: Iterable[Sequence[Splice]]) -> str:
    """The text the deltas make of `base`, applied in order. Raises DeltaError if a splice
    does not fit the text it is applied to."""
    pieces: _Pieces | None = None
    for splices in deltas:
        for start, stop, text in splices:
            if pieces is None:
                pieces = _Pieces(base)
            pieces.splice(start, stop, text)
    return base if pieces is None else pieces.whole()


def apply(body: str, splices: Sequence[Splice]) -> str:
    """The text one delta makes of `body`. Raises DeltaError."""
    return rebuild(body, [splices])


class Chain:
    """The texts of a page's versions, one after another, as they are stored: each snapshot
    starts the text again, and each delta changes the text before it. For reading every
    version (a check, a migration): each text costs its splices and one copy."""

    __slots__ = ("_pieces",)

    def __init__(self) -> None:
        self._pieces: _Pieces | None = None

    def next(self, body: str, stored_delta: str | None) -> str:
        """The next version's text, from its stored columns. Raises DeltaError (its delta
        cannot be read or does not fit; the versions after it, up to the next snapshot,
        then have nothing to be rebuilt from)."""
        if stored_delta is None:
            self._pieces = _Pieces(body)
            return body
        pieces, self._pieces = self._pieces, None
        if pieces is None:
            raise DeltaError("the version it is a delta of cannot be rebuilt")
        for start, stop, text in decode(stored_delta):
            pieces.splice(start, stop, text)
        self._pieces = pieces
        return pieces.whole()


def splices_between(old: str, new: str) -> list[Splice]:
    """A delta that turns `old` into `new`, for changes the edit engine did not make (a revert,
    a restored version, a whole new text).

    The lines both begin and end with are cut off; a changed middle longer than _MATCH_FROM is
    split at a line found once in it and once in the new middle, near its own middle, and each
    side is matched the same way, until what is left is short or has no such line: a splice.
    Each step is a few scans of the text in C (find, compare), so a restore of a 1 MB page that
    changes a few places far apart stores those places in linear time. Exact whatever
    is matched: each split keeps a line that is the same text on both sides.
    """
    splices: list[Splice] = []
    _match(old, new, (0, len(old)), (0, len(new)), splices, _DEPTH)
    splices.reverse()  # from the end: each splice's offsets are still the old text's
    return splices


def _match(
    old: str,
    new: str,
    span_a: tuple[int, int],
    span_b: tuple[int, int],
    out: list[Splice],
    depth: int,
) -> None:
    """Appends to `out`, in order, the splices that turn `old[span_a]` into `new[span_b]`."""
    (a0, a1), (b0, b1) = span_a, span_b
    part_a, part_b = old[a0:a1], new[b0:b1]
    if part_a == part_b:
        return
    head, tail_a, tail_b = trim_common_lines(part_a, part_b)
    a0, a1, b0, b1 = a0 + head, a0 + tail_a, b0 + head, b0 + tail_b
    anchor = None
    if depth and min(a1 - a0, b1 - b0) > _MATCH_FROM:
        anchor = _anchor(old, new, a0, a1, b0, b1)
    if anchor is None:
        out.append((a0, a1, new[b0:b1]))
        return
    at_a, at_b, size = anchor
    _match(old, new, (a0, at_a), (b0, at_b), out, depth - 1)
    _match(old, new, (at_a + size, a1), (at_b + size, b1), out, depth - 1)


def _anchor(old: str, new: str, a0: int, a1: int, b0: int, b1: int) -> tuple[int, int, int] | None:
    """A line of `old[a0:a1]`, near its middle, that is there once and once in `new[b0:b1]`,
    whole: where it starts in each, and its length. None if the lines tried are not."""
    start = max(a0, old.rfind("\n", a0, (a0 + a1) // 2) + 1)
    for _ in range(_TRIES):
        end = old.find("\n", start, a1)
        if end < 0:
            return None
        line = old[start : end + 1]
        if line.strip():
            at_b = _once(new, line, b0, b1)
            if at_b is not None and _once(old, line, a0, a1) == start:
                return start, at_b, len(line)
        start = end + 1
    return None


def _once(text: str, line: str, low: int, high: int) -> int | None:
    """Where the whole line `line` (ending in a newline) starts in `text[low:high]`, if it is
    there once as a whole line."""
    found = None
    at = text.find(line, low, high)
    while at >= 0:
        if at == low or text[at - 1] == "\n":
            if found is not None:
                return None
            found = at
        at = text.find(line, at + 1, high)
    return found


# --- frozen: from markdown/diff.py ---------------------------------------------------------


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b`."""
    limit = min(len(a), len(b))
    low, step = 0, 512
    # Compare growing blocks until one differs, then halve the differing block.
    while low < limit:
        high = min(limit, low + step)
        if a[low:high] != b[low:high]:
            break
        low, step = high, step * 2
    else:
        return limit
    while high - low > 16:
        middle = (low + high) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle
    while low < high and a[low] == b[low]:
        low += 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the longest common suffix of `a` and `b`, at most `limit`."""
    len_a, len_b = len(a), len(b)
    low, step = 0, 512
    while low < limit:
        high = min(limit, low + step)
        if a[len_a - high : len_a - low] != b[len_b - high : len_b - low]:
            break
        low, step = high, step * 2
    else:
        return limit
    while high - low > 16:
        middle = (low + high) // 2
        if a[len_a - middle : len_a - low] == b[len_b - middle : len_b - low]:
            low = middle
        else:
            high = middle
    while low < high and a[len_a - low - 1] == b[len_b - low - 1]:
        low += 1
    return low


def trim_common_lines(old: str, new: str) -> tuple[int, int, int]:
    """Where the common leading and trailing lines end and begin: `(head, old_tail, new_tail)`.

    `old[:head] == new[:head]` and `old[old_tail:] == new[new_tail:]` are whole lines, as
    many as possible, and they do not overlap (`head <= old_tail`, `head <= new_tail`).
    """
    head = _common_prefix(old, new)
    head = old.rfind("\n", 0, head) + 1
    tail = _common_suffix(old, new, min(len(old), len(new)) - head)
    old_tail, new_tail = len(old) - tail, len(new) - tail
    at_line_start = (old_tail == 0 or old[old_tail - 1] == "\n") and (
        new_tail == 0 or new[new_tail - 1] == "\n"
    )
    if not at_line_start:
        newline = old.find("\n", old_tail)
        if newline < 0:
            return head, len(old), len(new)
        new_tail += newline + 1 - old_tail
        old_tail = newline + 1
    return head, old_tail, new_tail


# --- the migration ---------------------------------------------------------------------------


def _columns() -> list[sa.Column[object]]:
    return [
        sa.Column("delta", sa.Text),
        sa.Column("sha256", sa.String(64), nullable=False, server_default=""),
        sa.Column("snapshot_version", sa.Integer, nullable=False, server_default="0"),
        sa.Column("chain_chars", sa.Integer, nullable=False, server_default="0"),
    ]


def add_columns(operations: Operations, conn: Connection) -> None:
    """The four columns, each only if the table has it not (a run stopped earlier added it)."""
    present = {c["name"] for c in sa.inspect(conn).get_columns("revisions")}
    for column in _columns():
        if column.name not in present:
            operations.add_column("revisions", column)


def _before(conn: Connection, page_id: int, version: int) -> Before | None:
    """The version before `version`, as it is stored: converted already (rebuilt from its
    snapshot and checked against its hash), or None if there is none or it is not converted."""
    target = _revisions.alias("target")
    rows = conn.execute(
        sa.select(*_STORED)
        .where(
            _revisions.c.page_id == page_id,
            _revisions.c.version <= version - 1,
            _revisions.c.version
            >= sa.select(target.c.snapshot_version)
            .where(target.c.page_id == page_id, target.c.version == version - 1)
            .scalar_subquery(),
        )
        .order_by(_revisions.c.version)
    ).all()
    if not rows or rows[-1].version != version - 1 or not rows[-1].sha256:
        return None
    last = rows[-1]
    try:
        if rows[0].delta is not None:
            raise DeltaError("its chain starts with no whole version")
        text = rebuild(rows[0].body, [decode(r.delta) for r in rows[1:]])
        if digest(text) != last.sha256:
            raise DeltaError("its text does not match its hash")
    except DeltaError as error:
        raise RuntimeError(
            f"Version {last.version} of page {page_id} does not rebuild: {error}. "
            "Nothing more is converted."
        ) from None
    return Before(last.version, text, last.snapshot_version, last.chain_chars)


def convert(conn: Connection, *, batch: int = BATCH, batches: int | None = None) -> int:
    """Convert the revisions not yet converted, `batch` at a time, committing each batch on
    `conn` (no transaction of its own may be open around it); stop after `batches` batches,
    if given. Returns how many were converted."""
    converted = 0
    after = (0, 0)  # the last (page_id, version) converted by this run
    before: Before | None = None
    before_page = 0
    for _ in count() if batches is None else range(batches):
        keys = conn.execute(
            sa.select(_revisions.c.id, _revisions.c.page_id, _revisions.c.version)
            .where(
                _revisions.c.sha256 == "",
                sa.tuple_(_revisions.c.page_id, _revisions.c.version) > sa.tuple_(*after),
            )
            .order_by(_revisions.c.page_id, _revisions.c.version)
            .limit(batch)
        ).all()
        if not keys:
            break
        for row_id, page_id, version in keys:
            body = conn.execute(
                sa.select(_revisions.c.body).where(_revisions.c.id == row_id)
            ).scalar_one()
            if before is None or before_page != page_id or before.version != version - 1:
                before = _before(conn, page_id, version)
            stored = store(version, body, before=before)
            conn.execute(
                _revisions.update()
                .where(_revisions.c.id == row_id, _revisions.c.sha256 == "")
                .values(**stored.columns())
            )
            before = Before(version, body, stored.snapshot_version, stored.chain_chars)
            before_page = page_id
        conn.commit()
        converted += len(keys)
        after = (keys[-1].page_id, keys[-1].version)
    return converted


def upgrade() -> None:
    conn = op.get_bind()
    add_columns(Operations(op.get_context()), conn)
    conn.commit()  # the columns, then each batch: what is converted stays converted
    convert(conn)


def downgrade() -> None:
    """Every version's full text back in `body`, each checked against its hash, then the
    columns dropped."""
    conn = op.get_bind()
    page_ids = conn.execute(sa.select(_revisions.c.page_id).distinct()).scalars().all()
    for page_id in page_ids:
        rows = conn.execute(
            sa.select(_revisions.c.id, *_STORED)
            .where(_revisions.c.page_id == page_id)
            .order_by(_revisions.c.version)
        ).all()
        chain = Chain()
        for row in rows:
            if not row.sha256:
                chain.next(row.body, None)  # never converted: whole already
                continue
            text = chain.next(row.body, row.delta)
            if digest(text) != row.sha256:
                raise RuntimeError(
                    f"version {row.version} of page {page_id} does not rebuild to its hash"
                )
            if row.delta is not None:
                conn.execute(_revisions.update().where(_revisions.c.id == row.id).values(body=text))
    with op.batch_alter_table("revisions") as table:
        for column in reversed(_columns()):
            table.drop_column(column.name)
