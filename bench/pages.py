"""How fast the web UI shows pages, on loopback, one `codna serve` process on SQLite.

Measured, each by a signed-in browser session (its cookie; nothing is cached by the client):
- page views per second of a 10 KB and a 1 MB page with 8 concurrent clients, each on a
  keep-alive connection of its own (p50 and p99 too);
- the first view of the 1 MB page after a change: its Markdown is rendered once per version,
  and this is the view that does it (median of a few changes);
- the diff page of the 1 MB page after one changed paragraph (median of a few);
- the inbox of a writer with 50 suggested changes waiting (`GET /inbox`, one client on one
  keep-alive connection, many GETs in a row; p50 and p99). They are one-paragraph edits to
  five pages of about 4 KB, made by an agent and another person who read the wiki; three of
  the pages were edited since, so for their suggestions the inbox works out the diff
  accepting them would make now;
- deciding one from it, as htmx posts the form (`POST /inbox/changes/{id}/decide`, with the
  form's CSRF token and `HX-Request: true`): each post decides another waiting suggestion,
  accepts and rejects in turn on three more pages (p50 and p99 of each). These are measured
  before the inbox, so that exactly 50 wait when it is.

- the tree beside a page in a space of 5,000 pages (`GET /tree/raw/...`, 50 folders of 100
  pages, imported), and recent changes (`GET /recent`, everywhere, and in one of those
  folders), one client on one keep-alive connection (p50 and p99).

Targets: at least 1,000 views/s at 10 KB and 500/s at 1 MB; the tree and recent changes
under 20 ms (p50); the first view of a 1 MB page
under 1 s; the 1 MB diff page under 100 ms; the inbox with 50 waiting under 50 ms (p50);
deciding one under 20 ms (p50).

Run: .venv/bin/python bench/pages.py [--duration 4] [--only pages|inbox|tree]
(--only inbox measures just the inbox and its decisions: a few seconds.)
"""

from __future__ import annotations

import argparse
import asyncio
import html
import os
import re
import statistics
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from codna.markdown.edits import parse_edits
from codna.services.admin import transfer
from codna.services.context import use_database
from codna.services.members import access, members
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.suggestions import changes
from codna.storage.database import Database
from server import (
    CODNA,
    Cycle,
    exchange,
    free_port,
    http_request,
    run_load,
    started,
)

CLIENTS = 8
PASSWORD = "bench-password"
WAITING_PAGES = 5  # the 50 waiting suggestions, 10 on each
MOVED_ON = 3  # of those pages, edited since their suggestions were made
WAITING_PER_PAGE = 10
RESERVE_PAGES = 3  # the suggestions decided one by one, 20 on each
RESERVE_PER_PAGE = 20
INBOX_GETS = 150
TREE_FOLDERS, TREE_PAGES = 50, 100  # a space of 5,000 pages
TREE_GETS = 200


def page_body(size: int) -> str:
    """Markdown of about `size` bytes: sections of prose, a list and a code block."""
    parts: list[str] = []
    n = 0
    while sum(map(len, parts)) < size:
        parts.append(
            f"## Section {n}\n\nParagraph {n} says what this part of the page is about, with "
            f"a [link](https://example.com/{n}) and **bold** words.\n\n- one\n- two\n\n"
            f"```\ncode {n}\n```\n\n"
        )
        n += 1
    return "# Bench\n\n" + "".join(parts)


def paragraph(n: int) -> str:
    """Paragraph `n` of page_body, as it reads until someone changes it."""
    return (
        f"Paragraph {n} says what this part of the page is about, with "
        f"a [link](https://example.com/{n}) and **bold** words."
    )


def rewritten(n: int) -> str:
    return (
        f"Paragraph {n} now says who reads this part of the page, what they decide with it "
        f"and where the details are kept, with a [link](https://example.com/{n}) to the "
        f"record and the **bold** words kept, and one sentence more on why the section is "
        f"here at all, so that someone new finds what they need without having to ask."
    )


