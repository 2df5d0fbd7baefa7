"""The forms' text read as UTF-8, or refused.

A browser sends a form's fields percent-encoded, as UTF-8. Starlette's form parser reads raw
bytes as Latin-1 and replaces percent-encoded bytes that are not UTF-8 with U+FFFD, so text
that is not UTF-8 would be saved changed without a word. Every route of the web UI is a
`FormRoute`: a form body whose bytes are not ASCII, or whose percent-encoded text is not
UTF-8, is refused before the view reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import parse_qsl

from fastapi import Request, Response
from fastapi.routing import APIRoute

from codna.errors import InvalidRequest

FORM = "application/x-www-form-urlencoded"


def check_form_text(body: bytes) -> None:
    """Raises InvalidRequest unless `body` is a form's fields as a browser encodes them."""
    try:
        parse_qsl(body.decode("ascii"), keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise InvalidRequest(
            "The form's text is not UTF-8 as a browser sends it; nothing was saved."
        ) from None


class FormRoute(APIRoute):
    """A route whose form body is checked by `check_form_text` before its view runs."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def checked(request: Request) -> Response:
            if request.headers.get("content-type", "").startswith(FORM):
                check_form_text(await request.body())  # kept: the form is parsed from it
            return await handle(request)

        return checked
