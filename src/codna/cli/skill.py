"""`codna skill`: the skill a routine follows, as the package ships it."""

from __future__ import annotations

import click

from codna.mcp.resources import skill_text


@click.command()
def skill() -> None:
    """Print the skill: how a routine works with CoDNA (Markdown), as MCP clients get it."""
    click.echo(skill_text(), nl=False)
