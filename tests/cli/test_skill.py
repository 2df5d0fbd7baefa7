"""`codna skill`: the skill a routine follows, printed as the package ships it."""

from __future__ import annotations

from pathlib import Path

import codna.routines
from tests.cli.conftest import invoke


def test_codna_skill_prints_the_skill_the_package_ships_and_needs_no_workspace() -> None:
    shipped = Path(codna.routines.__file__).with_name("skill.md").read_text(encoding="utf-8")
    assert shipped.startswith("# ")
    assert invoke(["skill"]).stdout == shipped
