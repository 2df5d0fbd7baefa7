"""The worker's tests use the services' team, on SQLite and PostgreSQL."""

from __future__ import annotations

from tests.services.conftest import team

__all__ = ["team"]
