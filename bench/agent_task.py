"""What the review task costs an agent over MCP: calls, characters read, the tool list's size.

The task is the one `decision-check` does on the demo workspace: list the decision records,
read them, look at its own suggestions, suggest what a record lacks, write a run page linking
its suggestions; then the editor (Ada) decides two; then the agent learns what became of them
and what is new since its run. It runs against a real `codna serve` on a loopback port over
the demo workspace on SQLite, with the MCP SDK's own client over Streamable HTTP.

Printed: each call with the characters of the text the model reads (the text blocks of the
answer) and whether it failed or answered nothing useful; the totals; the size of
`tools/list` as the agent and as a person receive it (compact JSON).

Run: .venv/bin/python bench/agent_task.py
"""

from __future__ import annotations

import asyncio
import json
import os
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
from codna.services import demo, members, tokens
from codna.services.context import use_database
from codna.storage.database import Database
from server import CODNA, free_port, started

RECORDS = "wiki:decisions"
SECOND = "wiki:decisions/0002-agents-suggest"


@dataclass
class Tally:
    """Every call of the task: who, which tool, the characters read, and what went wrong."""

    rows: list[tuple[str, str, int, str]] = field(default_factory=list)

    def add(self, who: str, tool: str, result: CallToolResult) -> CallToolResult:
        text = "".join(c.text for c in result.content if isinstance(c, TextContent))
        trouble = "failed" if result.is_error else ("" if text.strip() else "no text")
        self.rows.append((who, tool, len(text), trouble))
        return result


def seed(url: str) -> dict[str, str]:
    """The demo workspace, and a token for the agent and for Ada."""
    database = Database(url)
    database.migrate()
    use_database(database)
    try:
        ada = demo.build_demo()
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
    """The agent's run: look, read, suggest the missing sections, write the run page."""
    latest = (await agent.call("inbox")).get("latest")
    listed = await agent.call("list_documents", address=RECORDS)
    found = [p["address"] for p in listed.get("pages", [])]
    if found:
        await agent.call("read_document", address=found)
    await agent.call("list_suggestions", address=RECORDS)
    made = []
    for heading, line in (
        ("Consequences", "What follows from this decision: to fill in."),
        ("Alternatives rejected", "What else was considered, and why not: to fill in."),
    ):
        answer = await agent.call(
            "suggest_edit",
            address=SECOND,
            edits=[{"op": "append", "text": f"## {heading}\n\n{line}"}],
            reason=f"A decision record has a {heading} section; this one has none.",
        )
        made.append(answer)
    links = "\n".join(
        f"- [change {m.get('suggestion_id')}]({m.get('url')}) on [0002]({SECOND})" for m in made
    )
    await agent.call(
        "create_document",
        address="output:decision-check/runs/first",
        title="decision-check run",
        body=f"# Run\n\nLooked at {len(found)} records.\n\n{links}\n",
    )
    return [m["suggestion_id"] for m in made if "suggestion_id" in m], latest


async def follow_up(agent: Session, latest: int | None) -> None:
    """The agent's next run: what became of its suggestions, and what is new."""
    await agent.call("list_suggestions", address=RECORDS)
    await agent.call("inbox", **({"after": latest} if latest else {}))


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'demo.db'}"
        secrets = seed(url)
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODNA_")}
        env.update({"CODNA_DATABASE_URL": url, "CODNA_RATE_LIMIT": "1000000000"})
        with started([CODNA, "serve", "--port", str(port)], port, env, Path(tmp) / "serve.log"):
            base = f"http://127.0.0.1:{port}"
            sizes = {who: await tool_list_size(base, s) for who, s in secrets.items()}
            tally = Tally()
            http, client = connect(base, secrets["agent"])
            async with http, client:
                made, latest = await review(Session(client, "agent", tally))
            http, client = connect(base, secrets["ada"])
            async with http, client:
                ada = Session(client, "ada", tally)
                await ada.call("pending_decisions")
                await ada.call("decide_edit_suggestion", suggestion_id=made[0], decision="accept")
                await ada.call(
                    "decide_edit_suggestion",
                    suggestion_id=made[1],
                    decision="reject",
                    reason="We list no alternatives in a proposal.",
                )
            http, client = connect(base, secrets["agent"])
            async with http, client:
                await follow_up(Session(client, "agent", tally), latest)
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
