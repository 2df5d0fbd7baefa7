"""Routine tests use the services' team on both databases."""

from tests.services.conftest import Team, team

__all__ = ["Team", "team"]
