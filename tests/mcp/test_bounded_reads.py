"""read_document never answers more than 20,000 characters of page text: a long body comes a
window at a time, with what to pass for the rest; a section comes alone; an outline holds the
text above the headings, where a record's status line is."""

from __future__ import annotations

import re

import pytest

from codna.mcp.budget import ANSWER_CHARS, PAGE_FIELDS
from codna.services.pages.windows import READ_BUDGET
from tests.conftest import InProcessServer, one_page, refusal, structured, unique

pytestmark = pytest.mark.anyio

SECTION = "Paragraph of a long record, said once more so the page grows. " * 40 + "\n\n"
LONG = (
    "# Record\n\n**Status:** Proposed\n\n"
    + "".join(f"## Part {n}\n\n{SECTION}" for n in range(100))
    + "## Decision\n\nWe decide.\n"
)


async def test_a_long_page_comes_a_window_at_a_time_each_answer_within_the_budget(
    app: InProcessServer,
) -> None:
    """Following `more` from the start reads the page exactly, each answer as sent (a newline
    sent as two characters) within ANSWER_CHARS; the last window says nothing more to pass."""
    address = unique()
    app.create_page(address, LONG)
    read, sizes, start = "", [], 0
    async with app.mcp("reader") as reader:
        while True:
            result = await reader.call_tool("read_document", {"address": address, "start": start})
            sizes.append(len(result.content[0].text))  # type: ignore[union-attr]
            page = one_page(result)
            read += page["body"]
            told = re.search(r"pass start=(\d+)", page["more"])
            if told is None:
                break
            assert int(told[1]) == start + len(page["body"]) and f"{len(LONG):,}" in page["more"]
            start = int(told[1])
    assert read == LONG and len(sizes) <= -(-len(LONG) // (ANSWER_CHARS - PAGE_FIELDS - 500))
    assert max(sizes) <= ANSWER_CHARS and min(sizes[:-1]) > ANSWER_CHARS - PAGE_FIELDS - 500


async def test_a_long_revision_comes_a_window_at_a_time(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, LONG)
    async with app.mcp("reader") as reader:
        first = structured(
            await reader.call_tool("read_revision", {"address": address, "version": 1})
        )
        start = int(re.search(r"pass start=(\d+)", first["more"])[1])  # type: ignore[index]
        rest = structured(
            await reader.call_tool(
                "read_revision", {"address": address, "version": 1, "start": start}
            )
        )
    assert start == len(first["body"]) and LONG.startswith(first["body"])
    assert rest["body"] == LONG[start : start + len(rest["body"])]
    assert "section" not in first["more"] and f"{address} v1" in first["more"]
    assert len(first["body"]) > ANSWER_CHARS - PAGE_FIELDS - 500


async def test_a_section_comes_alone_and_an_outline_has_the_status_line(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, LONG)
    async with app.mcp("reader") as reader:
        decision = one_page(
            await reader.call_tool("read_document", {"address": address, "section": "Decision"})
        )
        shape = one_page(
            await reader.call_tool("read_document", {"address": address, "outline": True})
        )
        wrong = refusal(
            await reader.call_tool("read_document", {"address": address, "section": "Decison"})
        )
    assert decision["body"] == "## Decision\n\nWe decide.\n" and "more" not in decision
    assert shape["intro"] == "**Status:** Proposed" and "body" not in shape
    assert shape["chars"] == len(LONG) and len(shape["headings"]) == 102
    assert wrong["field"] == "section" and "Did you mean 'Decision'?" in wrong["message"]


async def test_several_pages_share_the_budget(app: InProcessServer) -> None:
    addresses = [unique() for _ in range(3)]
    for address in addresses:
        app.create_page(address, LONG)
    async with app.mcp("reader") as reader:
        read = structured(await reader.call_tool("read_document", {"address": addresses}))
        mixed = refusal(
            await reader.call_tool("read_document", {"address": addresses, "section": "Decision"})
        )
    bodies = [page["body"] for page in read["pages"]]
    assert sum(map(len, bodies)) <= READ_BUDGET and all(page["more"] for page in read["pages"])
    assert mixed["field"] == "section"
