"""CGS fortifications and Mouseholes on the map (7.1-7.6, 6.13.1): placed where their rules allow, set up hidden
(7.4.4) and revealed, removed by the rules that remove them (7.1.2, 7.4.7.2, 7.4.8, 7.5.3, 7.6.3), Mouseholes
(7.3, 6.6.3), and what a roll's result does to the hexes it names (7.4.7.2, 7.3.2). Pure decisions over the state
and the events before them (`log`): the terrain as both sides know it, never a hidden placement's hex."""

from __future__ import annotations

import re

from ..errors import BadInput
from ..domain.events import (
    DiceReported, DiceRolled, FirefightEnded, FortificationPlaced, FortificationRemoved, HiddenFortificationPlaced,
    HiddenFortificationRevealed, LocationControlled, MouseholeMade, RGPurchased, RollDeclared, RubblePlaced,
    SecretRollMade,
)
from ..domain.evolve import CampaignState
from ..rules.hexmap import Hex, parse_location
from ..domain.inforce import live
from ..rules import Rules
from ..rules.schema import Placement, Row, Table
from ..trust.secrets import commitment
from ..domain.terrain import terrain

REVEAL_CAUSES = ("", "entry", "search")


def placement_of(rules: Rules, item: str) -> Placement:
    placement = rules.placements.get(item.lower())
    if placement is None:
        raise BadInput(f"no fortification '{item}' (use {', '.join(rules.placements) or 'none'})")
    return placement


def map_hex(rules: Rules, text: str, rule: str | None) -> Hex:
    """A hex (no level) on a map whose grid is loaded."""
    where = parse_location(text, rules.cite("hex"))
    if where.level:
        raise BadInput(f"{text} is a level: name the hex", rule)
    grid = rules.grid(rules.map_of(where.hex.group))
    if not grid.contains(where.hex):
        raise BadInput(f"{where.hex} is not on the {where.hex.group} map", rule)
    return where.hex


def split_hexside(text: str) -> list[str]:
    """'DTW-P5/P6' (a hexside, as the CGS text writes 'U19/V19') -> ['DTW-P5', 'DTW-P6']; a hex alone -> [it]."""
    left, sep, right = text.strip().partition("/")
    if not sep or not right[:1].isalpha():
        return [text.strip()]
    if not re.match(r"^[A-Z]{2,3}[- ]|^[A-Z][a-z]", right):
        group = parse_location(left).hex.group
        right = f"{group}-{right}"
    return [left, right]


def hexside(rules: Rules, texts: tuple[str, ...], rule: str | None) -> tuple[Hex, Hex]:
    names = [name for text in texts for name in split_hexside(text)]
    if len(names) != 2:
        raise BadInput(f"name the hexside's two hexes (e.g. DTW-P5/P6), not {len(names)}", rule)
    a, b = (map_hex(rules, n, rule) for n in names)
    if a.group != b.group or b not in rules.grid(rules.map_of(a.group)).neighbours(a):
        raise BadInput(f"{a} and {b} are not adjacent: they share no hexside", rule)
    return a, b


def free_rgs(rules: Rules, side: str, placement: Placement, log) -> list[int]:
    """The side's RG purchases of this fortification in force and not placed yet (open or hidden)."""
    in_force = live(log)
    bought = [e.version for e in in_force if isinstance(e.fact, RGPurchased) and e.fact.side == side
              and rules.rgs.get((side, e.fact.rg)) is not None
              and rules.rgs[(side, e.fact.rg)].fortification == placement.id]
    placed = {e.fact.rg for e in in_force if isinstance(e.fact, (FortificationPlaced, HiddenFortificationPlaced))}
    return [v for v in bought if v not in placed]


def placeable(rules: Rules, side: str, log) -> list[Placement]:
    """The fortifications the side may place now, as `place` decides them: bought as an RG and not placed yet, and
    those placed only at the start of a firefight (7.5.1, 7.6.1) while its play has not begun."""
    in_force = live(log)  # undo and rewind left out: what is left reads the same again
    begun = play_begun(in_force) is not None
    return [p for p in rules.placements.values()
            if free_rgs(rules, side, p, in_force) and not (p.at_start and begun)]


# what plays a firefight, as opposed to setting it up (purchases, placements, keys): its first one ends the start
PLAY = (DiceRolled, DiceReported, SecretRollMade, RollDeclared, LocationControlled, MouseholeMade, FortificationRemoved)


def play_begun(log) -> int | None:
    """The event that began the firefight being played (its first roll or change on the map since the last one
    ended), or None while it is still being set up (7.5.1, 7.6.1: 'at the start of the firefight')."""
    begun = None
    for event in live(log):
        if isinstance(event.fact, FirefightEnded):
            begun = None
        elif begun is None and isinstance(event.fact, PLAY):
            begun = event.version
    return begun


