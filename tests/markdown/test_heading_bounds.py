"""Heading text and heading ids cost what a page's size allows, whatever its headings hold:
a heading too long to parse is its raw text, and repeated ids are numbered in one pass."""

from __future__ import annotations

from datetime import UTC, datetime

from codna.markdown.headings import MOST_PARSED, plain_text
from codna.web.rendering import MOST_SECTIONS, Rendered, sections


def test_a_heading_too_long_to_parse_is_its_raw_text() -> None:
    assert plain_text("**Limits**") == "Limits"
    long = "![" * (MOST_PARSED // 2 + 1)
    assert plain_text(long) == long  # not parsed: a megabyte of `![` took seconds


def test_a_page_of_more_sections_than_the_bound_is_rendered_whole() -> None:
    body = "## a\n\nText.\n\n" * (MOST_SECTIONS + 10)
    assert len(sections(body)) > MOST_SECTIONS
    html = Rendered().html("wiki:many", 1, datetime.now(UTC), body)
    ids = [part.split('"')[1] for part in html.split("<h2 id=")[1:]]
    assert ids[:3] == ["a", "a-2", "a-3"] and len(set(ids)) == len(ids)


def test_repeated_ids_over_sections_are_numbered_as_one_render_numbers_them() -> None:
    body = "".join(f"## a\n\n{'x' * 2000}\n\n" for _ in range(40))  # sectioned: over BIG
    sectioned = Rendered().html("wiki:some", 1, datetime.now(UTC), body)
    ids = [part.split('"')[1] for part in sectioned.split("<h2 id=")[1:]]
    assert ids == ["a", *(f"a-{n}" for n in range(2, 41))]
