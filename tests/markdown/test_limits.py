"""The size limits, the newline rule, and what text is."""

from __future__ import annotations

import pytest

from codna.errors import InvalidRequest, TooLarge
from codna.markdown.limits import (
    MAX_BODY_BYTES,
    MAX_SUMMARY_CHARS,
    check_body,
    check_chars,
    check_plain_text,
    check_text,
    normalise_newlines,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\r\nb", "a\nb"),
        ("a\rb", "a\nb"),
        ("a\r\r\nb", "a\n\nb"),
        ("a\n\rb", "a\n\nb"),
        ("a\nb", "a\nb"),
    ],
)
def test_line_endings_become_newlines(text: str, expected: str) -> None:
    assert normalise_newlines(text) == expected


def test_a_body_is_measured_in_utf8_bytes() -> None:
    check_body("x" * MAX_BODY_BYTES)
    check_body("€" * (MAX_BODY_BYTES // 3))
    for body in ("x" * (MAX_BODY_BYTES + 1), "€" * (MAX_BODY_BYTES // 3 + 1)):
        with pytest.raises(TooLarge) as refused:
            check_body(body)
        assert refused.value.fields == {"limit": MAX_BODY_BYTES, "field": "body"}


def test_a_text_field_names_itself_when_too_large() -> None:
    with pytest.raises(TooLarge) as refused:
        check_text("abcd", field="reason", limit=3)
    assert refused.value.fields == {"limit": 3, "field": "reason"}
    assert refused.value.message == "The field 'reason' is 4 bytes; at most 3 bytes are allowed."


def test_a_text_holding_a_lone_surrogate_is_refused() -> None:
    with pytest.raises(InvalidRequest) as refused:
        check_text("a\udc80", field="text")
    assert refused.value.fields == {"field": "text"}


def test_a_summary_is_measured_in_characters() -> None:
    check_chars("é" * MAX_SUMMARY_CHARS, field="summary", limit=MAX_SUMMARY_CHARS)
    with pytest.raises(TooLarge) as refused:
        check_chars("x" * (MAX_SUMMARY_CHARS + 1), field="summary", limit=MAX_SUMMARY_CHARS)
    assert refused.value.fields == {"limit": MAX_SUMMARY_CHARS, "field": "summary"}
    assert (
        refused.value.message
        == "The field 'summary' is 1,001 characters; at most 1,000 are allowed."
    )


CONTROLS = [chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]]


@pytest.mark.parametrize("character", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_every_control_character_but_tab_and_newline_is_refused(character: str) -> None:
    code = f"U+{ord(character):04X}"
    for text in (character, f"plain {character} text", f"ünïcödé {character} ©"):
        with pytest.raises(InvalidRequest) as refused:
            check_plain_text(text, field="title")
        assert refused.value.fields == {"field": "title", "character": code}
        assert refused.value.message == (
            f"The field 'title' holds the control character {code}; remove it."
        )


def test_a_carriage_return_left_unnormalised_is_a_control_character() -> None:
    with pytest.raises(InvalidRequest) as refused:
        check_plain_text("a\rb", field="name")
    assert refused.value.fields["character"] == "U+000D"
    check_plain_text(normalise_newlines("a\r\nb\rc"), field="name")


@pytest.mark.parametrize(
    "text",
    ["", "tab\tand\nnewline", " ~", "\u00a0\u00ff", "é € 東京", "🎉", "\u2028\u200b\ufeff", "©®°"],
)
def test_tabs_newlines_and_everything_printable_are_text(text: str) -> None:
    check_plain_text(text, field="body")


def test_an_edit_field_refused_for_a_control_character_names_the_edit() -> None:
    with pytest.raises(InvalidRequest) as refused:
        check_text("a\x00", field="new", edit_index=3)
    assert refused.value.fields == {"field": "new", "edit_index": 3, "character": "U+0000"}
    assert refused.value.message == (
        "Edit 3: the field 'new' holds the control character U+0000; remove it."
    )


def test_the_first_control_character_of_a_large_body_is_named() -> None:
    body = "é" * (MAX_BODY_BYTES // 4) + "\x85" + "x" * 100 + "\x00"
    with pytest.raises(InvalidRequest) as refused:
        check_body(body)
    assert refused.value.fields == {"field": "body", "character": "U+0085"}
