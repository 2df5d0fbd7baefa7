"""One token, or one web session, cannot flood the server: reads are counted in a window of
their own (READS_PER_CALL times the writes'), web forms and views are counted like API calls,
and making tokens has a limit of its own, counted in the database. Each refusal is
`rate_limited` with `retry_after`, and changes nothing.
"""

from __future__ import annotations

import uuid

from codna.services.limits import READS_PER_CALL, TOKENS_PER_HOUR
from codna.services.members import members, tokens
from codna.services.pages import pages
from tests.conftest import PASSWORD, TIGHT_RATE_LIMIT, InProcessServer, error_body, unique
from tests.web.conftest import csrf_of, signed_in


def fresh_token(app: InProcessServer, email: str, name: str) -> str:
    admin = tokens.authenticate_token(app.token("admin")).member
    return tokens.create_token(admin, member=email, name=name).secret


def test_api_reads_are_counted_in_a_window_of_their_own(tight_app: InProcessServer) -> None:
    secret = fresh_token(tight_app, "wanda@example.com", f"reads-{uuid.uuid4().hex[:6]}")
    headers = {"Authorization": f"Bearer {secret}"}
    reads = TIGHT_RATE_LIMIT * READS_PER_CALL
    with tight_app.api() as client:
        for _ in range(reads):
            assert client.get("/api/v1/me", headers=headers).status_code == 200
        answer = client.get("/api/v1/me", headers=headers)
        body = error_body(answer, 429, "rate_limited")
        assert "reads" in body["message"] and body["limit"] == reads
        assert int(answer.headers["retry-after"]) == body["retry_after"] >= 1
        # Writes have their own window, still unspent.
        edit = {"address": "wiki:server/none", "edits": [{"op": "append", "text": "x"}]}
        error_body(client.post("/api/v1/page/edit", json=edit, headers=headers), 404, "not_found")


def test_making_tokens_has_a_limit_of_its_own_and_a_refusal_stores_nothing(
    app: InProcessServer,
) -> None:
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    admin = tokens.authenticate_token(app.token("admin")).member
    members.add_person(admin, email=email, name="Tess", password=PASSWORD)
    with app.api("admin") as client:
        for n in range(TOKENS_PER_HOUR):
            made = client.post("/api/v1/tokens", json={"member": email, "name": f"t{n}"})
            assert made.status_code == 201, made.text
        answer = client.post("/api/v1/tokens", json={"member": email, "name": "one more"})
        body = error_body(answer, 429, "rate_limited")
        assert body["limit"] == TOKENS_PER_HOUR and 1 <= body["retry_after"] <= 3600
        listed = client.get("/api/v1/tokens", params={"owner": email}).json()
    assert len(listed) == TOKENS_PER_HOUR and "one more" not in {t["name"] for t in listed}


def test_a_web_sessions_forms_and_views_are_rate_limited(tight_app: InProcessServer) -> None:
    # The app's own limits, as its settings say: TIGHT_RATE_LIMIT forms an hour, and
    # READS_PER_CALL times as many views, for each session.
    forms = TIGHT_RATE_LIMIT
    with signed_in(tight_app, "writer") as browser:
        made = []
        for _ in range(forms + 1):
            page = browser.get("/new")
            assert page.status_code == 200
            address = unique()
            made.append(address)
            fields = {"address": address, "title": "T", "body": "b", "csrf": csrf_of(page)}
            answer = browser.post("/new", data=fields)
        assert answer.status_code == 429 and "Too many calls" in answer.text
        for _ in range(forms * READS_PER_CALL - (forms + 1)):
            assert browser.get("/new").status_code == 200
        refused = browser.get("/new")
        assert refused.status_code == 429 and "Too many reads" in refused.text
    admin = members.member_by_handle("ada@example.com")
    found = {p.address for p in pages.list_pages(admin, address="wiki")}
    assert [a in found for a in made] == [True] * forms + [False]  # the refused form made nothing
