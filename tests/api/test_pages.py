"""Pages through the JSON API: read, dry run, edit, history, an older version, revert."""

from __future__ import annotations

from tests.conftest import InProcessServer, unique

BODY = "# Guide\n\nThe first line.\n\n## Limits\n\nAt most ten.\n\n## Notes\n\nSee the limits.\n"
TWELVE = [{"op": "replace", "old": "At most ten.", "new": "At most twelve."}]


def test_a_page_is_read_dry_run_edited_and_reverted_over_the_api(app: InProcessServer) -> None:
    wiki = unique()
    app.create_page(wiki, BODY)
    with app.api("writer") as client:
        dry = client.post(
            "/api/v1/page/edit", json={"address": wiki, "edits": TWELVE, "dry_run": True}
        ).json()
        assert dry["saved"] is False and "+At most twelve." in dry["diff"]
        assert client.get("/api/v1/page", params={"address": wiki}).json()["version"] == 1
        saved = client.post(
            "/api/v1/page/edit", json={"address": wiki, "edits": TWELVE, "base_version": 1}
        ).json()
        assert saved["saved"] is True and saved["page"]["version"] == 2
        history = client.get("/api/v1/page/history", params={"address": wiki}).json()
        assert [r["version"] for r in history] == [2, 1]
        old = client.get("/api/v1/page", params={"address": wiki, "version": " 1 "}).json()
        assert (old["version"], old["latest_version"], old["body"]) == (1, 2, BODY)
        reverted = client.post("/api/v1/page/revert", json={"address": wiki, "version": 2})
        assert reverted.status_code == 200, reverted.text
        assert reverted.json()["page"]["body"] == BODY
