"""The `cgledger` command line: a group that only registers commands (one module each)."""

from __future__ import annotations

from .app import main
from . import audit, books, buy, date, exchange, firefight, head, log, mapcmd, new, play, rewind, roll, rules, script, secret, stats, step, tables, undo, vasl  # noqa: F401, E501

__all__ = ["main"]
