"""An export answers a window of the readable pages, by address: at most `limit` of them
(within EXPORT) after `offset`, and never more than EXPORT_BYTES of text, saying where the
next window starts while pages are left out; on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from codna.errors import InvalidRequest
from codna.markdown.limits import MAX_BODY_BYTES
from codna.services.admin import transfer
from codna.services.limits import EXPORT, EXPORT_BYTES
from codna.services.pages import pages
from tests.services.conftest import Team

# Made in an order that is not the addresses' order.
ADDRESSES = ["wiki:w/d", "wiki:w/a", "wiki:w/e", "wiki:w/b", "wiki:w/c"]


@pytest.fixture
def folder(team: Team) -> list[str]:
    for address in ADDRESSES:
        pages.create_page(team.writer, address=address, title=address, body="x" * 1000)
    return sorted(ADDRESSES)


def window(team: Team, **asked: int) -> tuple[list[str], int | None]:
    done = transfer.export_documents(team.reader, address="wiki:w/", **asked)
    return [file.address for file in done.files], done.next_offset


def test_an_export_is_walked_by_address_and_says_where_the_next_window_starts(
    team: Team, folder: list[str]
) -> None:
    assert window(team) == (folder, None)
    assert window(team, limit=2) == (folder[:2], 2)
    assert window(team, limit=2, offset=2) == (folder[2:4], 4)
    assert window(team, limit=2, offset=4) == (folder[4:], None)
    assert window(team, limit=3, offset=2) == (folder[2:], None)  # exactly the rest: no more
    assert window(team, offset=5) == ([], None)


def test_an_export_window_beyond_its_bounds_is_refused_not_clamped(
    team: Team, folder: list[str]
) -> None:
    for asked, field in (
        ({"limit": EXPORT.most + 1}, "limit"),
        ({"limit": 0}, "limit"),
        ({"offset": -1}, "offset"),
    ):
        with pytest.raises(InvalidRequest) as refused:
            transfer.export_documents(team.reader, **asked)
        assert refused.value.fields["field"] == field
    assert window(team, limit=EXPORT.most) == (folder, None)


def test_an_export_stops_before_the_page_that_would_pass_its_bytes(
    team: Team, folder: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes = [len(f.text.encode()) for f in transfer.export_documents(team.reader).files]
    monkeypatch.setattr(transfer, "EXPORT_BYTES", sizes[0] + sizes[1] + sizes[2] - 1)
    assert window(team) == (folder[:2], 2)
    assert window(team, offset=2) == (folder[2:4], 4)
    assert window(team, offset=4) == (folder[4:], None)
    monkeypatch.setattr(transfer, "EXPORT_BYTES", 10)  # a window holds one page at the least
    assert window(team, limit=2) == (folder[:1], 1)


def test_the_bytes_of_an_export_allow_many_of_the_largest_pages() -> None:
    assert EXPORT_BYTES == 64 * 2**20
    assert EXPORT_BYTES // (MAX_BODY_BYTES + 4096) >= 60  # a body and its front matter
