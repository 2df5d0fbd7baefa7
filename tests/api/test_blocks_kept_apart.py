"""Blocks kept apart over the JSON API, on both databases: a heading inserted after a
paragraph is a block of its own; inline text goes in where it is asked."""

from __future__ import annotations

from tests.conftest import InProcessServer, unique

BODY = "# Decision\n\nWe use one queue for each one.\n\n## Other\n\nMore.\n"


def test_a_heading_inserted_after_a_paragraph_is_kept_apart_over_the_api(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    edits = [
        {"op": "insert_after", "anchor": "for each one.", "text": "## Consequences\n\n- one\n"},
        {"op": "insert_before", "anchor": "## Other", "text": "## Risks"},
        {"op": "insert_after", "anchor": "one queue", "text": " only"},
    ]
    saved = app.edit_page(address, edits)
    assert saved["page"]["body"] == (
        "# Decision\n\nWe use one queue only for each one.\n\n## Consequences\n\n- one\n\n"
        "## Risks\n\n## Other\n\nMore.\n"
    )
