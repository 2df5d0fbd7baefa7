"""Refusals as HTML: a page saying what was wrong, with its status; a visitor who is not
signed in is sent to sign in, and brought back after."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import RedirectResponse, Response

from codna.errors import CodnaError
from codna.web.templating import render
from codna.web.visitor import signed_out, visitor

STATUS = {
    "not_found": 404,
    "read_only": 403,
    "conflict": 409,
    "rate_limited": 429,
    "too_large": 413,
    "unavailable": 503,
}


def form_status(refused: CodnaError) -> int:
    """A refusal shown in its form: the error page's status, 422 for a bad field."""
    return STATUS.get(refused.code, 422)


async def _domain(request: Request, error: Exception) -> Response:
    assert isinstance(error, CodnaError)
    if error.code == "unauthenticated":
        back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return signed_out(RedirectResponse(f"/?next={quote(back)}", status_code=303))
    return _page(request, STATUS.get(error.code, 400), error.message)


async def _validation(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestValidationError)
    first = error.errors()[0] if error.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query", "form"))
    return _page(request, 422, f"{where or 'The request'}: {first.get('msg', 'is malformed')}.")


async def _http(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    messages = {404: "There is no such page here.", 405: "This address does not take that."}
    return _page(request, error.status_code, messages.get(error.status_code, str(error.detail)))


def _page(request: Request, status: int, message: str) -> Response:
    return render(
        request, visitor(request), "error.html", member=None, status=status, message=message
    )


HANDLERS: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
    CodnaError: _domain,
    RequestValidationError: _validation,
    HTTPException: _http,
}
