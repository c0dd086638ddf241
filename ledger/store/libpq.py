"""A minimal, read-only PostgreSQL client over libpq (the C library psycopg itself wraps) through ctypes: connect,
run parameterised queries, close. `import psycopg` costs 110-150 ms on the bench machine, more than a whole `head`
on SQLite; importing ctypes and loading libpq cost 5-8 ms ("PostgreSQL reads within 1.3x SQLite's").

Only what the fast reads need: values are sent as text parameters ($1, $2, ...; never formatted into the SQL) and
results come back in binary, decoded by column type into the values psycopg gives (bytes, int, str, bool, UUID,
None). A server error is a `QueryError`, an unreachable server a `DatabaseError`: one line each, never a ctypes
trace. `connect` returns None when no libpq can be loaded: the caller then uses psycopg. CGLEDGER_LIBPQ, when set,
is the list of candidates to load instead of the default (names or paths, separated by os.pathsep; one that cannot
load, e.g. `none`, means psycopg everywhere).

The protocol itself, its login and its TLS are libpq's, the official client the PostgreSQL project maintains: this
module only binds the few calls a read needs (an earlier client of our own that spoke the wire protocol saved ~5 ms
a read and was retired: a protocol client and its authentication are security-sensitive code; docs/architecture.md).
ctypes is imported only when libpq is loaded."""

from __future__ import annotations

import functools
import os
import re
from _thread import _local  # threading.local, without importing threading in every read
from contextlib import contextmanager
from typing import Iterable, Sequence
from uuid import UUID

from ..errors import DatabaseError
from .pgclient import DECODE as _DECODE, ConnectionLost, QueryError  # noqa: F401 - libpq.ConnectionLost, as ever
from .pgurl import postgres_env, redact

# psycopg_binary's own copy first (the libpq the store's writes go through: psycopg[binary] is this package's
# PostgreSQL dependency; it loads in 2.6-3.7 ms here against 4.3-6 for Debian's libpq5, which links ~23 libraries),
# then libpq by its soname (Debian's libpq5, which PostgreSQL's own packages install)
LIBRARIES = ("libpq.so.5",)
_CONNECTION_OK = 0
_TUPLES_OK, _COMMAND_OK = 2, 1
_DIAG_SQLSTATE, _DIAG_MESSAGE = ord("C"), ord("M")
_BINARY = 1
_loaded: dict[tuple[str, ...], ctypes.CDLL | None] = {}


def bundled() -> list[str]:
    """The libpq psycopg_binary ships (its `psycopg_binary.libs/` folder beside the package), found without
    importing psycopg; [] when psycopg_binary is not installed."""
    from importlib.util import find_spec

    try:
        spec = find_spec("psycopg_binary")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    folder = os.path.join(os.path.dirname(next(iter(spec.submodule_search_locations))), "psycopg_binary.libs")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(os.path.join(folder, n) for n in names if n.startswith("libpq") and ".so" in n)


def load(libraries: Iterable[str] | None = None) -> ctypes.CDLL | None:
    """The first of `libraries` (names or paths; default: psycopg_binary's copy, then libpq.so.5) that loads, its
    functions declared; None when none does. Not ctypes.util.find_library: it runs ldconfig or gcc (slow)."""
    import ctypes

    chosen = os.environ.get("CGLEDGER_LIBPQ")
    key = tuple(libraries) if libraries is not None else \
        tuple(n for n in chosen.split(os.pathsep) if n) if chosen is not None else None
    if key in _loaded:
        return _loaded[key]
    lib = None
    for name in key if key is not None else _default():
        try:
            lib = _declare(ctypes.CDLL(name))
            break
        except (OSError, AttributeError):  # not there, or not a libpq (a function missing)
            continue
    _loaded[key] = lib
    return lib


def _default() -> Iterable[str]:
    yield from bundled()  # found without pathlib's glob or importing psycopg: 0.1 ms
    yield from LIBRARIES


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    import ctypes

    conn, res, text, num = ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
    strings, ints = ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_int)
    for name, restype, argtypes in (
        ("PQconnectdbParams", conn, [strings, strings, num]),
        ("PQstatus", num, [conn]),
        ("PQerrorMessage", text, [conn]),
        ("PQfinish", None, [conn]),
        ("PQexecParams", res, [conn, text, num, ctypes.POINTER(ctypes.c_uint), strings, ints, ints, num]),
        ("PQresultStatus", num, [res]),
        ("PQresultErrorMessage", text, [res]),
        ("PQresultErrorField", text, [res, num]),
        ("PQntuples", num, [res]),
        ("PQnfields", num, [res]),
        ("PQftype", ctypes.c_uint, [res, num]),
        ("PQgetvalue", ctypes.c_void_p, [res, num, num]),
        ("PQgetlength", num, [res, num, num]),
        ("PQgetisnull", num, [res, num, num]),
        ("PQclear", None, [res]),
    ):
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes
    return lib


