"""What the PostgreSQL read client (ledger/store/libpq.py) gives: its two errors, and the values of a binary result by
column type, as psycopg gives them."""

from __future__ import annotations

from uuid import UUID

from ..errors import DatabaseError


class ConnectionLost(DatabaseError):
    """The server could not be reached, or the connection broke mid-query (a server stopped or restarted, a session
    terminated): one line. ledger/store/database.py `lost_connection` recognises it as it recognises psycopg's."""


class QueryError(DatabaseError):
    """The server refused a query (a missing table, a bad parameter): one line, with its SQLSTATE code."""

    def __init__(self, message: str, sqlstate: str):
        self.sqlstate = sqlstate
        super().__init__(message)


# Binary results by column type (PostgreSQL's pg_type oids): the values psycopg returns for the same columns
DECODE = {
    16: lambda b: b == b"\x01",                              # bool
    17: bytes,                                               # bytea
    18: lambda b: b.decode("utf-8"),                         # "char"
    19: lambda b: b.decode("utf-8"),                         # name
    20: lambda b: int.from_bytes(b, "big", signed=True),     # int8
    21: lambda b: int.from_bytes(b, "big", signed=True),     # int2
    23: lambda b: int.from_bytes(b, "big", signed=True),     # int4
    25: lambda b: b.decode("utf-8"),                         # text
    26: lambda b: int.from_bytes(b, "big", signed=False),    # oid
    1042: lambda b: b.decode("utf-8"),                       # char(n)
    1043: lambda b: b.decode("utf-8"),                       # varchar
    2950: lambda b: UUID(bytes=b),                           # uuid
}
