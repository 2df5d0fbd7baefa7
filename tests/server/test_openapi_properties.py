"""Property-based tests of the JSON API from its own OpenAPI description (schemathesis).

One bounded campaign per server (a few valid and a few invalid examples per operation) sends
each request once and runs every check on its answer separately, so each test below names the
property it holds and lists every operation that broke it, with a curl line to reproduce.
The caller is a writer, not an admin, and revoking tokens is left out (it could revoke the
campaign's own token; revocation has tests of its own), as are the endless event streams.
It runs against a real server: generated requests, malformed ones above all, go through a
real HTTP parser (uvicorn's) as a client's would.

A stateful run (on the SQLite server; the campaign runs on both) follows the description's
links from a suggestion made to reading, deciding and withdrawing it (POST /suggestions answers
with them), with schemathesis's own checks on every answer, its stateful ones included (what
was made can be read).
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable
from typing import Any, ClassVar

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import BaseSchema, Case, GenerationMode, Response
from schemathesis import checks as st
from schemathesis.generation.stateful.state_machine import APIStateMachine

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


# The stateful run ---------------------------------------------------------------------------

SUGGESTIONS = r"^/api/v1/suggestions"
# The campaign's checks and the stateful ones. Like the campaign, not positive_data_acceptance:
# the description types text as strings, and the services refuse some strings (a control
# character, a status that is none) with the 422 every route documents.
STATEFUL_CHECKS = [*CHECKS.values(), st.use_after_free, st.ensure_resource_availability]
STATEFUL_EXAMPLES = 15
STATEFUL_STEPS = 12


def suggestion_loop(server: Server, long_form: bool) -> type[APIStateMachine]:
    """The state machine of the suggestion operations, its POST /suggestions made to apply.

    A generated suggestion almost never names a page that exists with edits that apply, so
    the links after it would never be followed: its body is replaced by an edit of a page of
    the run's own, the generated reason kept when it is text. A generated decision is kept
    when it is one; otherwise accept or reject, chosen from the rest of what was generated.
    After each run the writer's suggestions still waiting are withdrawn (they count against a
    suggester's limit of 200)."""
    schema = api_description(server).include(path_regex=SUGGESTIONS)
    headers = server.headers("schemathesis")
    base = schema.as_state_machine()

    class SuggestionLoop(base):  # type: ignore[valid-type,misc]
        page = ""
        answered: ClassVar[list[tuple[str, str, int]]] = []  # (method, path, status) of each call

        def setup(self) -> None:
            self.page = unique_page(server, headers)
            # The newest of the writer's suggestions, which the list's links follow, is always
            # one of this example's own, waiting: what the links reach does not depend on
            # what earlier examples left, so a replayed prefix draws as it did.
            suggest_waiting(server, headers, self.page)

        def get_call_kwargs(self, case: Case) -> dict[str, Any]:
            return {"headers": headers, "timeout": 30}

        def before_call(self, case: Case) -> None:
            if case.method == "POST" and case.path == "/api/v1/suggestions":
                reason = case.body.get("reason") if isinstance(case.body, dict) else None
                case.body = {
                    "address": self.page,
                    "reason": reason if isinstance(reason, str) and reason.strip() else "Why.",
                    "edits": [{"op": "append", "text": f"Line {uuid.uuid4().hex}."}],
                }
            elif (
                case.path.endswith("/decide")
                and isinstance(case.body, dict)
                and case.body.get("decision") not in ("accept", "reject")
            ):
                case.body["decision"] = ("accept", "reject")[len(str(case.body)) % 2]

        def after_call(self, response: Response, case: Case) -> None:
            self.answered.append((case.method, case.operation.path, response.status_code))

        def validate_response(self, response: Response, case: Case, *args: Any, **kw: Any) -> None:
            case.validate_response(response, checks=STATEFUL_CHECKS, headers=headers)

        def teardown(self) -> None:
            withdraw_waiting(server, headers)

    return SuggestionLoop


def unique_page(server: Server, headers: dict[str, str]) -> str:
    address = f"wiki:stateful/{uuid.uuid4().hex[:10]}"
    with httpx.Client(base_url=server.base, headers=headers, timeout=30) as client:
        made = client.post("/api/v1/pages", json={"address": address, "title": "Stateful"})
    assert made.status_code == 201, made.text
    return address


def suggest_waiting(server: Server, headers: dict[str, str], page: str) -> None:
    body = {
        "address": page,
        "reason": "Why.",
        "edits": [{"op": "append", "text": f"Line {uuid.uuid4().hex}."}],
    }
    with httpx.Client(base_url=server.base, headers=headers, timeout=30) as client:
        made = client.post("/api/v1/suggestions", json=body)
    assert made.status_code == 201, made.text


def withdraw_waiting(server: Server, headers: dict[str, str]) -> None:
    with httpx.Client(base_url=server.base, headers=headers, timeout=30) as client:
        waiting = client.get("/api/v1/suggestions", params={"status": "pending", "limit": 200})
        for suggestion in waiting.json():
            client.post(f"/api/v1/suggestions/{suggestion['id']}/withdraw")


# On SQLite only: what it adds to the campaign, which runs on both engines, is the API
# description's links followed through the suggestion operations (and what was made being
# readable), which the description and the routes decide, not the engine.
@pytest.mark.parametrize("server", ["sqlite"], indirect=True)
def test_a_stateful_run_from_suggesting_to_reading_and_deciding_finds_no_failure(
    server: Server, long_form: bool
) -> None:
    loop = suggestion_loop(server, long_form)
    loop.answered.clear()
    loop.run(
        settings=settings(
            max_examples=STATEFUL_EXAMPLES * (10 if long_form else 1),
            stateful_step_count=STATEFUL_STEPS,
            deadline=None,
            database=None,
            derandomize=not long_form,
            suppress_health_check=list(HealthCheck),
        )
    )
    # The links were followed: suggestions made, then read and decided on through them.
    done = {(method, path, status) for method, path, status in loop.answered}
    assert ("POST", "/api/v1/suggestions", 201) in done, sorted(done)
    assert ("GET", "/api/v1/suggestions/{suggestion_id}", 200) in done, sorted(done)
    assert ("POST", "/api/v1/suggestions/{suggestion_id}/decide", 200) in done, sorted(done)
