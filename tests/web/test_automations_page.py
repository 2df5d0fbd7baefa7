"""Automations and runs in the web UI: anyone signed in adds and disables their own by form and
sees their routines' recent runs; a refusal keeps what was chosen; nobody sees another's."""

from __future__ import annotations

import html
import re

from codna.services.events import runs
from codna.services.members import members
from codna.web.templating import page_url
from tests.conftest import ROLES, InProcessServer, unique
from tests.web.conftest import csrf_of, signed_in


def _row(page: str, folder: str) -> str:
    """The table row of the automation watching `folder` ('' if there is none)."""
    row = rf'<tr id="automation-\d+">(?:(?!</tr>).)*{re.escape(folder)}.*?</tr>'
    found = re.search(row, page, re.S)
    return found.group(0) if found else ""


def _added(app: InProcessServer, role: str, folder: str) -> str:
    """Add an automation on `folder` as `role` through the form; the page listing it."""
    with signed_in(app, role) as person:
        token = csrf_of(person.get("/automations"))
        added = person.post(
            "/automations",
            data={
                "event": "document.created",
                "folder": folder,
                "routine": "decision-check",
                "csrf": token,
            },
        )
        assert added.status_code == 303 and added.headers["location"] == "/automations"
        return person.get("/automations").text


def test_a_person_adds_an_automation_by_form_and_sees_it_listed(app: InProcessServer) -> None:
    folder = unique("wiki:decisions-") + "/"
    listed = _added(app, "writer", folder)
    row = _row(listed, folder)
    assert "<code>document.created</code>" in row and "decision-check" in row
    assert f"<code>{ROLES['writer']}</code>" in row and "Disable" in row


def test_the_form_offers_the_events_and_the_routines_this_server_knows(
    app: InProcessServer,
) -> None:
    with signed_in(app, "writer") as writer:
        page = writer.get("/automations")
    assert page.status_code == 200
    assert '<option value="document.created" selected>' in page.text
    assert '<option value="document.changed">' in page.text
    assert '<option value="decision-check">' in page.text
    assert '<label for="au-folder">' in page.text and 'id="au-folder"' in page.text


def test_disabling_an_automation_stops_it_and_takes_its_button_away(
    app: InProcessServer,
) -> None:
    folder = unique("wiki:decisions-") + "/"
    listed = _added(app, "writer", folder)
    found = re.search(r'name="automation_id" value="(\d+)"', _row(listed, folder))
    assert found
    with signed_in(app, "writer") as writer:
        token = csrf_of(writer.get("/automations"))
        done = writer.post(
            "/automations/disable", data={"automation_id": found.group(1), "csrf": token}
        )
        assert done.status_code == 303
        row = _row(writer.get("/automations").text, folder)
    assert "disabled <time" in row and "Disable</button>" not in row


def test_a_refused_automation_shows_the_sentence_and_keeps_what_was_chosen(
    app: InProcessServer,
) -> None:
    folder = unique("wiki:decisions-")  # a page's address, not a folder's
    with signed_in(app, "writer") as writer:
        token = csrf_of(writer.get("/automations"))
        refused = writer.post(
            "/automations",
            data={
                "event": "document.changed",
                "folder": folder,
                "routine": "decision-check",
                "csrf": token,
            },
        )
        after = writer.get("/automations").text
    assert refused.status_code == 422
    text = html.unescape(refused.text)
    assert f"{folder} is a page's address; an automation watches a space or a folder" in text
    assert 'role="alert"' in refused.text
    assert f'id="au-folder" name="folder" required value="{folder}"' in refused.text
    assert '<option value="document.changed" selected>' in refused.text
    assert '<option value="decision-check" selected>' in refused.text
    assert folder not in after


def test_the_same_automation_twice_is_refused_in_the_form(app: InProcessServer) -> None:
    # One on output is refused by the same rule check (tests/services/events/test_automations.py)
    # and answered as the refusal above is.
    folder = unique("wiki:decisions-") + "/"
    _added(app, "writer", folder)
    with signed_in(app, "writer") as writer:
        token = csrf_of(writer.get("/automations"))
        chosen = {"event": "document.created", "routine": "decision-check", "csrf": token}
        twice = writer.post("/automations", data={**chosen, "folder": folder})
    assert twice.status_code == 409  # duplicate
    assert f"as you on document.created under {folder} already." in html.unescape(twice.text)


def test_a_stranger_sees_none_of_the_others_automations_and_cannot_watch_their_folders(
    app: InProcessServer,
) -> None:
    folder = unique("wiki:decisions-") + "/"
    _added(app, "writer", folder)
    with signed_in(app, "stranger") as stranger:
        page = stranger.get("/automations")
        assert page.status_code == 200
        assert folder not in page.text and ROLES["writer"] not in page.text
        refused = stranger.post(
            "/automations",
            data={
                "event": "document.created",
                "folder": folder,
                "routine": "decision-check",
                "csrf": csrf_of(page),
            },
        )
    assert refused.status_code == 404
    assert f"There is no folder {folder} you can read." in html.unescape(refused.text)
    with signed_in(app, "admin") as admin:
        assert _row(admin.get("/automations").text, folder)


def test_a_form_sent_without_its_token_is_refused_and_adds_nothing(app: InProcessServer) -> None:
    folder = unique("wiki:decisions-") + "/"
    with signed_in(app, "writer") as writer:
        refused = writer.post(
            "/automations",
            data={"event": "document.created", "folder": folder, "routine": "decision-check"},
        )
        assert refused.status_code == 422
        assert "The form had expired or came from another site" in refused.text
        assert folder not in writer.get("/automations").text


def test_the_recent_runs_show_each_runs_page_run_page_status_and_error(
    app: InProcessServer,
) -> None:
    address = unique("wiki:decisions-runs/")
    writer = members.member_by_handle(ROLES["writer"])
    ended = runs.start_run(writer, routine="decision-check", address=address).run
    run_page = f"output:decision-check/runs/{ended.id}"
    runs.finish_run(
        ended.id, status="failed", run_page=run_page, error="not_found: There is no page."
    )
    running = runs.start_run(writer, routine="decision-check", address=address).run
    try:
        with signed_in(app, "writer") as person:
            page = person.get("/automations").text
        with signed_in(app, "stranger") as stranger:
            assert address not in stranger.get("/automations").text
    finally:
        runs.finish_run(running.id, status="succeeded")
    ended_row = re.search(rf'<tr id="run-{ended.id}">.*?</tr>', page, re.S)
    running_row = re.search(rf'<tr id="run-{running.id}">.*?</tr>', page, re.S)
    assert ended_row and running_row
    assert f'<a href="{page_url(address)}">' in ended_row.group(0)
    assert f'<a href="{page_url(run_page)}">' in ended_row.group(0)
    assert "<td>failed</td>" in ended_row.group(0)
    assert "not_found: There is no page." in ended_row.group(0)
    assert ended_row.group(0).count("<time") == 2
    assert "<td>running</td>" in running_row.group(0)
    assert running_row.group(0).count("<time") == 1
    assert page.index(f'id="run-{running.id}"') < page.index(f'id="run-{ended.id}"')
