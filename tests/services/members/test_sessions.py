"""Browser sessions: sign-in with e-mail and password, a secret kept only as a hash, expiry,
sign-out, and a back-off on failed sign-ins decided from rows in the database."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
import sqlalchemy as sa

from codna.errors import InvalidRequest, NotFound, RateLimited, ReadOnly, Unauthenticated
from codna.services.clock import now
from codna.services.members import members, sessions
from codna.services.members.members import Member
from codna.storage import schema
from codna.storage.database import Database
from codna.storage.schema import sign_in_failures, web_sessions
from tests.services.conftest import Team

PASSWORD = "correct horse"  # the admin's, as the team fixture makes it
ADMIN = "ada@example.com"
HERE = "192.0.2.1"


@pytest.fixture
def pat(team: Team) -> Member:
    """A person with a password who is not an admin."""
    return members.add_person(team.admin, email="pat@example.com", name="Pat", password="pat pass")


def _counts(db: Database) -> dict[str, int]:
    with db.read() as conn:
        return {
            table.name: conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
            for table in schema.metadata.sorted_tables
        }


def _fail(email: str, *, address: str = HERE) -> Unauthenticated:
    with pytest.raises(Unauthenticated) as refused:
        sessions.sign_in(email, "wrong password", address=address)
    return refused.value


def _failures_made(db: Database, *, ago: timedelta) -> None:
    with db.write() as conn:
        conn.execute(sign_in_failures.update().values(at=now() - ago))


def test_signing_in_gives_the_member_and_a_new_secret_each_time(team: Team) -> None:
    first = sessions.sign_in(" Ada@Example.com ", PASSWORD, address=HERE)
    second = sessions.sign_in(ADMIN, PASSWORD, address=HERE)
    assert first.member == second.member == team.admin
    assert first.secret != second.secret
    assert first.secret.startswith(sessions.PREFIX)
    assert first.expires_at - now() <= sessions.LIFETIME
    assert first.expires_at - now() > sessions.LIFETIME - timedelta(minutes=1)
    assert sessions.session_member(first.secret) == sessions.session_member(second.secret)


def test_only_the_hash_of_a_session_secret_is_stored(db: Database, team: Team) -> None:
    session = sessions.sign_in(ADMIN, PASSWORD, address=HERE)
    with db.read() as conn:
        rows = conn.execute(sa.select(web_sessions)).mappings().all()
    assert len(rows) == 1
    assert rows[0]["secret_hash"] == hashlib.sha256(session.secret.encode()).hexdigest()
    assert all(session.secret not in str(value) for value in rows[0].values())
    assert rows[0]["member_id"] == team.admin.id


def test_a_session_names_its_member_until_it_is_signed_out(team: Team) -> None:
    session = sessions.sign_in(ADMIN, PASSWORD, address=HERE)
    other = sessions.sign_in(ADMIN, PASSWORD, address=HERE)
    assert sessions.session_member(session.secret) == team.admin
    sessions.sign_out(session.secret)
    with pytest.raises(Unauthenticated, match=r"Your session has ended; sign in again\."):
        sessions.session_member(session.secret)
    assert sessions.session_member(other.secret) == team.admin  # the other one lives on
    sessions.sign_out(session.secret)  # twice, or a secret never made, is no error
    sessions.sign_out(sessions.PREFIX + "never-made")
    sessions.sign_out("not even a secret")


def test_a_secret_never_made_is_refused_like_an_ended_one(team: Team) -> None:
    for secret in [sessions.PREFIX + "never-made", "", "codna_x", sessions.PREFIX + "é"]:
        with pytest.raises(Unauthenticated, match=r"Your session has ended; sign in again\."):
            sessions.session_member(secret)


def test_a_session_unused_for_the_idle_time_has_ended(db: Database, team: Team) -> None:
    session = sessions.sign_in(ADMIN, PASSWORD, address=HERE)
    with db.write() as conn:
        idle = now() - sessions.IDLE_TIMEOUT + timedelta(minutes=5)
        conn.execute(web_sessions.update().values(last_seen_at=idle))
    assert sessions.session_member(session.secret) == team.admin  # in time: and now it is used
    with db.write() as conn:
        idle = now() - sessions.IDLE_TIMEOUT - timedelta(seconds=1)
        conn.execute(web_sessions.update().values(last_seen_at=idle))
    with pytest.raises(Unauthenticated, match="Your session has ended"):
        sessions.session_member(session.secret)


def test_a_session_ends_at_its_lifetime_however_recently_it_was_used(
    db: Database, team: Team
) -> None:
    session = sessions.sign_in(ADMIN, PASSWORD, address=HERE)
    with db.write() as conn:
        conn.execute(web_sessions.update().values(expires_at=now() - timedelta(seconds=1)))
    with pytest.raises(Unauthenticated, match="Your session has ended"):
        sessions.session_member(session.secret)


def test_the_last_use_is_written_at_most_once_a_minute(db: Database, team: Team) -> None:
    session = sessions.sign_in(ADMIN, PASSWORD, address=HERE)

    def last_seen_after_use(ago: timedelta) -> timedelta:
        """Set the last use `ago`, use the session; how long before now the last use is."""
        with db.write() as conn:
            conn.execute(web_sessions.update().values(last_seen_at=now() - ago))
        sessions.session_member(session.secret)
        with db.read() as conn:
            return now() - conn.execute(sa.select(web_sessions.c.last_seen_at)).scalar_one()

    assert last_seen_after_use(timedelta(seconds=30)) >= timedelta(seconds=30)  # not written
    assert last_seen_after_use(timedelta(minutes=2)) < timedelta(seconds=30)  # written


def test_a_disabled_members_session_is_refused_and_they_cannot_sign_in(
    team: Team, pat: Member
) -> None:
    session = sessions.sign_in("pat@example.com", "pat pass", address=HERE)
    members.set_disabled(team.admin, handle="pat@example.com", disabled=True)
    with pytest.raises(Unauthenticated, match="Your session has ended"):
        sessions.session_member(session.secret)
    with pytest.raises(Unauthenticated, match=r"The e-mail or the password is wrong\."):
        sessions.sign_in("pat@example.com", "pat pass", address=HERE)


def test_a_wrong_password_and_an_unknown_email_get_the_same_refusal(
    team: Team, pat: Member
) -> None:
    members.add_person(team.admin, email="dan@example.com", name="Dan", password="dan pass")
    members.set_disabled(team.admin, handle="dan@example.com", disabled=True)
    refusals = [
        _fail(ADMIN),  # a wrong password
        _fail("nobody@example.com"),  # an unknown e-mail
        _fail("checker"),  # an agent's name: agents have no password
        _fail("wanda@example.com"),  # a person without a password
    ]
    with pytest.raises(Unauthenticated) as disabled:
        sessions.sign_in("dan@example.com", "dan pass", address=HERE)  # the right password
    refusals.append(disabled.value)
    assert {(r.code, r.message, str(r.fields)) for r in refusals} == {
        ("unauthenticated", "The e-mail or the password is wrong.", "{}")
    }


def test_too_many_failures_for_an_email_are_refused_alike_whether_or_not_it_exists(
    db: Database, team: Team
) -> None:
    limit = sessions.FREE_FAILURES_PER_EMAIL
    refusals = []
    for email in [ADMIN, "nobody@example.com"]:
        for attempt in range(limit):
            _fail(email, address=f"198.51.100.{attempt}")  # each from another address
        _failures_made(db, ago=timedelta(0))
        with pytest.raises(RateLimited) as throttled:
            sessions.sign_in(email, PASSWORD, address="203.0.113.9")  # even the right password
        refusals.append(throttled.value)
    for refusal in refusals:
        retry_after = refusal.fields["retry_after"]
        assert 0 < retry_after <= sessions.MAX_BACKOFF.total_seconds()
        assert refusal.message == f"Too many failed sign-ins; retry in {retry_after} s."
    assert set(refusals[0].fields) == set(refusals[1].fields) == {"retry_after"}


def test_too_many_failures_from_an_address_are_refused_for_every_email(
    db: Database, team: Team
) -> None:
    for attempt in range(sessions.FREE_FAILURES_PER_ADDRESS):
        _fail(f"guess{attempt}@example.com")
    _failures_made(db, ago=timedelta(0))
    with pytest.raises(RateLimited) as throttled:
        sessions.sign_in(ADMIN, PASSWORD, address=HERE)
    assert throttled.value.fields["retry_after"] > 0
    assert sessions.sign_in(ADMIN, PASSWORD, address="192.0.2.2").member == team.admin


def test_failures_leave_the_count_once_the_window_has_passed(db: Database, team: Team) -> None:
    for _ in range(sessions.FREE_FAILURES_PER_EMAIL):
        _fail(ADMIN)
    _failures_made(db, ago=sessions.FAILURE_WINDOW + timedelta(seconds=1))
    _fail(ADMIN)  # counted as the first of a new window: no wait
    assert sessions.sign_in(ADMIN, PASSWORD, address=HERE).member == team.admin


def test_a_success_clears_the_emails_failures_but_not_the_addresses(
    db: Database, team: Team
) -> None:
    for _ in range(sessions.FREE_FAILURES_PER_EMAIL - 1):
        _fail(ADMIN)
    for _ in range(2):
        _fail("eve@example.com")
    sessions.sign_in(ADMIN, PASSWORD, address=HERE)
    with db.read() as conn:
        left = conn.execute(sa.select(sign_in_failures.c.email, sign_in_failures.c.address))
        assert sorted(left) == [("eve@example.com", HERE)] * 2
    for _ in range(sessions.FREE_FAILURES_PER_EMAIL - 1):
        _fail(ADMIN)  # the e-mail starts counting again
    sessions.sign_in(ADMIN, PASSWORD, address=HERE)


def test_a_failed_sign_in_writes_nothing_but_a_failure_row(db: Database, team: Team) -> None:
    before = _counts(db)
    _fail(ADMIN)
    after = _counts(db)
    assert {t: n - before[t] for t, n in after.items() if n != before[t]} == {"sign_in_failures": 1}
    with db.read() as conn:
        row = conn.execute(sa.select(sign_in_failures)).mappings().one()
    assert (row["email"], row["address"]) == (ADMIN, HERE)
    _fail(" Nobody@Example.COM ", address="2001:db8::1")
    with db.read() as conn:
        emails = conn.execute(sa.select(sign_in_failures.c.email, sign_in_failures.c.address))
        assert sorted(emails) == [(ADMIN, HERE), ("nobody@example.com", "2001:db8::1")]


def test_a_throttled_sign_in_writes_nothing(db: Database, team: Team) -> None:
    for _ in range(sessions.FREE_FAILURES_PER_EMAIL):
        _fail(ADMIN)
    _failures_made(db, ago=timedelta(0))  # however long the failures took to make
    before = _counts(db)
    with pytest.raises(RateLimited):
        sessions.sign_in(ADMIN, "wrong password", address=HERE)
    assert _counts(db) == before


@pytest.mark.parametrize(
    ("email", "password", "address", "field"),
    [
        ("ada\x00@example.com", PASSWORD, HERE, "email"),
        ("\ud800@example.com", PASSWORD, HERE, "email"),
        (None, PASSWORD, HERE, "email"),
        ("x" * 321 + "@example.com", PASSWORD, HERE, "email"),
        (ADMIN, "correct\x07horse", HERE, "password"),
        (ADMIN, 12345678, HERE, "password"),
        (ADMIN, PASSWORD, "x" * (sessions.MAX_ADDRESS + 1), "address"),
    ],
)
def test_an_email_password_or_address_that_is_not_text_is_an_invalid_request(
    db: Database, team: Team, email: object, password: object, address: str, field: str
) -> None:
    before = _counts(db)
    with pytest.raises(InvalidRequest) as refused:
        sessions.sign_in(email, password, address=address)  # type: ignore[arg-type]
    assert refused.value.fields["field"] == field
    assert _counts(db) == before


def test_an_admin_or_the_member_ends_all_their_sessions(team: Team, pat: Member) -> None:
    made = [sessions.sign_in("pat@example.com", "pat pass", address=HERE) for _ in range(3)]
    admins = sessions.sign_in(ADMIN, PASSWORD, address=HERE)
    with pytest.raises(ReadOnly):
        sessions.end_sessions(team.writer, member="pat@example.com")
    with pytest.raises(NotFound):
        sessions.end_sessions(team.admin, member="nobody@example.com")
    assert sessions.end_sessions(team.admin, member="pat@example.com") == 3
    for session in made:
        with pytest.raises(Unauthenticated):
            sessions.session_member(session.secret)
    assert sessions.session_member(admins.secret) == team.admin
    again = sessions.sign_in("pat@example.com", "pat pass", address=HERE)
    assert sessions.end_sessions(pat, member="pat@example.com") == 1
    with pytest.raises(Unauthenticated):
        sessions.session_member(again.secret)
    assert sessions.end_sessions(pat, member="pat@example.com") == 0


def test_sessions_that_have_ended_are_tidied_away_and_not_counted(
    db: Database, team: Team, pat: Member
) -> None:
    old = sessions.sign_in("pat@example.com", "pat pass", address=HERE)
    sessions.sign_in("pat@example.com", "pat pass", address=HERE)
    expired = web_sessions.update().values(expires_at=now() - timedelta(seconds=1))
    with db.write() as conn:
        conn.execute(
            expired.where(
                web_sessions.c.secret_hash == hashlib.sha256(old.secret.encode()).hexdigest()
            )
        )
    assert sessions.end_sessions(team.admin, member="pat@example.com") == 1
    sessions.sign_in("pat@example.com", "pat pass", address=HERE)
    with db.write() as conn:
        conn.execute(expired)
    sessions.sign_in("pat@example.com", "pat pass", address=HERE)  # the expired one goes here
    with db.read() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(web_sessions)).scalar() == 1


def test_signing_in_again_and_again_keeps_the_most_recent_sessions_only(
    db: Database, team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sessions, "SESSIONS_PER_MEMBER", 3)
    made = [sessions.sign_in(ADMIN, PASSWORD, address=HERE) for _ in range(5)]
    newest = sessions.sign_in(ADMIN, PASSWORD, address=HERE)
    with db.read() as conn:
        held = conn.execute(sa.select(sa.func.count()).select_from(web_sessions)).scalar_one()
    assert held == 3
    for ended in made[:3]:  # the least recently used went
        with pytest.raises(Unauthenticated):
            sessions.session_member(ended.secret)
    for live in (made[3], made[4], newest):
        assert sessions.session_member(live.secret) == team.admin
