"""A real `codna serve` under load for minutes: many clients reading, suggesting and deciding
over the JSON API and MCP at once; throughput, latency, errors, memory, and a check of the
database against every write acknowledged.

The server runs on a loopback port (bench/server.py starts it) over a fresh workspace
(bench/load_world.py makes it): 100 pages of open items under wiki:load/, 8 editors, and a
few agents per client that may read there. Each client loops, each step one request, half
over the JSON API and half over MCP: 70% reads (a page, the folder's list, a search, the
inbox; a quarter each, by one of its agents), 25% suggestions (suggest_edit by one of its
agents: a note appended, or, three times in ten, an open item closed; two suggestions may
close one item, and the second is stale once the first is accepted) and 5% decisions (its
editor accepts, six times in ten, or rejects a suggestion still waiting, picked among all
clients' at random).

Clients: the JSON API through httpx.AsyncClient; MCP as raw JSON-RPC `tools/call` POSTs to
/mcp through the same client, with the headers and `_meta` the SDK's own client sends over
Streamable HTTP (bench/server.py's mcp_call): the request the SDK's client sends for each
call_tool to this stateless server (what else it sends, such as a tools/list, is not per
call). Sent raw, it costs the load a fraction of the SDK client's CPU, which matters when the
load and the server share two cores. Before the load, one call goes through the SDK's own
client (httpx2) and must answer the same.

Counted apart from errors, as refused as designed: what the product must refuse under races
and does (a decision on a suggestion another editor decided a moment ago, already_decided;
an accept of a suggestion whose item another acceptance closed, no_longer_applies, after which
the editor rejects it; a suggestion on an item that an acceptance in flight closed,
invalid_edit, confirmed by the check). Anything else that is not a success is an error.

Memory: VmRSS of each uvicorn worker process after the warm-up and at the end. CPU: what the
server's processes, the database's (PostgreSQL's backends) and the load itself used per answer
in the measured window, beside what the cores had (the machine may be shared). After the load,
each operation alone (--alone calls, one at a time): the server's and the database's CPU per
call, and its latency with nothing else running.

Run: .venv/bin/python bench/load.py --engine postgresql --workers 4 [--clients 64]
     [--duration 300] [--warmup 10];  --engine sqlite --workers 1
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))

from load_world import (
    FOLDER,
    ITEMS,
    PAGES,
    Ledger,
    Made,
    World,
    check,
    item_line,
    page_address,
    seed,
)
from server import CODNA, POSTGRES_ADMIN, free_port, mcp_call, started, throwaway_postgres

READS = ("read", "list", "search", "inbox")
WORDS = ("item open", "closed", "note", "load page", "items", "open*")
API = "/api/v1"
# Server log lines that say nothing of trouble: one per answer, and starting up.
QUIET = (
    'HTTP/1.1" 2',
    'HTTP/1.1" 4',
    "Started server process",
    "Waiting for application",
    "Application startup complete",
)
DESIGNED = {
    "already_decided": "decided by another editor a moment before",
    "no_longer_applies": "stale: another acceptance closed its item",
    "invalid_edit": "its item closed by an acceptance in flight (confirmed by the check)",
}


@dataclass(frozen=True)
class Answer:
    ok: bool
    what: str  # "ok", or the status and code of a refusal
    code: str | None = None
    data: Any = None


@dataclass
class Tally:
    """What the clients saw, per operation and interface."""

    measuring: bool = False
    latencies: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    refused: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)  # an error's first answer, shown

    def record(self, op: str, via: str, seconds: float) -> None:
        if self.measuring:
            self.latencies[op, via].append(seconds)


class Client:
    """One client: its own keep-alive connection, its editor's token and its agents'."""

    def __init__(
        self, n: int, http: httpx.AsyncClient, world: World, ledger: Ledger, tally: Tally
    ) -> None:
        self.n, self.http, self.ledger, self.tally = n, http, ledger, tally
        self.editor = world.editor_tokens[n]
        self.agents = world.agent_tokens[n]
        self.rng = random.Random(n)
        self.made = 0

    async def call(
        self, op: str, via: str, token: str, api: tuple[str, str, Any], tool: tuple[str, Any]
    ) -> Answer:
        """One request over the interface `via`; its latency recorded, an error counted."""
        start = time.perf_counter()
        try:
            if via == "api":
                method, path, body = api
                headers = {"Authorization": f"Bearer {token}"}
                response = await self.http.request(method, API + path, json=body, headers=headers)
                answer = _api_answer(response)
            else:
                headers, content = mcp_call(tool[0], tool[1], token)
                response = await self.http.post("/mcp", content=content, headers=headers)
                answer = _mcp_answer(response)
        except httpx.HTTPError as error:
            answer = Answer(False, type(error).__name__, data=str(error))
        self.tally.record(op, via, time.perf_counter() - start)
        if not answer.ok and answer.code not in DESIGNED:
            self.tally.errors[op, via, answer.what] += 1
            self.tally.samples.setdefault(f"{op} {via} {answer.what}", str(answer.data)[:300])
        return answer

    async def step(self) -> None:
        via = self.rng.choice(("api", "mcp"))
        r = self.rng.random()
        if r < 0.70:
            await self.read(READS[int(r / 0.175)], via)
        elif r < 0.95:
            await self.suggest(via)
        else:
            await self.decide(via)

    async def read(self, op: str, via: str) -> None:
        token = self.rng.choice(self.agents)
        address = page_address(self.rng.randrange(PAGES))
        word = self.rng.choice(WORDS)
        api, tool = {
            "read": (
                ("GET", f"/page?address={address}", None),
                ("read_document", {"address": address}),
            ),
            "list": (
                ("GET", f"/pages?address={FOLDER}", None),
                ("list_documents", {"address": FOLDER}),
            ),
            "search": (("GET", f"/search?q={word}", None), ("search_documents", {"query": word})),
            "inbox": (("GET", "/inbox", None), ("inbox", {})),
        }[op]
        await self.call(op, via, token, api, tool)

    async def suggest(self, via: str) -> None:
        page = self.rng.randrange(PAGES)
        agent = self.ledger.agent_for(self.n, len(self.agents), page)
        if agent is None:
            self.tally.skipped["suggest: every agent of the client at its limit"] += 1
            return
        self.made += 1
        tag = f"c{self.n}-{self.made}"
        item = self.rng.randrange(ITEMS) if self.rng.random() < 0.3 else None
        if item is not None and (page, item) in self.ledger.closed:
            item = None
        if item is None:
            text = f"Note {tag} was added."
            edits = [{"op": "append", "text": text}]
        else:
            text = f"Item {item} is closed by {tag}."
            edits = [{"op": "replace", "old": item_line(item), "new": text}]
        reason = f"Load run {tag}: keep the page current."
        body = {"address": page_address(page), "reason": reason, "edits": edits}
        answer = await self.call(
            "suggest",
            via,
            self.agents[agent],
            ("POST", "/suggestions", body),
            ("suggest_edit", body),
        )
        if answer.ok:
            data = answer.data
            made_id = data["suggestion"]["id"] if via == "api" else data["suggestion_id"]
            self.ledger.add(Made(made_id, self.n, agent, page, reason, text, item))
        elif answer.code == "invalid_edit" and item is not None:
            self.ledger.stale_refusals.append((page, item))
            self.tally.refused["suggest", via, answer.what] += 1
        elif answer.code == "invalid_edit":
            self.tally.errors["suggest", via, answer.what] += 1

    async def decide(self, via: str) -> None:
        made = self.ledger.pick(self.rng)
        if made is None:
            self.tally.skipped["decide: nothing waiting"] += 1
            return
        decision = "accept" if self.rng.random() < 0.6 else "reject"
        answer = await self.decision(made, decision, via)
        if answer.code == "no_longer_applies":
            await self.decision(made, "reject", via)  # as the inbox offers a stale one

    async def decision(self, made: Made, decision: str, via: str) -> Answer:
        body: dict[str, Any] = {"decision": decision}
        if decision == "reject":
            body["reason"] = "Not this time."
        api = ("POST", f"/suggestions/{made.id}/decide", body)
        tool = ("decide_edit_suggestion", {"suggestion_id": made.id, **body})
        answer = await self.call(decision, via, self.editor, api, tool)
        if answer.ok:
            self.ledger.settle(made, answer.data["status"], answer.data.get("accepted_version"))
        elif answer.code == "already_decided":
            self.ledger.settle(made, None)
        if answer.code in ("already_decided", "no_longer_applies"):
            self.tally.refused[decision, via, answer.what] += 1
        return answer


def _api_answer(response: httpx.Response) -> Answer:
    data = response.json()
    if response.is_success:
        return Answer(True, "ok", data=data)
    code = data.get("code") if isinstance(data, dict) else None
    return Answer(False, f"{response.status_code} {code}", code, data)


def _mcp_answer(response: httpx.Response) -> Answer:
    if response.status_code != 200:
        return Answer(False, f"{response.status_code}", data=response.text)
    message = response.json()
    if "error" in message:
        return Answer(False, f"jsonrpc {message['error'].get('code')}", data=message["error"])
    result = message["result"]
    if result.get("isError"):
        text = result["content"][0]["text"] if result.get("content") else ""
        code = text.split(":", 1)[0]
        return Answer(False, f"tool error {code}", code, text)
    return Answer(True, "ok", data=result.get("structuredContent"))


# -- the server's processes --------------------------------------------------------------------


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    except OSError:
        return []


def server_processes(port: int) -> list[int]:
    """The processes that answer: the uvicorn workers `codna serve --port PORT` spawned, or
    the server itself when it serves alone."""
    serving = [
        int(p.name)
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and "serve" in (line := _cmdline(int(p.name))) and str(port) in line
    ]
    children = [
        int(p.name)
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and _parent(int(p.name)) in serving
    ]
    workers = [pid for pid in children if any("spawn_main" in a for a in _cmdline(pid))]
    return sorted(workers or serving)


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User and system CPU time each process has used so far."""
    tick = os.sysconf("SC_CLK_TCK")
    used = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / tick
    return used


