"""The PostgreSQL reads' first client: PostgreSQL's frontend/backend protocol (3.0) spoken over a TCP socket to a
server on this machine, with CPython's `_socket` alone. No ctypes to import and no libpq to load: ~5 ms of every
PostgreSQL read's start (issue 24: "PostgreSQL reads within 1.3x SQLite's"). Read-only, as ledger/libpq.py's
`Connection` is: parameterised queries, the parameters sent as text, the results in binary, decoded as libpq.py
decodes them. The same errors too (`QueryError` with its SQLSTATE; `ConnectionLost` when the server goes away).

It is used only where it can act as libpq does:
- the server is on this machine (127.0.0.1, ::1 or localhost): on loopback TLS protects nothing;
- no PG* environment variable is set (libpq reads them: PGSSLMODE, PGOPTIONS, a service or password file, ...);
- the login is one of trust, password, MD5 or SCRAM-SHA-256 without channel binding.

Anything else is `Unsupported`, and so is any failure to connect or log in: libpq then connects, and says in its own
words what is wrong. A SCRAM server that cannot prove it knows the password is refused the same way."""

from __future__ import annotations

import _socket
import os
from struct import Struct

from .errors import DatabaseError
from .pgclient import DECODE, ConnectionLost, QueryError

_LOOPBACK = {"127.0.0.1": ((_socket.AF_INET, "127.0.0.1"),), "::1": ((_socket.AF_INET6, "::1"),),
             "localhost": ((_socket.AF_INET, "127.0.0.1"), (_socket.AF_INET6, "::1"))}
_PROTOCOL = 196608  # 3.0
_INT = Struct("!i")
_ROW = Struct("!ihi")  # a DataRow's length, its column count and its first column's length
_READ = 1 << 18  # bytes asked of the socket at a time

# message types, as the server sends them
_AUTH, _ERROR, _READY, _DESCRIPTION, _DATA = ord("R"), ord("E"), ord("Z"), ord("T"), ord("D")


class Unsupported(Exception):
    """Not for this client: libpq connects instead (and says what is wrong, if anything is)."""


def suits(env: dict[str, str]) -> bool:
    """Whether this client may read the database of these store settings (ledger/pgurl.postgres_env)."""
    return env["POSTGRES_HOST"] in _LOOPBACK and not any(key.startswith("PG") for key in os.environ)


def _message(kind: bytes, body: bytes) -> bytes:
    return kind + _INT.pack(len(body) + 4) + body


def _fields(body: bytes | memoryview) -> dict[str, str]:
    """An ErrorResponse's fields by their one-letter code (S severity, C SQLSTATE, M message)."""
    out = {}
    for part in bytes(body).split(b"\0"):
        if part:
            out[chr(part[0])] = part[1:].decode("utf-8", "replace")
    return out


def _line(text: str, fallback: str) -> str:
    lines = text.strip().splitlines()
    return lines[0].strip() if lines else fallback


