"""The command line's tests: the commands run in process, on the database of the test."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from click.testing import CliRunner, Result

from codna.cli.main import cli
from codna.storage.database import Database


def run(*args: str, stdin: str | None = None, ok: bool = True) -> str:
    """Run `codna ARGS` in process; check that it succeeded or, with `ok=False`, failed; its
    output."""
    result = CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)
    assert (result.exit_code == 0) is ok, result.output
    return result.output


@pytest.fixture
def workspace(db: Database) -> None:
    """A workspace made with the commands: Ada (admin), Ben (write on wiki) and the agent
    checker (read on wiki:decisions/)."""
    run("init", "--admin-email", "ada@example.com", "--admin-password", "correct horse")
    run("member", "add", "ben@example.com", "--name", "Ben", "--password", "hunter2hunter2")
    run("agent", "add", "checker", "--responsible", "ada@example.com")
    run("share", "wiki", "ben@example.com", "write")
    run("share", "wiki:decisions/", "checker", "read")


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
