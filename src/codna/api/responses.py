"""Answers serialised straight from a service's dataclass.

FastAPI validates what an endpoint returns against its response model and then serialises
it: for a page, a copy of the body and a second pass over it. What a service returns is
already the declared type, so the hot endpoints serialise it once, with the same pydantic
serialiser FastAPI would use (the same JSON), and declare the model on the route for the
API description.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi.responses import Response
from pydantic import TypeAdapter


@cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def answer(value: Any, kind: Any, status_code: int = 200) -> Response:
    """`value`, of the type `kind`, as a JSON response."""
    body = _adapter(kind).dump_json(value, by_alias=True)
    return Response(body, status_code=status_code, media_type="application/json")
