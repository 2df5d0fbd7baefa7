"""`codna automation add|list|disable`, as the member of --as, on both databases."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from codna.cli.main import cli
from codna.services.events import automations
from tests.cli.conftest import invoke

ROUTINE = "cli-check"


@pytest.fixture(autouse=True)
def known_routine() -> None:
    automations.register_routine(ROUTINE)


def add(*args: str, ok: bool = True) -> str:
    given = ["--on", "document.created", "--folder", "wiki:decisions/", "--routine", ROUTINE]
    result = invoke(["automation", "add", *given, *args], ok=ok)
    return result.stderr if not ok else result.stdout


def test_an_automation_runs_as_the_member_who_adds_it_and_is_listed_and_disabled(
    workspace: None,
) -> None:
    assert add("--as", "ben@example.com") == (
        f"Automation 1: on document.created under wiki:decisions/, {ROUTINE} runs as "
        "ben@example.com.\n"
    )
    made = json.loads(add("--json"))  # as the first admin
    assert (made["id"], made["member"]) == (2, "ada@example.com")

    mine = invoke(["automation", "list", "--as", "ben@example.com"]).stdout
    assert mine.startswith("#1    document.created wiki:decisions/")
    assert f"{ROUTINE}" in mine and "as ben@example.com  on" in mine
    assert "#2" not in mine
    everyone = json.loads(invoke(["automation", "list", "--json"]).stdout)
    assert [a["id"] for a in everyone] == [1, 2]

    refused = invoke(["automation", "disable", "2", "--as", "ben@example.com"], ok=False)
    assert refused.stderr == "not_found: There is no automation 2.\n"
    done = invoke(["automation", "disable", "1", "--as", "ben@example.com"]).stdout
    assert done == "Automation 1 is disabled.\n"
    assert "disabled 20" in invoke(["automation", "list", "--as", "ben@example.com"]).stdout


def test_no_automations_are_listed_as_such(workspace: None) -> None:
    assert invoke(["automation", "list"]).stdout == "No automations.\n"


def test_a_routine_that_is_not_installed_and_an_agent_are_refused_with_a_sentence(
    workspace: None,
) -> None:
    given = ["--on", "document.changed", "--folder", "wiki:", "--routine", "nothing-here"]
    refused = invoke(["automation", "add", *given], ok=False)
    assert refused.stderr.startswith("invalid_request: There is no routine nothing-here; ")
    assert "read_only: checker is an agent" in add("--as", "checker", ok=False)


def test_an_event_the_command_does_not_know_is_refused_with_the_ones_it_takes(
    workspace: None,
) -> None:
    given = ["automation", "add", "--on", "page.saved", "--folder", "wiki:", "--routine", ROUTINE]
    result = CliRunner().invoke(cli, given)
    assert result.exit_code == 2
    assert "'page.saved' is not one of 'document.created', 'document.changed'" in result.output
