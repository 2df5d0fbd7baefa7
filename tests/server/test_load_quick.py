"""bench/load.py's clients in the test suite: 8 of them for about 10 s (with --long, 64 for
5 minutes) against a real `codna serve` on SQLite, reading, suggesting and deciding over the
JSON API and MCP at once. No error, and the database holds exactly what the clients were
told. Figures come from the bench, never from here."""

from __future__ import annotations

from pathlib import Path

from bench.load import READS, run


def test_clients_reading_suggesting_and_deciding_at_once_meet_no_error_and_lose_no_write(
    tmp_path: Path, long_form: bool
) -> None:
    report = run(
        "sqlite",
        f"sqlite:///{tmp_path / 'load.db'}",
        clients=64 if long_form else 8,
        duration=300 if long_form else 10,
        warmup=1,
        workers=1,
        logs=tmp_path,
        calls_alone=2,
    )

    assert dict(report.tally.errors) == {}, report.tally.samples
    assert report.problems == []
    # Every kind of request went over both interfaces, and the run wrote and decided.
    answered = report.tally.latencies
    assert all(answered[op, via] for op in (*READS, "suggest") for via in ("api", "mcp"))
    assert report.counts["suggestions acknowledged"] > 0
    assert report.counts["in the database, never acknowledged"] == 0
    assert report.counts["accepted"] == report.counts["accept revisions"] > 0
    assert report.counts["decisions acknowledged"] > 0
    every = {(op, via) for op in (*READS, "suggest", "accept", "reject") for via in ("api", "mcp")}
    assert set(report.alone) == every
