"""History in the web UI: a page's revisions, one revision, the diff of two, revert and
restore; what a member cannot read is not found, what it cannot edit is refused."""

from __future__ import annotations

import re
import uuid
from typing import Any
from urllib.parse import unquote

import httpx

from codna.web.history import WORD_DIFF_LINE_CHARS, diff_lines
from codna.web.said import SAID_COOKIE
from tests.conftest import ROLES, InProcessServer, unique
from tests.web.conftest import csrf_of, signed_in


def _view(view: str, address: str) -> str:
    space, _, path = address.partition(":")
    return f"/{view}/{space}/{path}"


def _edit(app: InProcessServer, role: str, address: str, old: str, new: str, summary: str) -> None:
    with app.api(role) as client:
        done = client.post(
            "/api/v1/page/edit",
            json={
                "address": address,
                "edits": [{"op": "replace", "old": old, "new": new}],
                "summary": summary,
            },
        )
    assert done.status_code == 200, done.text


def _page(app: InProcessServer, address: str) -> dict[str, Any]:
    with app.api("writer") as client:
        read = client.get("/api/v1/page", params={"address": address})
    assert read.status_code == 200, read.text
    page: dict[str, Any] = read.json()
    return page


def _post(client: httpx.Client, address: str, action: str, version: int) -> httpx.Response:
    token = csrf_of(client.get("/search"))  # every page a member sees has the sign-out form
    return client.post(
        _view("history", address) + f"/{action}", data={"version": str(version), "csrf": token}
    )


def _said(answer: httpx.Response) -> str:
    """The sentence a redirect carries to the next page."""
    return unquote(answer.cookies.get(SAID_COOKIE) or "")


def _text(html: str) -> str:
    """The text of an HTML answer's main part, tags dropped."""
    main = html.split('<main id="main">', 1)[1]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", main))


def test_history_lists_revisions_newest_first_with_authors_and_summaries(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "We ship on Friday.\n", title="Plan")
    _edit(app, "writer", address, "Friday", "Monday", "Move the day")
    _edit(app, "admin", address, "ship", "release", "Say release")
    with signed_in(app, "reader") as client:
        answer = client.get(_view("history", address))
    assert answer.status_code == 200
    text = _text(answer.text)
    three, two, one = (text.index(f"Version {n} ") for n in (3, 2, 1))
    assert three < two < one
    assert re.search(r"Version 3 edit .* by Admin Say release", text)
    assert re.search(r"Version 2 edit .* by Wanda Move the day", text)
    assert re.search(r"Version 1 created .* by Wanda", text)
    assert f'href="{_view("revision", address)}?version=2"' in answer.text
    assert f'href="{_view("diff", address)}?from=1&amp;to=2"' in answer.text


def test_an_agents_revision_names_the_person_responsible_for_it(app: InProcessServer) -> None:
    address = f"output:{ROLES['agent']}/{uuid.uuid4().hex[:10]}"
    with app.api("agent") as client:
        made = client.post(
            "/api/v1/pages", json={"address": address, "title": "Run", "body": "Checked.\n"}
        )
    assert made.status_code == 201, made.text
    with signed_in(app, "reader") as client:
        listed = client.get(_view("history", address))
        one = client.get(_view("revision", address), params={"version": 1})
    assert "by checker (agent; responsible: Wanda)" in _text(listed.text)
    assert "checker (agent; responsible: Wanda)" in _text(one.text)


def test_the_diff_page_marks_added_and_removed_words_in_a_changed_line(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "Intro.\n\nWe ship the plan on Friday at noon.\n")
    _edit(app, "writer", address, "on Friday", "on Monday", "Move the day")
    with signed_in(app, "reader") as client:
        latest = client.get(_view("diff", address))
        named = client.get(_view("diff", address), params={"from": 1, "to": 2})
    assert latest.status_code == named.status_code == 200
    for answer in (latest, named):
        assert "<del>Friday</del>" in answer.text and "<ins>Monday</ins>" in answer.text
        assert 'class="removed"' in answer.text and 'class="added"' in answer.text
        assert "We ship the plan on " in answer.text and " at noon." in answer.text
    assert "style=" not in latest.text


def test_a_diff_folds_long_unchanged_stretches_to_a_few_lines_of_context(
    app: InProcessServer,
) -> None:
    address = unique()
    body = "".join(f"Line number {n}.\n" for n in range(1, 61))
    app.create_page(address, body)
    _edit(app, "writer", address, "Line number 30.", "Line number thirty.", "Spell it")
    with signed_in(app, "reader") as client:
        answer = client.get(_view("diff", address))
    shown = _text(answer.text)
    assert "Line number 27." in shown and "Line number 33." in shown
    assert "Line number 10." not in shown and "Line number 50." not in shown
    assert "26 unchanged lines" in shown and "27 unchanged lines" in shown


def test_the_first_version_diffs_against_nothing(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "First words.\n")
    with signed_in(app, "reader") as client:
        answer = client.get(_view("diff", address), params={"from": 0, "to": 1})
    assert answer.status_code == 200
    assert "before the page was made" in answer.text
    assert re.search(r'<tr class="added">.*First words\.', answer.text)


def test_markup_in_a_revision_is_shown_escaped_in_the_diff_and_the_revision(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "Safe text.\n")
    _edit(app, "writer", address, "Safe text.", "<script>alert(1)</script> text.", "Markup")
    with signed_in(app, "reader") as client:
        diff = client.get(_view("diff", address))
        revision = client.get(_view("revision", address), params={"version": 2})
    assert diff.status_code == revision.status_code == 200
    for answer in (diff, revision):
        assert "<script>alert" not in answer.text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in answer.text


