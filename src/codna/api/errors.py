"""Domain errors as HTTP: each with the status it carries, one handler, JSON
`{code, message, ...}`."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException

from codna.api.auth import token_refusal
from codna.errors import CodnaError, InvalidRequest


class ErrorResponse(JSONResponse):
    """JSON in ASCII: an error may quote what it refused, and that need not be valid text."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode()


class ErrorBody(BaseModel):
    """Every refusal: a stable code, a sentence, and the fields that say more."""

    model_config = ConfigDict(extra="allow")

    code: str
    message: str


def _kinds(kind: type[CodnaError] = CodnaError) -> list[type[CodnaError]]:
    """Every kind of domain error below `kind`, however deep."""
    return [k for sub in kind.__subclasses__() for k in (sub, *_kinds(sub))]


# What each status tells a caller; the codes answered with it are read from the errors.
MEANING = {
    401: "no token, or a wrong or revoked one",
    403: "the caller can read this but not change it",
    404: "it does not exist, or the caller cannot read it",
    409: "it clashes with what is there now",
    413: "a size limit",
    422: "a field missing or malformed, or an edit that does not apply",
    429: "too many calls; see Retry-After",
    503: "the database cannot be reached just now; see Retry-After",
}


def _codes_by_status() -> dict[int, list[str]]:
    codes: dict[int, set[str]] = {}
    for kind in _kinds():
        codes.setdefault(kind.status, set()).add(kind.code)
    return {status: sorted(codes[status]) for status in sorted(codes)}


# The statuses any call may answer with, documented on every route of the API.
DOCUMENTED: dict[int | str, dict[str, Any]] = {
    status: {
        "model": ErrorBody,
        "description": f"{', '.join(codes)}: {MEANING.get(status, 'refused')}.",
    }
    for status, codes in _codes_by_status().items()
}


def error_response(error: CodnaError) -> JSONResponse:
    headers = {}
    if error.code == "unauthenticated":
        headers["WWW-Authenticate"] = "Bearer"
    if error.code in ("rate_limited", "unavailable"):
        headers["Retry-After"] = str(error.fields.get("retry_after", 1))
    return ErrorResponse(error.as_dict(), status_code=error.status, headers=headers)


async def _domain(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, CodnaError)
    return error_response(error)


async def _validation(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    # A route checks its token where its work runs; a request refused before that is checked
    # for its token here, so that a caller without a good one hears of nothing but 401.
    refused = await token_refusal(request)
    if refused is not None:
        return error_response(refused)
    first = error.errors()[0] if error.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path"))
    message = f"{where or 'The request'}: {first.get('msg', 'is malformed')}."
    return error_response(InvalidRequest(message, field=where or None))


async def _http(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, HTTPException)
    code = {401: "unauthenticated", 404: "not_found", 413: "too_large"}.get(
        error.status_code, "invalid_request"
    )
    message = str(error.detail) if error.detail else "The request was refused."
    if error.status_code == 404:
        message = "There is no such endpoint."
    elif error.status_code == 405:
        message = "This endpoint does not take that method."
    # A body that is not JSON is malformed like any other field (invalid_request).
    status = InvalidRequest.status if error.status_code == 400 else error.status_code
    if status == InvalidRequest.status:
        message = f"The request body is not valid JSON ({message})."
    return ErrorResponse(
        {"code": code, "message": message}, status_code=status, headers=error.headers
    )


HANDLERS: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
    CodnaError: _domain,
    RequestValidationError: _validation,
    HTTPException: _http,
}
