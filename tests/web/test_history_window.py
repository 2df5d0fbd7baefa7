"""The web history shows a page's newest HISTORY.default revisions, and links to the older and
newer ones when the page has more, on SQLite and PostgreSQL."""

from __future__ import annotations

import re

from codna.services.limits import HISTORY, MAX_ID
from tests.api.test_history_window import saved
from tests.conftest import InProcessServer
from tests.web.conftest import signed_in


def history_url(address: str) -> str:
    space, _, path = address.partition(":")
    return f"/history/{space}/{path}"


def versions(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<li class="revision" id="v(\d+)">', html)]


def pager(html: str) -> dict[str, str]:
    """The links of the history's pager, by their text."""
    nav = re.search(r'<nav [^>]*aria-label="More revisions">(.*?)</nav>', html, re.S)
    if nav is None:
        return {}
    return {text: href for href, text in re.findall(r'href="([^"]*)">([^<]+)</a>', nav[1])}


def test_a_long_history_shows_the_newest_window_and_links_to_older_and_newer_ones(
    app: InProcessServer,
) -> None:
    total = HISTORY.default + 3
    address = saved(app, total)
    url = history_url(address)
    with signed_in(app, "reader") as client:
        newest = client.get(url)
        older = client.get(url, params={"offset": HISTORY.default})
    assert newest.status_code == older.status_code == 200
    assert versions(newest.text) == list(range(total, 3, -1))
    assert f"versions {total} to 4 of {total}, newest first" in newest.text
    assert pager(newest.text) == {"Older revisions": f"{url}?offset={HISTORY.default}"}
    assert versions(older.text) == [3, 2, 1]
    assert f"versions 3 to 1 of {total}, newest first" in older.text
    assert pager(older.text) == {"Newer revisions": url}


def test_a_short_history_has_no_pager_and_a_window_past_its_end_links_back(
    app: InProcessServer,
) -> None:
    address = saved(app, 2)
    url = history_url(address)
    with signed_in(app, "reader") as client:
        whole = client.get(url)
        past = client.get(url, params={"offset": 150})
    assert versions(whole.text) == [2, 1] and "2 revisions, newest first" in whole.text
    assert pager(whole.text) == {}
    assert versions(past.text) == [] and "no revisions this far back" in past.text
    assert pager(past.text) == {"Newer revisions": f"{url}?offset={150 - HISTORY.default}"}


def test_an_offset_that_is_not_a_window_is_refused_with_a_sentence(
    app: InProcessServer,
) -> None:
    url = history_url(saved(app, 1))
    with signed_in(app, "reader") as client:
        for offset in ("-1", "ten", str(MAX_ID + 1)):
            answer = client.get(url, params={"offset": offset})
            assert answer.status_code == 422, offset
            assert "offset" in answer.text, offset
