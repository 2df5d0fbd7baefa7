"""Refusals read as one sentence said once, with the code in front (`str(error)`), and say
what a person or a model needs to act: on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from codna.errors import CodnaError, NoLongerApplies, Unauthenticated
from codna.markdown.edits import parse_edits
from codna.services.members import members, tokens
from codna.services.pages import editing, pages
from codna.services.suggestions import changes, links
from tests.services.conftest import Team

PAGE = "wiki:notes/caching"
OTHER = "wiki:notes/memory"
BODY = "# Caching\n\nWe cache rendered pages.\n\nMemory use grows.\n"


def repeated_phrase(text: str) -> str | None:
    """The first run of three words said twice in `text` (its code's words included), if any."""
    words = re.findall(r"[a-z0-9']+", text.lower().replace("_", " "))
    seen: set[tuple[str, ...]] = set()
    for at in range(len(words) - 2):
        phrase = tuple(words[at : at + 3])
        if phrase in seen:
            return " ".join(phrase)
        seen.add(phrase)
    return None


def test_a_phrase_said_twice_is_found() -> None:
    assert repeated_phrase("no_longer_applies: It no longer applies: edit 0") == (
        "no longer applies"
    )
    assert repeated_phrase("no_longer_applies: Edit 0 is gone.") is None


@pytest.fixture
def stale(team: Team) -> tuple[Team, int, int, int]:
    """Two suggestions and a suggested link that no longer apply: the text one edit replaces,
    the title one replaces and the anchor the link needs have all changed since."""
    pages.create_page(team.writer, address=PAGE, title="Caching", body=BODY)
    pages.create_page(team.writer, address=OTHER, title="Memory", body="Grows.\n")
    edit = changes.suggest_edit(
        team.reader,
        address=PAGE,
        edits=parse_edits(
            [{"op": "replace", "old": "We cache rendered pages.", "new": "We cache."}]
        ),
        reason="Shorter.",
    ).suggestion
    title = changes.suggest_edit(
        team.reader, address=PAGE, edits=[], title="Caching pages", reason="Clearer."
    ).suggestion
    link = links.suggest_link(
        team.reader, address=PAGE, target=OTHER, reason="Related.", anchor="Memory use"
    )
    assert edit is not None and title is not None
    editing.edit_page(
        team.writer,
        address=PAGE,
        edits=parse_edits(
            [
                {"op": "replace", "old": "We cache rendered pages.", "new": "Pages are cached."},
                {"op": "replace", "old": "Memory use grows.", "new": "It costs memory."},
            ]
        ),
        title="Cache",
    )
    return team, edit.id, title.id, link.id


def test_accepting_a_suggestion_that_no_longer_applies_says_so_once_and_changes_nothing(
    stale: tuple[Team, int, int, int],
) -> None:
    team, edit_id, title_id, _ = stale
    for suggestion_id in (edit_id, title_id):
        with pytest.raises(NoLongerApplies) as refused:
            changes.decide_edit_suggestion(
                team.writer, suggestion_id=suggestion_id, decision="accept"
            )
        said = str(refused.value)
        assert said.startswith("no_longer_applies: ")
        assert repeated_phrase(said) is None, said
        assert said.count("rejecting is left") == 1, said
        shown = changes.read_suggestion(team.writer, suggestion_id=suggestion_id)
        assert shown.not_applying is not None
        assert shown.not_applying.message == refused.value.message
        assert (shown.status, shown.actions) == ("pending", ("reject",))
    assert pages.read_page(team.writer, address=PAGE).version == 2


def test_accepting_an_edit_that_no_longer_applies_names_the_edit(
    stale: tuple[Team, int, int, int],
) -> None:
    team, edit_id, _, _ = stale
    with pytest.raises(NoLongerApplies) as refused:
        changes.decide_edit_suggestion(team.writer, suggestion_id=edit_id, decision="accept")
    assert refused.value.fields["edit_index"] == 0
    assert refused.value.fields["reason"] == "text_not_found"
    assert '"We cache rendered pages."' in refused.value.message


def test_accepting_a_link_whose_anchor_is_gone_says_so_once_and_changes_nothing(
    stale: tuple[Team, int, int, int],
) -> None:
    team, _, _, link_id = stale
    with pytest.raises(NoLongerApplies) as refused:
        links.decide_link(team.writer, suggestion_id=link_id, decision="accept")
    said = str(refused.value)
    assert repeated_phrase(said) is None, said
    assert said.count("rejecting is left") == 1, said
    assert links.read_link(team.writer, suggestion_id=link_id).status == "pending"
    assert pages.read_page(team.writer, address=PAGE).version == 2


def test_a_disabled_members_token_is_refused_saying_the_member_is_disabled(team: Team) -> None:
    made = tokens.create_token(team.admin, member="wanda@example.com", name="laptop")
    assert tokens.authenticate_token(made.secret).member.id == team.writer.id
    members.set_disabled(team.admin, handle="wanda@example.com", disabled=True)
    with pytest.raises(Unauthenticated) as refused:
        tokens.authenticate_token(made.secret)
    assert refused.value.code == "unauthenticated"
    assert "wanda@example.com" in refused.value.message
    assert "disabled" in refused.value.message and "admin" in refused.value.message
    assert repeated_phrase(str(refused.value)) is None
    members.set_disabled(team.admin, handle="wanda@example.com", disabled=False)
    assert tokens.authenticate_token(made.secret).member.id == team.writer.id


def test_a_disabled_agents_token_is_refused_naming_the_agent(team: Team) -> None:
    made = tokens.create_token(team.admin, member="checker", name="routine")
    members.set_disabled(team.admin, handle="checker", disabled=True)
    with pytest.raises(Unauthenticated) as refused:
        tokens.authenticate_token(made.secret)
    assert "checker" in refused.value.message and "disabled" in refused.value.message


@pytest.mark.parametrize(
    "secret", ["codna_not-a-token", "nothing like a token", "codna_\u00e9t\u00e9"]
)
def test_a_wrong_token_is_refused_saying_nothing_of_any_member(team: Team, secret: str) -> None:
    with pytest.raises(Unauthenticated) as refused:
        tokens.authenticate_token(secret)
    assert refused.value.message == "The token is wrong or revoked."


def test_a_revoked_token_of_a_disabled_member_is_refused_as_revoked(team: Team) -> None:
    made = tokens.create_token(team.admin, member="wanda@example.com", name="old")
    tokens.revoke_token(team.admin, token_id=made.token.id)
    members.set_disabled(team.admin, handle="wanda@example.com", disabled=True)
    with pytest.raises(Unauthenticated) as refused:
        tokens.authenticate_token(made.secret)
    assert refused.value.message == "The token is wrong or revoked."


@pytest.mark.parametrize(
    ("field", "limit", "make"),
    [
        (
            "title",
            200,
            lambda t, v: pages.create_page(t.writer, address="wiki:long", title=v),
        ),
        (
            "summary",
            1000,
            lambda t, v: pages.create_page(t.writer, address="wiki:long", title="T", summary=v),
        ),
        (
            "reason",
            500,
            lambda t, v: changes.suggest_edit(
                t.reader, address=PAGE, edits=parse_edits([{"op": "append", "text": "x"}]), reason=v
            ),
        ),
        (
            "reason",
            500,
            lambda t, v: links.suggest_link(t.reader, address=PAGE, target=OTHER, reason=v),
        ),
        (
            "via",
            100,
            lambda t, v: changes.suggest_edit(
                t.reader,
                address=PAGE,
                edits=parse_edits([{"op": "append", "text": "x"}]),
                reason="r",
                via=v,
            ),
        ),
    ],
    ids=["title", "summary", "suggestion reason", "link reason", "via"],
)
def test_a_text_one_character_too_long_is_refused_as_too_large_naming_field_and_limit(
    team: Team, field: str, limit: int, make: Callable[[Team, str], object]
) -> None:
    pages.create_page(team.writer, address=PAGE, title="Caching", body=BODY)
    pages.create_page(team.writer, address=OTHER, title="Memory", body="Grows.\n")
    with pytest.raises(CodnaError) as refused:
        make(team, "é" * (limit + 1))
    assert refused.value.code == "too_large"
    assert refused.value.fields == {"field": field, "limit": limit}
    assert refused.value.message == (
        f"The field '{field}' is {limit + 1:,} characters; at most {limit:,} are allowed."
    )
    assert [p.address for p in pages.list_pages(team.writer)] == [PAGE, OTHER]
    assert changes.list_suggestions(team.reader) == []
    make(team, "é" * limit)  # the limit itself is allowed
