"""Fixtures for the storage tests: the statement counter, and the team the services tests use."""

from __future__ import annotations

from tests.services.conftest import team
from tests.statements import statements

__all__ = ["statements", "team"]
