"""The search page: hits marked in plain-text snippets, the section each was found in, and
filters by space, folder and tag that say they apply and can be removed."""

from __future__ import annotations

import re
from typing import Any

from tests.conftest import InProcessServer, unique
from tests.web.conftest import signed_in


def make(app: InProcessServer, address: str, body: str, tags: list[str] | None = None) -> None:
    with app.api("writer") as client:
        made = client.post(
            "/api/v1/pages",
            json={"address": address, "title": "Runbook", "body": body, "tags": tags or []},
        )
    assert made.status_code == 201, made.text


def hits_of(html: str) -> list[str]:
    """The addresses of the hits on a search page, in order."""
    return re.findall(
        r"<li>\s*<h2><a [^>]*>[^<]*</a></h2>\s*<p class=\"search-where\"><code>([^<]+)", html
    )


def snippets_of(html: str) -> list[str]:
    return re.findall(r'<p class="snippet">(.*?)</p>', html, re.S)


def search(app: InProcessServer, **params: Any) -> str:
    with signed_in(app, "reader") as client:
        answer = client.get("/search", params=params)
    assert answer.status_code == 200, answer.text
    return answer.text


def test_a_hit_is_marked_in_a_plain_text_snippet_and_the_pages_text_is_escaped(
    app: InProcessServer,
) -> None:
    word, address = unique("egret"), unique()
    body = (
        "## Guide\n\n### Steps\n\n"
        f"- **Check** the [{word}](wiki:x) first; `<img src=x onerror=alert(1)>` &amp; "
        "<b>bold</b> *done*.\n"
    )
    make(app, address, body)
    html = search(app, q=word)
    assert hits_of(html) == [address]
    [snippet] = snippets_of(html)
    assert snippet == (
        f"Check the <mark>{word}</mark> first; &lt;img src=x onerror=alert(1)&gt; &amp; bold done."
    )
    path = "/p/" + address.replace(":", "/", 1)
    assert f'<a class="section" href="{path}#guide">Guide</a>' in html
    assert f'<a class="section" href="{path}#steps">Steps</a>' in html
    assert "1 page found." in html


def test_every_filter_narrows_the_hits_says_it_applies_and_can_be_removed(
    app: InProcessServer,
) -> None:
    word, folder = unique("plover"), unique("wiki:")
    kept, other = f"{folder}/deep/a", f"{folder}-other/b"
    make(app, kept, f"A {word}.\n", tags=["coast"])
    make(app, other, f"A {word}.\n", tags=["inland"])
    make(app, unique("output:"), f"A {word}.\n", tags=["coast"])
    assert len(hits_of(search(app, q=word))) == 3
    assert len(hits_of(search(app, q=word, space="wiki"))) == 2
    by_folder = search(app, q=word, folder=f"{folder}/")
    assert hits_of(by_folder) == [kept]
    by_tag = search(app, q=word, tag="Coast", space="wiki")
    assert hits_of(by_tag) == [kept]
    applied = re.search(r'<ul class="search-applied".*?</ul>', by_tag, re.S)
    assert applied is not None
    assert "Space: <strong>wiki</strong>" in applied.group()
    assert "Tag: <strong>Coast</strong>" in applied.group()
    removed = re.findall(r'href="(/search\?[^"]+)" aria-label="Remove the filter (\w+)', by_tag)
    assert [(name, re.sub(r"&amp;", "&", url)) for url, name in removed] == [
        ("space", f"/search?q={word}&tag=Coast"),
        ("tag", f"/search?q={word}&space=wiki"),
    ]
    assert '<option value="wiki" selected>' in by_tag
    assert 'id="search-tag" name="tag" value="Coast"' in by_tag


def test_a_filter_that_cannot_apply_is_refused_beside_the_form(app: InProcessServer) -> None:
    with signed_in(app, "reader") as client:
        answer = client.get(
            "/search", params={"q": "anything", "folder": "wiki:x/", "space": "raw"}
        )
    assert answer.status_code == 422
    assert 'role="alert">The folder wiki:x/ is not in the space raw.</p>' in answer.text
    assert re.search(r'id="search-folder"[^>]*aria-invalid="true"', answer.text)
    assert 'id="search-q"' in answer.text
    assert "Type words" not in answer.text


def test_more_hits_than_are_shown_are_said_to_be_more(app: InProcessServer) -> None:
    word, folder = unique("stint"), unique("wiki:")
    with app.api("writer") as client:
        for n in range(21):
            made = client.post(
                "/api/v1/pages",
                json={"address": f"{folder}/{n}", "title": "T", "body": f"A {word}.\n"},
            )
            assert made.status_code == 201
    html = search(app, q=word)
    assert len(hits_of(html)) == 20
    assert "More than 20 pages match; the best 20 are shown." in html


def test_the_search_page_without_words_shows_the_form_and_its_labels(
    app: InProcessServer,
) -> None:
    html = search(app)
    for field in ("search-q", "search-space", "search-folder", "search-tag"):
        assert f'<label for="{field}">' in html
        assert f'id="{field}"' in html
    assert '<link rel="stylesheet" href="/static/search.css">' in html
