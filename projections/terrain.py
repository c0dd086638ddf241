"""CGS terrain as the Campaign Firefights leave it: the fold lives in ledger/terrain.py (placing a
fortification decides on it too); this is the read side."""

from __future__ import annotations

from ledger.terrain import changed, terrain

__all__ = ["changed", "terrain"]