def test_a_revision_is_shown_rendered_at_its_version(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "The **old** plan.\n", title="Plan")
    _edit(app, "writer", address, "**old**", "**new**", "Renew")
    with signed_in(app, "reader") as client:
        old = client.get(_view("revision", address), params={"version": 1})
        missing = client.get(_view("revision", address), params={"version": 9})
    assert old.status_code == 200
    assert "<strong>old</strong>" in old.text and "<strong>new</strong>" not in old.text
    assert "Version 1 of 2" in _text(old.text)
    assert missing.status_code == 404 and "has no version 9" in missing.text


def test_a_reader_sees_no_buttons_and_a_readers_post_is_refused_without_a_change(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "We ship on Friday.\n")
    _edit(app, "writer", address, "Friday", "Monday", "Move the day")
    with signed_in(app, "reader") as client:
        listed = client.get(_view("history", address))
        reverted = _post(client, address, "revert", 2)
        restored = _post(client, address, "restore", 1)
    assert listed.status_code == 200
    assert "Revert" not in listed.text and "Restore this version" not in listed.text
    assert reverted.status_code == restored.status_code == 403
    assert 'role="alert"' in reverted.text
    assert _page(app, address)["version"] == 2


def test_a_writer_sees_revert_and_restore_leading_to_a_question_first(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "We ship on Friday.\n")
    _edit(app, "writer", address, "Friday", "Monday", "Move the day")
    with signed_in(app, "writer") as client:
        listed = client.get(_view("history", address))
    links = re.findall(r'<a href="([^"]+)">(Revert|Restore this version)<span', listed.text)
    history = _view("history", address)
    # Version 1 cannot be reverted (it made the page); version 2 is the page as it is.
    assert sorted(links) == [
        (f"{history}?restore=1", "Restore this version"),
        (f"{history}?revert=2", "Revert"),
    ]
    assert "<form" not in listed.text.split('<main id="main">', 1)[1]


def test_a_writers_revert_makes_a_new_revision_and_redirects_to_the_page(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "We ship on Friday.\n")
    _edit(app, "writer", address, "Friday", "Monday", "Move the day")
    with signed_in(app, "writer") as client:
        answer = _post(client, address, "revert", 2)
        listed = client.get(_view("history", address))
    assert answer.status_code == 303
    assert answer.headers["location"] == _view("p", address)
    assert "Reverted version 2: saved as version 3." in _said(answer)
    page = _page(app, address)
    assert page["version"] == 3 and page["body"] == "We ship on Friday.\n"
    assert re.search(
        r"Version 3 revert or restore .* by Wanda Reverted version 2", _text(listed.text)
    )


def test_a_writers_restore_brings_back_an_old_version(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "One.\n")
    _edit(app, "writer", address, "One.", "Two.", "Two")
    _edit(app, "writer", address, "Two.", "Three.", "Three")
    with signed_in(app, "writer") as client:
        answer = _post(client, address, "restore", 1)
        shown = client.get(answer.headers["location"])
    assert answer.status_code == 303
    assert '<p class="said" role="status">Restored version 1: saved as version 4.</p>' in shown.text
    page = _page(app, address)
    assert page["version"] == 4 and page["body"] == "One.\n"


def test_a_revert_that_no_longer_applies_shows_the_services_sentence(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "We ship on Friday.\n")
    _edit(app, "writer", address, "Friday", "Monday", "Monday")
    _edit(app, "writer", address, "Monday", "Tuesday", "Tuesday")
    with signed_in(app, "writer") as client:
        answer = _post(client, address, "revert", 2)
        first = _post(client, address, "revert", 1)
    assert answer.status_code == 409 and 'role="alert"' in answer.text
    assert first.status_code == 422 and "Version 1 created the page" in first.text
    assert _page(app, address)["version"] == 3


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "We ship on Friday.\n")
    _edit(app, "writer", address, "Friday", "Monday", "Move the day")
    with signed_in(app, "writer") as client:
        missing = client.post(_view("history", address) + "/revert", data={"version": "2"})
        wrong = client.post(
            _view("history", address) + "/restore", data={"version": "1", "csrf": "forged"}
        )
    assert missing.status_code == wrong.status_code == 422
    assert "The form had expired" in missing.text
    assert _page(app, address)["version"] == 2


def test_a_stranger_gets_404_on_every_history_view(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "Secret plan.\n")
    _edit(app, "writer", address, "Secret", "Hidden", "Hide it")
    with signed_in(app, "stranger") as client:
        answers = [
            client.get(_view("history", address)),
            client.get(_view("revision", address), params={"version": 1}),
            client.get(_view("diff", address)),
            _post(client, address, "revert", 2),
            _post(client, address, "restore", 1),
        ]
    assert [a.status_code for a in answers] == [404] * 5
    assert all("Secret" not in a.text and "Hidden" not in a.text for a in answers)
    assert _page(app, address)["version"] == 2


def test_a_diff_marks_words_only_in_lines_that_share_some() -> None:
    rows = diff_lines("keep\nred fox\nalpha\n", "keep\nred cat\nomega\n")
    changed = [(row.kind, row.runs) for row in rows if row.kind != "same"]
    assert changed == [
        ("removed", ((False, "red "), (True, "fox"))),
        ("removed", ((False, "alpha"),)),
        ("added", ((False, "red "), (True, "cat"))),
        ("added", ((False, "omega"),)),
    ]


def test_a_replaced_line_too_long_for_word_marks_is_shown_whole() -> None:
    long = "word " * (WORD_DIFF_LINE_CHARS // 5)
    rows = diff_lines(long + "old\n", long + "new\n")
    assert [(row.kind, len(row.runs)) for row in rows] == [("removed", 1), ("added", 1)]