def suggest(actor: Member, address: str, n: int) -> int:
    """A suggestion from `actor` that rewrites paragraph `n` of the page; its id."""
    edits = parse_edits([{"op": "replace", "old": paragraph(n), "new": rewritten(n)}])
    reason = f"Paragraph {n} leaves out who reads it."
    made = changes.suggest_edit(actor, address=address, edits=edits, reason=reason)
    assert made.suggestion is not None
    return made.suggestion.id


def seed_inbox(admin: Member, rita: Member) -> list[int]:
    """Suggestions from an agent and a person who read the wiki, on pages Rita writes: 50
    waiting on five pages (three of them edited since), and the ones the bench decides, on
    pages of their own; the ids of those, in the order to decide them."""
    sam = members.add_person(admin, email="sam@example.com", name="Sam")
    scribe = members.add_agent(admin, name="scribe", responsible=["rita@example.com"])
    for handle in ("sam@example.com", "scribe"):
        access.share(admin, address="wiki", member=handle, level="read")
    body = page_body(4_000)
    reserve = [f"wiki:inbox/reserve-{r}" for r in range(RESERVE_PAGES)]
    waiting = [f"wiki:inbox/topic-{p}" for p in range(WAITING_PAGES)]
    for address in reserve + waiting:
        pages.create_page(rita, address=address, title=address.rsplit("/", 1)[1], body=body)
    to_decide = [
        suggest(scribe if n % 2 else sam, address, n)
        for n in range(RESERVE_PER_PAGE)
        for address in reserve
    ]
    for n in range(WAITING_PER_PAGE):
        for address in waiting:
            suggest(scribe if n % 2 else sam, address, n)
    last = len(body.split("Paragraph ")) - 2  # a paragraph no suggestion touches
    for address in waiting[:MOVED_ON]:
        edits = parse_edits([{"op": "replace", "old": paragraph(last), "new": rewritten(last)}])
        editing.edit_page(rita, address=address, edits=edits, summary="Say who reads it")
    return to_decide


def seed(url: str, only: str | None) -> list[int]:
    """The workspace of the parts measured; the ids of the suggestions to decide (if any)."""
    database = Database(url)
    database.migrate()
    use_database(database)
    try:
        admin = members.init_workspace(admin_email="ada@example.com", admin_password=PASSWORD)
        rita = members.add_person(admin, email="rita@example.com", name="Rita", password=PASSWORD)
        access.share(admin, address="wiki", member="rita@example.com", level="write")
        if only != "inbox":
            for size, name in ((10_000, "small"), (1_000_000, "large")):
                body = page_body(size)
                pages.create_page(admin, address=f"wiki:bench/{name}", title=name, body=body)
        if only in (None, "tree"):
            documents = [
                transfer.Document(f"f{f:02}/page-{n:03}.md", f"# Page {f}.{n}\n\nText {n}.\n")
                for f in range(TREE_FOLDERS)
                for n in range(TREE_PAGES)
            ]
            transfer.import_documents(admin, documents=documents, folder="raw:tree/")
            access.share(admin, address="raw", member="rita@example.com", level="read")
        return seed_inbox(admin, rita) if only in (None, "inbox") else []
    finally:
        use_database(None)
        database.dispose()


def sign_in(base: str) -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=60)
    form = client.get("/")
    token = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert token, form.text[:300]
    answer = client.post(
        "/sign-in",
        data={"email": "rita@example.com", "password": PASSWORD, "csrf": token.group(1)},
    )
    assert answer.status_code == 303, answer.text[:300]
    return client


