"""What an agent reviewing pages needs, through the JSON API on SQLite and PostgreSQL: a folder
listed without its slash, the nearest address to one that names nothing, an outline, several
pages in one call, search within a folder, its own pages in `output` trashed and restored,
a refused create that says where to create, and an inbox a routine can follow."""

from __future__ import annotations

from typing import Any

from codna.services.limits import READ_MANY
from tests.conftest import InProcessServer, error_body, unique

BODY = "# Decision\n\nWe chose Markdown.\n\n## Context\n\nPeople write it.\n"


def folder_of_two(app: InProcessServer) -> tuple[str, list[str]]:
    """A fresh folder (its address without the slash) holding two pages."""
    folder = unique("wiki:reading/")
    made = [f"{folder}/0001", f"{folder}/0002"]
    for address in made:
        app.create_page(address, BODY, title="A decision about turbines")
    return folder, made


def test_a_folder_listed_without_its_slash_lists_its_pages(app: InProcessServer) -> None:
    folder, made = folder_of_two(app)
    with app.api("agent") as client:
        listed = client.get("/api/v1/pages", params={"address": folder})
        second = client.get("/api/v1/pages", params={"address": folder, "offset": 1})
        refused = client.get("/api/v1/pages", params={"address": folder + "/", "offset": -1})
    assert listed.status_code == 200, listed.text
    assert [p["address"] for p in listed.json()] == made
    assert [p["address"] for p in second.json()] == made[1:]
    assert error_body(refused, 422, "invalid_request")["field"] == "offset"


def test_an_address_that_names_nothing_is_not_found_with_the_nearest_readable_one(
    app: InProcessServer,
) -> None:
    folder, made = folder_of_two(app)
    with app.api("agent") as client:
        listing = client.get("/api/v1/pages", params={"address": folder + "x"})
        page = client.get("/api/v1/page", params={"address": made[0] + "x"})
    listed = error_body(listing, 404, "not_found")
    assert listed["message"] == (
        f"Nothing you can read is at {folder}x. The nearest you can read is {folder}/."
    )
    assert listed["nearest"] == folder + "/"
    assert error_body(page, 404, "not_found")["nearest"] == made[0]


def test_an_outline_gives_the_headings_and_their_sizes_without_the_body(
    app: InProcessServer,
) -> None:
    _, made = folder_of_two(app)
    with app.api("agent") as client:
        answer = client.get("/api/v1/page/outline", params={"address": made[0]})
        absent = client.get("/api/v1/page/outline", params={"address": made[0] + "/none"})
    assert answer.status_code == 200, answer.text
    outline = answer.json()
    assert "body" not in outline
    assert (outline["address"], outline["version"], outline["size"]) == (made[0], 1, len(BODY))
    assert outline["headings"] == [
        {"level": 1, "text": "Decision", "anchor": "decision", "chars": len(BODY)},
        {
            "level": 2,
            "text": "Context",
            "anchor": "context",
            "chars": len(BODY) - BODY.index("## "),
        },
    ]
    error_body(absent, 404, "not_found")


def test_several_pages_are_read_in_one_call_with_the_missing_ones_named(
    app: InProcessServer,
) -> None:
    _, made = folder_of_two(app)
    hidden = unique("wiki:reading/")
    with app.api("admin") as client:
        client.post("/api/v1/pages", json={"address": hidden, "title": "Hidden"})
    asked = [made[1], hidden, made[0], made[1], made[0] + "-absent"]
    with app.api("stranger") as stranger, app.api("agent") as agent:
        shared = {"address": made[0], "member": "sam@example.com", "level": "read"}
        with app.api("admin") as admin:
            assert admin.post("/api/v1/grants", json=shared).status_code in (200, 201)
        read = stranger.post("/api/v1/pages/read", json={"addresses": asked})
        with app.api("admin") as admin:  # the stranger reads nothing again, for other tests
            taken = {"address": made[0], "member": "sam@example.com"}
            assert admin.post("/api/v1/grants/delete", json=taken).status_code == 200
        many = agent.post("/api/v1/pages/read", json={"addresses": ["wiki:p"] * (READ_MANY + 1)})
        none = agent.post("/api/v1/pages/read", json={"addresses": []})
    assert read.status_code == 200, read.text
    assert [p["address"] for p in read.json()["pages"]] == [made[0]]
    assert read.json()["pages"][0]["body"] == BODY
    assert read.json()["missing"] == [made[1], hidden, made[0] + "-absent"]
    assert error_body(many, 422, "invalid_request")["limit"] == READ_MANY
    error_body(none, 422, "invalid_request")


def test_a_search_within_a_folder_finds_only_what_is_under_it(app: InProcessServer) -> None:
    folder, made = folder_of_two(app)
    with app.api("agent") as client:
        found = client.get("/api/v1/search", params={"q": "turbines", "folder": folder})
        page = client.get("/api/v1/search", params={"q": "turbines", "folder": made[0]})
    assert found.status_code == 200, found.text
    assert sorted(h["address"] for h in found.json()) == made
    assert error_body(page, 422, "invalid_request")["field"] == "folder"


