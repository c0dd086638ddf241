"""Hidden fortifications (CGS 7.4.4) and the key of the player at the keyboard: sealing a placement with its side's
key, opening the ones that key opens, and the reveals a roll on their hex brings with it. The decisions are in
ledger/decide/fortify.py, the cryptography in ledger/trust/secrets.py; this only joins them to the keyring."""

from __future__ import annotations

from ..errors import BadInput
from ..domain.events import FortificationPlaced, HiddenFortificationPlaced
from ..domain.inforce import live
from ..trust.secrets import new_salt, seal_placement, unseal_placement

PURPOSE = "seals its hidden fortifications"


def seal(keyring, state, rules, fact: FortificationPlaced) -> tuple[str, str]:
    """(salt, sealed text) of a hidden placement, sealed with its side's key."""
    salt = new_salt()
    return salt, seal_placement(keyring.key(state, rules, fact.side, PURPOSE), fact, salt)


def hidden_placements(state, logged, side: str | None = None) -> dict[int, object]:
    """The placements still hidden (sealed, or hidden in the open by a side without a key), by event."""
    return {e.version: e.fact for e in live(logged)
            if isinstance(e.fact, (HiddenFortificationPlaced, FortificationPlaced)) and str(e.version) in state.hidden
            and (side is None or e.fact.side == side)}


def open_placement(keyring, state, rules, made) -> tuple[FortificationPlaced, str]:
    """(the placement as made, the salt of its commitment): a sealed one needs its side's key."""
    if isinstance(made, FortificationPlaced):
        return made, ""
    opened = unseal_placement(keyring.key(state, rules, made.side, PURPOSE), made.sealed)
    return opened.fact, opened.salt


def opened_for(keyring, state, rules, logged, side: str) -> dict[int, FortificationPlaced]:
    """The side's sealed placements, opened with its key (refused, one line, when the key given is not its own)."""
    sealed = {v: f for v, f in hidden_placements(state, logged, side).items() if isinstance(f, HiddenFortificationPlaced)}
    if not sealed or side not in state.keys:
        return {}
    return {v: open_placement(keyring, state, rules, f)[0] for v, f in sealed.items()}


def viewer(keyring, state, rules, side: str | None) -> str | None:
    """Whose view of the map: the side named (its key checked when it has one), else the side whose key was given,
    else nobody's (the public view: hidden fortifications only counted)."""
    if side is not None:
        side = rules.side(side)
        if side in state.keys:
            keyring.key(state, rules, side, PURPOSE)
        return side
    if keyring.material is not None and state.keys:
        return keyring.opens(state)
    return None


def on_entry(keyring, state, rules, logged, side: str, item: str, hexes: tuple[str, ...]) -> list:
    """The hidden `item`s in `hexes` this player can reveal as a roll is made on them (7.4.4: an enemy unit
    entering reveals them): the rolling side's own, opened with its key, and any set up hidden in the open."""
    found = []
    for version, made in hidden_placements(state, logged).items():
        if made.item != item or (isinstance(made, HiddenFortificationPlaced) and made.side != side):
            continue
        try:
            opened, salt = open_placement(keyring, state, rules, made)
        except BadInput:
            continue  # not this player's key: stays hidden (the roll is refused: no such fortification known)
        if opened.hex in hexes:
            found.append((version, made, opened, salt))
    return found
