"""Heading text and heading ids cost what a page's size allows, whatever its headings hold:
a heading too long to parse is its raw text, and repeated ids are numbered in one pass."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from codna.markdown.headings import MOST_PARSED, plain_text
from codna.web import rendering
from codna.web.rendering import MOST_SECTIONS, Rendered, sections


def test_a_heading_too_long_to_parse_is_its_raw_text() -> None:
    assert plain_text("**Limits**") == "Limits"
    long = "![" * (MOST_PARSED // 2 + 1)
    assert plain_text(long) == long  # not parsed: a megabyte of `![` took seconds


def test_a_page_of_more_sections_than_the_bound_is_rendered_in_runs_of_sections() -> None:
    body = "## a\n\nText.\n\n" * (MOST_SECTIONS * 3)
    assert 1 < len(sections(body)) < MOST_SECTIONS
    assert "".join(sections(body)) == body
    html = Rendered().html("wiki:many", 1, datetime.now(UTC), body)
    ids = [part.split('"')[1] for part in html.split("<h2 id=")[1:]]
    assert ids[:3] == ["a", "a-2", "a-3"] and len(set(ids)) == len(ids) == MOST_SECTIONS * 3
    varied = "".join(f"## Part {n}\n\nText.\n\n" for n in range(MOST_SECTIONS * 3))
    assert 1 < len(sections(varied)) < MOST_SECTIONS and "".join(sections(varied)) == varied


def test_repeated_ids_over_sections_are_numbered_as_one_render_numbers_them() -> None:
    body = "".join(f"## a\n\n{'x' * 2000}\n\n" for _ in range(40))  # sectioned: over BIG
    sectioned = Rendered().html("wiki:some", 1, datetime.now(UTC), body)
    ids = [part.split('"')[1] for part in sectioned.split("<h2 id=")[1:]]
    assert ids == ["a", *(f"a-{n}" for n in range(2, 41))]


def test_a_change_to_a_page_of_many_sections_renders_one_run_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def page(changed: int) -> str:
        return "".join(
            f"## Part {n}\n\n{'Changed' if n == changed else 'Text'}.\n\n"
            for n in range(MOST_SECTIONS * 3)
        )

    kept = Rendered()
    kept.html("wiki:many", 1, datetime.now(UTC), page(-1))
    calls: list[str] = []
    real = rendering.render_parts

    def counting(body: str, **options: object) -> object:
        calls.append(body)
        return real(body, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(rendering, "render_parts", counting)
    html = kept.html("wiki:many", 2, datetime.now(UTC), page(4321))
    assert len(calls) == 1 and "Changed" in calls[0] and "Changed" in html
