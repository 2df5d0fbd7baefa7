"""A team made through the services, as people would make it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from codna.services.members import access, members
from codna.services.members.members import Member
from codna.storage.database import Database


@dataclass(frozen=True)
class Team:
    admin: Member
    writer: Member  # write on wiki, raw and output
    reader: Member  # read on wiki, raw and output
    stranger: Member  # no grant at all
    agent: Member  # read on wiki, raw and output


@pytest.fixture
def team(db: Database) -> Team:
    admin = members.init_workspace(admin_email="ada@example.com", admin_password="correct horse")
    writer = members.add_person(admin, email="wanda@example.com", name="Wanda")
    reader = members.add_person(admin, email="rita@example.com", name="Rita")
    stranger = members.add_person(admin, email="sam@example.com", name="Sam")
    agent = members.add_agent(admin, name="checker", responsible=["wanda@example.com"])
    for space in ("wiki", "raw", "output"):
        access.share(admin, address=space, member=writer.email or "", level="write")
        access.share(admin, address=space, member=reader.email or "", level="read")
        access.share(admin, address=space, member="checker", level="read")
    return Team(admin, writer, reader, stranger, agent)
