"""The loop ADR 0024 was written for, end to end through a real `codna serve` with its worker,
on both databases: an admin adds the automation; a person writes a decision record with no
status line and an unnumbered title; decision-check notices on its own and suggests each, with
its reason; its run page in output links them and names the sections only a person can write;
accepting one makes a revision naming the person, the routine and the reason; a later edit
runs it again, and it suggests nothing it suggested before."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import unique
from tests.server.conftest import Server
from tests.waiting import eventually

RECORD = """\
## Context

Agents find gaps in decision records.

## Decision

Agents suggest; people decide.
"""


def suggestions_on(api: httpx.Client, address: str) -> list[dict[str, Any]]:
    answer = api.get("/api/v1/suggestions", params={"address": address, "limit": 200})
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()
    return found


def run_pages(api: httpx.Client, address: str) -> list[str]:
    """The bodies of decision-check's run pages about `address`, oldest first."""
    listed = api.get("/api/v1/pages", params={"address": "output:decision-check/runs/"})
    if listed.status_code == 404:
        return []
    bodies = [
        api.get("/api/v1/page", params={"address": p["address"]}).json()["body"]
        for p in sorted(listed.json(), key=lambda p: int(p["address"].rsplit("/", 1)[1]))
    ]
    return [b for b in bodies if f"]({address})" in b]


def test_a_record_with_two_gaps_gets_two_suggestions_from_the_routine_on_its_own(
    server: Server,
) -> None:
    folder = unique("wiki:loop-") + "/"
    address = f"{folder}0003-agents-suggest"
    with server.api("admin") as admin:
        for event in ("document.created", "document.changed"):
            made = admin.post(
                "/api/v1/automations",
                json={"event": event, "folder": folder, "routine": "decision-check"},
            )
            assert made.status_code == 201, made.text
    server.create_page(address, RECORD, title="Agents suggest")

    with server.api("writer") as editor:
        made = eventually(
            "two suggestions",
            lambda: suggestions_on(editor, address)[1:] and suggestions_on(editor, address),
        )
        assert {s["reason"] for s in made} == {
            "A decision record starts with a status line; this one has none.",
            "A decision record's title is 'NNNN · what was decided'; this one is 'Agents suggest'.",
        }
        assert {(s["suggester"], s["via"]) for s in made} == {("Admin", "decision-check")}
        [first_run] = eventually("the run page", lambda: run_pages(editor, address))
        for s in made:
            assert f"[change {s['id']}](" in first_run
        assert "- A decision record has a Consequences section; this one has none." in first_run
        assert "To fill in" not in str(made)
        pending = editor.get("/api/v1/pending", params={"kind": "change", "limit": 200}).json()
        assert {s["id"] for s in made} <= {s["id"] for s in pending["suggested_changes"]["items"]}

        [status] = [s for s in made if "status line" in s["reason"]]
        decided = editor.post(
            f"/api/v1/suggestions/{status['id']}/decide", json={"decision": "accept"}
        )
        assert decided.status_code == 200, decided.text
        history = editor.get("/api/v1/page/history", params={"address": address}).json()
        assert history[0]["summary"] == (
            "Suggested by Admin (decision-check): A decision record starts with a status "
            "line; this one has none."
        )
        edited = editor.post(
            "/api/v1/page/edit",
            json={
                "address": address,
                "edits": [{"op": "replace", "old": "find gaps", "new": "find gaps at night"}],
            },
        )
        assert edited.status_code == 200, edited.text
        # Accepting and the edit each change the page: two more runs, and neither repeats.
        eventually("two runs after the first", lambda: run_pages(editor, address)[2:])
        runs = run_pages(editor, address)[1:]
        assert all("Nothing new to suggest." in body for body in runs)
        assert len(suggestions_on(editor, address)) == 2
