"""A browser as the in-process tests see it: an HTTP client with a cookie jar, signed in
through the sign-in form like a person."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from tests.conftest import PASSWORD, ROLES, InProcessServer

_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(answer: httpx.Response) -> str:
    """The CSRF token the forms of an HTML answer carry."""
    found = _CSRF.search(answer.text)
    assert found, answer.text[:500]
    return found.group(1)


def browser(app: InProcessServer) -> httpx.Client:
    """A client with no token that keeps cookies, and does not follow redirects (the tests
    look at them)."""
    return app.api()


@contextmanager
def signed_in(app: InProcessServer, role: str) -> Iterator[httpx.Client]:
    """A browser signed in as `role`, through the form."""
    with browser(app) as client:
        form = client.get("/")
        answer = client.post(
            "/sign-in",
            data={"email": ROLES[role], "password": PASSWORD, "csrf": csrf_of(form), "next": "/"},
        )
        assert answer.status_code == 303, answer.text
        yield client


def card_of(html: str, suggestion_id: int, kind: str = "change") -> str:
    """The inside of a suggestion's card on a page (its `<li>`), for asserting on."""
    found = re.search(
        rf'<li class="item[^"]*" id="{kind}-{suggestion_id}"[^>]*>(.*?)</li>', html, re.S
    )
    assert found, html[:2000]
    return found.group(1)
