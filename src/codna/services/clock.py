"""The one place that reads the time, so every row of a transaction carries the same kind."""

from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)
