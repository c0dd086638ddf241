"""CGS terrain as the Campaign Firefights leave it: the fold lives in ledger/domain/terrain.py (the decisions on the map
read it too); this is the read side: what `terrain --json` shows."""

from __future__ import annotations

from typing import Any

from cgledger.ledger.domain.terrain import changed, terrain

__all__ = ["changed", "terrain", "public"]


def public(result: dict[str, Any]) -> dict[str, Any]:
    """The JSON of `terrain`: every hex, the changed ones, the Mouseholes, the fortifications removed, the hidden
    fortifications the viewer may not see (side and item only), and the units In Sewer after each firefight."""
    return {"map": result["map"], "viewer": result["viewer"], "changed": changed(result),
            "hexes": list(result["hexes"].values()), "mouseholes": result["mouseholes"], "removed": result["removed"],
            "hidden": result["hidden"], "sewer": result["sewer"]}