def post(app: InProcessServer, role: str, path: str, body: dict[str, Any]) -> Any:
    with app.api(role) as client:
        return client.post(path, json=body)


def test_an_agent_trashes_and_restores_its_own_pages_in_output_and_no_one_elses(
    app: InProcessServer,
) -> None:
    own, others = unique("output:checker/runs/"), unique("output:runs/")
    made = post(app, "agent", "/api/v1/pages", {"address": own, "title": "Run", "body": "Ran.\n"})
    assert made.status_code == 201, made.text
    app.create_page(others, "Theirs.\n")
    trashed = post(app, "agent", "/api/v1/page/trash", {"address": own})
    assert (trashed.status_code, trashed.json()["in_trash"]) == (200, True), trashed.text
    with app.api("agent") as client:
        listed = client.get(
            "/api/v1/pages", params={"address": "output:checker/runs", "trash": True}
        )
    assert own in [p["address"] for p in listed.json()]
    restored = post(app, "agent", "/api/v1/page/restore", {"address": own})
    assert (restored.status_code, restored.json()["in_trash"]) == (200, False), restored.text
    # A wiki page is refused alike: the rule is tested in tests/services/pages/test_pages.py.
    error_body(post(app, "agent", "/api/v1/page/trash", {"address": others}), 403, "read_only")
    error_body(post(app, "agent", "/api/v1/page/restore", {"address": others}), 404, "not_found")


def test_a_refused_create_says_where_the_agent_may_create_pages(app: InProcessServer) -> None:
    address = unique("wiki:reading/")
    refused = post(app, "agent", "/api/v1/pages", {"address": address, "title": "Mine"})
    body = error_body(refused, 403, "read_only")
    assert body["message"] == (
        f"You cannot create pages at {address}. "
        "You can create pages under output:checker/, such as output:checker/new-page."
    )
    assert body["create_under"] == ["output:checker/"]


def suggest_and_decide(app: InProcessServer, address: str, text: str, decision: str) -> int:
    edits = [{"op": "append", "text": text}]
    made = post(
        app, "agent", "/api/v1/suggestions", {"address": address, "edits": edits, "reason": "r."}
    )
    assert made.status_code == 201, made.text
    suggestion_id: int = made.json()["suggestion"]["id"]
    decided = post(
        app, "writer", f"/api/v1/suggestions/{suggestion_id}/decide", {"decision": decision}
    )
    assert decided.status_code == 200, decided.text
    return suggestion_id


def test_a_routine_follows_its_inbox_with_after_and_since_and_marks_what_it_read(
    app: InProcessServer,
) -> None:
    _, made = folder_of_two(app)
    with app.api("agent") as client:
        latest = client.get("/api/v1/inbox").json()["latest"]
    before = {"limit": 200} if latest is None else {"after": latest, "limit": 200}
    first = suggest_and_decide(app, made[0], "\nMore.\n", "accept")
    second = suggest_and_decide(app, made[1], "\nOther.\n", "reject")
    with app.api("agent") as client:
        new = client.get("/api/v1/inbox", params=before).json()
        ours = [d for d in new["decisions"] if d["suggestion_id"] in (first, second)]
        assert {d["status"] for d in ours} == {"accepted", "rejected"}
        assert new["latest"] == max(d["id"] for d in ours)
        later = next(d for d in ours if d["suggestion_id"] == second)
        earlier = next(d for d in ours if d["suggestion_id"] == first)
        since = client.get("/api/v1/inbox", params={"since": earlier["created_at"]}).json()
        assert second in [d["suggestion_id"] for d in since["decisions"]]
        assert first not in [d["suggestion_id"] for d in since["decisions"]]
        marked = client.post("/api/v1/inbox/read", json={"ids": [d["id"] for d in ours]})
        assert marked.json() == {"marked": 2}
        again = client.post("/api/v1/inbox/read", json={"ids": [later["id"]]})
        assert again.json() == {"marked": 0}
        after = client.get("/api/v1/inbox", params={"after": new["latest"]}).json()
        assert (after["decisions"], after["latest"]) == ([], new["latest"])
        read = client.get("/api/v1/inbox", params=before).json()
        assert all(d["read"] for d in read["decisions"] if d["suggestion_id"] in (first, second))


def test_the_inbox_refuses_a_bad_since_or_after_with_the_apis_error(app: InProcessServer) -> None:
    with app.api("agent") as client:
        cases = {
            "since": ["yesterday", "2024-05-01T09:00:00"],
            "after": ["0", "x", str(2**31)],
        }
        for field, values in cases.items():
            for value in values:
                answer = client.get("/api/v1/inbox", params={field: value})
                assert error_body(answer, 422, "invalid_request")["field"] == field, value
