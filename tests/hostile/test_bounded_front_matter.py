"""An import's front matter is parsed after access is checked, and within bounds.

Every refusal is a 4xx whose message starts with the file's name and names the key (or field),
nothing is stored, and the refusal costs at most FRONT_MATTER_MEMORY of traced memory and
about FRONT_MATTER_CPU of CPU. The alias bomb here (539 bytes of YAML, 9**9 strings once
spelled out) is the kind that once cost gigabytes: PyYAML builds aliases by reference, and the
title was turned into text, every alias spelled out; with one level fewer, a 349-byte request
took 3.5 GiB and 14 s of CPU, with any token that could write, before access was checked.
`pytest --long` tries 3,000 generated front matters instead of 300, and traces the memory of
each, not only of one in ten.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from codna.errors import CodnaError
from codna.markdown.front_matter import MAX_FRONT_MATTER_BYTES
from codna.services.admin import transfer
from tests.conftest import InProcessServer
from tests.hostile.budget import Spent, measured
from tests.hostile.parser_inputs import FRONT_MATTER, Refused, alias_bomb, front_matter_fuzz

FRONT_MATTER_MEMORY = 8 * 2**20  # peak traced bytes while a worst front matter is refused
FRONT_MATTER_CPU = 0.5  # seconds of CPU for the same, held to ten times that
FUZZ_MEMORY = 4 * 2**20  # the same for one generated front matter through the service
FUZZ_CPU = 0.2


def folder() -> str:
    return f"raw:hostile-{uuid.uuid4().hex[:8]}/"


def stored(app: InProcessServer, where: str) -> list[str]:
    with app.api("writer") as client:
        answer = client.get("/api/v1/export", params={"address": where})
    assert answer.status_code == 200, answer.text
    return [file["address"] for file in answer.json()]


def import_one(app: InProcessServer, role: str, where: str, name: str, text: str) -> Any:
    with app.api(role) as client:
        return client.post(
            "/api/v1/import",
            json={"folder": where, "documents": [{"name": name, "text": text}]},
        )


@pytest.mark.parametrize("case", FRONT_MATTER, ids=[case.name for case in FRONT_MATTER])
def test_a_hostile_front_matter_is_refused_naming_the_file_and_key_within_budget(
    app: InProcessServer, case: Refused
) -> None:
    where = folder()
    name = f"{case.name.replace(' ', '-')}.md"
    with measured() as spent:
        answer = import_one(app, "writer", where, name, f"---\n{case.yaml}---\n# Body\n")
    assert answer.status_code == case.status, answer.text[:500]
    error = answer.json()
    assert error["code"] == case.code, error
    assert error["message"].startswith(f"{name}: "), error
    assert error["document"] == name
    assert case.names in (error.get("key"), error.get("field")), error
    if "key" in error:
        assert f"key '{error['key']}'" in error["message"], error
    assert stored(app, where) == []
    spent.within(case.name, memory=FRONT_MATTER_MEMORY, cpu=FRONT_MATTER_CPU)


@pytest.mark.parametrize("role", ["reader", "stranger", "agent"])
def test_an_import_one_cannot_make_is_refused_before_any_front_matter_is_parsed(
    app: InProcessServer, role: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[str] = []
    split = transfer.split_front_matter

    def spy(text: str) -> tuple[dict[str, Any], str]:
        parsed.append(text)
        return split(text)

    monkeypatch.setattr(transfer, "split_front_matter", spy)
    where = folder()
    with measured() as spent:
        answer = import_one(app, role, where, "bomb.md", f"---\n{alias_bomb()}---\n")
    assert answer.status_code in (401, 403), answer.text
    assert answer.json()["code"] in ("read_only", "unauthenticated"), answer.text
    assert parsed == []
    assert stored(app, where) == []
    spent.within(f"bomb from {role}", memory=FRONT_MATTER_MEMORY, cpu=FRONT_MATTER_CPU)


def test_one_bad_front_matter_among_good_files_imports_none_of_them(app: InProcessServer) -> None:
    where = folder()
    documents = [
        {"name": "good.md", "text": "---\ntitle: Good\ntags: [a, 2024]\n---\nText.\n"},
        {"name": "bomb.md", "text": f"---\n{alias_bomb()}---\n"},
    ]
    with app.api("writer") as client:
        answer = client.post("/api/v1/import", json={"folder": where, "documents": documents})
    assert answer.status_code == 422, answer.text
    assert answer.json()["document"] == "bomb.md"
    assert stored(app, where) == []


def test_front_matter_at_its_limits_is_read(app: InProcessServer) -> None:
    note = "n" * (MAX_FRONT_MATTER_BYTES - 200)
    text = (
        f"---\ntitle: 2024-05-01\ntags: [Research, 42, field notes]\nnote: {note}\n"
        "nested: {a: {b: {c: [1, 2]}}}\n---\nBody.\n"
    )
    where = folder()
    with measured() as spent:
        made = import_one(app, "writer", where, "edge.md", text)
    assert made.status_code == 201, made.text
    [page] = made.json()
    assert (page["title"], page["tags"]) == ("2024-05-01", ["research", "42", "field notes"])
    spent.within("front matter at its limits", memory=FRONT_MATTER_MEMORY, cpu=FRONT_MATTER_CPU)


@pytest.mark.parametrize(
    ("heading", "title"),
    [("# C# notes ##", "C# notes"), ("#\tTabbed #", "Tabbed"), ("# ##\n# Second", "Second")],
)
def test_the_first_heading_titles_an_import_without_one_in_front_matter(
    heading: str, title: str
) -> None:
    parsed = transfer.parse_document(transfer.Document("a.md", f"{heading}\n\nText.\n"))
    assert parsed.title == title


def test_a_heading_line_that_once_backtracked_for_hours_is_read_in_linear_time() -> None:
    # `# a # # # … # x`: the old pattern tried every split of the line between the title and
    # its closing `#`s, and took 22 s at 40 KB; the import refuses the title for its length.
    line = "# a" + " #" * 200_000 + " x"
    with measured() as spent, pytest.raises(CodnaError) as refused:
        transfer.parse_document(transfer.Document("slow.md", f"{line}\n"))
    assert refused.value.status == 413 and refused.value.fields["field"] == "title"
    spent.within("a 400 KB heading line", memory=FRONT_MATTER_MEMORY, cpu=FRONT_MATTER_CPU)


def _parse_generated(index: int, yaml: str, *, memory: bool) -> tuple[str, Spent]:
    """Parse a generated front matter as an import does: whether it was read or refused (a
    4xx whose message starts with the file's name), and what that cost."""
    name = f"fuzz-{index}.md"
    with measured(memory=memory) as spent:
        try:
            transfer.parse_document(transfer.Document(name, f"---\n{yaml}---\nBody\n"))
            outcome = "read"
        except CodnaError as error:
            assert 400 <= error.status < 500, (yaml[:300], error)
            assert error.message.startswith(f"{name}: "), (yaml[:300], error)
            outcome = "refused"
    assert spent.cpu <= FUZZ_CPU * 10, (yaml[:300], spent)
    assert spent.memory <= FUZZ_MEMORY, (yaml[:300], spent)
    return outcome, spent


def test_generated_front_matter_is_read_or_refused_by_name_within_budget(long_form: bool) -> None:
    """Each is parsed timed alone, then with its memory traced (tracing slows a parse up to
    fivefold): each of them in the long form; in the quick form one in ten, and the one that
    took the most CPU."""
    outcomes = {"read": 0, "refused": 0}
    generated = list(front_matter_fuzz(3_000 if long_form else 300))
    cpu = []
    for index, yaml in enumerate(generated):
        outcome, spent = _parse_generated(index, yaml, memory=False)
        outcomes[outcome] += 1
        cpu.append((spent.cpu, index))
    traced = {index for index in range(len(generated)) if long_form or index % 10 == 0}
    worst_memory = max(
        _parse_generated(index, generated[index], memory=True)[1].memory
        for index in sorted(traced | {max(cpu)[1]})
    )
    print(f"fuzz: {outcomes}, worst {worst_memory / 2**20:.1f} MiB, {max(cpu)[0]:.3f} s CPU")
    assert outcomes["read"] and outcomes["refused"]


def test_json_nested_deep_in_an_import_is_refused_within_budget(app: InProcessServer) -> None:
    # The JSON parser itself: nesting past the interpreter's recursion limit is a 4xx naming
    # the request body, never a 500 (tests/hostile/test_oversized.py holds the other routes).
    deep = "[" * 100_000 + "]" * 100_000
    where = folder()
    with app.api("writer") as client, measured() as spent:
        answer = client.post(
            "/api/v1/import",
            content=f'{{"folder": "{where}", "documents": {deep}}}',
            headers={"Content-Type": "application/json"},
        )
    assert 400 <= answer.status_code < 500, answer.text[:300]
    assert answer.json()["code"], answer.text[:300]
    assert stored(app, where) == []
    spent.within("JSON 100,000 deep", memory=FRONT_MATTER_MEMORY, cpu=FRONT_MATTER_CPU)
