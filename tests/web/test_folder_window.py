"""A folder's page on the web lists PAGES.default pages at a time, by address, with links to
the next and the earlier ones when the folder holds more, on SQLite and PostgreSQL."""

from __future__ import annotations

import re

from codna.services.limits import PAGES
from codna.services.members import members
from codna.services.pages import pages
from tests.conftest import InProcessServer, unique
from tests.web.conftest import signed_in


def listed(html: str) -> list[str]:
    return re.findall(r"<code>(wiki:[^<]+)</code>", html)


def pager(html: str) -> dict[str, str]:
    """The links of the folder's pager, by their text."""
    nav = re.search(r'<nav [^>]*aria-label="More pages">(.*?)</nav>', html, re.S)
    if nav is None:
        return {}
    return {text: href for href, text in re.findall(r'href="([^"]*)">([^<]+)</a>', nav[1])}


def test_a_big_folder_is_listed_a_window_at_a_time(app: InProcessServer) -> None:
    folder = unique("wiki:many") + "/"
    admin = members.member_by_handle("ada@example.com")
    made = sorted(f"{folder}p{n:03}" for n in range(PAGES.default + 3))
    for address in made:
        pages.create_page(admin, address=address, title="P")
    url = "/p/" + folder.replace(":", "/", 1)
    with signed_in(app, "reader") as client:
        first = client.get(url)
        second = client.get(pager(first.text)["More pages"])
        back = pager(second.text)["Earlier pages"]
    assert first.status_code == second.status_code == 200
    assert listed(first.text) == made[: PAGES.default]
    assert listed(second.text) == made[PAGES.default :]
    assert "Earlier pages" not in pager(first.text) and "More pages" not in pager(second.text)
    assert back == url


def test_a_small_folder_has_no_pager(app: InProcessServer) -> None:
    folder = unique("wiki:few") + "/"
    admin = members.member_by_handle("ada@example.com")
    pages.create_page(admin, address=folder + "one", title="One")
    with signed_in(app, "reader") as client:
        shown = client.get("/p/" + folder.replace(":", "/", 1))
    assert listed(shown.text) == [folder + "one"] and pager(shown.text) == {}


def test_the_trash_is_listed_a_window_at_a_time(app: InProcessServer) -> None:
    folder = unique("wiki:binned") + "/"
    admin = members.member_by_handle("ada@example.com")
    for n in range(PAGES.default + 1):
        pages.create_page(admin, address=f"{folder}p{n:03}", title="P")
        pages.trash_page(admin, address=f"{folder}p{n:03}")
    with signed_in(app, "admin") as client:
        first = client.get("/trash")
        links = pager(first.text)
        assert links["More pages"] == f"/trash?offset={PAGES.default}"
        second = client.get(links["More pages"])
    assert second.status_code == 200 and pager(second.text).get("Earlier pages") == "/trash"
    assert len(re.findall(r"<code>", first.text)) == PAGES.default
