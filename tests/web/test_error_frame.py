"""A refusal's page is inside the site's frame: a signed-in visitor keeps the header (its
links, their name, sign out) and a way on; a visitor who is not signed in sees the header as
it is for them."""

from __future__ import annotations

import re

from tests.conftest import InProcessServer
from tests.web.conftest import browser, signed_in


def header(html: str) -> str:
    found = re.search(r"<header.*?</header>", html, re.S)
    return found[0] if found else ""


def test_a_signed_in_visitor_keeps_the_header_on_a_refusal(app: InProcessServer) -> None:
    with signed_in(app, "reader") as client:
        missing = client.get("/p/wiki/no/such/page")
        malformed = client.get("/history/wiki/x", params={"offset": "-1"})
    for answer in (missing, malformed):
        assert answer.status_code in (404, 422), answer.status_code
        top = header(answer.text)
        assert "Rita" in top and "Sign out" in top and 'href="/inbox"' in top
        assert re.search(r'href="/(home)?"', answer.text)  # a way on


def test_a_stranger_sees_the_header_as_it_is_for_them(app: InProcessServer) -> None:
    with browser(app) as client:
        answer = client.get("/no-such-route")
    assert answer.status_code == 404 and "Sign out" not in answer.text