class Connection:
    """One session with the server (ledger/libpq.py `Connection`'s interface: query, blobs, close, `conn` while
    open). `url` only names the server in errors."""

    def __init__(self, url: str, env: dict[str, str]):
        self.url, self.conn = url, None
        self._buf = bytearray()
        sock = None
        for family, address in _LOOPBACK.get(env["POSTGRES_HOST"], ()):
            try:
                sock = _socket.socket(family, _socket.SOCK_STREAM)
                sock.settimeout(float(env["POSTGRES_CONNECT_TIMEOUT"]))
                sock.connect((address, int(env["POSTGRES_PORT"])))
                break
            except OSError:
                if sock is not None:
                    sock.close()
                sock = None
        if sock is None:
            raise Unsupported("no server answers on this machine")
        self.conn = sock
        try:
            sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
            self._login(env["POSTGRES_USER"], env["POSTGRES_PASSWORD"], env["POSTGRES_DBNAME"])
            sock.settimeout(None)
        except Exception as e:  # noqa: BLE001 - whatever went wrong, libpq connects and says it in its words
            self.close()
            raise Unsupported(str(e)) from None

    # ---- the login
    def _login(self, user: str, password: str, dbname: str) -> None:
        """The startup message, the login the server asks for, then its settings up to ReadyForQuery."""
        start = _INT.pack(_PROTOCOL) + b"".join(k + b"\0" + v.encode("utf-8") + b"\0" for k, v in (
            (b"user", user), (b"database", dbname), (b"client_encoding", "UTF8"))) + b"\0"
        self._send(_INT.pack(len(start) + 4) + start)
        scram = None
        while True:
            kind, body = self._next()
            if kind == _READY:
                return
            if kind == _ERROR:
                raise Unsupported(_fields(body).get("M", "refused"))
            if kind != _AUTH:
                continue  # the server's settings (S), its key for cancels (K), a notice (N)
            code = _INT.unpack_from(body)[0]
            if code == 0:  # logged in: after SCRAM, only once the server has proved it knows the password
                if scram is not None and not scram.proved:
                    raise Unsupported("the server did not prove that it knows the password")
                continue
            if not password:
                raise Unsupported("a password is asked and none given (libpq reads a password file)")
            if code == 3:  # the password itself (loopback)
                self._send(_message(b"p", password.encode("utf-8") + b"\0"))
            elif code == 5:  # MD5, with the server's 4-byte salt
                from _md5 import md5

                inner = md5(password.encode("utf-8") + user.encode("utf-8")).hexdigest().encode()
                self._send(_message(b"p", b"md5" + md5(inner + bytes(body[4:8])).hexdigest().encode() + b"\0"))
            elif code == 10:  # SASL: the mechanisms offered
                if b"SCRAM-SHA-256" not in bytes(body[4:]).split(b"\0"):
                    raise Unsupported("the server asks for a SASL mechanism other than SCRAM-SHA-256")
                scram = _Scram(password)
                first = scram.first()
                self._send(_message(b"p", b"SCRAM-SHA-256\0" + _INT.pack(len(first)) + first))
            elif code == 11 and scram is not None:  # SASL continue: the server's nonce, salt and iterations
                self._send(_message(b"p", scram.final(bytes(body[4:]))))
            elif code == 12 and scram is not None:  # SASL final: the server's proof that it knows the password
                scram.verify(bytes(body[4:]))
            else:
                raise Unsupported(f"the server asks for a login this client does not speak ({code})")

    # ---- the wire
    def _send(self, data: bytes) -> None:
        if self.conn is None:
            raise DatabaseError("the PostgreSQL connection is closed")
        try:
            self.conn.sendall(data)
        except OSError as e:
            self.close()
            raise ConnectionLost(f"the connection to the server was lost ({e.strerror or e})") from None

    def _fill(self) -> None:
        """More bytes from the server into the buffer; a closed connection is lost (said by its last FATAL, if any)."""
        try:
            chunk = self.conn.recv(_READ) if self.conn is not None else b""
        except OSError:
            chunk = b""
        if not chunk:
            said = self._fatal()
            self.close()
            raise ConnectionLost(said or "the connection to the server was lost")
        self._buf += chunk

    def _fatal(self) -> str:
        """The message of the last whole ErrorResponse in the buffer (the server's last word), else ""."""
        buf, pos, said = self._buf, 0, ""
        while pos + 5 <= len(buf):
            end = pos + 1 + _INT.unpack_from(buf, pos + 1)[0]
            if end > len(buf):
                break
            if buf[pos] == _ERROR:
                said = _line(_fields(buf[pos + 5:end]).get("M", ""), "")
            pos = end
        return said

    def _next(self) -> tuple[int, bytes]:
        """The next whole message: (its type, its body)."""
        buf = self._buf
        while len(buf) < 5 or len(buf) < 1 + _INT.unpack_from(buf, 1)[0]:
            self._fill()
            buf = self._buf
        end = 1 + _INT.unpack_from(buf, 1)[0]
        kind, body = buf[0], bytes(buf[5:end])
        del buf[:end]
        return kind, body

    def _exchange(self, sql: str, params) -> int:
        """Runs one statement (Parse, Bind with text parameters and binary results, Describe, Execute, Sync) and reads
        the server's messages up to its ReadyForQuery into the buffer: their end in it."""
        values = [None if p is None else str(p).encode("utf-8") for p in params]
        bind = b"\0\0\0\0" + len(values).to_bytes(2, "big") + b"".join(
            b"\xff\xff\xff\xff" if v is None else _INT.pack(len(v)) + v for v in values) + b"\0\1\0\1"
        self._send(_message(b"P", b"\0" + sql.encode("utf-8") + b"\0\0\0") + _message(b"B", bind)
                   + _message(b"D", b"P\0") + _message(b"E", b"\0\0\0\0\0") + _message(b"S", b""))
        pos, unpack = 0, _INT.unpack_from
        while True:  # only each message's header is looked at here: the rows are read once all are in
            buf = self._buf
            size = len(buf)
            while pos + 5 <= size:
                end = pos + 1 + unpack(buf, pos + 1)[0]
                if end > size:
                    break
                if buf[pos] == _READY:
                    return end
                pos = end
            self._fill()

    def _run(self, sql: str, params, first_only: bool) -> tuple[list[int], list]:
        """(the result's column types, its rows: tuples of raw values, or with `first_only` each row's first value)."""
        end = self._exchange(sql, params)
        buf = self._buf
        view = memoryview(buf)
        oids: list[int] = []
        rows: list = []
        error = None
        append, row_head, unpack = rows.append, _ROW.unpack_from, _INT.unpack_from
        try:
            pos = 0
            while pos < end:
                kind = buf[pos]
                size, count, length = row_head(buf, pos + 1) if kind == _DATA else (unpack(buf, pos + 1)[0], 0, 0)
                if kind == _DATA:
                    if first_only:
                        append(None if length < 0 else view[pos + 11:pos + 11 + length].tobytes())
                    else:
                        append(_cells(view, pos + 7, count))
                elif kind == _DESCRIPTION:
                    oids = _types(view, pos + 5)
                elif kind == _ERROR:
                    error = _fields(view[pos + 5:pos + 1 + size])
                pos += 1 + size
        finally:
            view.release()
            if len(buf) == end:
                self._buf = bytearray()  # a whole log's result is not held for the rest of the session
            else:
                del buf[:end]
        if error is not None:
            if error.get("S") in ("FATAL", "PANIC"):
                self.close()
                raise ConnectionLost(_line(error.get("M", ""), "the connection to the server was lost"))
            raise QueryError(_line(error.get("M", ""), "the query failed"), error.get("C", ""))
        return oids, rows

    # ---- libpq.Connection's interface
    def query(self, sql: str, params=()) -> list[tuple]:
        """The rows of `sql`, whose $1, $2, ... are `params` sent as text (never formatted into the SQL)."""
        oids, rows = self._run(sql, params, False)
        decoders = []
        for column, oid in enumerate(oids):
            if oid not in DECODE:
                raise QueryError(f"column {column + 1} has a type this reader does not decode (oid {oid})", "")
            decoders.append(DECODE[oid])
        try:
            return [tuple(None if value is None else decode(value) for decode, value in zip(decoders, row))
                    for row in rows]
        except ValueError as e:  # text that is not UTF-8, a uuid not 16 bytes
            raise QueryError(f"a value could not be read: {e}", "") from None

    def blobs(self, sql: str, params=()) -> list[bytes | None]:
        """The first column of each row of `sql` as its bytes in binary format (a bytea as stored), undecoded."""
        oids, rows = self._run(sql, params, True)
        if oids != [17]:
            raise QueryError("blobs reads one bytea column", "")
        return rows

    def close(self, terminate: bytes = b"X\0\0\0\4") -> None:
        """Terminate (the server ends the session at once), then the socket closed. Bound as a default: `__del__` may
        run at the interpreter's exit, after this module's globals are gone."""
        if self.conn is not None:
            try:
                self.conn.sendall(terminate)
            except OSError:
                pass
            self.conn.close()
            self.conn = None

    def __del__(self) -> None:
        self.close()

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _cells(view: memoryview, pos: int, count: int) -> tuple:
    """A DataRow's `count` values from `pos`, each its bytes (None for NULL)."""
    out = []
    unpack = _INT.unpack_from
    for _ in range(count):
        length = unpack(view, pos)[0]
        pos += 4
        if length < 0:
            out.append(None)
        else:
            out.append(view[pos:pos + length].tobytes())
            pos += length
    return tuple(out)


