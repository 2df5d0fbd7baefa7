"""The SELECTs every request runs, compiled once per database and run on the driver itself.

Through `Connection.execute`, SQLAlchemy spends several times longer on a small indexed
SELECT than the database does: the statement's cache key, the execution context, the events
and the result object, on every call. A `Prepared` statement keeps what all of that works
out the same way each time (the SQL text, the order of its parameters, the type conversions
of its parameters and columns) and runs on the driver connection under the SQLAlchemy
`Connection` it is given, so inside that connection's transaction, next to its other
statements. Rows come back as plain dicts of the statement's column keys, with the values
`Connection.execute` would give.

They also run in a `Lookup` (`Database.lookup()`): a read on a pooled driver connection with
no SQLAlchemy `Connection` around it at all, for the reads every request makes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Dialect

Convert = Callable[[Any], Any]
Row = Mapping[Any, Any]  # a row by column key: a Prepared statement's dict, or a RowMapping


@dataclass(frozen=True)
class _Compiled:
    """A statement as one database runs it."""

    sql: str
    names: tuple[str, ...]  # the parameters, in the order a positional driver wants them
    positional: bool
    defaults: dict[str, Any]  # values the statement carries itself, such as literals
    to_driver: dict[str, Convert]  # conversions of parameters, by name
    keys: tuple[str, ...]  # the column keys of a row
    from_driver: tuple[tuple[int, Convert], ...]  # conversions of columns, by position

    @classmethod
    def of(cls, statement: sa.Select[Any], dialect: Dialect) -> _Compiled:
        compiled = statement.compile(dialect=dialect)
        if compiled.post_compile_params or compiled.literal_execute_params:
            raise ValueError(
                "A statement with parameters expanded per call (an IN list) cannot be "
                "compiled once; run it with Connection.execute."
            )
        binds = compiled.binds
        names = tuple(compiled.positiontup or ()) if compiled.positional else tuple(binds)
        to_driver: dict[str, Convert] = {}
        for name, bind in binds.items():
            convert = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if convert is not None:
                to_driver[name] = convert
        from_driver = []
        for position, column in enumerate(statement.selected_columns):
            convert = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if convert is not None:
                from_driver.append((position, convert))
        return cls(
            sql=compiled.string,
            names=names,
            positional=compiled.positional,
            defaults={n: b.value for n, b in binds.items() if not b.required},
            to_driver=to_driver,
            keys=tuple(statement.selected_columns.keys()),
            from_driver=tuple(from_driver),
        )

    def parameters(self, given: Mapping[str, Any]) -> Any:
        values = {**self.defaults, **given}
        for name, convert in self.to_driver.items():
            values[name] = convert(values[name])
        if self.positional:
            return tuple(values[name] for name in self.names)
        return values

    def row(self, values: tuple[Any, ...]) -> dict[str, Any]:
        if not self.from_driver:
            return dict(zip(self.keys, values, strict=True))
        converted = list(values)
        for position, convert in self.from_driver:
            converted[position] = convert(converted[position])
        return dict(zip(self.keys, converted, strict=True))


@dataclass(frozen=True)
class Lookup:
    """A read on a driver connection of the pool, for Prepared statements only."""

    dialect: Dialect
    driver: Any  # the DBAPI connection: sqlite3's or psycopg's


Reads = Connection | Lookup  # where a Prepared statement runs


class Prepared:
    """A SELECT built once, at import, and run often: `first`, `all` and `tuples` take the
    parameters its `bindparam`s name."""

    def __init__(self, statement: sa.Select[Any]) -> None:
        self.statement = statement
        self._by_dialect: dict[str, _Compiled] = {}

    def _compiled(self, conn: Reads) -> _Compiled:
        dialect = conn.dialect
        key = f"{dialect.name}+{dialect.driver}"
        compiled = self._by_dialect.get(key)
        if compiled is None:
            compiled = self._by_dialect[key] = _Compiled.of(self.statement, dialect)
        return compiled

    def _fetch(
        self, conn: Reads, params: Mapping[str, Any], *, first: bool = False
    ) -> tuple[_Compiled, list[Any]]:
        """The statement as this database runs it, and its rows as the driver gives them
        (only the first, if asked)."""
        compiled = self._compiled(conn)
        cursor = _driver(conn).cursor()
        try:
            cursor.execute(compiled.sql, compiled.parameters(params))
            rows = cursor.fetchmany(1) if first else cursor.fetchall()
        finally:
            cursor.close()
        return compiled, rows

    def first(self, conn: Reads, params: Mapping[str, Any]) -> Row | None:
        """The first row, or None."""
        compiled, rows = self._fetch(conn, params, first=True)
        return compiled.row(rows[0]) if rows else None

    def all(self, conn: Reads, params: Mapping[str, Any]) -> list[Row]:
        """Every row."""
        compiled, rows = self._fetch(conn, params)
        return [compiled.row(values) for values in rows]

    def tuples(self, conn: Reads, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Every row as a tuple of the selected columns, in order: for statements that
        return many small rows, which a dict per row would slow down."""
        compiled, rows = self._fetch(conn, params)
        if not compiled.from_driver:
            return list(rows)  # both drivers fetch tuples
        return [tuple(compiled.row(values).values()) for values in rows]


def together(conn: Reads, *calls: tuple[Prepared, Mapping[str, Any]]) -> list[list[Row]]:
    """Every row of each statement, in the order given. On PostgreSQL they all go to the
    server at once and come back in one round trip (psycopg's pipeline), instead of one round
    trip each; on SQLite, which has none to save, they run one after the other."""
    if conn.dialect.name != "postgresql":
        return [statement.all(conn, params) for statement, params in calls]
    driver = _driver(conn)
    compiled = [statement._compiled(conn) for statement, _ in calls]
    cursors = []
    try:
        with driver.pipeline():
            for (_, params), each in zip(calls, compiled, strict=True):
                cursors.append(driver.cursor())
                cursors[-1].execute(each.sql, each.parameters(params))
        return [
            [each.row(values) for values in cursor.fetchall()]
            for cursor, each in zip(cursors, compiled, strict=True)
        ]
    finally:
        for cursor in cursors:
            cursor.close()


def _driver(conn: Reads) -> Any:
    if isinstance(conn, Lookup):
        return conn.driver
    driver = conn.connection.driver_connection
    assert driver is not None  # a connection in use has its driver's
    return driver