def change_one_paragraph(client: httpx.Client, n: int) -> None:
    page = client.get("/edit/wiki/bench/large")
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    version = re.search(r'name="base_version" value="(\d+)"', page.text)
    body = re.search(r"<textarea[^>]*>\n?(.*?)</textarea>", page.text, re.S)
    assert token and version and body, page.text[:300]

    text = html.unescape(body.group(1))
    changed = text.replace(f"Paragraph {n} says", f"Paragraph {n} now says", 1)
    saved = client.post(
        "/edit/wiki/bench/large",
        data={
            "body": changed,
            "title": "large",
            "tags": "",
            "summary": f"Change paragraph {n}",
            "base_version": version.group(1),
            "csrf": token.group(1),
        },
    )
    assert saved.status_code == 303, saved.text[:300]


def timed(client: httpx.Client, path: str) -> float:
    started_at = time.perf_counter()
    answer = client.get(path)
    elapsed = time.perf_counter() - started_at
    assert answer.status_code == 200, answer.text[:300]
    return elapsed


def bench_pages(
    client: httpx.Client, port: int, cookie: str, duration: float, warmup: float, roof: int
) -> None:
    """Views of the 10 KB and 1 MB pages, each beside the ceiling (a bare Starlette endpoint
    on `roof` answering as many bytes, under the same load), then the first view and the
    diff after changes."""
    print(
        f"{'page':>6} {'views/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'bytes':>9}"
        f" {'ceiling/s':>10} {'share':>6}  (8 clients)"
    )
    for name, label in (("small", "10 KB"), ("large", "1 MB")):
        path = f"/p/wiki/bench/{name}"
        size = len(client.get(path).content)  # rendered once, then kept
        request = http_request("GET", path, port, {"Cookie": cookie}, b"")
        figures = asyncio.run(
            run_load(port, [Cycle([request]) for _ in range(CLIENTS)], duration, warmup)
        )
        assert figures.failures == 0, figures
        bare = http_request("GET", f"/ceiling/{size}", roof, {}, b"")
        ceiling = asyncio.run(
            run_load(roof, [Cycle([bare]) for _ in range(CLIENTS)], duration, warmup)
        )
        print(
            f"{label:>6} {figures.rps:9.0f} {figures.p50_ms:8.2f} {figures.p99_ms:8.2f}"
            f" {size:9,} {ceiling.rps:10.0f} {figures.rps / ceiling.rps:6.0%}"
        )
    first, diffs = [], []
    for n in range(5):
        change_one_paragraph(client, n)
        first.append(timed(client, "/p/wiki/bench/large"))
        diffs.append(timed(client, "/diff/wiki/bench/large"))
    print(
        f"\nfirst view of the 1 MB page after a change: median "
        f"{statistics.median(first) * 1000:.0f} ms of {len(first)}"
    )
    print(
        f"diff page of the 1 MB page, one paragraph changed: median "
        f"{statistics.median(diffs) * 1000:.0f} ms of {len(diffs)}"
    )
    print()


