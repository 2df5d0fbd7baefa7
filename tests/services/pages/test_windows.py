"""A window of a body: what it holds, and the refusals that say what to pass instead."""

from __future__ import annotations

import pytest

from codna.errors import InvalidRequest
from codna.services.pages.windows import READ_BUDGET, intro, window

BODY = "# Title\n\nStatus: open.\n\n## A\n\nOne.\n\n## B\n\nTwo.\n\n## A\n\nAgain.\n"


def test_a_window_is_the_characters_asked_and_says_how_to_go_on() -> None:
    part = window(BODY, start=2, chars=5)
    assert (part.text, part.start, part.end, part.total) == (BODY[2:7], 2, 7, len(BODY))
    assert "pass start=7" in (part.how_to_go_on("wiki:x") or "")
    assert window(BODY).how_to_go_on("wiki:x") is None


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"start": -1}, "start"),
        ({"start": len(BODY) + 1}, "start"),
        ({"chars": 0}, "chars"),
        ({"chars": READ_BUDGET + 1}, "chars"),
        ({"section": "C"}, "section"),
        ({"section": "A"}, "section"),  # two of them
    ],
)
def test_what_cannot_be_read_is_refused_naming_it(options: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        window(BODY, **options)  # type: ignore[arg-type]
    assert refused.value.fields["field"] == field


def test_the_intro_is_the_text_under_a_title_above_the_first_section() -> None:
    assert intro(BODY) == "Status: open."
    assert intro("Just text.\n\n## A\n\nx\n") == "Just text."
    assert intro("## A\n\nx\n") is None
