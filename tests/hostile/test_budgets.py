"""One token cannot stall the server: every search is bounded by the work it may cause
(SEARCH_BUDGET), and a statement past PostgreSQL's statement timeout is refused, not waited on.
Through the JSON API and MCP, on SQLite and PostgreSQL; the tests assert on refusals and on
counts of work, never on timings.
"""

from __future__ import annotations

import dataclasses
import uuid

import pytest
import sqlalchemy as sa

from codna.errors import TooLarge
from codna.services.context import use_database
from codna.services.limits import SEARCH_BUDGET
from codna.services.members import members
from codna.services.pages import search
from codna.storage.database import Database
from tests.conftest import InProcessServer, error_body, refusal, structured, unique

pytestmark = pytest.mark.anyio


def word() -> str:
    return "w" + uuid.uuid4().hex[:12]


def api_search(app: InProcessServer, query: str) -> tuple[int, dict[str, object] | list[object]]:
    with app.api("reader") as client:
        answer = client.get("/api/v1/search", params={"q": query})
    return answer.status_code, answer.json()


@pytest.mark.parametrize(
    ("query", "says"),
    [
        (" ".join(f"a{n}*" for n in range(20)), "prefix* terms"),
        ("ab* report", "at least 3 letters"),
        ('"' + " ".join(f"w{n}" for n in range(21)) + '"', "each word of a phrase counted"),
        (" ".join(f"w{n}" for n in range(21)), f"at most {SEARCH_BUDGET.words} words"),
    ],
)
def test_a_search_beyond_its_budget_is_refused_over_the_api_saying_what_to_change(
    app: InProcessServer, query: str, says: str
) -> None:
    with app.api("reader") as client:
        answer = client.get("/api/v1/search", params={"q": query})
    body = error_body(answer, 422, "invalid_request")
    assert says in body["message"] and body["field"] == "query" and body["limit"] >= 1


async def test_twenty_short_prefixes_are_refused_over_mcp_too(app: InProcessServer) -> None:
    query = " ".join(f"{chr(97 + n)}*" for n in range(20))
    async with app.mcp("reader") as mcp:
        error = refusal(await mcp.call_tool("search_documents", {"query": query}))
    assert error["code"] == "invalid_request" and "prefix" in error["message"]


def test_three_prefixes_of_three_letters_and_twenty_words_are_searched(
    app: InProcessServer,
) -> None:
    words = [word() for _ in range(SEARCH_BUDGET.words)]
    address = unique()
    app.create_page(address, "Opening.\n\n## All of them\n\n" + " ".join(words) + "\n")
    status, hits = api_search(app, " ".join(words))
    assert status == 200 and [h["address"] for h in hits] == [address]  # type: ignore[index]
    prefixed = " ".join(w[:4] + "*" for w in words[: SEARCH_BUDGET.prefixes])
    status, hits = api_search(app, prefixed)
    assert status == 200 and [h["address"] for h in hits] == [address]  # type: ignore[index]


async def test_a_search_matching_more_sections_than_it_ranks_is_refused_on_every_interface(
    app: InProcessServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The budget made small, so that a few sections pass it: what is counted, not how big.
    most = 3
    monkeypatch.setattr(search, "SEARCH_BUDGET", dataclasses.replace(SEARCH_BUDGET, scored=most))
    common = word()
    body = "\n".join(f"## Part {n}\n\n{common} in part {n}.\n" for n in range(most + 1))
    address = unique()
    app.create_page(address, body)
    with app.api("reader") as client:
        answer = client.get("/api/v1/search", params={"q": common})
    refused = error_body(answer, 422, "invalid_request")
    assert refused["limit"] == most and "rarer word" in refused["message"]
    async with app.mcp("reader") as mcp:
        error = refusal(await mcp.call_tool("search_documents", {"query": common}))
        assert error["code"] == "invalid_request" and error["limit"] == most
        # A rarer word beside it matches fewer sections than the budget: it runs.
        other, rare = unique(), word()
        app.create_page(other, f"## Only\n\n{common} {rare}.\n")
        found = structured(await mcp.call_tool("search_documents", {"query": f"{common} {rare}"}))
    assert [h["address"] for h in found["hits"]] == [other]


def test_sections_of_pages_the_caller_cannot_read_do_not_count_toward_the_budget(
    app: InProcessServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    most = 2
    monkeypatch.setattr(search, "SEARCH_BUDGET", dataclasses.replace(SEARCH_BUDGET, scored=most))
    hidden = word()
    # The stranger has no grant: every section is of a page they cannot read.
    body = "\n".join(f"## Part {n}\n\n{hidden} here.\n" for n in range(most + 3))
    app.create_page(unique(), body)
    with app.api("stranger") as client:
        answer = client.get("/api/v1/search", params={"q": hidden})
    assert answer.status_code == 200 and answer.json() == []


def test_a_search_held_past_the_statement_timeout_is_too_large_never_unavailable(
    db: Database,
) -> None:
    if db.is_sqlite:
        pytest.skip("PostgreSQL's statement timeout")
    admin = members.init_workspace(admin_email="ada@example.com", admin_password="correct horse")
    short = Database(db.url.render_as_string(False), statement_timeout=0.2)
    use_database(short)
    try:
        # Another transaction holds the pages table, as a long statement would: the search
        # waits on it until the statement timeout stops it.
        with db.engine.connect() as holder, holder.begin():
            holder.execute(sa.text("LOCK TABLE pages IN ACCESS EXCLUSIVE MODE"))
            with pytest.raises(TooLarge) as raised:
                search.search(admin, query="anything")
    finally:
        use_database(db)
        short.dispose()
    assert raised.value.code == "too_large" and raised.value.status == 413
    assert "0.2 s" in raised.value.message and raised.value.fields["limit"] == 0.2
    assert search.search(admin, query="anything") == []  # and the database is fine after


def test_the_more_words_a_search_has_the_fewer_sections_it_ranks(
    app: InProcessServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    scored = 4
    monkeypatch.setattr(search, "SEARCH_BUDGET", dataclasses.replace(SEARCH_BUDGET, scored=scored))
    first, second = word(), word()
    body = "\n".join(f"## Part {n}\n\n{first} {second} {n}.\n" for n in range(3))
    address = unique()
    app.create_page(address, body)
    status, hits = api_search(app, first)  # 3 sections; one word ranks up to 4
    assert status == 200 and [h["address"] for h in hits] == [address]  # type: ignore[index]
    with app.api("reader") as client:
        answer = client.get("/api/v1/search", params={"q": f"{first} {second}"})
    refused = error_body(answer, 422, "invalid_request")  # two words rank up to 2
    assert refused["limit"] == scored // 2 and "a search of 2 words" in refused["message"]