def _line(message: bytes | None, fallback: str) -> str:
    text = (message or b"").decode("utf-8", "replace").strip()
    return text.splitlines()[0].strip() if text else fallback


class Connection:
    """One libpq connection; `query` runs one parameterised statement and returns its rows as tuples. `env` is the
    store's settings for the URL (ledger/store/database.py `postgres_env`) when given, `url` only names the server in errors."""

    def __init__(self, lib: ctypes.CDLL, url: str, env: dict[str, str] | None = None):
        import ctypes

        self.conn = None
        env = env or postgres_env(url)
        settings = {"host": env["POSTGRES_HOST"], "port": env["POSTGRES_PORT"], "dbname": env["POSTGRES_DBNAME"],
                    "user": env["POSTGRES_USER"], "password": env["POSTGRES_PASSWORD"],
                    "connect_timeout": env["POSTGRES_CONNECT_TIMEOUT"], "client_encoding": "UTF8"}
        keys = (ctypes.c_char_p * (len(settings) + 1))(*(k.encode() for k in settings), None)
        values = (ctypes.c_char_p * (len(settings) + 1))(*(v.encode() for v in settings.values()), None)
        self.lib = lib
        self.conn = lib.PQconnectdbParams(keys, values, 0)
        if not self.conn:
            raise DatabaseError(f"cannot reach {redact(url)}: out of memory")
        if lib.PQstatus(self.conn) != _CONNECTION_OK:
            problem = _line(lib.PQerrorMessage(self.conn), "connection failed")
            self.close()
            raise ConnectionLost(f"cannot reach {redact(url)}: {problem}")

    def query(self, sql: str, params: Sequence[str | int | UUID | None] = ()) -> list[tuple]:
        """The rows of `sql`, whose $1, $2, ... are `params` sent as text (never formatted into the SQL)."""
        return self._run(sql, params, self._rows)

    def blobs(self, sql: str, params: Sequence[str | int | UUID | None] = ()) -> list[bytes | None]:
        """The first column of each row of `sql` as its bytes in binary format (a bytea as stored), undecoded: three
        libpq calls a row instead of five a cell (a whole log's rows packed one value a row: ledger/store/reading.py)."""
        def first(lib, res) -> list[bytes | None]:
            import ctypes

            if lib.PQnfields(res) != 1 or lib.PQftype(res, 0) != 17:
                raise QueryError("blobs reads one bytea column", "")
            value, length, null, string_at = lib.PQgetvalue, lib.PQgetlength, lib.PQgetisnull, ctypes.string_at
            # a value of some length is not NULL: only an empty one is asked whether it is (one call a row fewer)
            return [string_at(value(res, row, 0), size) if (size := length(res, row, 0))
                    else None if null(res, row, 0) else b"" for row in range(lib.PQntuples(res))]

        return self._run(sql, params, first)

    def _rows(self, lib, res) -> list[tuple]:
        import ctypes

        columns = range(lib.PQnfields(res))
        decoders = []
        for column in columns:
            oid = lib.PQftype(res, column)
            if oid not in _DECODE:
                raise QueryError(f"column {column + 1} has a type this reader does not decode (oid {oid})", "")
            decoders.append(_DECODE[oid])
        try:
            return [tuple(None if lib.PQgetisnull(res, row, column)
                          else decoders[column](ctypes.string_at(lib.PQgetvalue(res, row, column),
                                                                 lib.PQgetlength(res, row, column)))
                          for column in columns)
                    for row in range(lib.PQntuples(res))]
        except ValueError as e:  # text that is not UTF-8, a uuid not 16 bytes
            raise QueryError(f"a value could not be read: {e}", "") from None

    def _run(self, sql: str, params, read):
        import ctypes

        lib = self.lib
        if not self.conn:
            raise DatabaseError("the PostgreSQL connection is closed")
        values = (ctypes.c_char_p * max(len(params), 1))(
            *(None if p is None else str(p).encode("utf-8") for p in params))
        res = lib.PQexecParams(self.conn, sql.encode("utf-8"), len(params), None, values, None, None, _BINARY)
        if not res or lib.PQstatus(self.conn) != _CONNECTION_OK:  # the server went away: the connection is done
            said = (lib.PQresultErrorField(res, _DIAG_MESSAGE) or lib.PQresultErrorMessage(res)) if res else None
            problem = _line(said, "") or _line(lib.PQerrorMessage(self.conn), "the connection to the server was lost")
            if res:
                lib.PQclear(res)
            self.close()
            raise ConnectionLost(problem)
        try:
            if lib.PQresultStatus(res) not in (_TUPLES_OK, _COMMAND_OK):
                raise QueryError(_line(lib.PQresultErrorField(res, _DIAG_MESSAGE) or lib.PQresultErrorMessage(res),
                                       "the query failed"),
                                 (lib.PQresultErrorField(res, _DIAG_SQLSTATE) or b"").decode())
            return read(lib, res)
        finally:
            lib.PQclear(res)

    def close(self) -> None:
        if self.conn:
            self.lib.PQfinish(self.conn)
            self.conn = None

    def __del__(self) -> None:  # a dropped connection ends its session, as a collected psycopg pool does
        self.close()

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def connect(url: str, libraries: Iterable[str] | None = None):
    """A connection to the database `url` names (the store's URL: postgresql://USER:PASSWORD@HOST[:PORT]/DBNAME,
    the store's 10 s connect timeout) through libpq; None when libpq cannot be loaded (see `load`). `libraries`, or
    CGLEDGER_LIBPQ, names the libpq to load. An unreachable server or a refused login is a one-line DatabaseError,
    as the store gives it."""
    lib = load(libraries)
    return None if lib is None else Connection(lib, url)


