"""What the review task costs an agent over MCP: calls, characters read, the tool list's size.

The task is the one `decision-check` does on the demo workspace, as issue 30 played it: look at
the decision records (one of them a 32 KB record whose status line is all it needs), read the
one it will change a section at a time, suggest the two sections it lacks (the first placed
after the Decision paragraph, the call a model makes naturally) and a fix on the long record,
and write a run page linking its suggestions. Then the editor (Ada) decides two and edits the
long record under the third. Then the agent learns what became of them and what is new, and
suggests the third again against the page as it is now. It runs against a real `codna serve`
on a loopback port, on SQLite or PostgreSQL, with the MCP SDK's own client over Streamable
HTTP, and checks what a model would: no call fails or answers nothing, and the accepted
Consequences heading stands apart from the paragraph before it.

Printed: each call with the characters of the text the model reads (the text blocks of the
answer) and whether it failed or answered nothing useful; the totals; the size of
`tools/list` as the agent and as a person receive it (compact JSON).

Run: .venv/bin/python bench/agent_task.py [--engine postgresql]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

sys.path.insert(0, str(Path(__file__).parent))
from codna.services.admin import demo
from codna.services.context import use_database
from codna.services.members import members, tokens
from codna.services.pages import pages
from codna.storage.database import Database
from server import CODNA, POSTGRES_ADMIN, free_port, started, throwaway_postgres

RECORDS = "wiki:decisions/"
SECOND = "wiki:decisions/0002-agents-suggest"
LONG = "wiki:decisions/0003-storage"
DECISION = "Agents suggest changes; a person who can edit the page accepts or rejects each one."
WEIGHED = "Paragraph {n} of what was weighed: SQLite for one machine, PostgreSQL for a team. "
LONG_BODY = (
    "**Status:** Accepted · 2026-10-02\n\n## Context\n\n"
    + "".join(f"### Part {n}\n\n{WEIGHED.format(n=n) * 5}\n\n" for n in range(75))
    + "## Decision\n\nSQLite by default; PostgreSQL for teams, tested on both.\n"
)


@dataclass
class Tally:
    """Every call of the task: who, which tool, the characters read, and what went wrong."""

    rows: list[tuple[str, str, int, str]] = field(default_factory=list)

    def add(self, who: str, tool: str, result: CallToolResult) -> CallToolResult:
        text = "".join(c.text for c in result.content if isinstance(c, TextContent))
        trouble = "failed" if result.is_error else ("" if text.strip() else "no text")
        if os.environ.get("SHOW"):
            print(f"--- {who} {tool}\n{text}\n")
        self.rows.append((who, tool, len(text), trouble))
        return result


def seed(url: str) -> dict[str, str]:
    """The demo workspace, and a token for the agent and for Ada."""
    database = Database(url)
    database.migrate()
    use_database(database)
    try:
        ada = demo.build_demo()
        pages.create_page(ada, address=LONG, title="0003 Storage", body=LONG_BODY)
        return {
            "agent": tokens.create_token(ada, member=demo.AGENT_NAME, name="run").secret,
            "ada": tokens.create_token(
                members.member_by_handle(demo.ADMIN_EMAIL), member=demo.ADMIN_EMAIL, name="ui"
            ).secret,
        }
    finally:
        use_database(None)
        database.dispose()


class Session:
    def __init__(self, client: Client, who: str, tally: Tally) -> None:
        self.client, self.who, self.tally = client, who, tally

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self.tally.add(self.who, tool, await self.client.call_tool(tool, arguments))
        return result.structured_content or {}


def connect(base: str, secret: str) -> tuple[httpx2.AsyncClient, Client]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=30)
    return http, Client(streamable_http_client(f"{base}/mcp", http_client=http))


async def tool_list_size(base: str, secret: str) -> int:
    http, client = connect(base, secret)
    async with http, client:
        listed = await client.list_tools()
    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
    return len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False))


async def review(agent: Session) -> tuple[list[int], int | None]:
    """The agent's run: look, read what it needs, suggest, write the run page."""
    latest = (await agent.call("inbox")).get("latest")
    listed = await agent.call("list_documents", address=RECORDS)
    found = [p["address"] for p in listed.get("pages", [])]
    shapes = await agent.call("read_document", address=found, outline=True)
    status = {p["address"]: p.get("intro", "") for p in shapes.get("pages", [])}
    assert "Accepted" in status[LONG], status  # the long record's status, from its outline
    await agent.call("read_document", address=SECOND, section="Decision")
    await agent.call("list_suggestions", address=RECORDS)
    made = []
    for edits, reason in (
        (
            [{"op": "insert_after", "anchor": DECISION, "text": "## Consequences\n\nTo fill in."}],
            "A decision record has a Consequences section; this one has none.",
        ),
        (
            [{"op": "append", "text": "## Alternatives rejected\n\nTo fill in."}],
            "A decision record says what else was considered; this one does not.",
        ),
    ):
        made.append(await agent.call("suggest_edit", address=SECOND, edits=edits, reason=reason))
    third = await agent.call(
        "suggest_edit",
        address=LONG,
        edits=[{"op": "replace", "old": "tested on both.", "new": "each test run on both."}],
        reason="Say what is tested on both: every storage test.",
    )
    links = "\n".join(
        f"- [change {m.get('suggestion_id')}]({m.get('url')})" for m in [*made, third]
    )
    await agent.call(
        "create_document",
        address=f"output:{demo.AGENT_NAME}/runs/first",
        title="decision-check run",
        body=f"# Run\n\nLooked at {len(found)} records.\n\n{links}\n",
    )
    return [m["suggestion_id"] for m in [*made, third] if "suggestion_id" in m], latest


