"""One stored event as read back from the store, for the log, the audit, import and the projections."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .events import Fact


@dataclass(frozen=True)
class Logged:
    """One stored event as read back for log and audit (fact is None if it cannot be read)."""

    version: int
    timestamp: datetime | None
    prev: str
    digest: str
    topic: str
    fact: Fact | None
    error: str = ""