def light(url: str) -> bool:
    """Whether reads of `url` go through libpq (`connect`), not psycopg."""
    return load() is not None


KEPT = 4  # connections kept per thread (a process that reads many databases closes the oldest)
_shared = _local()  # this thread's open read connections: url and libraries -> Connection


def shared(url: str, libraries: Iterable[str] | None = None) -> Connection | None:
    """This thread's read connection to `url`, opened at its first use and kept for the process (a command's reads
    of one database, e.g. `export`'s kept answer and then its rows, pay one new server session, not one each). None
    as `connect` gives it. A connection is never used by two threads."""
    key = (url, None if libraries is None else tuple(libraries))
    kept = getattr(_shared, "connections", None)
    if kept is None:
        kept = _shared.connections = {}
    conn = kept.pop(key, None)
    if conn is not None and conn.conn:
        kept[key] = conn  # the latest used last: the first is the one left longest
        return conn
    conn = connect(url, libraries)
    if conn is not None:
        while len(kept) >= KEPT:
            kept.pop(next(iter(kept))).close()
        kept[key] = conn
    return conn


@contextmanager
def session(db: str, libraries: Iterable[str] | None = None):
    """query(sql, params) -> rows on the database `db`, through libpq or, when no libpq loads,
    psycopg; $1, $2, ... are the parameters. A server error is a QueryError; an unreachable server a one-line
    DatabaseError, as the store gives it. Through libpq, this thread's `shared` connection: one the server has
    dropped since (restarted, the session ended) is a ConnectionLost, said in one line, as a new one that broke
    mid-query is; having closed itself, it is opened again by the next session (the next command)."""
    conn = shared(db, libraries)
    if conn is not None:
        query = functools.partial(conn.query)
        query.blobs = conn.blobs  # `Connection.blobs`, on libpq only
        yield query
        return
    import psycopg

    env = postgres_env(db)
    try:
        pg = psycopg.connect(host=env["POSTGRES_HOST"], port=int(env["POSTGRES_PORT"]), dbname=env["POSTGRES_DBNAME"],
                             user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"], connect_timeout=10)
    except psycopg.Error as e:
        raise DatabaseError(f"cannot reach {redact(db)}: {str(e).strip().splitlines()[0]}") from None

    def query(sql: str, params: tuple = ()) -> list[tuple]:
        try:
            return pg.execute(re.sub(r"\$\d+", "%s", sql), params).fetchall()
        except psycopg.Error as e:
            raise QueryError(str(e).strip().splitlines()[0], e.sqlstate or "") from None

    with pg:
        yield query
