"""One member cannot fill the disk with suggestions: what a member holds in suggestions no
editor has accepted (waiting, withdrawn or rejected; changes and links together) is bounded in
bytes as stored (STORED_SUGGESTION_BYTES). A reader suggesting and withdrawing big changes or
links in a loop is refused as `too_large` once past it, over the JSON API and MCP, and the
refusal stores nothing. The budget is made small here, so that a few suggestions reach it:
what is counted, not how big the real number is.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from codna.services.context import database
from codna.services.members import access, members, tokens
from codna.services.suggestions import changes
from tests.conftest import PASSWORD, InProcessServer, error_body, refusal, unique

pytestmark = pytest.mark.anyio

BUDGET = 1024 * 1024


def big(size: int = 100_000) -> str:
    """`size` bytes of words that do not compress (PostgreSQL counts what a row takes on disk):
    in each suggestion's edit, and again in its diff."""
    return " ".join(uuid.uuid4().hex for _ in range(size // 33))


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setattr(changes, "STORED_SUGGESTION_BYTES", BUDGET)
    yield BUDGET


def new_reader(app: InProcessServer, folder: str) -> tuple[int, str]:
    """A person who may read `folder` and nothing else, with a token: their id and secret."""
    admin = tokens.authenticate_token(app.token("admin")).member
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    person = members.add_person(admin, email=email, name="Rex", password=PASSWORD)
    access.share(admin, address=folder, member=email, level="read")
    return person.id, tokens.create_token(admin, member=email, name="filler").secret


def held(member_id: int) -> int:
    with database().read() as conn:
        return changes.stored_bytes(conn, member_id)


async def test_suggesting_and_withdrawing_big_changes_stops_at_the_stored_budget(
    app: InProcessServer, small_budget: int
) -> None:
    address = unique()
    app.create_page(address, "Start.\n\nEnd.\n")
    member_id, secret = new_reader(app, address)
    headers = {"Authorization": f"Bearer {secret}"}
    made = 0
    with app.api() as client:
        for _ in range(50):
            edit = {"op": "replace", "old": "Start.", "new": big()}
            body = {"address": address, "edits": [edit], "reason": "More words."}
            answer = client.post("/api/v1/suggestions", json=body, headers=headers)
            if answer.status_code != 201:
                break
            made += 1
            number = answer.json()["suggestion"]["id"]
            withdrawn = client.post(f"/api/v1/suggestions/{number}/withdraw", headers=headers)
            assert withdrawn.status_code == 200, withdrawn.text
        refused = error_body(answer, 413, "too_large")
        assert refused["limit"] == small_budget and "withdrawn" in refused["message"]
        assert 2 <= made < 10  # each holds some 200 KB: the budget passed after a handful
        stored = held(member_id)
        assert stored <= small_budget
        dry = {**body, "dry_run": True}
        error_body(client.post("/api/v1/suggestions", json=dry, headers=headers), 413, "too_large")
        own = client.get("/api/v1/suggestions", headers=headers).json()
    assert len(own["suggestions"] if isinstance(own, dict) else own) == made
    assert held(member_id) == stored  # the refusals stored nothing


async def test_the_budget_is_refused_over_mcp_as_well(
    app: InProcessServer, small_budget: int
) -> None:
    address = unique()
    app.create_page(address, "Start.\n\nEnd.\n")
    async with app.mcp("reader") as mcp:
        for _ in range(50):
            edit = {"op": "replace", "old": "Start.", "new": big()}
            answer = await mcp.call_tool(
                "suggest_edit", {"address": address, "edits": [edit], "reason": "More."}
            )
            if answer.is_error:
                break
            number = answer.structured_content["suggestion_id"]  # type: ignore[index]
            await mcp.call_tool("withdraw_suggestion", {"suggestion_id": number})
    error = refusal(answer)
    assert error["code"] == "too_large" and error["limit"] == small_budget


def test_links_with_big_anchors_count_toward_the_same_budget(
    app: InProcessServer, small_budget: int
) -> None:
    source, target = unique(), unique()
    anchor = big(65_000)  # once on the page
    app.create_page(source, f"Intro.\n\n{anchor}\n")
    app.create_page(target, "The target.\n")
    member_id, secret = new_reader(app, "wiki:")
    headers = {"Authorization": f"Bearer {secret}"}
    body = {"address": source, "target": target, "reason": "Related.", "anchor": anchor}
    with app.api() as client:
        for _ in range(2 * small_budget // len(anchor) + 2):
            answer = client.post("/api/v1/links", json=body, headers=headers)
            if answer.status_code != 201:
                break
            number = answer.json()["id"]
            done = client.post(f"/api/v1/links/{number}/withdraw", headers=headers)
            assert done.status_code == 200, done.text
        error_body(answer, 413, "too_large")
    assert held(member_id) <= small_budget
