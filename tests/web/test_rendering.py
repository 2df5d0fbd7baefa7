"""Rendered pages are kept per version: the same version is never rendered twice, a new one
is, and what is kept stays within its budget."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from codna.web import rendering
from codna.web.rendering import Rendered

MADE = datetime(2026, 12, 1, tzinfo=UTC)


def test_a_version_is_rendered_once_and_a_new_version_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    real = rendering.render

    def counting(body: str, **options: object) -> str:
        calls.append(body)
        return real(body, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(rendering, "render", counting)
    kept = Rendered()
    first = kept.html("wiki:a", 1, MADE, "# One")
    assert kept.html("wiki:a", 1, MADE, "# One") == first and calls == ["# One"]
    assert "<h1" in kept.html("wiki:a", 2, MADE, "# Two") and calls == ["# One", "# Two"]
    # The same address and version made again (deleted for good, made anew) is another key.
    kept.html("wiki:a", 1, datetime(2026, 12, 2, tzinfo=UTC), "# Other")
    assert calls[-1] == "# Other"


def test_what_is_kept_stays_within_its_budget_dropping_the_least_recently_shown() -> None:
    kept = Rendered(budget=200)
    for version in range(1, 6):
        kept.html("wiki:a", version, MADE, "x" * 50)
    assert kept._size <= 200
    assert ("wiki:a", 5, MADE) in kept._kept and ("wiki:a", 1, MADE) not in kept._kept


def _big_page(changed: int | None = None) -> str:
    parts = ["# Big\n\nIntro with a [link](wiki:home).\n\n"]
    for n in range(900):
        said = "now says" if n == changed else "says"
        parts.append(
            f"## Notes\n\nParagraph {n} {said} *this*.\n\n### Details\n\n- a\n- b\n\n"
            f"```\ncode {n}\n```\n\n"
        )
    return "".join(parts)


def test_a_big_page_renders_by_sections_exactly_as_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    body = _big_page()
    assert len(body) >= rendering.BIG
    whole = rendering.render(body, page_url=rendering.page_url, at="wiki:big", navigation=True)
    assert str(Rendered().html("wiki:big", 1, MADE, body)) == whole
    assert 'id="notes-900"' in whole and whole.count('id="details') == 900
    # Each anchor links to its own heading's id, made unique over the whole page.
    assert '<h2 id="notes-900">Notes<a class="anchor" href="#notes-900"' in whole
    assert whole.count('<nav class="toc"') == 0  # 1,800 headings: too many for contents


def test_a_new_version_of_a_big_page_renders_only_the_section_that_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept = Rendered()
    kept.html("wiki:big", 1, MADE, _big_page())
    calls: list[str] = []
    real = rendering.render_parts

    def counting(body: str, **options: object) -> object:
        calls.append(body)
        return real(body, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(rendering, "render_parts", counting)
    html = kept.html("wiki:big", 2, MADE, _big_page(changed=7))
    assert len(calls) == 1 and "Paragraph 7 now says" in calls[0]
    assert "Paragraph 7 now says" in html


def test_a_big_page_with_reference_links_is_rendered_whole() -> None:
    body = _big_page() + "\nSee [the plan][plan].\n\n[plan]: https://example.com/plan\n"
    html = Rendered().html("wiki:refs", 1, MADE, body)
    assert 'href="https://example.com/plan"' in html


def _sectioned_page(sections: int, link: str) -> str:
    """A page big enough to be rendered by sections, with a relative link in its first."""
    filler = "Words of prose, enough of them to make the page big. " * 50 + "\n"
    parts = [f"# Page\n\nSee [the other page]({link}).\n\n"]
    parts += [f"## Part {n}\n\n{filler}\n### Detail\n\nMore.\n\n" for n in range(sections)]
    return "".join(parts)


def test_a_big_page_with_few_sections_gets_its_contents_linking_the_unique_ids() -> None:
    body = _sectioned_page(30, "other")
    assert len(body) >= rendering.BIG
    html = str(Rendered().html("wiki:a/page", 1, MADE, body))
    assert html == rendering.render(
        body, page_url=rendering.page_url, at="wiki:a/page", navigation=True
    )
    toc = html[html.index('<nav class="toc"') : html.index("</nav>")]
    assert '<a href="#part-0">Part 0</a>' in toc and '<a href="#detail-30">Detail</a>' in toc
    assert html.index('<nav class="toc"') < html.index('<h2 id="part-0">')


def test_the_same_section_text_in_two_folders_links_to_each_folders_page() -> None:
    kept = Rendered()
    body = _sectioned_page(30, "other")
    first = str(kept.html("wiki:a/page", 1, MADE, body))
    second = str(kept.html("wiki:b/page", 1, MADE, body))
    assert '<a href="/p/wiki/a/other">the other page</a>' in first
    assert '<a href="/p/wiki/b/other">the other page</a>' in second
    # A page in the same folder shares the sections already rendered.
    assert kept.html("wiki:a/twin", 1, MADE, body) == first
