"""Writing in the web UI: the plain Markdown editor, a new page, the trash; what a person
typed survives every refusal, and what they may not do changes nothing."""

from __future__ import annotations

import html
import re
import uuid
from html.parser import HTMLParser
from typing import Any

import httpx

from codna.markdown.limits import MAX_BODY_BYTES
from tests.conftest import PASSWORD, InProcessServer, unique
from tests.web.conftest import browser, csrf_of, signed_in

BODY = "# Plan\n\nWe ship on Friday.\n"


def _url(view: str, address: str) -> str:
    space, _, path = address.partition(":")
    return f"/{view}/{space}/{path}"


def textarea(answer: httpx.Response) -> str:
    """The text of the form's body field, as a browser would send it back."""
    found = re.search(r'<textarea[^>]*name="body"[^>]*>\n(.*?)</textarea>', answer.text, re.S)
    assert found, answer.text[:2000]
    return html.unescape(found.group(1))


def field(answer: httpx.Response, name: str) -> str:
    """The value of the form's input `name`."""
    found = re.search(rf'<input[^>]*name="{name}"[^>]*value="([^"]*)"', answer.text)
    assert found, answer.text[:2000]
    return html.unescape(found.group(1))


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def tags_of(answer: httpx.Response) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """Every start tag of an HTML answer, with its attributes, as a browser parses them."""
    parser = _Tags()
    parser.feed(answer.text)
    return parser.tags


def api_page(app: InProcessServer, address: str) -> dict[str, Any]:
    with app.api("writer") as client:
        answer = client.get("/api/v1/page", params={"address": address})
    assert answer.status_code == 200, answer.text
    page: dict[str, Any] = answer.json()
    return page


def form_of(answer: httpx.Response, **changed: str) -> dict[str, str]:
    """What the editor would send back as it is shown, with `changed` typed over it."""
    sent = {
        "csrf": csrf_of(answer),
        "base_version": field(answer, "base_version"),
        "title": field(answer, "title"),
        "tags": field(answer, "tags"),
        "summary": field(answer, "summary"),
        "body": textarea(answer),
    }
    return {**sent, **changed}


def test_a_writer_edits_a_page_through_the_form_and_it_shows_at_version_2(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY, title="The plan")
    with signed_in(app, "writer") as client:
        editor = client.get(_url("edit", address))
        assert editor.status_code == 200
        assert textarea(editor) == BODY
        assert (field(editor, "title"), field(editor, "base_version")) == ("The plan", "1")
        sent = form_of(
            editor,
            body="# Plan\r\n\r\nWe ship on *Monday*.\r\n",
            tags="Dates, plan",
            summary="Move the date",
        )
        saved = client.post(_url("edit", address), data=sent)
        assert saved.status_code == 303
        assert saved.headers["location"] == _url("p", address)
        page = client.get(saved.headers["location"])
    assert "<em>Monday</em>" in page.text and "version 2" in page.text
    assert '<p class="said" role="status">Saved as version 2.</p>' in page.text
    assert "Friday" not in page.text
    assert api_page(app, address)["tags"] == ["dates", "plan"]
    with app.api("writer") as api:
        history = api.get("/api/v1/page/history", params={"address": address}).json()
    assert [(r["version"], r["kind"], r["summary"]) for r in history[:1]] == [
        (2, "edit", "Move the date")
    ]


def test_a_body_that_starts_with_a_blank_line_comes_back_from_the_editor_whole(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "\n\nIndented after blank lines.\n")
    with signed_in(app, "writer") as client:
        editor = client.get(_url("edit", address))
    assert textarea(editor) == "\n\nIndented after blank lines.\n"


