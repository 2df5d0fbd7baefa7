"""Asking before what cannot be undone from the page itself (a trash, a revert, a restore of
an old version, a delete for good), without JavaScript: a GET is a page that says what will
happen, with the form that does it and a way back; only the POST changes anything. And a
sentence after each, on the page it leads to."""

from __future__ import annotations

import html
import re

import httpx

from tests.conftest import InProcessServer, unique
from tests.web.conftest import csrf_of, signed_in
from tests.web.test_editing import BODY, _url, api_page


def _main(answer: httpx.Response) -> str:
    return html.unescape(answer.text.split('<main id="main">', 1)[1])


def _form(answer: httpx.Response) -> tuple[str, dict[str, str]]:
    """The action of the confirmation's form and its hidden fields but the token."""
    main = answer.text.split('<main id="main">', 1)[1]
    form = re.search(r'<form action="([^"]+)" method="post"[^>]*>(.*?)</form>', main, re.S)
    assert form, main[:2000]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form[2]))
    fields.pop("csrf")
    return form[1], fields


def _cancel(answer: httpx.Response) -> str:
    found = re.search(r'<a href="([^"]+)">Cancel</a>', answer.text)
    assert found, answer.text[:2000]
    return found.group(1)


def _edit(app: InProcessServer, address: str, old: str, new: str) -> None:
    with app.api("writer") as client:
        done = client.post(
            "/api/v1/page/edit",
            json={"address": address, "edits": [{"op": "replace", "old": old, "new": new}]},
        )
    assert done.status_code == 200, done.text


def test_asking_to_trash_says_what_will_happen_and_changes_nothing(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, BODY, title="Old plan")
    with signed_in(app, "writer") as client:
        asked = client.get(_url("trash", address))
    assert asked.status_code == 200
    assert (
        f"Move 'Old plan' ({address}) to the trash? People can restore it from the trash."
        in _main(asked)
    )
    assert _form(asked) == (_url("trash", address), {})
    assert _cancel(asked) == _url("p", address)
    assert api_page(app, address)["in_trash"] is False


def test_asking_to_revert_or_restore_a_version_names_it_and_changes_nothing(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "We ship on Friday.\n", title="Dates")
    _edit(app, address, "Friday", "Monday")
    history = _url("history", address)
    with signed_in(app, "writer") as client:
        revert = client.get(history, params={"revert": 2})
        restore = client.get(history, params={"restore": 1})
    assert revert.status_code == restore.status_code == 200
    assert f"Revert version 2 of 'Dates' ({address})? A new version undoes" in _main(revert)
    assert _form(revert) == (f"{history}/revert", {"version": "2"})
    assert f"Make 'Dates' ({address}) as it was at version 1?" in _main(restore)
    assert _form(restore) == (f"{history}/restore", {"version": "1"})
    assert _cancel(revert) == _cancel(restore) == history
    assert api_page(app, address)["version"] == 2


def test_what_a_member_cannot_read_is_not_found_when_asking(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "Secret plan.\n", title="Secret")
    with signed_in(app, "stranger") as client:
        answers = [
            client.get(_url("trash", address)),
            client.get(_url("history", address), params={"revert": 1}),
            client.get(_url("purge", address)),
        ]
    assert [a.status_code for a in answers] == [404] * 3
    assert all("Secret" not in _main(a) for a in answers)


def test_a_page_in_the_trash_asks_before_it_is_deleted_for_good_then_is_gone(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY, title="Old draft")
    with signed_in(app, "writer") as client:
        token = csrf_of(client.get("/trash"))
        client.post(_url("trash", address), data={"csrf": token})
        listed = client.get("/trash")
        asked = client.get(_url("purge", address))
        purged = client.post(_url("purge", address), data={"csrf": token})
        after = client.get(purged.headers["location"])
    assert f'href="{_url("purge", address)}"' in listed.text
    assert f"Delete 'Old draft' ({address}) for good, with all its versions?" in _main(asked)
    assert "This cannot be undone." in _main(asked)
    assert _form(asked) == (_url("purge", address), {}) and _cancel(asked) == "/trash"
    assert purged.status_code == 303 and purged.headers["location"] == "/trash"
    assert f'<p class="said" role="status">Deleted {address} for good.</p>' in after.text
    assert "Old draft" not in _main(after)
    with app.api("writer") as api:
        assert api.get("/api/v1/page", params={"address": address}).status_code == 404


def test_only_a_page_in_the_trash_can_be_deleted_for_good(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, BODY, title="Live page")
    with signed_in(app, "writer") as client:
        asked = client.get(_url("purge", address))
        token = csrf_of(client.get("/trash"))
        purged = client.post(_url("purge", address), data={"csrf": token})
    assert asked.status_code == 404 and f"There is no page {address} in the trash." in asked.text
    assert purged.status_code == 422 and "is not in the trash; move it there first" in purged.text
    assert api_page(app, address)["version"] == 1


def test_a_reader_and_a_forged_form_cannot_delete_for_good(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, BODY, title="Kept draft")
    with app.api("writer") as api:
        assert api.post("/api/v1/page/trash", json={"address": address}).status_code == 200
    with signed_in(app, "reader") as client:
        listed = client.get("/trash")
        token = csrf_of(listed)
        refused = client.post(_url("purge", address), data={"csrf": token})
    with signed_in(app, "writer") as client:
        forged = client.post(_url("purge", address), data={"csrf": "forged"})
        still = client.get("/trash")
    assert "Kept draft" in listed.text and _url("purge", address) not in listed.text
    assert refused.status_code == 403 and forged.status_code == 422
    assert "Kept draft" in still.text