def database_processes(url: str) -> list[int]:
    """PostgreSQL's backends serving the database of `url` (none for SQLite)."""
    name = url.rsplit("/", 1)[-1]
    if not url.startswith("postgresql"):
        return []
    return [
        int(p.name)
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and any(name in a for a in _cmdline(int(p.name)))
    ]


def rss_mb(pid: int) -> float | None:
    """The process's resident memory in MB, or None once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return None


# -- the run -----------------------------------------------------------------------------------


@dataclass
class Report:
    engine: str
    url: str
    workers: int
    clients: int
    duration: float
    warmup: float
    tally: Tally
    rss: dict[int, tuple[float | None, float | None]] = field(default_factory=dict)  # MB
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds used in the window
    calls_alone: int = 0
    alone: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)  # cpu, s
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


async def sdk_agrees(base: str, token: str) -> None:
    """One read_document through the SDK's own client answers what the raw call answers."""
    import httpx2
    from mcp.client import Client as SDKClient
    from mcp.client.streamable_http import streamable_http_client

    arguments = {"address": page_address(0)}
    headers, content = mcp_call("read_document", arguments, token)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        raw = _mcp_answer(await http.post("/mcp", content=content, headers=headers))
    auth = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    async with auth, SDKClient(streamable_http_client(f"{base}/mcp", http_client=auth)) as sdk:
        result = await sdk.call_tool("read_document", arguments)
    assert raw.ok and raw.data == result.structured_content, (raw, result)


