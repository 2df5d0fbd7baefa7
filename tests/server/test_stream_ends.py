"""Credentials end what they opened: a live stream ends when its token is revoked or its
session signs out, and one member holds at most inbox.STREAMS_PER_MEMBER streams open in a
process. A real `codna serve` per engine."""

from __future__ import annotations

import re
import time
from contextlib import ExitStack

import httpx

from codna.services.context import use_database
from codna.services.inbox import inbox
from codna.services.members import members, tokens
from codna.storage.database import Database
from tests.conftest import PASSWORD
from tests.server.conftest import Server
from tests.server.test_live_updates import stream

# The stream checks its credential every RECHECK_SECONDS; a busy machine takes a little more.
ENDS_WITHIN = inbox.RECHECK_SECONDS + 10


def _person_with_token(server: Server, name: str) -> tuple[str, int]:
    """A new person with a password and a token of their own: the token's secret and id."""
    db = Database(server.workspace.url)
    use_database(db)
    try:
        admin = members.member_by_handle("ada@example.com")
        email = f"{name.lower()}@example.com"
        members.add_person(admin, email=email, name=name, password=PASSWORD)
        made = tokens.create_token(admin, member=email, name=name)
        return made.secret, made.token.id
    finally:
        use_database(None)
        db.dispose()


def test_a_stream_ends_when_its_token_is_revoked_and_a_web_stream_when_it_signs_out(
    server: Server,
) -> None:
    """Two ends, within ENDS_WITHIN seconds of each's credential ending: a stream of the API
    ends when its token is revoked; a stream of the web ends when its session signs out, and
    says so before it ends. The streams are open together and their credentials ended one
    after the other, so both wait out the same recheck (RECHECK_SECONDS), not one each."""
    secret, token_id = _person_with_token(server, "Revoked")
    _person_with_token(server, "Leaving")
    with (
        httpx.Client(base_url=server.base, timeout=30) as browser,
        stream(server.base, secret) as api_events,
    ):
        first = browser.get("/")
        csrf = re.search(r'name="csrf" value="([^"]+)"', first.text)
        assert csrf is not None
        signed = browser.post(
            "/sign-in",
            data={"email": "leaving@example.com", "password": PASSWORD, "csrf": csrf[1]},
        )
        assert signed.status_code == 303, signed.text
        cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
        with stream(server.base, "", path="/inbox/events", cookie=cookie) as web_events:
            page = browser.get("/inbox")
            token = re.search(r'name="csrf" value="([^"]+)"', page.text)
            assert token is not None

            with server.api("admin") as admin:
                revoked = admin.post("/api/v1/tokens/revoke", json={"token_id": token_id})
                assert revoked.status_code == 200, revoked.text
            revoked_at = time.monotonic()
            assert browser.post("/sign-out", data={"csrf": token[1]}).status_code == 303
            signed_out_at = time.monotonic()

            left = ENDS_WITHIN - (time.monotonic() - revoked_at)
            assert api_events.ended(left), "the stream outlived its token"
            left = ENDS_WITHIN - (time.monotonic() - signed_out_at)
            assert web_events.ended(left), "the stream outlived its session"
            assert web_events.said_ended.is_set(), "the stream ended without saying so"


def test_one_member_holds_a_bounded_number_of_streams(server: Server) -> None:
    secret, _ = _person_with_token(server, "Many")
    with ExitStack() as held:
        opened = [
            held.enter_context(stream(server.base, secret)) for _ in range(inbox.STREAMS_PER_MEMBER)
        ]
        assert len(opened) == inbox.STREAMS_PER_MEMBER
        headers = {"Authorization": f"Bearer {secret}"}
        with httpx.stream(
            "GET", f"{server.base}/api/v1/inbox/events", headers=headers, timeout=30
        ) as refused:
            refused.read()
            assert refused.status_code == 429, refused.text
            assert refused.json()["code"] == "rate_limited"
    # Closed, they make room again (the server sees each close within a ping or a check).
    with stream(server.base, secret) as again:
        assert again.ready.is_set()
