"""Migration 0015 on both databases: it only adds the record of grant changes, taken back it
leaves every grant as it was, and the table refuses a row that records no change."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from codna.services.members import access, members
from codna.storage.database import Database
from codna.storage.schema import grant_changes, grants
from tests.storage.test_revision_deltas_migration import at_version, downgrade


def _tables(db: Database) -> set[str]:
    return set(sa.inspect(db.engine).get_table_names())


def test_taking_0015_back_and_again_changes_only_its_table_and_keeps_every_grant(
    db: Database,
) -> None:
    admin = members.init_workspace(admin_email="ada@example.com", admin_password="correct horse")
    members.add_person(admin, email="ben@example.com", name="Ben")
    access.share(admin, address="wiki:team/", member="ben@example.com", level="write")
    with db.read() as conn:
        held = conn.execute(sa.select(grants.c.member_id, grants.c.path, grants.c.level)).all()
    at_head, head = _tables(db), at_version(db)
    downgrade(db, "0015")  # what came after 0015 is not this test's
    before = _tables(db)
    downgrade(db, "0014")
    assert at_version(db) == "0014"
    assert before - _tables(db) == {"grant_changes"}
    db.migrate()
    assert at_version(db) == head and _tables(db) == at_head
    with db.read() as conn:
        assert (
            conn.execute(sa.select(grants.c.member_id, grants.c.path, grants.c.level)).all() == held
        )
        assert conn.execute(sa.select(sa.func.count()).select_from(grant_changes)).scalar() == 0


@pytest.mark.parametrize(
    ("before", "after"), [(None, None), ("admin", None), (None, "owner"), ("read", "read ")]
)
def test_a_row_without_a_level_or_with_one_other_than_read_or_write_is_refused(
    db: Database, before: str | None, after: str | None
) -> None:
    admin = members.init_workspace(admin_email="ada@example.com", admin_password="correct horse")
    row = {
        "changed_at": datetime.now(UTC),
        "changed_by": admin.id,
        "member_id": admin.id,
        "space": "wiki",
        "path": "",
        "level_before": before,
        "level_after": after,
    }
    with pytest.raises(sa.exc.IntegrityError), db.write() as conn:
        conn.execute(grant_changes.insert().values(**row))
