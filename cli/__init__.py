"""The `cgledger` command line: a group that only registers commands (one module each)."""

from __future__ import annotations

from .app import main
from . import audit, date, head, log, new, roll, rules, script, tables, undo  # noqa: F401  (registers)

__all__ = ["main"]