def _hidden_allowed(rules: Rules, placement: Placement) -> None:
    if not placement.hidden:
        may = [p.name for p in rules.placements.values() if p.hidden]
        raise BadInput(f"a {placement.name} is not set up hidden (only {', '.join(may) or 'nothing'} may be)",
                       placement.hidden_rule or rules.cite("hidden") or placement.rule)


def _first_free(rules: Rules, side: str, placement: Placement, log) -> int:
    free = free_rgs(rules, side, placement, log)
    if not free:
        raise BadInput(f"the {rules.system.sides[side]} side has no {placement.name} bought and not yet placed: "
                       "buy the RG first", placement.rule)
    return free[0]


def place(state: CampaignState, rules: Rules, item: str, hex_text: str, side: str, hidden: bool,
          log) -> FortificationPlaced:
    """A fortification the side bought as an RG, placed where its placement rules allow (7.1-7.6, 6.13.1)."""
    side = rules.side(side)
    placement = placement_of(rules, item)
    where = parse_location(hex_text, rules.cite("hex"))
    if where.level:
        raise BadInput("fortifications are placed in a hex, not a level", placement.rule)
    if hidden:
        _hidden_allowed(rules, placement)
    if placement.at_start:
        begun = play_begun(log)
        if begun is not None:
            raise BadInput(f"a {placement.name} is placed at the start of a firefight; this one is under way (since "
                           f"event {begun})", placement.at_start)
    rg = _first_free(rules, side, placement, log)
    cell = terrain(log, rules, where.hex.group)["hexes"].get(str(where.hex))
    if cell is None:
        raise BadInput(f"{where.hex} is not on the {where.hex.group} map", placement.rule)
    # Rubble, printed or made by Fire (6.7.2) or a "00" (7.3.2), is Rubble, not a building: 6.7.2 replaces the
    # building hex with a Rubble marker (see fortifications.toml)
    kind = "rubble" if cell["rubble"] else cell["terrain"]
    for forbidden in placement.forbid:
        if forbidden.terrain == kind and (hidden or not forbidden.hidden_only):
            what = f"{'hidden ' if hidden else ''}{placement.name}"
            raise BadInput(f"no {what} in {forbidden.terrain.replace('_', ' ')} ({where.hex})", forbidden.rule)
    if placement.only and kind not in placement.only:
        raise BadInput(f"a {placement.name} goes only in a {' or '.join(t.replace('_', ' ') for t in placement.only)} "
                       f"hex; {where.hex} is {kind.replace('_', ' ')}", placement.only_rule or placement.rule)
    return FortificationPlaced(action=state.next_action, side=side, item=placement.id, hex=str(where.hex),
                               rg=rg, hidden=hidden)


def admit_hidden(state: CampaignState, rules: Rules, side: str, item: str, sealed_with: str, sealed: str,
                 log) -> HiddenFortificationPlaced:
    """What can be decided of a sealed placement before it is revealed: the item may be hidden, the side sealed it
    with its key, and it used the RG the ledger would have used. The hex is re-decided on its reveal."""
    side = rules.side(side)
    placement = placement_of(rules, item)
    _hidden_allowed(rules, placement)
    if side not in state.keys:
        raise BadInput(f"the {rules.system.sides[side]} side has no key to seal its hidden placement with",
                       rules.cite("hidden"))
    return HiddenFortificationPlaced(action=state.next_action, side=side, item=placement.id,
                                     rg=_first_free(rules, side, placement, log), commitment=sealed_with,
                                     sealed=sealed)


def reveal(state: CampaignState, rules: Rules, placed: int, made, opened: FortificationPlaced, salt: str,
           cause: str, search: int, log) -> HiddenFortificationRevealed:
    """7.4.4: a hidden fortification revealed (an enemy unit entered its hex, a Search found it, or its side shows
    it): one still hidden, the placement its commitment binds."""
    rule = rules.cite("hidden")
    if str(placed) not in state.hidden or made is None:
        raise BadInput(f"event {placed} is no hidden fortification still hidden", rule)
    if isinstance(made, HiddenFortificationPlaced):
        if commitment(opened, salt) != made.commitment:
            raise BadInput(f"the placement revealed for event {placed} does not match its commitment: the hex was "
                           "changed", rule)
        if (opened.side, opened.item, opened.rg, opened.action, opened.hidden) != (
                made.side, made.item, made.rg, made.action, True):
            raise BadInput(f"the placement revealed for event {placed} is not the one announced there", rule)
    elif opened != made:
        raise BadInput(f"the placement revealed for event {placed} is not the one recorded there", rule)
    elif salt:  # hidden at one table, in the open log: nothing was sealed, so there is no salt (any field)
        raise BadInput(f"the placement of event {placed} was not sealed: its reveal carries no salt", rule)
    if cause not in REVEAL_CAUSES:
        raise BadInput(f"a hidden fortification is revealed on entry or by a search, not '{cause}'", rule)
    if cause == "search":
        _check_search(rules, opened, placed, search, log)
    elif search:
        raise BadInput("a search roll reveals only with cause 'search'", rule)
    return HiddenFortificationRevealed(action=state.next_action, placed=placed, fact=opened, salt=salt, cause=cause,
                                       search=search)


