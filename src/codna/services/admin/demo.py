"""The demo workspace: two people, an agent, decision records, raw sources, a few revisions,
and what decision-check suggested when Ben ran it on the records (SPEC 6, ADR 0024)."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa

from codna.markdown.edits import parse_edits
from codna.services.admin import transfer
from codna.services.context import database
from codna.services.events import outbox, runs
from codna.services.members import access, members, tokens
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.suggestions import changes
from codna.storage.schema import members as members_table

ADMIN_EMAIL = "ada@example.com"
ADMIN_PASSWORD = "demo-password"
EDITOR_EMAIL = "ben@example.com"
AGENT_NAME = "scribe"  # an agent member; decision-check is a routine, run as a person
ROUTINE = "decision-check"
SHOWCASE = "wiki:decisions/0001-markdown-pages"

_RECORD = """\
**Status:** Accepted · 2026-11-02

## Context

The team keeps its knowledge in chat threads and scattered documents. Nobody can tell which
version of a decision is current, and agents cannot read any of it.

## Decision

Every page is a Markdown file with a title and tags, kept in CoDNA with its full history.

## Consequences

- Pages can be read by people and agents alike.
- Every change is a revision that can be undone.
"""

_SECOND = """\
**Status:** Proposed · 2026-11-20

## Context

Agents read our pages and find mistakes, but they may not edit what they were given.

## Decision

Agents suggest changes; a person who can edit the page accepts or rejects each one.
"""

_HOME = """\
# Welcome

This is the team's wiki. Decisions live in [decisions](wiki:decisions/0001-markdown-pages);
imported source material sits in `raw`.
"""

_SOURCE = """\
---
title: Interview notes, November
tags: [research]
---
# Interview notes

- People copy agent output into pages by hand.
- Nobody trusts an agent that rewrites pages directly.
"""


def demo_exists() -> bool:
    with database().read() as conn:
        return conn.execute(sa.select(members_table.c.id).limit(1)).first() is not None


def build_demo() -> Member:
    """Fill an empty database with the demo workspace; returns its admin."""
    ada = members.init_workspace(
        admin_email=ADMIN_EMAIL, admin_password=ADMIN_PASSWORD, admin_name="Ada"
    )
    members.add_person(ada, email=EDITOR_EMAIL, name="Ben", password="demo-password")
    members.add_agent(ada, name=AGENT_NAME, responsible=[ADMIN_EMAIL])
    access.share(ada, address="wiki", member=EDITOR_EMAIL, level="write")
    access.share(ada, address="raw", member=EDITOR_EMAIL, level="read")
    access.share(ada, address="output", member=EDITOR_EMAIL, level="write")  # run pages
    access.share(ada, address="wiki:decisions/", member=AGENT_NAME, level="read")
    ben = members.member_by_handle(EDITOR_EMAIL)

    pages.create_page(ada, address="wiki:home", title="Home", body=_HOME, tags=["start"])
    pages.create_page(
        ada, address=SHOWCASE, title="0001 Pages are Markdown", body=_RECORD, tags=["decision"]
    )
    editing.edit_page(
        ben,
        address=SHOWCASE,
        edits=parse_edits(
            [
                {
                    "op": "insert_after",
                    "anchor": "- Every change is a revision that can be undone.\n",
                    "text": "- Search covers every page a member can read.\n",
                }
            ]
        ),
        summary="Add search to the consequences",
    )
    editing.edit_page(
        ada,
        address=SHOWCASE,
        edits=parse_edits(
            [
                {
                    "op": "replace",
                    "old": "scattered documents",
                    "new": "scattered documents and slides",
                },
                {
                    "op": "append",
                    "text": "\n## Alternatives\n\nA shared drive of Word files: no history.\n",
                },
            ]
        ),
        tags_add=["core"],
        summary="Name the slides; add the alternatives",
    )
    pages.create_page(
        ben,
        address="wiki:decisions/0002-agents-suggest",
        title="0002 Agents suggest, people decide",
        body=_SECOND,
        tags=["decision", "agents"],
    )
    transfer.import_documents(
        ada,
        documents=[transfer.Document("interview-notes.md", _SOURCE)],
        folder="raw:sources/",
    )
    _routine_suggests(ada, ben)
    # The records were checked as they were built: the automation the demo adds afterwards
    # watches the records written from then on, not these (no automation watches their events
    # yet, so taking the next one marks them all done).
    outbox.claim("demo", lease=timedelta(seconds=1))
    return ada


def _run_as(person: Member, address: str) -> tuple[int, Member]:
    """A run of decision-check as `person` on `address`: its id, and who it acts as."""
    started = runs.start_run(person, routine=ROUTINE, address=address)
    return started.run.id, tokens.authenticate_token(started.secret).member


def _finish(run_id: int, run: Member, *, address: str, made: list[tuple[int, str]]) -> None:
    run_page = f"output:{ROUTINE}/runs/{run_id}"
    lines = [f"# {ROUTINE}", "", f"Looked at [{address}]({address}).", "", "## Suggested", ""]
    where = address.replace(":", "/", 1)
    lines += [f"- [change {n}](/suggestions/{where}#change-{n}): {why}" for n, why in made]
    pages.create_page(
        run,
        address=run_page,
        title=f"{ROUTINE} run {run_id}",
        body="\n".join(lines) + "\n",
        tags=[ROUTINE],
    )
    runs.finish_run(run_id, status="succeeded", run_page=run_page)


def _suggest(run: Member, address: str, edits: list[dict[str, str]], reason: str) -> int:
    made = changes.suggest_edit(run, address=address, edits=parse_edits(edits), reason=reason)
    assert made.suggestion is not None
    return made.suggestion.id


def _routine_suggests(ada: Member, ben: Member) -> None:
    """What decision-check suggested when Ben ran it on the two records: one change that
    applies, one that Ben's later edit left behind, and one that Ada rejected."""
    second = "wiki:decisions/0002-agents-suggest"
    run_id, run = _run_as(ben, SHOWCASE)
    applies = "A decision record says what changed; this one has no What changed section."
    kept = _suggest(
        run,
        SHOWCASE,
        [
            {
                "op": "insert_before",
                "anchor": "## Consequences",
                "text": "## What changed\n\nPages moved from the shared drive into CoDNA.\n\n",
            }
        ],
        applies,
    )
    deleting = "The Alternatives section names only one option; a record should list several."
    rejected = _suggest(
        run, SHOWCASE, [{"op": "delete_section", "heading": "Alternatives"}], deleting
    )
    _finish(run_id, run, address=SHOWCASE, made=[(kept, applies), (rejected, deleting)])
    run_id, run = _run_as(ben, second)
    adopted = "The team adopted this on 2026-11-27; the status line still says Proposed."
    stale = _suggest(
        run,
        second,
        [{"op": "replace", "old": "**Status:** Proposed", "new": "**Status:** Accepted"}],
        adopted,
    )
    _finish(run_id, run, address=second, made=[(stale, adopted)])
    editing.edit_page(
        ben,
        address=second,
        edits=parse_edits(
            [{"op": "replace", "old": "**Status:** Proposed", "new": "**Status:** Under review"}]
        ),
        summary="It is under review, not accepted yet",
    )
    changes.decide_edit_suggestion(
        ada,
        suggestion_id=rejected,
        decision="reject",
        reason="One alternative is all we considered; say so rather than delete it.",
    )
