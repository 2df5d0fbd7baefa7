"""The reliability tests use the services' seeded team (tests/services/conftest.py)."""

from tests.services.conftest import Team, team

__all__ = ["Team", "team"]