def _types(view: memoryview, pos: int) -> list[int]:
    """The column types (pg_type oids) of a RowDescription whose body starts at `pos`."""
    count = int.from_bytes(view[pos:pos + 2], "big")
    pos += 2
    oids = []
    for _ in range(count):
        pos = view.obj.index(0, pos) + 1  # the column's name, then table oid (4), column number (2), type oid (4)
        oids.append(_INT.unpack_from(view, pos + 6)[0] & 0xFFFFFFFF)
        pos += 18  # ... type size (2), modifier (4), format (2)
    return oids


class _Scram:
    """SCRAM-SHA-256 (RFC 5802, RFC 7677), as PostgreSQL speaks it: no channel binding, the user named in the
    startup message (the SASL user name left empty, as libpq leaves it)."""

    def __init__(self, password: str):
        if not password.isascii():
            raise Unsupported("a password that SASLprep may change: libpq prepares it")
        from binascii import b2a_base64

        self.password = password.encode()
        self.nonce = b2a_base64(os.urandom(18), newline=False)
        self.bare = b"n=,r=" + self.nonce
        self.server_key = self.auth = b""
        self.proved = False

    def first(self) -> bytes:
        return b"n,," + self.bare

    def final(self, server_first: bytes) -> bytes:
        from binascii import a2b_base64, b2a_base64
        from hashlib import pbkdf2_hmac

        from .sha import hmac_sha256, sha256

        parts = dict(item.split(b"=", 1) for item in server_first.split(b","))
        nonce, salt, rounds = parts[b"r"], a2b_base64(parts[b"s"]), int(parts[b"i"])
        if not nonce.startswith(self.nonce) or not 0 < rounds <= 1 << 20:
            raise Unsupported("the server's SCRAM challenge does not follow this client's")
        salted = pbkdf2_hmac("sha256", self.password, salt, rounds)
        client_key = hmac_sha256(salted, b"Client Key")
        without_proof = b"c=biws,r=" + nonce  # biws: "n,," (no channel binding)
        self.auth = self.bare + b"," + server_first + b"," + without_proof
        signature = hmac_sha256(sha256(client_key).digest(), self.auth)
        proof = bytes(a ^ b for a, b in zip(client_key, signature))
        self.server_key = hmac_sha256(salted, b"Server Key")
        return without_proof + b",p=" + b2a_base64(proof, newline=False)

    def verify(self, server_final: bytes) -> None:
        from binascii import a2b_base64

        from .sha import hmac_sha256, same

        if not (self.auth and server_final.startswith(b"v=") and
                same(a2b_base64(server_final[2:]), hmac_sha256(self.server_key, self.auth))):
            raise Unsupported("the server did not prove that it knows the password")
        self.proved = True
