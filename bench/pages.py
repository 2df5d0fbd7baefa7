"""How fast the web UI shows pages, on loopback, one `codna serve` process on SQLite.

Measured, each by a signed-in browser session (its cookie; nothing is cached by the client):
- page views per second of a 10 KB and a 1 MB page with 8 concurrent clients, each on a
  keep-alive connection of its own (p50 and p99 too);
- the first view of the 1 MB page after a change: its Markdown is rendered once per version,
  and this is the view that does it (median of a few changes);
- the diff page of the 1 MB page after one changed paragraph (median of a few).

Targets: at least 1,000 views/s at 10 KB and 200/s at 1 MB; the first view of a 1 MB page
under 1 s; the 1 MB diff page under 100 ms.

Run: .venv/bin/python bench/pages.py [--duration 4]
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
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from codna.services import access, members, pages
from codna.services.context import use_database
from codna.storage.database import Database
from server import (
    CODNA,
    Cycle,
    free_port,
    http_request,
    run_load,
    started,
)

CLIENTS = 8
PASSWORD = "bench-password"


def page_body(size: int) -> str:
    """Markdown of about `size` bytes: sections of prose, a list and a code block."""
    parts, n = [], 0
    while sum(map(len, parts)) < size:
        parts.append(
            f"## Section {n}\n\nParagraph {n} says what this part of the page is about, with "
            f"a [link](https://example.com/{n}) and **bold** words.\n\n- one\n- two\n\n"
            f"```\ncode {n}\n```\n\n"
        )
        n += 1
    return "# Bench\n\n" + "".join(parts)


def seed(url: str) -> None:
    database = Database(url)
    database.migrate()
    use_database(database)
    try:
        admin = members.init_workspace(admin_email="ada@example.com", admin_password=PASSWORD)
        members.add_person(admin, email="rita@example.com", name="Rita", password=PASSWORD)
        access.share(admin, address="wiki", member="rita@example.com", level="write")
        for size, name in ((10_000, "small"), (1_000_000, "large")):
            pages.create_page(admin, address=f"wiki:bench/{name}", title=name, body=page_body(size))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=4.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    options = parser.parse_args()
    print(f"{os.cpu_count()} cores, shared by the server and the load generator.\n")
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        seed(url)
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODNA_")}
        env.update({"CODNA_DATABASE_URL": url, "CODNA_RATE_LIMIT": "1000000000"})
        command = [CODNA, "serve", "--port", str(port)]
        with started(command, port, env, Path(tmp) / "serve.log"):
            base = f"http://127.0.0.1:{port}"
            client = sign_in(base)
            cookie = f"codna_session={client.cookies['codna_session']}"
            print(f"{'page':>6} {'views/s':>9} {'p50 ms':>8} {'p99 ms':>8}  (8 clients)")
            for name, label in (("small", "10 KB"), ("large", "1 MB")):
                path = f"/p/wiki/bench/{name}"
                timed(client, path)  # rendered once, then kept
                request = http_request("GET", path, port, {"Cookie": cookie}, b"")
                cycles = [Cycle([request]) for _ in range(CLIENTS)]

                figures = asyncio.run(run_load(port, cycles, options.duration, options.warmup))
                assert figures.failures == 0, figures
                print(f"{label:>6} {figures.rps:9.0f} {figures.p50_ms:8.2f} {figures.p99_ms:8.2f}")
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


if __name__ == "__main__":
    main()
