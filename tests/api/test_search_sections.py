"""A search hit's section as each interface shows it: the JSON API, MCP, the web UI and the
command line; a query with syntax of its own is answered or refused, never a server error."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from codna.cli.main import cli
from codna.services.members import members
from codna.services.pages import pages
from codna.storage.database import Database
from tests.conftest import InProcessServer, unique
from tests.mcp.test_agent_review import Calls
from tests.web.conftest import signed_in


def guide(word: str) -> str:
    return (
        "Opening words.\n\n## Setup\n\nInstall it.\n\n"
        f"## Rolling back\n\nThe {word} puts the previous release back.\n"
    )


def test_the_api_gives_a_hits_section_and_anchor(app: InProcessServer) -> None:
    word, address = unique("ibis"), unique()
    app.create_page(address, guide(word), title="Runbook")
    with app.api("reader") as client:
        answer = client.get("/api/v1/search", params={"q": word})
    assert answer.status_code == 200, answer.text
    [hit] = answer.json()
    assert (hit["address"], hit["section"], hit["anchor"]) == (
        address,
        "Rolling back",
        "rolling-back",
    )
    assert f"[{word}]" in hit["snippet"]


def test_the_api_narrows_by_tag_and_gives_the_snippets_pieces_and_the_sections_path(
    app: InProcessServer,
) -> None:
    word, folder = unique("ibis"), unique()
    with app.api("writer") as client:
        for name, tags in (("a", ["coast"]), ("b", ["inland"])):
            made = client.post(
                "/api/v1/pages",
                json={
                    "address": f"{folder}/{name}",
                    "title": "T",
                    "body": guide(word),
                    "tags": tags,
                },
            )
            assert made.status_code == 201, made.text
    with app.api("reader") as client:
        answer = client.get("/api/v1/search", params={"q": word, "tag": "coast"})
        refused = client.get("/api/v1/search", params={"q": word, "tag": " "})
    assert answer.status_code == 200, answer.text
    [hit] = answer.json()
    assert hit["address"] == f"{folder}/a"
    assert {"text": word, "hit": True} in hit["pieces"]
    assert (
        "".join(p["text"] for p in hit["pieces"]) == f"The {word} puts the previous release back."
    )
    assert hit["path"] == [{"heading": "Rolling back", "anchor": "rolling-back"}]
    assert (refused.status_code, refused.json()["field"]) == (422, "tag")


@pytest.mark.anyio
async def test_search_documents_names_the_section_and_leaves_it_out_above_the_first_heading(
    app: InProcessServer,
) -> None:
    word, first, address = unique("ibis"), unique("tern"), unique()
    app.create_page(address, f"The {first} opens.\n\n" + guide(word))
    async with app.mcp("agent") as client:
        agent = Calls(client)
        found = await agent("search_documents", query=f'"{word} puts"')
        opening = await agent("search_documents", query=first)
        apart = await agent("search_documents", query=f"{first} {word}")
    [hit] = found["hits"]
    assert (hit["address"], hit["section"]) == (address, "Rolling back")
    assert hit["snippet"] == f"The [{word}] [puts] the previous release back."
    [top] = opening["hits"]
    assert top["address"] == address and "section" not in top
    assert apart["hits"] == []  # every word within one section


def test_the_web_search_links_a_hit_to_its_section(app: InProcessServer) -> None:
    word, address = unique("ibis"), unique()
    app.create_page(address, guide(word), title="Runbook")
    with signed_in(app, "reader") as client:
        answer = client.get("/search", params={"q": word})
    path = "/p/" + address.replace(":", "/", 1)
    assert f'href="{path}#rolling-back">Rolling back</a>' in answer.text


@pytest.mark.parametrize(
    "query",
    ['"', "*", "(x", "NEAR(a b)", "a:b", "-x", "x AND NOT y", "回滚 *", "'; --", '"a" OR "b*'],
)
def test_a_query_with_syntax_of_its_own_is_answered_or_refused_never_a_server_error(
    app: InProcessServer, query: str
) -> None:
    with app.api("reader") as client:
        answer = client.get("/api/v1/search", params={"q": query})
    assert answer.status_code in (200, 422), answer.text
    if answer.status_code == 422:
        assert answer.json()["code"] == "invalid_request"


def test_the_command_line_shows_a_hits_section(db: Database) -> None:
    admin = members.init_workspace(admin_email="ada@example.com", admin_password="correct horse")
    pages.create_page(admin, address="wiki:runbook", title="Runbook", body=guide("ibis"))
    shown = CliRunner().invoke(cli, ["search", "ibis"], catch_exceptions=False)
    assert shown.output.splitlines()[0] == "wiki:runbook  Runbook  § Rolling back"
    listed = CliRunner().invoke(cli, ["search", "ibis", "--json"], catch_exceptions=False)
    [hit] = json.loads(listed.output)
    assert (hit["section"], hit["anchor"]) == ("Rolling back", "rolling-back")
