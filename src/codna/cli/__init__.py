"""The `codna` command: an adapter over the services, like every other interface."""

from codna.cli.main import main

__all__ = ["main"]
