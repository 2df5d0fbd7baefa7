"""A command routine for the tests: it speaks MCP with the environment a run gives it, using
the SDK's own client over Streamable HTTP. `work OUT` reads the page, writes its run page and
keeps its token in OUT; `hang OUT` keeps its token in OUT and never ends."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client


async def work(out: Path) -> None:
    token, routine, run = (
        os.environ["CODNA_TOKEN"],
        os.environ["CODNA_ROUTINE"],
        os.environ["CODNA_RUN"],
    )
    out.write_text(token)
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with (
        http,
        Client(streamable_http_client(os.environ["CODNA_MCP_URL"], http_client=http)) as client,
    ):
        read = await client.call_tool("read_document", {"address": os.environ["CODNA_ON"]})
        assert not read.is_error, read
        title = (read.structured_content or {})["pages"][0]["title"]
        skill = Path(os.environ["CODNA_SKILL"]).read_text()
        made = await client.call_tool(
            "create_document",
            {
                "address": f"output:{routine}/runs/{run}",
                "title": f"{routine} run {run}",
                "body": f"Read [{title}]({os.environ['CODNA_ON']}), skill {len(skill)} chars.\n",
            },
        )
        assert not made.is_error, made
    print(f"wrote output:{routine}/runs/{run}")


async def hang(out: Path) -> None:
    out.write_text(os.environ["CODNA_TOKEN"])
    print("hanging", flush=True)
    await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run({"work": work, "hang": hang}[sys.argv[1]](Path(sys.argv[2])))
