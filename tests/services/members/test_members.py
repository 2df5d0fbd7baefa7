"""Members: people with argon2id passwords, agents with the people responsible for them."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from codna.errors import Duplicate, InvalidRequest, NotFound, ReadOnly, Unauthenticated
from codna.services.members import access, members
from codna.storage.database import Database
from codna.storage.schema import members as members_table
from tests.services.conftest import Team


def test_the_first_admin_is_made_once(db: Database) -> None:
    admin = members.init_workspace(admin_email="Ada@Example.com", admin_password="correct horse")
    assert (admin.email, admin.is_admin) == ("ada@example.com", True)
    with pytest.raises(Duplicate):
        members.init_workspace(admin_email="eve@example.com", admin_password="correct horse")


def test_passwords_are_stored_as_argon2id_and_checked(db: Database) -> None:
    members.init_workspace(admin_email="ada@example.com", admin_password="correct horse")
    with db.read() as conn:
        stored = conn.execute(sa.select(members_table.c.password_hash)).scalar_one()
    assert stored.startswith("$argon2id$") and "correct horse" not in stored
    assert members.authenticate("ada@example.com", "correct horse").email == "ada@example.com"
    for email, password in [
        ("ada@example.com", "wrong horse"),
        ("bob@example.com", "correct horse"),
    ]:
        with pytest.raises(Unauthenticated):
            members.authenticate(email, password)


def test_only_admins_manage_members(team: Team) -> None:
    with pytest.raises(ReadOnly):
        members.add_person(team.writer, email="x@example.com", name="X")
    with pytest.raises(ReadOnly):
        members.add_agent(team.writer, name="bot", responsible=["wanda@example.com"])
    with pytest.raises(ReadOnly):
        members.list_members(team.writer)


def test_an_agent_has_the_people_responsible_for_it_and_no_password(team: Team) -> None:
    details = {d.member.handle: d for d in members.list_members(team.admin)}
    assert details["checker"].member.kind == "agent"
    assert details["checker"].responsible == ("wanda@example.com",)
    with pytest.raises(NotFound):
        members.add_agent(team.admin, name="bot", responsible=["nobody@example.com"])
    with pytest.raises(Duplicate):
        members.add_agent(team.admin, name="checker", responsible=["wanda@example.com"])


def test_bad_member_input_is_refused_with_the_field(team: Team) -> None:
    for kwargs, field in [
        ({"email": "not-an-email", "name": "X"}, "email"),
        ({"email": "x@example.com", "name": " "}, "name"),
        ({"email": "x@example.com", "name": "X", "password": "short"}, "password"),
    ]:
        with pytest.raises(InvalidRequest) as refused:
            members.add_person(team.admin, **kwargs)
        assert refused.value.fields["field"] == field


def test_an_agent_is_given_read_only(team: Team) -> None:
    with pytest.raises(InvalidRequest) as refused:
        access.share(team.admin, address="wiki", member="checker", level="write")
    assert "read only" in refused.value.message


def test_a_disabled_member_cannot_sign_in(team: Team) -> None:
    members.add_person(team.admin, email="d@example.com", name="D", password="long enough")
    members.set_disabled(team.admin, handle="d@example.com", disabled=True)
    with pytest.raises(Unauthenticated):
        members.authenticate("d@example.com", "long enough")