async def drive(base: str, port: int, world: World, report: Report, ledger: Ledger) -> None:
    deadline = time.monotonic() + 120
    while len(server_processes(port)) < report.workers and time.monotonic() < deadline:
        await asyncio.sleep(0.2)  # every worker process started before the load begins
    await sdk_agrees(base, world.agent_tokens[0][0])
    tally = report.tally
    begin = time.perf_counter()
    until = begin + report.warmup + report.duration

    async def one(n: int) -> None:
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
            client = Client(n, http, world, ledger, tally)
            while time.perf_counter() < until:
                await client.step()

    async def watch() -> None:
        await asyncio.sleep(report.warmup)
        start = {pid: rss_mb(pid) for pid in server_processes(port)}
        used = {
            "server": cpu_seconds(list(start)),
            "database": cpu_seconds(database_processes(report.url)),
        }
        mine = time.process_time()
        tally.measuring = True
        await asyncio.sleep(max(0.0, until - time.perf_counter() - 0.5))
        end = {pid: rss_mb(pid) for pid in server_processes(port)}
        report.rss = {pid: (start.get(pid), end.get(pid)) for pid in sorted({*start, *end})}
        after = {
            "server": cpu_seconds(list(used["server"])),
            # PostgreSQL starts a backend per new connection: those started in the window too.
            "database": cpu_seconds(database_processes(report.url)),
        }
        for what, before in used.items():
            report.cpu[what] = sum(t - before.get(pid, 0.0) for pid, t in after[what].items())
        report.cpu["load"] = time.process_time() - mine
        await asyncio.sleep(max(0.0, until - time.perf_counter()))
        tally.measuring = False

    tasks: list[Coroutine[Any, Any, None]] = [one(n) for n in range(report.clients)]
    await asyncio.gather(watch(), *tasks)
    if report.calls_alone:
        await alone(base, port, world, report, ledger)


