"""The review card shows a suggested change where it is, word by word: each hunk under the
heading path of its section, the words removed and inserted marked inside the line."""

from __future__ import annotations

from tests.conftest import InProcessServer, unique
from tests.web.conftest import card_of, signed_in

BODY = (
    "# Decision\n\nWe decided.\n\n## Limits\n\nThese hold for everyone.\n\n"
    "Uploads stop at ten files a day.\n\nAsk first.\n\n## Later\n\nMore.\n"
)


def test_the_card_of_a_one_word_change_marks_just_those_words_under_the_heading_path(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY, title="Decision")
    edits = [{"op": "replace", "old": "at ten files", "new": "at twelve files"}]
    with app.api("agent") as agent:
        made = agent.post(
            "/api/v1/suggestions",
            json={"address": address, "edits": edits, "reason": "The team grew."},
        )
    assert made.status_code == 201, made.text
    suggestion_id = made.json()["suggestion"]["id"]
    with signed_in(app, "writer") as writer:
        page = writer.get("/inbox").text
    card = card_of(page, suggestion_id)
    assert '<span class="path">Decision &gt; Limits</span>' in card
    assert (
        '<div class="line changed"><span class="mark" aria-hidden="true">±</span>'
        '<span class="text">Uploads stop at <del>ten</del><ins>twelve</ins> files a day.</span>'
    ) in card
    assert card.count("<del>") == 1 and card.count("<ins>") == 1
    assert "@@" not in card and "+++" not in card