async def in_turn(port: int, requests: list[bytes]) -> list[tuple[float, int, bytes]]:
    """Send the requests one after another on one keep-alive connection: for each, how long
    its answer took, its status and its body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    answers = []
    try:
        for request in requests:
            started_at = time.perf_counter()
            status, body = await exchange(reader, writer, request)
            answers.append((time.perf_counter() - started_at, status, body))
    finally:
        writer.close()
    return answers


@dataclass(frozen=True)
class Spread:
    p50_ms: float
    p99_ms: float
    count: int

    @classmethod
    def of(cls, seconds: list[float]) -> Spread:
        ordered = sorted(seconds)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        return cls(statistics.median(ordered) * 1000, p99 * 1000, len(ordered))

    def line(self, label: str, target_ms: float) -> str:
        return (
            f"{label:34} {self.p50_ms:8.2f} {self.p99_ms:8.2f} {self.count:>6}"
            f"   p50 under {target_ms:g} ms"
        )


def bench_inbox(client: httpx.Client, port: int, cookie: str, to_decide: list[int]) -> None:
    """The decisions first, one by one, then the inbox they leave: 50 waiting."""
    inbox = client.get("/inbox")
    token = re.search(r'<input type="hidden" name="csrf" value="([^"]+)">', inbox.text)
    assert inbox.status_code == 200 and token, inbox.text[:300]
    htmx = {
        "Cookie": cookie,
        "HX-Request": "true",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    taken: dict[str, list[float]] = {"accept": [], "reject": []}
    decisions = [("accept", "reject")[i % 2] for i in range(len(to_decide))]
    posts = [
        http_request(
            "POST",
            f"/inbox/changes/{suggestion_id}/decide",
            port,
            htmx,
            urllib.parse.urlencode({"decision": decision, "csrf": token.group(1)}).encode(),
        )
        for suggestion_id, decision in zip(to_decide, decisions, strict=True)
    ]
    for decision, (seconds, status, body) in zip(
        decisions, asyncio.run(in_turn(port, posts)), strict=True
    ):
        assert status == 200 and f"is {decision}ed".encode() in body, (status, body[:300])
        taken[decision].append(seconds)

    get = http_request("GET", "/inbox", port, {"Cookie": cookie}, b"")
    # The first views after the decisions work out anew which suggestions still apply.
    answers = asyncio.run(in_turn(port, [get] * (INBOX_GETS + 3)))[3:]
    waiting = WAITING_PAGES * WAITING_PER_PAGE
    shows = f'<span class="count">{waiting}</span>'.encode()
    for _, status, body in answers:
        assert status == 200 and shows in body, (status, body[:300])
    views = Spread.of([took for took, _, _ in answers])
    print(f"{'web inbox, one client':34} {'p50 ms':>8} {'p99 ms':>8} {'of':>6}   target")
    print(views.line(f"the inbox, {waiting} waiting", 50))
    for decision, took in taken.items():
        print(Spread.of(took).line(f"deciding one from it: {decision}", 20))


def bench_tree(port: int, cookie: str) -> None:
    """The tree beside a page of a 5,000-page space, and recent changes, one GET at a time."""
    paths = {
        "tree of a 5,000-page space": "/tree/raw/tree/f25/page-050",
        "recent changes, everywhere": "/recent",
        "recent changes, one folder": "/recent/raw/tree/f25/",
    }
    print(f"{'one client':34} {'p50 ms':>8} {'p99 ms':>8} {'of':>6}   target")
    for label, path in paths.items():
        get = http_request("GET", path, port, {"Cookie": cookie}, b"")
        answers = asyncio.run(in_turn(port, [get] * (TREE_GETS + 3)))[3:]
        for _, status, body in answers:
            assert status == 200 and b"page-0" in body, (status, body[:300])
        print(Spread.of([took for took, _, _ in answers]).line(label, 20))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=4.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument(
        "--only",
        choices=("pages", "inbox", "tree"),
        help="measure only the pages, the inbox, or the tree and recent changes",
    )
    options = parser.parse_args()
    print(f"{os.cpu_count()} cores, shared by the server and the load generator.\n")
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        to_decide = seed(url, options.only)
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODNA_")}
        env.update({"CODNA_DATABASE_URL": url, "CODNA_RATE_LIMIT": "1000000000"})
        command = [CODNA, "serve", "--port", str(port)]
        roof = free_port()
        bare = [sys.executable, str(Path(__file__).parent / "server.py"), "--serve-ceiling"]
        with (
            started(command, port, env, Path(tmp) / "serve.log"),
            started([*bare, str(roof)], roof, env, Path(tmp) / "ceiling.log"),
        ):
            base = f"http://127.0.0.1:{port}"
            client = sign_in(base)
            cookie = f"codna_session={client.cookies['codna_session']}"
            if options.only in (None, "pages"):
                bench_pages(client, port, cookie, options.duration, options.warmup, roof)
            if options.only in (None, "tree"):
                bench_tree(port, cookie)
            if options.only in (None, "inbox"):
                bench_inbox(client, port, cookie, to_decide)


if __name__ == "__main__":
    main()
