"""Rendered pages are kept per version: the same version is never rendered twice, a new one
is, and what is kept stays within its budget."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from codna.web import rendering
from codna.web.rendering import Rendered

MADE = datetime(2026, 12, 1, tzinfo=UTC)


def test_a_version_is_rendered_once_and_a_new_version_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    real = rendering.render

    def counting(body: str, **options: object) -> str:
        calls.append(body)
        return real(body, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(rendering, "render", counting)
    kept = Rendered()
    first = kept.html("wiki:a", 1, MADE, "# One")
    assert kept.html("wiki:a", 1, MADE, "# One") == first and calls == ["# One"]
    assert "<h1" in kept.html("wiki:a", 2, MADE, "# Two") and calls == ["# One", "# Two"]
    # The same address and version made again (deleted for good, made anew) is another key.
    kept.html("wiki:a", 1, datetime(2026, 12, 2, tzinfo=UTC), "# Other")
    assert calls[-1] == "# Other"


def test_what_is_kept_stays_within_its_budget_dropping_the_least_recently_shown() -> None:
    kept = Rendered(budget=200)
    for version in range(1, 6):
        kept.html("wiki:a", version, MADE, "x" * 50)
    assert kept._size <= 200
    assert ("wiki:a", 5, MADE) in kept._kept and ("wiki:a", 1, MADE) not in kept._kept
