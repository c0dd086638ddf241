"""Nothing vanishes unnoticed. The hash chain cannot tell a log whose last events were deleted
from one that never had them, so each machine keeps, per database and campaign, the last head it has seen, outside
the database: `$XDG_STATE_HOME/cgledger/heads.json` (default `~/.local/state/cgledger`). A log that no longer
extends it lost or changed events since this machine last read it: reads warn, writes are refused, the audit names
it. A copied or shared file does not carry the record, so a copy cannot vouch for itself."""

from __future__ import annotations

from pathlib import Path

from . import machine


def state_file() -> Path:
    return machine.state_dir() / "heads.json"


def _read() -> dict:
    return machine.read_json(state_file())


def last_seen(where: str, cid) -> tuple[int, str] | None:
    entry = _read().get(f"{where}#{cid}")
    if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int) and isinstance(entry[1], str):
        return entry[0], entry[1]
    return None


def remember(where: str, cid, version: int, digest: str) -> None:
    """Keeps the head this machine has now seen (never an older one); a home it cannot write to keeps nothing."""
    if not where or not digest:
        return
    key = f"{where}#{cid}"
    data = _read()
    before = data.get(key)
    if before == [version, digest] or (isinstance(before, list) and before and isinstance(before[0], int)
                                       and before[0] > version):
        return  # never back: another process of this machine may have seen more meanwhile
    data[key] = [version, digest]
    machine.write_json(state_file(), data)


def problem(where: str, cid, version: int, digest_at) -> str | None:
    """What the log lost since this machine last saw it, or None. `version`: the store's last event now;
    `digest_at(v)`: the stored digest of event v."""
    seen = last_seen(where, cid)
    if seen is None:
        return None
    last, digest = seen
    if version < last:
        gone = f"event {last}" if version + 1 == last else f"events {version + 1}-{last}"
        return (f"{gone} of this log, seen on this machine, are gone: the log ends at event {version} (a deleted "
                "event, or an older copy of the file)")
    if digest_at(last) != digest:
        return f"event {last} is not the one this machine saw: the log was changed from there"
    return None


def forget_hint() -> str:
    return f"if you restored an older copy on purpose, remove its line from {state_file()}"
