"""The JSON API's interactive description at /api/docs, from files this server serves (it
works with no internet, and under the same Content-Security-Policy as every page)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from codna.web.templating import templates

router = APIRouter(include_in_schema=False)


@router.get("/api/docs")
async def api_docs(request: Request) -> Response:
    return templates.TemplateResponse(request, "api_docs.html", {})
