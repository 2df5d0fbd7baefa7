"""A migration carries the code it runs: no migration imports `codna`, so that no later change
to CoDNA changes what an old migration does. A storage format a migration writes is frozen in
it (0012's deltas); data derived from other data (the search index, the hashes of suggestions)
is only marked stale by a migration and made again by the running code (storage/derived.py)."""

from __future__ import annotations

import ast

from codna.storage.database import MIGRATIONS


def imports_codna(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
            a.name == "codna" or a.name.startswith("codna.") for a in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "codna":
            return True
    return False


def test_no_migration_imports_codna() -> None:
    versions = sorted((MIGRATIONS / "versions").glob("*.py"))
    assert len(versions) >= 19
    importing = {p.name for p in versions if imports_codna(ast.parse(p.read_text()))}
    assert importing == set()