def _check_search(rules: Rules, opened: FortificationPlaced, placed: int, search: int, log) -> None:
    rule = rules.cite("search")
    roll = next((e for e in live(log) if e.version == search), None)
    table = rules.tables.get(roll.fact.table) if roll is not None and isinstance(roll.fact, DiceRolled) else None
    if table is None or table.effect != "search":
        raise BadInput(f"event {search} is no search roll in force", rule)
    if roll.fact.side == opened.side or search < placed:
        raise BadInput(f"the search of event {search} is not the other side's, made after the placement", rule)


def remove(state: CampaignState, rules: Rules, item: str, hex_text: str, by: str, side: str | None,
           log) -> FortificationRemoved:
    """A placed fortification leaves the map by a rule that removes it (its placement data's `remove`)."""
    placement = placement_of(rules, item)
    if not placement.remove:
        raise BadInput(f"no rule removes a {placement.name}", placement.keep_rule or placement.rule)
    how = next((r for r in placement.remove if r.by == by), None)
    if how is None:
        ways = " or ".join(f"{r.by} ({r.rule})" for r in placement.remove)
        raise BadInput(f"a {placement.name} is removed by {ways}, not by {by}", placement.remove[0].rule)
    where = map_hex(rules, hex_text, how.rule)
    owner = rules.side(side) if side else None
    cell = terrain(log, rules, where.group)["hexes"][str(where)]
    entry = next((f for f in cell["fortifications"] if f["item"] == placement.id
                  and (owner is None or f["side"] == owner)), None)
    if entry is None:
        hint = ("; a hidden one is revealed by its side first (`cgledger reveal EVENT`)"
                if any(h["item"] == placement.id for h in state.hidden.values()) else "")
        raise BadInput(f"no {placement.name} known in {where}{hint}", how.rule)
    return FortificationRemoved(action=state.next_action, side=entry["side"], item=placement.id, hex=str(where),
                                placed=entry["event"], by=by, rule=how.rule)


def check_wall(rules: Rules, cells: dict, a: Hex, b: Hex, rule: str | None) -> None:
    """7.3.1: a Mousehole is blown into an interior Factory wall; 6.6.3: or between Cellar hexes (multi-hex
    non-Factory buildings, 6.6.1). Read on the printed terrain (Factory walls remain in Rubble, 6.7.2)."""
    kinds = (cells[str(a)]["terrain"], cells[str(b)]["terrain"])
    if kinds not in (("factory", "factory"), ("building", "building")):
        raise BadInput(f"a Mousehole is blown in an interior Factory wall or between Cellar hexes; {a} is "
                       f"{kinds[0].replace('_', ' ')}, {b} {kinds[1].replace('_', ' ')}", rule)


def _existing(view: dict, a: Hex, b: Hex) -> dict | None:
    return next((m for m in view["mouseholes"] if set(m["hexes"]) == {str(a), str(b)}), None)


def mousehole(state: CampaignState, rules: Rules, texts: tuple[str, ...], side: str, roll: int, log) -> MouseholeMade:
    """7.3: a side's DC SW Team blew a Mousehole (an E/C/M+ on the FFT's 100 FF column, 7.3.2)."""
    side = rules.side(side)
    rule = rules.cite("mousehole")
    a, b = hexside(rules, texts, rule)
    view = terrain(log, rules, a.group)
    check_wall(rules, view["hexes"], a, b, rule)
    there = _existing(view, a, b)
    if there is not None:
        raise BadInput(f"a Mousehole is already blown across {a}/{b} (event {there['event']})", rule)
    if roll:
        event = next((e for e in live(log) if e.version == roll), None)
        table = rules.tables.get(event.fact.table) if event is not None and isinstance(event.fact, DiceRolled) else None
        if table is None or table.map is None or not table.map.wall or event.fact.side != side:
            raise BadInput(f"event {roll} is no Mousehole attempt of the {rules.system.sides[side]} side in force",
                           rule)
        if event.fact.hexes and set(event.fact.hexes) != {str(a), str(b)}:
            raise BadInput(f"the attempt of event {roll} was made across {'/'.join(event.fact.hexes)}", rule)
    return MouseholeMade(action=state.next_action, side=side, hexes=(str(a), str(b)), rule=rule or "", roll=roll)


