"""Tags in queries: a tag as pages keep it, and the pages with one, read by the database from
each page's JSON list of tags."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import InvalidRequest
from codna.markdown.limits import check_plain_text
from codna.services.pages.pages import MAX_TAG_CHARS
from codna.storage.schema import pages


def check_tag(tag: str) -> str:
    """A tag as pages keep it (lower case, its spaces single). Raises InvalidRequest."""
    check_plain_text(tag, field="tag")
    wanted = " ".join(tag.split()).lower()
    if not wanted or len(wanted) > MAX_TAG_CHARS:
        raise InvalidRequest(f"A tag has 1 to {MAX_TAG_CHARS} characters.", field="tag")
    return wanted


def tag_values(conn: Connection) -> sa.TableValuedAlias:
    """The tags of each page as rows of one column, `value`."""
    if conn.dialect.name == "postgresql":
        return sa.func.json_array_elements_text(pages.c.tags).table_valued("value")
    return sa.func.json_each(pages.c.tags).table_valued("value")


def tagged(conn: Connection, tag: str) -> sa.ColumnElement[bool]:
    """The pages with `tag` (as check_tag gives it) among their tags."""
    values = tag_values(conn)
    return sa.exists(sa.select(1).select_from(values).where(values.c.value == tag))
