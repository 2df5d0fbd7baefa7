"""The size limits and the newline rule."""

from __future__ import annotations

import pytest

from codna.errors import InvalidRequest, TooLarge
from codna.markdown.limits import (
    MAX_BODY_BYTES,
    MAX_SUMMARY_CHARS,
    check_body,
    check_chars,
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
