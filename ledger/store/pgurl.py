"""A PostgreSQL URL: whether a database names one, the settings it gives, and how it is shown (no password). The
floor the store (ledger/store/database.py), the libpq reader (ledger/store/libpq.py) and the head reads (ledger/store/reading.py) share."""

from __future__ import annotations

from ..errors import DatabaseError


def is_postgres(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def postgres_env(url: str) -> dict[str, str]:
    """postgresql://user:password@host:port/dbname -> the eventsourcing PostgreSQL settings."""
    from urllib.parse import unquote, urlparse

    parts = urlparse(url)
    if not parts.hostname or not parts.path.strip("/"):
        raise DatabaseError(f"malformed PostgreSQL URL '{redact(url)}': use postgresql://USER:PASSWORD@HOST[:PORT]/DBNAME")
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": unquote(parts.path.strip("/")),
        "POSTGRES_HOST": parts.hostname,
        "POSTGRES_PORT": str(parts.port or 5432),
        "POSTGRES_USER": unquote(parts.username or ""),
        "POSTGRES_PASSWORD": unquote(parts.password or ""),
        "POSTGRES_CONNECT_TIMEOUT": "10",
    }


def redact(url: str) -> str:
    """A URL fit for an error message: no password."""
    from urllib.parse import urlparse

    parts = urlparse(url)
    return url.replace(f":{parts.password}@", ":***@") if parts.password else url
