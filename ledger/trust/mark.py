"""Verify once. Each machine keeps, per database and campaign, the last event up to which it has
checked every event's digest, chain, author and signature: `$XDG_STATE_HOME/cgledger/verified.json` (default
`~/.local/state/cgledger`), each entry sealed with this machine's secret (ledger/trust/machine.py), so a copied or shared
file carries no mark and a mark from another machine, or one edited by hand, is not trusted. A load checks only the
events past the mark (ledger/store/loading.py), and the mark holds only while the log still has event N with digest D:
a log that does not extend it is checked again from its first event. `audit` still checks everything;
`audit --fast` trusts the mark."""

from __future__ import annotations

from . import machine


def mark_file():
    return machine.state_dir() / "verified.json"


def _seal(where: str, key: str, version: int, digest: str) -> str | None:
    return machine.seal("verified", where, key, version, digest)


def kept(where: str) -> bool:
    """Whether this machine keeps marks for this database (a named database and a secret of its own)."""
    return bool(where) and machine.secret() is not None


def read(where: str, key: str) -> tuple[int, str]:
    """(N, digest of event N) this machine verified up to; (0, "") when it has no mark it can trust."""
    entry = machine.read_json(mark_file()).get(f"{where}#{key}")
    if isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], int) and entry[0] > 0 \
            and isinstance(entry[1], str) and machine.sealed(entry[2], "verified", where, key, entry[0], entry[1]):
        return entry[0], entry[1]
    return 0, ""


def advance(where: str, key: str, version: int, digest: str) -> None:
    """Keeps the new mark (replacing a lower one, or one that the log no longer extends: the caller checked the log
    up to `version` from there). A home it cannot write to keeps nothing: every event is checked again, as before."""
    if not kept(where) or not digest or version <= 0:
        return
    name = f"{where}#{key}"
    data = machine.read_json(mark_file())
    seal = _seal(where, key, version, digest)
    if data.get(name) == [version, digest, seal]:
        return
    data[name] = [version, digest, seal]
    machine.write_json(mark_file(), data)
