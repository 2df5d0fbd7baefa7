"""The domain's errors: one tree, a stable code each, a sentence for a person or a model.

Each also carries its `status`, the HTTP status SPEC 2's table gives its code: the one every
interface answers it with over HTTP (the JSON API, the web, MCP's transport before a tool runs).
They know nothing else of HTTP, MCP or the terminal; each edge turns an error into its own form
once.
"""

from __future__ import annotations

from typing import Any, ClassVar


class CodnaError(Exception):
    """Something CoDNA refused, with a stable code, a sentence and the fields that say more."""

    code: ClassVar[str] = "error"
    # Every kind of error sets its own beside its code, with no default to fall back on
    # (tests/api/test_errors.py checks each against SPEC 2).
    status: ClassVar[int]

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields

    def as_dict(self) -> dict[str, Any]:
        """The error as the JSON object every interface shows: `{code, message, ...fields}`."""
        return {"code": self.code, "message": self.message, **self.fields}

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class Unauthenticated(CodnaError):
    """No token or session, or a wrong or revoked one."""

    code = "unauthenticated"
    status = 401


class NotFound(CodnaError):
    """The object does not exist, or the caller cannot read it."""

    code = "not_found"
    status = 404


class ReadOnly(CodnaError):
    """The caller can read this but not write it; everything in `raw` is read only."""

    code = "read_only"
    status = 403


class InvalidRequest(CodnaError):
    """A field is missing or malformed."""

    code = "invalid_request"
    status = 422


class InvalidEdit(CodnaError):
    """An edit does not apply to the page: `edit_index`, `op`, `reason` and maybe `count`."""

    code = "invalid_edit"
    status = 422


class TooLarge(CodnaError):
    """A size limit was passed: `limit`."""

    code = "too_large"
    status = 413


class Conflict(CodnaError):
    """The page moved on since `base_version`: `current_version`."""

    code = "conflict"
    status = 409


class Duplicate(CodnaError):
    """The same thing already exists or already waits on this page."""

    code = "duplicate"
    status = 409


class RejectedBefore(CodnaError):
    """The same edits were rejected on this page before."""

    code = "rejected_before"
    status = 409


class LimitReached(CodnaError):
    """Too many suggestions wait: `limit`, `pending`."""

    code = "limit_reached"
    status = 409


class AlreadyDecided(CodnaError):
    """The suggestion is no longer pending: `status`."""

    code = "already_decided"
    status = 409


class NoLongerApplies(CodnaError):
    """Accepting a suggestion whose edit's text is gone: `edit_index`, `reason`."""

    code = "no_longer_applies"
    status = 409


class RevertConflict(Conflict):
    """A revision cannot be undone: the text it changed is no longer as it left it."""


class Unavailable(CodnaError):
    """The database cannot be reached just now (stopped, restarting): try again shortly."""

    code = "unavailable"
    status = 503


class RateLimited(CodnaError):
    """Too many calls: `retry_after` seconds."""

    code = "rate_limited"
    status = 429
