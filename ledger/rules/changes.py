"""What a player's rules file changes against the rules in force: the words a proposal shows the other side before
he accepts it. Every entry the file defines is compared whole, field by field (a table's rows one by one, with their
codes and the flags they set), so that nothing in force is replaced unseen behind a file's name."""

from __future__ import annotations

from typing import Any

import msgspec


def described(system: str, overrides: tuple[tuple[str, str], ...], source: str, text: str) -> list[str]:
    """One line per table, chart, RG, fortification, placement, map, missing table or CG's Victory Conditions the
    file defines: new, the same as in force, or each field it changes."""
    from . import decode_tables, load

    before, after = load(system, overrides), load(system, (*overrides, (source, text)))
    decoded = decode_tables(text, source, system)
    sides = before.system.sides
    entries = [(f"table {t.id}", before.tables.get(t.id), after.tables.get(t.id)) for t in decoded.table]
    entries += [(f"chart {c.id}", before.charts.get(c.id), after.charts.get(c.id)) for c in decoded.chart]
    entries += [(f"RG {r.id} ({sides.get(r.side, r.side)})", before.rgs.get((r.side, r.id)),
                 after.rgs.get((r.side, r.id))) for r in decoded.rg]
    entries += [(f"fortification {f.id}", before.fortifications.get(f.id), after.fortifications.get(f.id))
                for f in decoded.fortification]
    entries += [(f"placement {p.id}", before.placements.get(p.id), after.placements.get(p.id))
                for p in decoded.placement]
    entries += [(f"map {m.group}", before.maps.get(m.group), after.maps.get(m.group)) for m in decoded.map]
    entries += [(f"missing table {m.id}", before.missing.get(m.id), after.missing.get(m.id)) for m in decoded.missing]
    entries += [(f"victory conditions of CG {cg}", before.victory.get(cg), after.victory.get(cg))
                for cg in dict.fromkeys(v.cg for v in decoded.victory)]
    return [_entry(what, old, new) for what, old, new in entries]


def _entry(what: str, old, new) -> str:
    if old is None:
        return f"{what}: new"
    before, after = _plain(old), _plain(new)
    if isinstance(before, dict) and isinstance(after, dict):  # a note is the reading's words, no rule: left out
        before, after = ({k: v for k, v in d.items() if k != "note"} for d in (before, after))
    if before == after:
        return f"{what}: the same as in force"
    if isinstance(before, dict) and isinstance(after, dict):
        said = [_field(name, before.get(name), after.get(name)) for name in dict.fromkeys([*before, *after])
                if before.get(name) != after.get(name)]
    else:
        said = [f"{_item(before)} → {_item(after)}"]
    return f"{what} in force replaced: " + "; ".join(said)


def _field(name: str, old: Any, new: Any) -> str:
    """A field that differs: a list item by item (the items that go and those that come, a table's rows as the
    table reads), a dict key by key, anything else whole. A changed value is never cut short."""
    if isinstance(old, list) and isinstance(new, list):
        shown = _row if name == "rows" else _item
        gone = [shown(r) for r in old if r not in new]
        came = [shown(r) for r in new if r not in old]
        return f"{name} {', '.join(gone) or 'none'} become {', '.join(came) or 'none'}"
    if isinstance(old, dict) and isinstance(new, dict):
        return "; ".join(_field(f"{name}.{k}", old.get(k), new.get(k)) for k in dict.fromkeys([*old, *new])
                         if old.get(k) != new.get(k))
    return f"{name} {_item(old)} → {_item(new)}"


def _row(row: dict) -> str:
    low, high = row.get("min"), row.get("max")
    span = f"≤{high}" if low is None else f"≥{low}" if high is None else str(low) if low == high else f"{low}-{high}"
    extra = [f"{k} {_item(v)}" for k, v in row.items() if k not in ("min", "max", "result", "code", "note")
             and v not in ("", [], None, False)]
    return f"{span} {row['result']}" + (f" [{row['code']}]" if row.get("code") else "") + \
        (f" ({', '.join(extra)})" if extra else "")


def _plain(value: Any) -> Any:
    return msgspec.to_builtins(value) if value is not None else None


def _item(value: Any) -> str:
    """A value whole, dicts as 'key value' pairs (defaults left out), in the file's words."""
    if value in (None, "", [], {}):
        return "not given"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} {_item(v)}" for k, v in value.items() if v not in ("", [], {}, None)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_item(v) for v in value) + "]"
    return str(value)
