"""Reading only the grants that bear on one page gives that page the very level all of a
member's grants give it, and refuses to answer for any other page."""

from __future__ import annotations

import pytest

from codna.services import access, members
from codna.services.context import database
from codna.services.members import Member
from codna.storage.database import Database
from codna.storage.prepared import Reads, together

pytestmark = pytest.mark.storage

# Grants whose paths are prefixes of one another, share a beginning without being a folder of
# the page, or carry `_` and `.` (which a LIKE pattern would take for wildcards).
GRANTS = [
    ("wiki:team_a/", "read"),
    ("wiki:team_a/notes/", "write"),
    ("wiki:team_ab/plan", "write"),
    ("wiki:team.a/", "write"),
    ("wiki:teamXa/", "write"),
    ("raw", "read"),
    ("output:reports/2026", "write"),
]
PAGES = [
    "wiki:team_a/x",
    "wiki:team_a/notes/y",
    "wiki:team_a/notes",
    "wiki:team_ab/plan",
    "wiki:team_ab/plan2",
    "wiki:team.a/z",
    "wiki:teamxa/z",
    "wiki:team/a",
    "wiki:other",
    "raw:anything/at/all",
    "output:reports/2026",
    "output:reports/2026-b",
    "output:reports",
]


def _rights_on(conn: Reads, member: Member, space: str, path: str) -> access.Rights:
    """As a page read gets them: the narrowed grants, sent along with another statement."""
    [held] = together(conn, access.grants_on(member, space, path))
    return access.rights_from(member, held, space, path)


def test_the_rights_read_for_a_page_match_all_the_grants(db: Database) -> None:
    admin = members.init_workspace(admin_email="ada@example.com", admin_password="pw-pw-pw-pw")
    someone = members.add_person(admin, email="sam@example.com", name="Sam")
    agent = members.add_agent(admin, name="checker", responsible=["sam@example.com"])
    for address, level in GRANTS:
        access.share(admin, address=address, member="sam@example.com", level=level)
        access.share(admin, address=address, member="checker", level="read")
    for member in (someone, agent, admin):
        with database().read() as conn:
            everything = access.rights(conn, member)
            for address in PAGES:
                space, _, path = address.partition(":")
                one = _rights_on(conn, member, space, path)
                for created_by in (None, member.id):
                    expected = everything.level(space, path, created_by)
                    assert one.level(space, path, created_by) == expected, (member, address)


def test_rights_read_for_one_page_refuse_questions_about_another(db: Database) -> None:
    admin = members.init_workspace(admin_email="ada@example.com", admin_password="pw-pw-pw-pw")
    someone = members.add_person(admin, email="sam@example.com", name="Sam")
    access.share(admin, address="wiki", member="sam@example.com", level="write")
    with database().read() as conn:
        one = _rights_on(conn, someone, "wiki", "a")
    assert one.can_edit("wiki", "a")
    with pytest.raises(ValueError, match="only"):
        one.can_read("wiki", "b")
    with pytest.raises(ValueError, match="only"):
        one.readable()
