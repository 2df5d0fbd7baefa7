"""read_document never answers more than 20,000 characters of page text: a long body comes a
window at a time, with what to pass for the rest; a section comes alone; an outline holds the
text above the headings, where a record's status line is."""

from __future__ import annotations

import pytest

from codna.services.windows import READ_BUDGET
from tests.conftest import InProcessServer, one_page, refusal, structured, unique

pytestmark = pytest.mark.anyio

SECTION = "Paragraph of a long record, said once more so the page grows. " * 40 + "\n\n"
LONG = (
    "# Record\n\n**Status:** Proposed\n\n"
    + "".join(f"## Part {n}\n\n{SECTION}" for n in range(100))
    + "## Decision\n\nWe decide.\n"
)


async def test_a_long_page_comes_a_window_at_a_time(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, LONG)
    async with app.mcp("reader") as reader:
        first = one_page(await reader.call_tool("read_document", {"address": address}))
        second = one_page(
            await reader.call_tool("read_document", {"address": address, "start": READ_BUDGET})
        )
        last = one_page(
            await reader.call_tool("read_document", {"address": address, "start": len(LONG) - 10})
        )
    assert first["body"] == LONG[:READ_BUDGET]
    assert f"pass start={READ_BUDGET}" in first["more"] and f"{len(LONG):,}" in first["more"]
    assert second["body"] == LONG[READ_BUDGET : 2 * READ_BUDGET]
    assert last["body"] == LONG[-10:] and "pass start" not in last["more"]


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
