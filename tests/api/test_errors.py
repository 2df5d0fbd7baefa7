"""Every domain error has its HTTP status, the one SPEC 2's table gives its code."""

from __future__ import annotations

import json

from codna.api.errors import STATUS, error_response
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
    # Beyond SPEC 2's table (issue 15): the database cannot be reached just now.
    "unavailable": 503,
}


def test_the_domain_has_the_codes_of_spec_2_and_no_other() -> None:
    assert {kind.code for kind in domain_errors()} == set(SPEC_2)


def test_every_error_code_is_in_the_apis_status_table_with_the_status_of_spec_2() -> None:
    wrong = {
        kind.__name__: (kind.code, STATUS.get(kind.code), SPEC_2.get(kind.code))
        for kind in domain_errors()
        if kind.code not in STATUS or STATUS[kind.code] != SPEC_2.get(kind.code)
    }
    assert not wrong, f"(code, the API's status, SPEC 2's status) by class: {wrong}"


def test_every_error_is_answered_with_its_status_and_its_code_and_sentence_as_json() -> None:
    for kind in domain_errors():
        answer = error_response(kind("A sentence.", limit=3))
        assert answer.status_code == SPEC_2[kind.code], kind.__name__
        body = json.loads(bytes(answer.body))
        assert body == {"code": kind.code, "message": "A sentence.", "limit": 3}, kind.__name__
