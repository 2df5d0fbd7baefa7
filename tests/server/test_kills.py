"""`codna serve` on SQLite killed with SIGKILL in the middle of a run of edits, suggestions and
accepts over the JSON API, then started again, round after round: every change acknowledged to
a client (a 2xx received) is there, none is there twice, and no suggestion is accepted without
its revision; the database file passes its own check and every version reads back as saved.

Each round starts the server, lets the clients work until a random number of answers has
come back, and kills the server's process group while requests are in flight. The quick form
kills a few times; `pytest --long` kills 200 times and prints the figures docs/reliability.md
reports (run it with -s to see them).
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from codna.services.admin import integrity
from codna.services.context import use_database
from codna.services.members import members
from codna.services.pages import pages, revisions
from codna.storage import schema
from codna.storage.database import Database
from codna.storage.schema import edit_suggestions
from tests.conftest import ROLES, Workspace, fresh_database, seed
from tests.server.conftest import Server, running_server

EDITORS = 3  # clients appending lines to a page of their own
SUGGESTERS = 2  # clients suggesting a line on a page of their own, then accepting it
MOST_ANSWERS = 40  # a round's kill comes after 1 to this many answers
DEADLINE = 60.0


@dataclass
class Ledger:
    """What the clients were told, over every round: the lines whose edit was acknowledged,
    the suggestions made (id -> line) and those whose acceptance was acknowledged."""

    edited: dict[str, set[str]] = field(default_factory=dict)  # page -> lines
    suggested: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (page, line)
    accepted: set[int] = field(default_factory=set)
    answers: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answered(self) -> int:
        with self.lock:
            return self.answers

    def count(self) -> None:
        with self.lock:
            self.answers += 1


def editor(server: Server, ledger: Ledger, page: str, round_: int) -> None:
    """Append a new line at a time to `page` until the server goes away."""
    with server.api("writer") as api:
        for n in range(10_000):
            line = f"{page} edit {round_}.{n}"
            try:
                done = api.post(
                    "/api/v1/page/edit",
                    json={"address": page, "edits": [{"op": "append", "text": line}]},
                )
            except httpx.TransportError:
                return
            assert done.status_code == 200, done.text
            with ledger.lock:
                ledger.edited.setdefault(page, set()).add(line)
            ledger.count()


def suggester(server: Server, ledger: Ledger, page: str, round_: int) -> None:
    """Suggest a line on `page` as the agent and accept it as the writer, again and again;
    first accept what an earlier round left waiting."""
    with server.api("agent") as agent, server.api("writer") as writer:
        try:
            waiting = agent.get(
                "/api/v1/suggestions", params={"address": page, "status": "pending"}
            )
        except httpx.TransportError:
            return
        assert waiting.status_code == 200, waiting.text
        todo = [made["id"] for made in waiting.json()]
        for n in range(10_000):
            try:
                if not todo:
                    line = f"{page} suggestion {round_}.{n}"
                    made = agent.post(
                        "/api/v1/suggestions",
                        json={
                            "address": page,
                            "edits": [{"op": "append", "text": line}],
                            "reason": "One more line.",
                        },
                    )
                    assert made.status_code == 201, made.text
                    number = made.json()["suggestion"]["id"]
                    with ledger.lock:
                        ledger.suggested[number] = (page, line)
                    ledger.count()
                    todo.append(number)
                number = todo.pop()
                done = writer.post(
                    f"/api/v1/suggestions/{number}/decide", json={"decision": "accept"}
                )
            except httpx.TransportError:
                return
            assert done.status_code == 200, done.text
            with ledger.lock:
                ledger.accepted.add(number)
            ledger.count()


@dataclass(frozen=True)
class Figures:
    kills: int
    seconds: float
    answers: int
    edits: int
    accepts: int


def kill_rounds(
    rounds: int, workspace: Workspace, logs: Path, rng: random.Random
) -> tuple[Ledger, list[str], list[str], Figures]:
    """Start the server, run the clients, SIGKILL it after a random number of answers; so
    `rounds` times. The ledger, the edited pages and the suggested-on pages."""
    ledger = Ledger()
    started = time.monotonic()
    edited: list[str] = []
    suggested: list[str] = []
    for round_ in range(rounds):
        with running_server(workspace, "sqlite", logs) as server:
            if not edited:
                edited = [
                    server.create_page(f"wiki:kills/edit-{n}", "Start.\n")["address"]
                    for n in range(EDITORS)
                ]
                suggested = [
                    server.create_page(f"wiki:kills/suggest-{n}", "Start.\n")["address"]
                    for n in range(SUGGESTERS)
                ]
            kill_after = ledger.answered() + rng.randint(1, MOST_ANSWERS)
            clients: list[tuple[Callable[..., None], str]] = [
                *((editor, page) for page in edited),
                *((suggester, page) for page in suggested),
            ]
            threads = [
                threading.Thread(target=run, args=(server, ledger, page, round_), daemon=True)
                for run, page in clients
            ]
            for thread in threads:
                thread.start()
            deadline = time.monotonic() + DEADLINE
            while ledger.answered() < kill_after and any(t.is_alive() for t in threads):
                assert time.monotonic() < deadline, "the clients stopped getting answers"
                time.sleep(0.001)
            os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait()
            for thread in threads:
                thread.join(DEADLINE)
                assert not thread.is_alive(), "a client kept going after the kill"
    seconds = time.monotonic() - started
    figures = Figures(
        rounds,
        seconds,
        ledger.answers,
        sum(len(lines) for lines in ledger.edited.values()),
        len(ledger.accepted),
    )
    return ledger, edited, suggested, figures


def check_after_kills(url: str, ledger: Ledger, edited: list[str], suggested: list[str]) -> None:
    """Every acknowledged change is there once; no suggestion accepted without its revision;
    the file and every version are sound."""
    database = Database(url)
    use_database(database)
    try:
        admin = members.member_by_handle(ROLES["admin"])
        checked = integrity.check_workspace(admin)
        assert checked.ok, checked
        with database.read() as conn:
            assert conn.exec_driver_sql("PRAGMA integrity_check").scalars().all() == ["ok"]
        for page in edited:
            body = pages.read_page(admin, address=page)
            lines = [line for line in body.body.split("\n") if line.startswith(page)]
            assert len(lines) == len(set(lines)), f"a line is on {page} twice"
            assert ledger.edited.get(page, set()) <= set(lines), (
                f"an acknowledged edit is gone from {page}"
            )
            assert body.version == 1 + len(lines)
        with database.read() as conn:
            made = conn.execute(
                sa.select(
                    edit_suggestions.c.id,
                    edit_suggestions.c.status,
                    edit_suggestions.c.accepted_version,
                    edit_suggestions.c.edits,
                    schema.pages.c.space,
                    schema.pages.c.path,
                ).join(schema.pages, schema.pages.c.id == edit_suggestions.c.page_id)
            ).all()
        assert {one.id for one in made} >= set(ledger.suggested), (
            "an acknowledged suggestion is gone"
        )
        accepted = {one.id for one in made if one.status == "accepted"}
        assert ledger.accepted <= accepted, "an acknowledged accept is undone"
        for page in suggested:
            body = pages.read_page(admin, address=page)
            lines = [line for line in body.body.split("\n") if line.startswith(page)]
            assert len(lines) == len(set(lines)), f"a line is on {page} twice"
            kinds = {r.version: r.kind for r in revisions.history(admin, address=page)}
            mine = [one for one in made if f"{one.space}:{one.path}" == page]
            for one in mine:
                line = one.edits[0]["text"]
                if one.status == "accepted":
                    # Its revision is there, and its line, once.
                    assert kinds.get(one.accepted_version) == "accept_suggestion", one
                    assert lines.count(line) == 1, one
                else:
                    assert one.status == "pending" and line not in lines, one
            # Each revision after the first is an accepted suggestion's.
            assert len(lines) == body.version - 1 == sum(o.status == "accepted" for o in mine)
    finally:
        use_database(None)
        database.dispose()


def test_a_server_killed_mid_run_keeps_every_acknowledged_change_once(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    long_form: bool,
) -> None:
    rounds = 200 if long_form else 4
    seed_ = int(os.environ.get("CODNA_KILLS_SEED", random.randrange(2**32)))
    with fresh_database("sqlite", request, tmp_path_factory) as url:
        logs = tmp_path_factory.mktemp("kills")
        workspace = seed(url, spare=())
        ledger, edited, suggested, figures = kill_rounds(
            rounds, workspace, logs, random.Random(seed_)
        )
        # It starts once more, and serves.
        with running_server(workspace, "sqlite", logs) as server, server.api("writer") as api:
            assert api.get("/api/v1/page", params={"address": edited[0]}).status_code == 200
        check_after_kills(url, ledger, edited, suggested)
    print(
        f"\nkills: {figures.kills} SIGKILLs in {figures.seconds:.1f} s (seed {seed_}); "
        f"{figures.answers} answers acknowledged: {figures.edits} edits, {figures.accepts} "
        "accepts; every one found once, no accepted suggestion without its revision"
    )
