"""A migration carries the code it runs: it imports nothing of `codna`, so that no later
change to CoDNA changes what an old migration does. The four that still import the text
machinery are named here, until each carries its own; a fifth fails this test, and so does one
of the four once it no longer imports (name it no more)."""

from __future__ import annotations

import ast

from codna.storage.database import MIGRATIONS

# Not frozen yet: each derives data (edit hashes, the search index, deltas) with today's code.
STILL_IMPORTING = {
    "0008_canonical_edit_hashes.py",
    "0011_search_by_section.py",
    "0012_revisions_as_deltas.py",
    "0014_section_lengths.py",
}


def imports_codna(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
            a.name == "codna" or a.name.startswith("codna.") for a in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "codna":
            return True
    return False


def test_no_migration_imports_codna_but_the_four_named() -> None:
    versions = sorted((MIGRATIONS / "versions").glob("*.py"))
    assert len(versions) >= 19
    importing = {p.name for p in versions if imports_codna(ast.parse(p.read_text()))}
    assert importing == STILL_IMPORTING