async def alone(base: str, port: int, world: World, report: Report, ledger: Ledger) -> None:
    """After the load, each operation alone: one client, one call at a time; the CPU the
    server and the database spend on a call, and its latency with nothing else running."""
    pids = server_processes(port)

    def used() -> float:
        busy = cpu_seconds(pids) | cpu_seconds(database_processes(report.url))
        return sum(busy.values())

    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        client = Client(0, http, world, ledger, report.tally)
        for op in (*READS, "suggest", "accept", "reject"):
            for via in ("api", "mcp"):
                before, start = used(), time.perf_counter()
                for _ in range(report.calls_alone):
                    if op in READS:
                        await client.read(op, via)
                    elif op == "suggest":
                        await client.suggest(via)
                    elif (made := ledger.pick(client.rng)) is not None:
                        await client.decision(made, op, via)
                seconds, cpu = time.perf_counter() - start, used() - before
                report.alone[op, via] = (cpu, seconds)


def run(
    engine: str,
    url: str,
    *,
    clients: int,
    duration: float,
    warmup: float,
    workers: int,
    logs: Path,
    calls_alone: int = 0,
) -> Report:
    """The whole run on the empty database at `url`: seed, serve, load, (each operation
    alone,) stop, check."""
    world = seed(url, clients, duration + warmup)
    ledger = Ledger()
    report = Report(engine, url, workers, clients, duration, warmup, Tally())
    report.calls_alone = calls_alone
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODNA_")}
    env.update({"CODNA_DATABASE_URL": url, "CODNA_RATE_LIMIT": "1000000000"})
    serve = [CODNA, "serve", "--port", str(port), "--workers", str(workers)]
    with started(serve, port, env, logs / f"serve-{engine}.log"):
        asyncio.run(drive(f"http://127.0.0.1:{port}", port, world, report, ledger))
    report.problems, report.counts = check(url, ledger)
    return report


def percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def lines(report: Report) -> list[str]:
    """The figures, as printed."""
    tally = report.tally
    out = [
        f"load: {report.engine}, {report.workers} server process(es), {report.clients} clients, "
        f"{report.duration:g} s measured after {report.warmup:g} s of warm-up, "
        f"{os.cpu_count()} cores shared by the server, the database and the load",
        f"{'operation':10} {'via':4} {'answers':>8} {'per s':>8} {'p50 ms':>8} {'p99 ms':>8}",
    ]
    total = 0
    for op in (*READS, "suggest", "accept", "reject"):
        for via in ("api", "mcp"):
            seen = sorted(tally.latencies.get((op, via), []))
            total += len(seen)
            if not seen:
                continue
            out.append(
                f"{op:10} {via:4} {len(seen):8} {len(seen) / report.duration:8.1f} "
                f"{statistics.median(seen) * 1000:8.1f} {percentile(seen, 0.99) * 1000:8.1f}"
            )
    out.append(f"{'all':15} {total:8} {total / report.duration:8.1f}")
    out.append(f"errors: {sum(tally.errors.values()) or 'none'}")
    out += [f"  {n:6}  {op} {via}: {what}" for (op, via, what), n in sorted(tally.errors.items())]
    out += [f"    e.g. {key}: {sample}" for key, sample in sorted(tally.samples.items())]
    out.append(f"refused as designed: {sum(tally.refused.values()) or 'none'}")
    for (op, via, what), n in sorted(tally.refused.items()):
        out.append(f"  {n:6}  {op} {via}: {what} ({DESIGNED[what.split()[-1]]})")
    out += [f"skipped: {n} {why}" for why, n in sorted(tally.skipped.items())]
    out.append("memory (VmRSS, MB), per server process: after warm-up -> at the end")
    for pid, (a, b) in report.rss.items():
        if a is None or b is None:
            seen = "started during the run" if a is None else "gone before the end"
            out.append(f"  pid {pid}: {a or b or 0:.1f}, {seen}")
        else:
            out.append(f"  pid {pid}: {a:.1f} -> {b:.1f} ({b - a:+.1f})")
    if report.cpu:
        per = {what: seconds * 1000 / max(total, 1) for what, seconds in report.cpu.items()}
        out.append(
            "CPU used in the window, ms per answer: "
            + ", ".join(f"{what} {ms:.1f}" for what, ms in per.items())
            + f" (of {report.duration * (os.cpu_count() or 1) * 1000 / max(total, 1):.1f} "
            "the cores had)"
        )
    if report.alone:
        out.append(
            f"each alone, {report.calls_alone} calls one at a time after the load: "
            "ms of server and database CPU per call, ms per call"
        )
        out += [
            f"  {op:8} {via:4} {cpu * 1000 / report.calls_alone:6.1f} "
            f"{seconds * 1000 / report.calls_alone:6.1f}"
            for (op, via), (cpu, seconds) in report.alone.items()
        ]
    out.append("consistency: " + ", ".join(f"{k} {v}" for k, v in report.counts.items()))
    out.append(f"problems: {len(report.problems) or 'none'}")
    out += [f"  {problem}" for problem in report.problems[:50]]
    accepts = sorted(
        tally.latencies.get(("accept", "api"), []) + tally.latencies.get(("accept", "mcp"), [])
    )
    accept_p99 = percentile(accepts, 0.99) * 1000 if accepts else float("nan")
    out.append(
        f"targets: errors {sum(tally.errors.values())} (0), lost writes or problems "
        f"{len(report.problems)} (0), accept p99 {accept_p99:.1f} ms (under 500 on PostgreSQL)"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--workers", type=int, default=1, help="server processes (SQLite: 1)")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--duration", type=float, default=300.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds of load before")
    parser.add_argument(
        "--alone", type=int, default=30, help="calls of each operation alone after (0: none)"
    )
    parser.add_argument("--postgres", default=POSTGRES_ADMIN, metavar="ADMIN_URL")
    options = parser.parse_args()
    common = {
        "clients": options.clients,
        "duration": options.duration,
        "warmup": options.warmup,
        "workers": options.workers,
        "calls_alone": options.alone,
    }
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp)
        if options.engine == "sqlite":
            report = run("sqlite", f"sqlite:///{logs / 'load.db'}", logs=logs, **common)
        else:
            with throwaway_postgres(options.postgres) as url:
                report = run("postgresql", url, logs=logs, **common)
        print("\n".join(lines(report)), flush=True)
        log = (logs / f"serve-{options.engine}.log").read_text().splitlines()
        noted = [line for line in log if not any(word in line for word in QUIET)]
        print(f"server log: {len(log)} lines; beside the access lines of answers (first 30):")
        print(*noted[:30], sep="\n  ")
        if report.tally.errors or report.problems:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
