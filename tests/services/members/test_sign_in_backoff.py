"""Guessing passwords slows down without locking the owner out: after a few failures each try
for an e-mail (or from an address) waits a back-off that doubles up to a minute, refused
meanwhile without a look at the password; and an unknown e-mail costs what a wrong password
costs, so neither the answer nor its time tells whether a member exists."""

from __future__ import annotations

import statistics
import time
from datetime import timedelta

import pytest
import sqlalchemy as sa

from codna.errors import RateLimited, Unauthenticated
from codna.services.clock import now
from codna.services.members import sessions
from codna.storage.database import Database
from codna.storage.schema import sign_in_failures
from tests.services.conftest import Team

PASSWORD = "correct horse"
ADMIN = "ada@example.com"
HERE = "192.0.2.1"


def _failures_made(db: Database, *, ago: timedelta) -> None:
    with db.write() as conn:
        conn.execute(sign_in_failures.update().values(at=now() - ago))


def _refusal(email: str, password: str, *, address: str = HERE) -> RateLimited:
    with pytest.raises(RateLimited) as refused:
        sessions.sign_in(email, password, address=address)
    return refused.value


def _fail_until(db: Database, email: str, count: int, *, address: str = HERE) -> None:
    """`count` failures for `email`, each after the wait before it has passed."""
    for _ in range(count):
        _failures_made(db, ago=sessions.MAX_BACKOFF)
        with pytest.raises(Unauthenticated):
            sessions.sign_in(email, "wrong password", address=address)


@pytest.mark.parametrize(
    ("failures", "seconds"),
    [(0, 0), (4, 0), (5, 1), (6, 2), (7, 4), (8, 8), (10, 32), (11, 60), (12, 60), (99, 60)],
)
def test_the_wait_doubles_after_the_free_failures_up_to_a_minute(
    failures: int, seconds: int
) -> None:
    assert sessions.backoff(failures, free=5) == timedelta(seconds=seconds)


def test_each_further_try_waits_longer_and_is_told_how_long(db: Database, team: Team) -> None:
    free = sessions.FREE_FAILURES_PER_EMAIL
    waits = []
    for failures in range(free, free + 8):
        _fail_until(db, ADMIN, failures - _count(db, ADMIN))
        _failures_made(db, ago=timedelta(0))
        refusal = _refusal(ADMIN, "wrong password")
        waits.append(refusal.fields["retry_after"])
        assert refusal.message == f"Too many failed sign-ins; retry in {waits[-1]} s."
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60]


def test_while_waiting_the_right_password_is_refused_like_a_wrong_one(
    db: Database, team: Team
) -> None:
    _fail_until(db, ADMIN, sessions.FREE_FAILURES_PER_EMAIL + 3)
    _failures_made(db, ago=timedelta(0))
    right, wrong = _refusal(ADMIN, PASSWORD), _refusal(ADMIN, "wrong password")
    assert (right.code, right.message, right.fields) == (wrong.code, wrong.message, wrong.fields)
    assert right.fields == {"retry_after": 8}


def test_the_owner_signs_in_with_the_right_password_once_the_wait_is_over(
    db: Database, team: Team
) -> None:
    # A guesser kept at it, from many addresses.
    for attempt in range(sessions.FREE_FAILURES_PER_EMAIL + 7):
        _fail_until(db, ADMIN, 1, address=f"198.51.100.{attempt}")
    _failures_made(db, ago=timedelta(0))
    assert _refusal(ADMIN, PASSWORD).fields["retry_after"] == 60  # never more than a minute
    _failures_made(db, ago=sessions.MAX_BACKOFF)
    assert sessions.sign_in(ADMIN, PASSWORD, address=HERE).member == team.admin
    assert _count(db, ADMIN) == 0  # and the e-mail's count starts again


def test_an_address_that_guesses_many_emails_waits_too(db: Database, team: Team) -> None:
    free = sessions.FREE_FAILURES_PER_ADDRESS
    for attempt in range(free + 2):
        _fail_until(db, f"guess{attempt}@example.com", 1)
    _failures_made(db, ago=timedelta(0))
    assert _refusal(ADMIN, PASSWORD).fields["retry_after"] == 4
    assert sessions.sign_in(ADMIN, PASSWORD, address="192.0.2.2").member == team.admin


def test_the_wait_is_kept_in_the_database_for_every_server_process(
    db: Database, team: Team
) -> None:
    # What one process counted, another sees: only rows decide, nothing held in memory.
    _fail_until(db, ADMIN, sessions.FREE_FAILURES_PER_EMAIL)
    with db.write() as conn:
        conn.execute(sign_in_failures.insert().values(email=ADMIN, address="203.0.113.5", at=now()))
    assert _refusal(ADMIN, PASSWORD, address="203.0.113.6").fields["retry_after"] == 2


def _count(db: Database, email: str) -> int:
    with db.read() as conn:
        query = sa.select(sa.func.count()).where(sign_in_failures.c.email == email)
        return int(conn.execute(query).scalar_one())


def _cpu_seconds(email: str, address: str) -> float:
    started = time.process_time()
    with pytest.raises(Unauthenticated):
        sessions.sign_in(email, "wrong password", address=address)
    return time.process_time() - started


def test_an_unknown_email_costs_what_a_wrong_password_costs(team: Team) -> None:
    # Process time, not wall time: the password's hash is work on this machine's cores, and
    # what other programs do meanwhile does not count. Interleaved, so drift hits both.
    tries = sessions.FREE_FAILURES_PER_EMAIL  # each e-mail's free tries, from fresh addresses
    known, unknown = [], []
    for attempt in range(tries):
        known.append(_cpu_seconds(ADMIN, f"198.51.100.{attempt}"))
        unknown.append(_cpu_seconds("nobody@example.com", f"203.0.113.{attempt}"))
    ratio = statistics.median(unknown) / statistics.median(known)
    # Without a hash for the unknown e-mail the ratio would be near 0.01.
    assert 0.6 < ratio < 1.6, (known, unknown)
