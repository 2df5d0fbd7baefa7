"""The command line's tests: the commands run in process, on the database of the test."""

from __future__ import annotations

from collections.abc import Sequence

from click.testing import CliRunner, Result

from codna.cli.main import cli
from tests.test_cli import workspace

__all__ = ["invoke", "workspace"]


def invoke(args: Sequence[str], *, ok: bool = True, stdin: str | None = None) -> Result:
    """Run `codna ARGS` in process; check that it succeeded (or, with `ok=False`, that it was
    refused with exit code 1 and a `code: sentence` on standard error)."""
    result = CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1, result.output
        code, _, sentence = result.stderr.partition(": ")
        assert code.isidentifier() and sentence.rstrip().endswith("."), result.stderr
    return result
