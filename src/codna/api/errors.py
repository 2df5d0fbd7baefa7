"""Domain errors as HTTP: one table of statuses, one handler, JSON `{code, message, ...}`."""

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
from codna.errors import CodnaError

STATUS = {
    "unauthenticated": 401,
    "not_found": 404,
    "read_only": 403,
    "invalid_request": 422,
    "invalid_edit": 422,
    "too_large": 413,
    "conflict": 409,
    "duplicate": 409,
    "rejected_before": 409,
    "limit_reached": 409,
    "already_decided": 409,
    "no_longer_applies": 409,
    "rate_limited": 429,
    "unavailable": 503,
}


class ErrorResponse(JSONResponse):
    """JSON in ASCII: an error may quote what it refused, and that need not be valid text."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode()


class ErrorBody(BaseModel):
    """Every refusal: a stable code, a sentence, and the fields that say more."""

    model_config = ConfigDict(extra="allow")

    code: str
    message: str


# The statuses any call may answer with, documented on every route of the API.
DOCUMENTED: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in (
        (401, "No token, or a wrong or revoked one (unauthenticated)."),
        (403, "The caller can read this but not change it (read_only)."),
        (404, "It does not exist, or the caller cannot read it (not_found)."),
        (
            409,
            "conflict, duplicate, rejected_before, limit_reached, already_decided or "
            "no_longer_applies.",
        ),
        (413, "A size limit (too_large)."),
        (
            422,
            "A field missing or malformed (invalid_request), or an edit that does not apply "
            "(invalid_edit).",
        ),
        (429, "Too many calls (rate_limited); see Retry-After."),
        (503, "The database cannot be reached just now (unavailable); see Retry-After."),
    )
}


def error_response(error: CodnaError) -> JSONResponse:
    headers = {}
    if error.code == "unauthenticated":
        headers["WWW-Authenticate"] = "Bearer"
    if error.code in ("rate_limited", "unavailable"):
        headers["Retry-After"] = str(error.fields.get("retry_after", 1))
    return ErrorResponse(error.as_dict(), status_code=STATUS.get(error.code, 400), headers=headers)


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
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query"))
    message = f"{where or 'The request'}: {first.get('msg', 'is malformed')}."
    body = {"code": "invalid_request", "message": message, "field": where or None}
    return ErrorResponse(body, status_code=422)


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
    # A body that is not JSON is malformed like any other field: 422, as SPEC 2's table says.
    status = 422 if error.status_code == 400 else error.status_code
    if status == 422:
        message = f"The request body is not valid JSON ({message})."
    return ErrorResponse(
        {"code": code, "message": message}, status_code=status, headers=error.headers
    )


HANDLERS: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
    CodnaError: _domain,
    RequestValidationError: _validation,
    HTTPException: _http,
}
