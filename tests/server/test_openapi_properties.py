"""Property-based tests of the JSON API from its own OpenAPI description (schemathesis).

One bounded campaign per server (a few valid and a few invalid examples per operation) sends
each request once and runs every check on its answer separately, so each test below names the
property it holds and lists every operation that broke it, with a curl line to reproduce.
The caller is a writer, not an admin, and revoking tokens is left out (it could revoke the
campaign's own token; revocation has tests of its own), as are the endless event streams.
It runs against a real server: generated requests, malformed ones above all, go through a
real HTTP parser (uvicorn's) as a client's would.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import BaseSchema, Case, GenerationMode
from schemathesis import checks as st

from tests.server.conftest import Server

EXAMPLES = 4
# Event streams never end, and revoking could revoke the campaign's own token.
LEFT_OUT = r"/events$|^/api/v1/tokens/revoke$"
CHECKS: dict[str, Callable[..., Any]] = {
    "not_a_server_error": st.not_a_server_error,
    "status_code_conformance": st.status_code_conformance,
    "content_type_conformance": st.content_type_conformance,
    "response_headers_conformance": st.response_headers_conformance,
    "response_schema_conformance": st.response_schema_conformance,
    "ignored_auth": st.ignored_auth,
}
Campaign = dict[str, list[str]]


def api_description(server: Server) -> BaseSchema:
    schema = schemathesis.openapi.from_url(f"{server.base}/api/openapi.json")
    return schema.exclude(path_regex=LEFT_OUT)


def probe(
    operation: Any, mode: GenerationMode, headers: dict[str, str], found: dict[str, dict[str, str]]
) -> Callable[[], None]:
    """A bounded hypothesis test of one operation that records, not raises, what fails."""
    label = f"{operation.label} ({mode.value})"

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def examples(case: Case) -> None:
        response = case.call(headers=headers, timeout=30)
        for name, check in CHECKS.items():
            try:
                case.validate_response(response, checks=[check], headers=headers)
            except (AssertionError, BaseExceptionGroup) as failure:
                found[name].setdefault(label, f"{label}: {failure}")

    return examples


def run_campaign(server: Server) -> Campaign:
    """Every check's failures, at most one per operation and mode, as readable lines."""
    headers = server.headers("schemathesis")
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for result in api_description(server).get_all_operations():
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            probe(result.ok(), mode, headers, found)()
    return {name: list(found[name].values()) for name in CHECKS}


@pytest.fixture(scope="session")
def campaigns() -> dict[str, Campaign]:
    return {}


@pytest.fixture
def campaign(server: Server, campaigns: dict[str, Campaign]) -> Campaign:
    """The campaign against this server, run once and shared by the tests below."""
    if server.engine not in campaigns:
        campaigns[server.engine] = run_campaign(server)
    return campaigns[server.engine]


def report(failures: list[str]) -> str:
    return f"{len(failures)} operation(s):\n\n" + "\n\n".join(failures)


def test_no_generated_request_makes_the_api_answer_with_a_server_error(campaign: Campaign) -> None:
    assert not campaign["not_a_server_error"], report(campaign["not_a_server_error"])


def test_every_answer_has_a_status_code_the_api_description_documents(
    campaign: Campaign,
) -> None:
    failures = campaign["status_code_conformance"]
    assert not failures, report(failures)


def test_every_answer_matches_the_body_headers_and_content_type_the_description_gives(
    campaign: Campaign,
) -> None:
    failures = [
        *campaign["content_type_conformance"],
        *campaign["response_headers_conformance"],
        *campaign["response_schema_conformance"],
    ]
    assert not failures, report(failures)


def test_no_operation_honours_a_call_without_its_token(campaign: Campaign) -> None:
    assert not campaign["ignored_auth"], report(campaign["ignored_auth"])
