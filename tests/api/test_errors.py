"""Every domain error carries its HTTP status, the one SPEC 2's table gives its code; each
interface answers with it (tests/api, tests/web and tests/mcp test_error_statuses.py)."""

from __future__ import annotations

from tests.conftest import domain_errors

# SPEC section 2, the table of errors: code and HTTP status.
SPEC_2 = {
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


def test_the_domain_has_the_codes_of_spec_2_and_no_other() -> None:
    assert {kind.code for kind in domain_errors()} == set(SPEC_2)


def test_every_error_carries_the_status_spec_2_gives_its_code() -> None:
    wrong = {
        kind.__name__: (kind.code, getattr(kind, "status", None), SPEC_2.get(kind.code))
        for kind in domain_errors()
        if getattr(kind, "status", None) != SPEC_2.get(kind.code)
    }
    assert not wrong, f"(code, the error's status, SPEC 2's status) by class: {wrong}"
