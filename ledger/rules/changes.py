"""What a player's rules file changes against the rules in force: the words a proposal shows the other side before
he accepts it (a table replaced row by row, an RG chart line field by field), so that no shipped table is replaced
unseen behind a file's name."""

from __future__ import annotations

from typing import Any

import msgspec


def described(system: str, overrides: tuple[tuple[str, str], ...], source: str, text: str) -> list[str]:
    """One line per table, RG, fortification or map the file defines: new, the same as in force, or what changes."""
    from . import decode_tables, load

    before, after = load(system, overrides), load(system, (*overrides, (source, text)))
    decoded = decode_tables(text, source, system)
    out = []
    for table in decoded.table:
        out.append(_table(table.id, before.tables.get(table.id), after.tables[table.id]))
    for rg in decoded.rg:
        key = (rg.side, rg.id)
        out.append(_fields(f"RG {rg.id} ({before.system.sides.get(rg.side, rg.side)})", before.rgs.get(key),
                           after.rgs[key]))
    for fort in decoded.fortification:
        out.append(_fields(f"fortification {fort.id}", before.fortifications.get(fort.id),
                           after.fortifications[fort.id]))
    out += [f"map {m.group}: {'replaced' if m.group in before.maps else 'new'}" for m in decoded.map]
    return out


def _rows(table) -> list[str]:
    return [_range(r.min, r.max) + f" {r.result}" for r in table.rows]


def _range(low: int | None, high: int | None) -> str:
    if low is None:
        return f"≤{high}"
    if high is None:
        return f"≥{low}"
    return str(low) if low == high else f"{low}-{high}"


def _table(table_id: str, old, new) -> str:
    if old is None:
        return f"table {table_id}: new"
    gone = [r for r in _rows(old) if r not in _rows(new)]
    came = [r for r in _rows(new) if r not in _rows(old)]
    said = [f"rows {'; '.join(gone) or 'none'} become {'; '.join(came) or 'none'}"] if gone or came else []
    said += [f"its {name} change" for name in ("drm", "die", "step", "per", "when")
             if _plain(getattr(old, name, None)) != _plain(getattr(new, name, None))]
    return f"table {table_id} in force replaced: " + (", ".join(said) if said else "the same as before")


def _fields(what: str, old, new) -> str:
    if old is None:
        return f"{what}: new"
    before, after = _plain(old), _plain(new)
    changed = [f"{name} {_short(before.get(name))} → {_short(after.get(name))}" for name in after
               if name not in ("note", "rule", "source") and before.get(name) != after.get(name)]
    return f"{what} in force replaced: " + (", ".join(changed) if changed else "the same as before")


def _plain(value: Any) -> Any:
    return msgspec.to_builtins(value) if value is not None else None


def _short(value: Any) -> str:
    text = "none" if value is None else str(value)
    return text if len(text) <= 40 else text[:39] + "…"
