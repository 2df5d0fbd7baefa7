"""The code stays clean: ruff (lint and format), mypy and the import contract run as tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "--no-cache", "src", "tests", "bench"],
        ["ruff", "format", "--no-cache", "--check", "src", "tests", "bench"],
        ["mypy"],
        ["lint-imports"],
    ],
    ids=["ruff-check", "ruff-format", "mypy", "import-linter"],
)
def test_the_code_passes(command: list[str]) -> None:
    done = subprocess.run(
        [str(BIN / command[0]), *command[1:]], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
