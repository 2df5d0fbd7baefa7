"""The editor's live preview: the text as the page would show it, sanitised like a page, saved
nowhere, bounded like a save, and refused in a sentence the preview pane shows."""

from __future__ import annotations

import httpx

from codna.markdown.limits import MAX_BODY_BYTES
from tests.conftest import TIGHT_RATE_LIMIT, InProcessServer, unique
from tests.web.conftest import browser, csrf_of, signed_in
from tests.web.test_editing import BODY, _url, api_page, tags_of


def _preview(client: httpx.Client, body: str, **more: str) -> httpx.Response:
    token = csrf_of(client.get("/new"))
    return client.post("/preview", data={"body": body, "csrf": token, **more})


def test_the_editor_asks_for_a_preview_as_the_text_changes_and_shows_the_saved_page_first(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "# Plan\n\nWe ship on *Friday*.\n")
    with signed_in(app, "writer") as client:
        editor = client.get(_url("edit", address))
        new = client.get("/new")
    assert 'hx-post="/preview"' in editor.text and 'hx-trigger="input changed delay:400ms"' in (
        editor.text
    )
    assert 'hx-target="#edit-preview"' in editor.text
    preview = editor.text.split('id="edit-preview"', 1)[1]
    assert "<em>Friday</em>" in preview.split("</article>", 1)[0]
    assert '<script src="/static/editor.js" defer></script>' in editor.text
    assert '<link rel="stylesheet" href="/static/markdown.css">' in editor.text
    assert 'hx-post="/preview"' in new.text and "Nothing to preview yet" in new.text


def test_a_preview_renders_the_text_as_the_page_would_and_saves_nothing(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    with signed_in(app, "writer") as client:
        answer = _preview(client, "# Hello\n\nA *draft* with [a link](wiki:home).\n")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert '<h1 id="hello">Hello' in answer.text and "<em>draft</em>" in answer.text
    assert 'href="/p/wiki/home"' in answer.text
    assert "<html" not in answer.text  # a fragment for the pane, not a page
    page = api_page(app, address)
    assert (page["version"], page["body"]) == (1, BODY)


def test_a_preview_resolves_relative_links_from_the_pages_address(
    app: InProcessServer,
) -> None:
    body = "See [the next step](next-step) and [home](../home).\n"
    with signed_in(app, "writer") as client:
        editing = _preview(client, body, address="wiki:plans/first")
        typed_so_far = _preview(client, body, address="wiki:plans/")
    assert 'href="/p/wiki/plans/next-step"' in editing.text
    assert 'href="/p/wiki/home"' in editing.text
    assert typed_so_far.status_code == 200 and "href" not in typed_so_far.text
    assert "the next step" in typed_so_far.text


def test_a_preview_of_hostile_text_is_sanitised_as_the_page_is(app: InProcessServer) -> None:
    hostile = (
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
        "[click](javascript:alert(3))\n"
    )
    with signed_in(app, "writer") as client:
        answer = _preview(client, hostile)
    assert answer.status_code == 200
    made = tags_of(answer)
    assert {tag for tag, _ in made} == {"p"}  # the script and the image are text, the link gone
    assert "&lt;script&gt;alert(1)" in answer.text and "<p>click</p>" in answer.text


def test_an_empty_text_previews_as_a_hint(app: InProcessServer) -> None:
    with signed_in(app, "writer") as client:
        answer = _preview(client, "  \n\n")
    assert answer.status_code == 200 and "Nothing to preview yet" in answer.text


def test_a_text_over_the_page_limit_is_refused_with_the_sentence_a_save_gives(
    app: InProcessServer,
) -> None:
    with signed_in(app, "writer") as client:
        too_large = _preview(client, "x" * (MAX_BODY_BYTES + 1))
        just_fits = _preview(client, "x" * MAX_BODY_BYTES)
    assert too_large.status_code == 413
    assert too_large.text.startswith('<p class="error" role="alert">The page body would be')
    assert "at most 1,048,576 bytes (1 MiB). Split it into several pages." in too_large.text
    assert just_fits.status_code == 200


def test_a_preview_without_the_form_token_or_signed_out_is_refused_in_a_sentence(
    app: InProcessServer,
) -> None:
    with signed_in(app, "writer") as client:
        forged = client.post("/preview", data={"body": "# Hi\n", "csrf": "forged"})
    with browser(app) as stranger:
        token = csrf_of(stranger.get("/"))
        signed_out = stranger.post("/preview", data={"body": "# Hi\n", "csrf": token})
    assert forged.status_code == 422 and "The form had expired" in forged.text
    assert signed_out.status_code == 401 and 'role="alert">Sign in' in signed_out.text
    assert "<h1" not in forged.text + signed_out.text


def test_previews_count_against_the_sessions_rate_limit(tight_app: InProcessServer) -> None:
    with signed_in(tight_app, "writer") as client:
        token = csrf_of(client.get("/new"))
        answers = [
            client.post("/preview", data={"body": f"# Draft {n}\n", "csrf": token})
            for n in range(TIGHT_RATE_LIMIT + 1)
        ]
    assert [a.status_code for a in answers[:-1]] == [200] * TIGHT_RATE_LIMIT
    assert answers[-1].status_code == 429 and "Too many calls" in answers[-1].text
