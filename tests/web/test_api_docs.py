"""The API's interactive description works with no internet: every file it loads is served
here, under the same Content-Security-Policy as the pages."""

from __future__ import annotations

import re

from tests.conftest import InProcessServer


def test_the_api_docs_load_only_files_this_server_serves(app: InProcessServer) -> None:
    with app.api() as client:
        docs = client.get("/api/docs")
        assert docs.status_code == 200 and "content-security-policy" in docs.headers
        loaded = re.findall(r'(?:src|href)="([^"]+)"', docs.text)
        assert loaded and all(url.startswith("/static/") for url in loaded), loaded
        for url in loaded:
            assert client.get(url).status_code == 200, url
        assert client.get("/api/openapi.json").json()["info"]["title"] == "CoDNA"
