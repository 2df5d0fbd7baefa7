"""Finding one's way on the web: the wiki's home, the tree beside a page, backlinks, recent
changes, tag pages, and a missing page that offers to be made."""

from __future__ import annotations

from tests.conftest import InProcessServer, unique
from tests.web.conftest import signed_in


def test_signing_in_lands_on_the_wiki_home_page(app: InProcessServer) -> None:
    with signed_in(app, "reader") as client:
        home = client.get("/home")
        assert home.status_code == 303
        # The seeded workspace has no wiki:home yet: the wiki's pages instead.
        assert home.headers["location"] in ("/p/wiki/home", "/p/wiki/")


def test_a_page_shows_its_backlinks_and_the_tree_of_its_space(app: InProcessServer) -> None:
    target = unique("wiki:nav/")
    source = unique("wiki:nav/")
    app.create_page(target, "Target text.\n", title="The target")
    name = target.rpartition("/")[2]
    app.create_page(source, f"See [it]({name}).\n", title="The source")
    with signed_in(app, "reader") as client:
        page = client.get(f"/p/{target.replace(':', '/', 1)}")
        assert page.status_code == 200
        assert "Pages that link here" in page.text and "The source" in page.text
        tree = client.get(f"/tree/{target.replace(':', '/', 1)}")
        assert tree.status_code == 200
        assert 'aria-current="page"' in tree.text and "The target" in tree.text
        assert "<details open>" in tree.text  # the way to the page is open


def test_recent_changes_name_who_and_why(app: InProcessServer) -> None:
    address = unique("wiki:recent/")
    app.create_page(address, "Text.\n", title="Recently made")
    with signed_in(app, "reader") as client:
        everywhere = client.get("/recent")
        folder = client.get("/recent/wiki/recent/")
        elsewhere = client.get("/recent/raw/")
    for answer in (everywhere, folder):
        assert answer.status_code == 200 and "Recently made" in answer.text
    assert "Recently made" not in elsewhere.text


def test_tag_pages_list_the_pages_with_a_tag(app: InProcessServer) -> None:
    address = unique("wiki:tagged/")
    with app.api("writer") as api:
        made = api.post(
            "/api/v1/pages",
            json={"address": address, "title": "Tagged", "body": "x\n", "tags": ["zebra-tag"]},
        )
    assert made.status_code == 201, made.text
    with signed_in(app, "reader") as client:
        assert "zebra-tag" in client.get("/tags").text
        listed = client.get("/tags/zebra-tag")
    assert listed.status_code == 200 and "Tagged" in listed.text


def test_a_missing_page_offers_to_be_made_to_whoever_may(app: InProcessServer) -> None:
    with signed_in(app, "writer") as client:
        writer = client.get("/p/wiki/nav/not-yet")
    with signed_in(app, "reader") as client:
        reader = client.get("/p/wiki/nav/not-yet")
    assert writer.status_code == reader.status_code == 404
    assert "/new?address=wiki%3Anav/not-yet" in writer.text
    assert "/new?address=" not in reader.text
