"""A member's own account (name, password, tokens, sessions) and what an admin edits of others:
a person's name, e-mail and admin flag, an agent's name and its people, a person's password."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sqlalchemy as sa

from codna.errors import Duplicate, InvalidRequest, NotFound, RateLimited, ReadOnly, Unauthenticated
from codna.services.members import members, sessions, tokens
from codna.services.members.members import Member
from codna.storage.database import Database
from codna.storage.schema import sign_in_failures
from tests.services.conftest import Team

HERE = "192.0.2.7"
PAT = "pat@example.com"


@pytest.fixture
def pat(team: Team) -> Member:
    """A person with a password who is not an admin."""
    return members.add_person(team.admin, email=PAT, name="Pat", password="pat pass")


def _failures(db: Database, email: str) -> int:
    with db.read() as conn:
        query = sa.select(sa.func.count()).where(sign_in_failures.c.email == email)
        return int(conn.execute(query).scalar_one())


def test_a_person_renames_themselves_and_nobody_else(team: Team, pat: Member) -> None:
    renamed = members.rename_self(pat, name="  Patricia ")
    assert renamed.name == "Patricia"
    assert members.member_by_handle(PAT).name == "Patricia"
    with pytest.raises(InvalidRequest, match="1 to 200 characters"):
        members.rename_self(pat, name="   ")
    with pytest.raises(ReadOnly, match="agent"):
        members.rename_self(team.agent, name="Someone")
    with pytest.raises(ReadOnly, match="run"):
        members.rename_self(replace(pat, via="decision-check"), name="Run")


def test_changing_ones_password_ends_the_other_sessions_and_keeps_this_one(pat: Member) -> None:
    here = sessions.sign_in(PAT, "pat pass", address=HERE)
    elsewhere = sessions.sign_in(PAT, "pat pass", address=HERE)
    ended = sessions.change_password(
        pat, current="pat pass", new="a new secret", address=HERE, keep=here.secret
    )
    assert ended == 1
    assert sessions.session_member(here.secret).id == pat.id
    with pytest.raises(Unauthenticated):
        sessions.session_member(elsewhere.secret)
    assert members.authenticate(PAT, "a new secret").id == pat.id
    with pytest.raises(Unauthenticated):
        members.authenticate(PAT, "pat pass")


def test_a_wrong_current_password_changes_nothing_and_counts_as_a_failed_sign_in(
    db: Database, pat: Member
) -> None:
    for _ in range(sessions.FREE_FAILURES_PER_EMAIL):
        with pytest.raises(InvalidRequest, match="current password is wrong") as refused:
            sessions.change_password(pat, current="guess", new="a new secret", address=HERE)
        assert refused.value.fields["field"] == "current_password"
    assert _failures(db, PAT) == sessions.FREE_FAILURES_PER_EMAIL
    with pytest.raises(RateLimited, match="Too many wrong passwords"):
        sessions.change_password(pat, current="pat pass", new="a new secret", address=HERE)
    with pytest.raises(RateLimited):  # signing in waits the same back-off
        sessions.sign_in(PAT, "pat pass", address=HERE)
    assert members.authenticate(PAT, "pat pass").id == pat.id


def test_a_new_password_keeps_the_rules_of_a_new_person(pat: Member) -> None:
    with pytest.raises(InvalidRequest, match="at least 8 characters"):
        sessions.change_password(pat, current="pat pass", new="short", address=HERE)
    assert members.authenticate(PAT, "pat pass").id == pat.id


def test_agents_and_runs_have_no_password_to_change(team: Team, pat: Member) -> None:
    with pytest.raises(ReadOnly, match="agent"):
        sessions.change_password(team.agent, current="x", new="a new secret", address=HERE)
    run = replace(pat, via="decision-check")
    with pytest.raises(ReadOnly, match="run"):
        sessions.change_password(run, current="pat pass", new="a new secret", address=HERE)


def test_an_admin_resets_a_password_ending_the_persons_sessions(
    db: Database, team: Team, pat: Member
) -> None:
    session = sessions.sign_in(PAT, "pat pass", address=HERE)
    with pytest.raises(Unauthenticated):
        sessions.sign_in(PAT, "forgotten", address=HERE)
    assert _failures(db, PAT) == 1
    token = tokens.create_token(team.admin, member=PAT, name="laptop")
    assert sessions.reset_password(team.admin, member=PAT, password="given anew") == 1
    with pytest.raises(Unauthenticated):
        sessions.session_member(session.secret)
    assert _failures(db, PAT) == 0  # forgiven: the person signs in at once
    assert sessions.sign_in(PAT, "given anew", address=HERE).member.id == pat.id
    assert tokens.authenticate_token(token.secret).member.id == pat.id  # tokens keep working


def test_only_an_admin_resets_a_password_and_only_a_persons(team: Team, pat: Member) -> None:
    with pytest.raises(ReadOnly):
        sessions.reset_password(pat, member="ada@example.com", password="taken over")
    with pytest.raises(InvalidRequest, match="agent"):
        sessions.reset_password(team.admin, member="checker", password="a password")
    with pytest.raises(NotFound):
        sessions.reset_password(team.admin, member="nobody@example.com", password="a password")
    with pytest.raises(InvalidRequest, match="at least 8"):
        sessions.reset_password(team.admin, member=PAT, password="short")


def test_signing_out_everywhere_else_keeps_only_this_session(pat: Member) -> None:
    here, *others = [sessions.sign_in(PAT, "pat pass", address=HERE) for _ in range(3)]
    assert sessions.end_other_sessions(pat, keep=here.secret) == 2
    assert sessions.session_member(here.secret).id == pat.id
    for other in others:
        with pytest.raises(Unauthenticated):
            sessions.session_member(other.secret)
    assert sessions.end_other_sessions(pat, keep=here.secret) == 0


def test_an_admin_edits_a_persons_name_email_and_admin_flag(team: Team, pat: Member) -> None:
    saved = members.update_person(
        team.admin, handle=PAT, name="Pat Lee", email="Pat.Lee@Example.com", admin=True
    )
    assert (saved.name, saved.email, saved.is_admin) == ("Pat Lee", "pat.lee@example.com", True)
    assert members.member_by_handle("pat.lee@example.com").id == pat.id
    with pytest.raises(NotFound):
        members.member_by_handle(PAT)
    with pytest.raises(Duplicate, match="already exists"):
        members.update_person(
            team.admin, handle="pat.lee@example.com", name="P", email="rita@example.com", admin=True
        )
    with pytest.raises(ReadOnly):
        members.update_person(
            team.writer, handle="rita@example.com", name="R", email="r@x.org", admin=True
        )
    with pytest.raises(NotFound):
        members.update_person(team.admin, handle="checker", name="C", email="c@x.org", admin=False)


def test_the_last_admin_stays_one(team: Team, pat: Member) -> None:
    with pytest.raises(InvalidRequest, match="last admin") as refused:
        members.update_person(
            team.admin, handle="ada@example.com", name="Ada", email="ada@example.com", admin=False
        )
    assert refused.value.fields["field"] == "admin"
    members.update_person(team.admin, handle=PAT, name="Pat", email=PAT, admin=True)
    demoted = members.update_person(
        team.admin, handle="ada@example.com", name="Ada", email="ada@example.com", admin=False
    )
    assert not demoted.is_admin
    promoted = members.member_by_handle(PAT)
    with pytest.raises(InvalidRequest, match="Pat is the last admin"):
        members.update_person(promoted, handle=PAT, name="Pat", email=PAT, admin=False)


def test_an_admin_renames_an_agent_and_changes_its_people(team: Team, pat: Member) -> None:
    saved = members.update_agent(
        team.admin, handle="checker", name="checker-2", responsible=[PAT, "rita@example.com"]
    )
    assert (saved.member.name, saved.responsible) == ("checker-2", (PAT, "rita@example.com"))
    listed = {d.member.name: d.responsible for d in members.list_members(team.admin)}
    assert listed["checker-2"] == (PAT, "rita@example.com") and "checker" not in listed
    members.add_agent(team.admin, name="tidier", responsible=[PAT])
    with pytest.raises(Duplicate):
        members.update_agent(team.admin, handle="tidier", name="checker-2", responsible=[PAT])
    with pytest.raises(NotFound, match="no person"):
        members.update_agent(team.admin, handle="tidier", name="tidier", responsible=["x@y.org"])
    with pytest.raises(InvalidRequest, match="at least one person"):
        members.update_agent(team.admin, handle="tidier", name="tidier", responsible=[])
    with pytest.raises(ReadOnly):
        members.update_agent(pat, handle="tidier", name="mine", responsible=[PAT])


def test_a_person_lists_and_revokes_only_their_own_tokens(team: Team, pat: Member) -> None:
    mine = tokens.create_token(team.admin, member=PAT, name="laptop")
    theirs = tokens.create_token(team.admin, member="wanda@example.com", name="hers")
    listed = tokens.list_own_tokens(pat)
    assert [(t.id, t.name, t.expires_at, t.revoked_at) for t in listed] == [
        (mine.token.id, "laptop", None, None)
    ]
    with pytest.raises(NotFound):
        tokens.revoke_token(pat, token_id=theirs.token.id, own=True)
    # An admin's account revokes only the admin's own tokens too.
    with pytest.raises(NotFound):
        tokens.revoke_token(team.admin, token_id=mine.token.id, own=True)
    tokens.revoke_token(pat, token_id=mine.token.id, own=True)
    assert tokens.list_own_tokens(pat)[0].revoked_at is not None
    with pytest.raises(Unauthenticated):
        tokens.authenticate_token(mine.secret)
    assert tokens.authenticate_token(theirs.secret).member.email == "wanda@example.com"
