"""Who makes tokens, on both databases: only a person's own token makes tokens, so an agent's
leaked token cannot make itself another and revoking it ends the leak."""

from __future__ import annotations

import pytest

from codna.errors import ReadOnly, Unauthenticated
from codna.services.members import tokens
from tests.services.conftest import Team


def test_an_agent_makes_no_token_not_even_for_itself(team: Team) -> None:
    for member in ("checker", "wanda@example.com"):
        with pytest.raises(ReadOnly) as refused:
            tokens.create_token(team.agent, member=member, name="more")
        assert "made by an admin or a person responsible for it" in refused.value.message


def test_a_person_responsible_for_an_agent_makes_and_revokes_its_tokens(team: Team) -> None:
    made = tokens.create_token(team.writer, member="checker", name="run")
    assert tokens.authenticate_token(made.secret).member.id == team.agent.id
    tokens.revoke_token(team.writer, token_id=made.token.id)
    with pytest.raises(Unauthenticated):
        tokens.authenticate_token(made.secret)


def test_an_agent_may_still_revoke_a_token_of_its_own(team: Team) -> None:
    made = tokens.create_token(team.admin, member="checker", name="leaked")
    tokens.revoke_token(team.agent, token_id=made.token.id)
    with pytest.raises(Unauthenticated):
        tokens.authenticate_token(made.secret)