def test_an_edit_from_an_old_version_is_a_409_that_keeps_the_typed_text_and_changes_nothing(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    with signed_in(app, "writer") as client:
        editor = client.get(_url("edit", address))
        app.edit_page(address, [{"op": "append", "text": "Someone else was here."}])
        mine = "# Plan\n\nMy careful rewrite.\n"
        refused = client.post(_url("edit", address), data=form_of(editor, body=mine))
    assert refused.status_code == 409
    assert textarea(refused) == mine
    assert "changed to version 2 while you were editing version 1" in refused.text
    assert field(refused, "base_version") == "1"  # saving again is refused again
    page = api_page(app, address)
    assert page["version"] == 2 and "My careful rewrite" not in page["body"]


def test_a_bad_title_or_a_body_too_large_shows_the_form_again_with_what_was_typed(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    typed = "# Plan\n\nA draft worth keeping.\n"
    huge = "x" * (MAX_BODY_BYTES + 1)
    with signed_in(app, "writer") as client:
        editor = client.get(_url("edit", address))
        untitled = client.post(_url("edit", address), data=form_of(editor, title=" ", body=typed))
        too_large = client.post(_url("edit", address), data=form_of(editor, body=huge))
    assert untitled.status_code == 422 and "A page needs a title." in untitled.text
    assert textarea(untitled) == typed
    # The text typed was not saved: leaving the form shown again warns from the start.
    assert " data-unsaved>" in untitled.text and "data-unsaved" not in editor.text
    assert too_large.status_code == 413 and "at most 1,048,576 bytes" in too_large.text
    assert textarea(too_large) == huge
    # A save that changes nothing (tests/services/pages/test_write_page.py) is a 422 shown
    # in the form as the missing title above is.
    assert api_page(app, address)["version"] == 1


def test_a_page_near_the_size_limit_in_letters_beyond_ascii_saves_through_the_form(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    body = "é" * (MAX_BODY_BYTES // 2 - 8) + "\n"  # under 1 MiB; three times that as sent
    with signed_in(app, "writer") as client:
        editor = client.get(_url("edit", address))
        saved = client.post(_url("edit", address), data=form_of(editor, body=body))
    assert saved.status_code == 303, saved.text[-500:]
    assert api_page(app, address)["body"] == body


def test_a_reader_is_refused_the_editor_and_a_post_of_theirs_changes_nothing(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    with signed_in(app, "reader") as client:
        editor = client.get(_url("edit", address))
        token = csrf_of(client.get("/trash"))
        sent = {"csrf": token, "base_version": "1", "title": "Mine", "body": "Mine.\n"}
        posted = client.post(_url("edit", address), data=sent)
        trashed = client.post(_url("trash", address), data={"csrf": token})
    assert editor.status_code == posted.status_code == trashed.status_code == 403
    assert "suggest a change instead" in editor.text and "<textarea" not in editor.text
    page = api_page(app, address)
    assert (page["version"], page["title"], page["in_trash"]) == (1, "A page", False)


def test_a_stranger_does_not_find_the_editor(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "Secret plans.\n")
    with signed_in(app, "stranger") as client:
        editor = client.get(_url("edit", address))
        token = csrf_of(client.get("/trash"))
        sent = {"csrf": token, "base_version": "1", "title": "X", "body": "X.\n"}
        posted = client.post(_url("edit", address), data=sent)
    assert editor.status_code == posted.status_code == 404
    assert "Secret plans" not in editor.text
    assert api_page(app, address)["version"] == 1


def test_a_post_without_the_form_token_is_refused_and_changes_nothing(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    with signed_in(app, "writer") as client:
        editor = client.get(_url("edit", address))
        sent = form_of(editor, body="Forged.\n")
        del sent["csrf"]
        missing = client.post(_url("edit", address), data=sent)
        wrong = client.post(_url("edit", address), data={**sent, "csrf": "0" * 32})
        trashed = client.post(_url("trash", address), data={})
        made = client.post("/new", data={"address": unique(), "title": "X", "body": "X"})
    assert missing.status_code == wrong.status_code == trashed.status_code == 422
    assert made.status_code == 422
    assert "The form had expired" in missing.text
    page = api_page(app, address)
    assert (page["version"], page["body"], page["in_trash"]) == (1, BODY, False)


def test_a_writer_creates_a_page_in_the_folder_they_started_from(app: InProcessServer) -> None:
    folder = unique("wiki:notes-") + "/"
    address = folder + "first"
    with signed_in(app, "writer") as client:
        form = client.get("/new", params={"in": folder})
        assert form.status_code == 200 and field(form, "address") == folder
        sent = {
            "csrf": csrf_of(form),
            "address": address,
            "title": "First note",
            "tags": "notes, First",
            "body": "Hello **there**.\n",
        }
        made = client.post("/new", data=sent)
        assert made.status_code == 303 and made.headers["location"] == _url("p", address)
        page = client.get(made.headers["location"])
        again = client.post("/new", data={**sent, "body": "A second try.\n"})
    assert "<strong>there</strong>" in page.text and "version 1" in page.text
    assert f"Created &#39;First note&#39; ({address}) as version 1." in page.text
    assert api_page(app, address)["tags"] == ["notes", "first"]
    assert again.status_code == 409 and "already exists" in again.text
    assert textarea(again) == "A second try.\n" and field(again, "address") == address


def test_a_new_page_a_member_may_not_write_or_with_a_bad_address_keeps_the_form(
    app: InProcessServer,
) -> None:
    address = unique()
    with signed_in(app, "reader") as client:
        form = client.get("/new")
        sent = {"csrf": csrf_of(form), "address": address, "title": "T", "body": "Kept.\n"}
        refused = client.post("/new", data=sent)
    with signed_in(app, "writer") as client:
        form = client.get("/new")
        bad = client.post("/new", data={**sent, "csrf": csrf_of(form), "address": "wiki:../up"})
    assert refused.status_code == 403 and "You cannot create pages" in refused.text
    assert textarea(refused) == "Kept.\n"
    assert bad.status_code == 422 and "is not a valid address" in bad.text
    assert field(bad, "address") == "wiki:../up" and textarea(bad) == "Kept.\n"
    with app.api("writer") as api:
        assert api.get("/api/v1/page", params={"address": address}).status_code == 404


def test_a_writer_trashes_a_page_finds_it_in_the_trash_and_restores_it(
    app: InProcessServer,
) -> None:
    folder = unique("wiki:bin-") + "/"
    address = folder + "old"
    app.create_page(address, BODY, title="Old plan")
    with signed_in(app, "writer") as client:
        editor = client.get(_url("edit", address))
        token = csrf_of(editor)
        assert f'href="{_url("trash", address)}"' in editor.text  # asks first
        asked = client.get(_url("trash", address))
        assert f'action="{_url("trash", address)}"' in asked.text
        trashed = client.post(_url("trash", address), data={"csrf": token})
        assert trashed.status_code == 303 and trashed.headers["location"] == _url("p", folder)
        in_folder = client.get(trashed.headers["location"])
        gone = client.get(_url("p", address))
        bin_ = client.get("/trash")
        restore = f'action="{_url("restore", address)}"'
        assert bin_.status_code == 200 and "Old plan" in bin_.text and restore in bin_.text
        restored = client.post(_url("restore", address), data={"csrf": token})
        assert restored.status_code == 303 and restored.headers["location"] == _url("p", address)
        back = client.get(restored.headers["location"])
        after = client.get("/trash")
    assert f"Moved &#39;Old plan&#39; ({address}) to the trash." in in_folder.text
    assert gone.status_code == 404
    assert back.status_code == 200 and "Old plan" in back.text
    assert f"Restored &#39;Old plan&#39; ({address}) from the trash." in back.text
    assert restore not in after.text
    assert api_page(app, address)["in_trash"] is False


def test_the_trash_shows_only_what_the_member_can_read(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, BODY, title="Hidden bin entry")
    with app.api("writer") as api:
        assert api.post("/api/v1/page/trash", json={"address": address}).status_code == 200
    with signed_in(app, "stranger") as client:
        strangers = client.get("/trash")
    with signed_in(app, "reader") as client:
        readers = client.get("/trash")
    with signed_in(app, "writer") as client:
        writers = client.get("/trash")
    assert strangers.status_code == 200 and "Hidden bin entry" not in strangers.text
    assert "Hidden bin entry" in readers.text
    restore = f'aria-label="Restore {address}"'
    assert restore not in readers.text and restore in writers.text  # only who may restore


def test_hostile_text_in_body_and_title_comes_back_escaped_and_renders_safely(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    body = '<script>alert(1)</script>\n\n"><img src=x onerror=alert(2)>\n\n</textarea><b>x</b>\n'
    title = '"><img src=x onerror=alert(3)> <script>alert(4)</script>'
    with signed_in(app, "writer") as client:
        editor = client.get(_url("edit", address))
        saved = client.post(_url("edit", address), data=form_of(editor, body=body, title=title))
        assert saved.status_code == 303
        again = client.get(_url("edit", address))
        page = client.get(_url("p", address))
    for answer in (again, page):
        made = tags_of(answer)
        assert "img" not in [tag for tag, _ in made] and "b" not in [tag for tag, _ in made]
        scripts = [dict(attrs) for tag, attrs in made if tag == "script"]
        assert scripts and all(str(a.get("src")).startswith("/static/") for a in scripts)
        assert not [name for _, attrs in made for name, _ in attrs if name.startswith("on")]
    assert textarea(again) == body and field(again, "title") == " ".join(title.split())
    assert "&lt;/textarea&gt;" in again.text
    assert "<title>&#34;&gt;&lt;img src=x onerror=alert(3)&gt;" in page.text


def test_a_page_in_raw_has_no_editor_even_for_a_writer(app: InProcessServer) -> None:
    imported = app.import_raw(f"{unique('memo-')}.md", "An imported memo.\n")
    with signed_in(app, "writer") as client:
        editor = client.get(_url("edit", imported["address"]))
    assert editor.status_code == 403
    assert "which is never edited; import a new version instead" in editor.text


def test_losing_the_right_to_edit_while_the_editor_is_open_keeps_the_typed_text(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    with app.api("admin") as admin:
        made = admin.post(
            "/api/v1/members", json={"email": email, "name": "Pia", "password": PASSWORD}
        )
        assert made.status_code == 201, made.text
        shared = {"address": address, "member": email, "level": "write"}
        assert admin.post("/api/v1/grants", json=shared).status_code == 200
    with browser(app) as client:
        form = client.get("/")
        client.post("/sign-in", data={"email": email, "password": PASSWORD, "csrf": csrf_of(form)})
        editor = client.get(_url("edit", address))
        assert editor.status_code == 200
        with app.api("admin") as admin:  # write taken back: read is left
            read = {**shared, "level": "read"}
            assert admin.post("/api/v1/grants", json=read).status_code == 200
        typed = "A careful paragraph, typed while the grant went away.\n"
        answer = client.post(_url("edit", address), data=form_of(editor, body=typed))
    assert answer.status_code == 403
    assert html.escape(typed.strip(), quote=False) in answer.text
    assert "but not change it" in answer.text