# ---- a roll made for hexes ------------------------------------------------------------------------------------
_HEX_TEXT = re.compile(r"\b[A-Z]{2,3}[- ][A-Z]{1,3}\d{1,3}(?:/(?:[A-Z]{2,3}[- ])?[A-Z]{1,3}\d{1,3})?\b")


def roll_hexes(rules: Rules, table: Table, given: tuple[str, ...], purpose: str) -> tuple[str, ...]:
    """The hexes a roll is made for: `--hex` (a hex, or a hexside 'DTW-P5/P6'), else those its `--for` names
    (only for a table whose results change the map)."""
    if table.map is None:
        if given:
            raise BadInput(f"a roll on {table.id} is made for no hex: --hex does not apply", table.rule)
        return ()
    groups = {g.id for g in rules.system.map_groups}
    texts = given or tuple(t for t in _HEX_TEXT.findall(purpose) if re.split(r"[- ]", t)[0] in groups)
    return tuple(str(parse_location(n, rules.cite("hex")).hex) for t in texts for n in split_hexside(t))


def row_of(table: Table, fact: DiceRolled) -> Row | None:
    looked_up = fact.original if table.on == "original" else fact.final
    return next((row for row in table.rows if row.covers(looked_up)), None)


def roll_effects(state: CampaignState, rules: Rules, fact: DiceRolled, log) -> list:
    """The hexes a roll names must be what its table is made for (7.4.7: a hex holding mines both sides know of;
    7.3.2: a hexside a Mousehole may be blown across); its result's row says what it does to them: the facts
    recorded with the roll, in its action."""
    if not fact.hexes:
        return []
    table = rules.table(fact.table)
    spec = table.map
    if spec is None:
        raise BadInput(f"a roll on {table.id} is made for no hex", table.rule)
    hexes = [map_hex(rules, h, spec.rule) for h in fact.hexes]
    if len(hexes) != spec.hexes:
        what = "the two hexes of a hexside" if spec.hexside else f"{spec.hexes} hex" + ("es" if spec.hexes > 1 else "")
        raise BadInput(f"a roll on {table.id} is made for {what}; {len(hexes)} named ({', '.join(fact.hexes)})",
                       spec.rule)
    if spec.hexside:
        hexes = list(hexside(rules, tuple(str(h) for h in hexes), spec.rule))
    view = terrain(log, rules, hexes[0].group)
    cells = view["hexes"]
    _check_holds(state, rules, spec, hexes, cells)
    row = row_of(table, fact)
    if row is None:
        return []
    return _row_effects(fact, row, row.rule or spec.rule, hexes, view)


def _check_holds(state: CampaignState, rules: Rules, spec, hexes: list, cells: dict) -> None:
    """Each hex holds what the table is made for (7.4.7: mines both sides know of); a hexside, a wall a Mousehole
    may be blown across (7.3.2)."""
    if spec.holds:
        name = placement_of(rules, spec.holds).name if spec.holds in rules.placements else spec.holds
        for h in hexes:
            if not any(f["item"] == spec.holds for f in cells[str(h)]["fortifications"]):
                hint = ("; hidden ones are revealed by their side first, as the enemy unit enters (`cgledger reveal "
                        "EVENT --entered`)" if any(v["item"] == spec.holds for v in state.hidden.values()) else "")
                raise BadInput(f"no {name} known in {h}{hint}", spec.rule)
    if spec.wall:
        check_wall(rules, cells, hexes[0], hexes[1], rules.cite("mousehole") or spec.rule)


def _row_effects(fact: DiceRolled, row, rule: str, hexes: list, view: dict) -> list:
    """What the result's row does to the hexes: fortifications removed, a Mousehole made, Rubble placed."""
    cells = view["hexes"]
    facts: list = []
    for item in row.removes:
        for h in hexes:
            for entry in cells[str(h)]["fortifications"]:
                if entry["item"] == item:
                    facts.append(FortificationRemoved(action=fact.action, side=entry["side"], item=item, hex=str(h),
                                                      placed=entry["event"], by="roll", rule=rule))
    if row.mousehole and _existing(view, hexes[0], hexes[1]) is None:
        facts.append(MouseholeMade(action=fact.action, side=fact.side, hexes=tuple(str(h) for h in hexes), rule=rule))
    if row.rubble:
        facts.append(RubblePlaced(action=fact.action, hexes=tuple(str(h) for h in hexes), rule=rule))
    return facts