async def follow_up(agent: Session, latest: int | None, stale: int) -> None:
    """The agent's next run: what became of its suggestions, what is new, and the one the
    page left behind suggested again against the text the answer quotes."""
    await agent.call("inbox", **({"after": latest} if latest else {}))
    mine = await agent.call("list_suggestions", address=RECORDS)
    note = next(s.get("note", "") for s in mine["suggestions"] if s["suggestion_id"] == stale)
    now = re.search(r'The page has "(.+?)" there now', note)
    assert now, note
    await agent.call("withdraw_suggestion", suggestion_id=stale)
    await agent.call(
        "suggest_edit",
        address=LONG,
        edits=[{"op": "replace", "old": now[1], "new": "each storage test run on both."}],
        reason="Say what is tested on both: every storage test.",
    )


async def play(url: str, tmp: Path) -> tuple[Tally, dict[str, int], str]:
    secrets = seed(url)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODNA_")}
    env.update({"CODNA_DATABASE_URL": url, "CODNA_RATE_LIMIT": "1000000000"})
    with started([CODNA, "serve", "--port", str(port)], port, env, tmp / "serve.log"):
        base = f"http://127.0.0.1:{port}"
        sizes = {who: await tool_list_size(base, s) for who, s in secrets.items()}
        tally = Tally()
        http, client = connect(base, secrets["agent"])
        async with http, client:
            made, latest = await review(Session(client, "agent", tally))
        http, client = connect(base, secrets["ada"])
        async with http, client:
            ada = Session(client, "ada", tally)
            await ada.call("pending_decisions", address=SECOND)
            await ada.call("decide_edit_suggestion", suggestion_id=made[0], decision="accept")
            await ada.call(
                "decide_edit_suggestion",
                suggestion_id=made[1],
                decision="reject",
                reason="We list no alternatives in a proposal.",
            )
            await ada.call(
                "edit_document",
                address=LONG,
                edits=[
                    {"op": "replace", "old": "tested on both.", "new": "tested on both engines."}
                ],
                summary="Say which",
            )
            page = await ada.call("read_document", address=SECOND)
        accepted = page["pages"][0]["body"]
        assert f"{DECISION}\n\n## Consequences\n\nTo fill in." in accepted, accepted
        http, client = connect(base, secrets["agent"])
        async with http, client:
            await follow_up(Session(client, "agent", tally), latest, made[2])
    return tally, sizes, accepted


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--postgres", default=POSTGRES_ADMIN)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if options.engine == "postgresql":
            with throwaway_postgres(options.postgres) as url:
                tally, sizes, _ = await play(url, Path(tmp))
        else:
            tally, sizes, _ = await play(f"sqlite:///{Path(tmp) / 'demo.db'}", Path(tmp))
    print(f"engine: {options.engine}")
    print(f"{'who':<6} {'tool':<24} {'chars':>7}  trouble")
    for who, tool, chars, trouble in tally.rows:
        print(f"{who:<6} {tool:<24} {chars:>7}  {trouble}")
    agent_rows = [r for r in tally.rows if r[0] == "agent"]
    print(
        f"\nagent: {len(agent_rows)} calls, {sum(r[2] for r in agent_rows)} characters read, "
        f"{sum(1 for r in agent_rows if r[3])} failed or answered nothing"
    )
    print(f"tools/list: agent {sizes['agent']} characters, person {sizes['ada']}")


if __name__ == "__main__":
    asyncio.run(main())
