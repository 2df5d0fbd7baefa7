"""A sentence after an action: what a form did ("Saved as version 4."), said once on the page
the browser is sent to next.

The sentence rides in a short-lived cookie of its own (HttpOnly, SameSite=Lax), set on the
redirect and cleared by the next whole page shown; a fragment htmx asks for leaves it for the
page. It is only ever shown as text: the template escapes it like every other value.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from fastapi import Request
from starlette.responses import Response

SAID_COOKIE = "codna_said"
MOST_SAID = 300  # characters of a sentence kept


def tell(response: Response, sentence: str, *, secure: bool) -> Response:
    """`response` (a redirect, as a rule) carrying `sentence` to the next page shown."""
    response.set_cookie(
        SAID_COOKIE,
        quote(sentence[:MOST_SAID]),
        max_age=60,
        httponly=True,
        samesite="lax",
        secure=secure,
    )
    return response


def heard(request: Request) -> str | None:
    """The sentence waiting for this page, if it is a whole page and one waits."""
    if request.headers.get("HX-Request") or SAID_COOKIE not in request.cookies:
        return None
    return unquote(request.cookies[SAID_COOKIE])[:MOST_SAID] or None


def told(response: Response) -> Response:
    """`response` with the sentence it showed cleared, so it is said once."""
    response.delete_cookie(SAID_COOKIE)
    return response
