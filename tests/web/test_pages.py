"""Reading in the web UI: a page rendered, a folder's pages, search; what a member cannot
read is not found."""

from __future__ import annotations

import re

from tests.conftest import InProcessServer, unique
from tests.web.conftest import signed_in


def _path(address: str) -> str:
    space, _, path = address.partition(":")
    return f"/p/{space}/{path}"


def test_a_reader_sees_a_page_rendered_with_its_title_and_version(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "# Plan\n\nWe **ship** on Friday.\n", title="The plan")
    with signed_in(app, "reader") as client:
        answer = client.get(_path(address))
    assert answer.status_code == 200
    assert "<title>The plan · CoDNA</title>" in answer.text
    assert "<strong>ship</strong>" in answer.text and "version 1" in answer.text


def test_a_page_a_member_cannot_read_is_not_found(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "Secret.")
    with signed_in(app, "stranger") as client:
        hidden = client.get(_path(address))
        missing = client.get(_path(unique()))
    assert hidden.status_code == missing.status_code == 404
    assert "Secret." not in hidden.text


def test_a_folder_lists_the_pages_under_it(app: InProcessServer) -> None:
    folder = unique() + "/"
    for name in ("alpha", "beta"):
        app.create_page(folder + name, f"About {name}.", title=f"Page {name}")
    with signed_in(app, "reader") as client:
        answer = client.get(_path(folder))
    assert answer.status_code == 200
    assert answer.text.index("Page alpha") < answer.text.index("Page beta")
    assert f'href="{_path(folder + "alpha")}"' in answer.text


def test_search_finds_a_page_by_its_words(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "The zeppelin quartermaster reports.", title="Airship log")
    with signed_in(app, "reader") as client:
        empty = client.get("/search")
        answer = client.get("/search", params={"q": "zeppelin quartermaster"})
    assert empty.status_code == 200
    assert "Airship log" in answer.text and f'href="{_path(address)}"' in answer.text


def test_markup_in_a_page_is_shown_as_text_and_runs_nothing(app: InProcessServer) -> None:
    address = unique()
    body = (
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
        "[click](javascript:alert(3)) and [ok](https://example.com)\n"
    )
    app.create_page(address, body, title="<b>Bold</b> title")
    with signed_in(app, "reader") as client:
        answer = client.get(_path(address))
    page = answer.text
    assert "<script>alert" not in page
    assert re.search(r"<[^>]*\son\w+\s*=", page) is None  # no tag has an event handler
    assert "javascript:" not in page.split("<article", 1)[1]
    assert "&lt;b&gt;Bold&lt;/b&gt; title" in page
    assert 'href="https://example.com"' in page
