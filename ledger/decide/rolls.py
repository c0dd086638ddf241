"""Rolls: what is due (tables declare it as data: `per`, `per_rule`, `after`, an RG's follow-ups), the DRMs
the log decides, the result. Dice are an input of the command, never produced here."""


import re

from ..errors import BadInput


class NotDue(BadInput):
    """A roll the rules do not call for now: rolled already, not due for that RG, not after its result."""
from ..domain.events import AppliedDRM, DiceRolled
from ..domain.commands import RollCommand  # noqa: F401 - re-exported: a roll's command
from ..domain.apply import BOOKED
from ..domain.evolve import SCENARIO, CampaignState
from ..rules import Resolution, Rules, Situation
from ..rules.schema import Table, rg_matches
from .steps import acting_step, article, condition_fails, strength_first, title


def unit_name(purpose: str) -> str:
    """'StJ19  8-1 ' and 'stj19 8-1' name the same unit."""
    return " ".join(purpose.split()).casefold()


def per(table: Table) -> str:
    if table.per:
        return table.per
    return "rg" if table.effect.startswith("rg_") else "any"


def reroll_key(table: Table, side: str, cg_date: str, purpose: str, item: str) -> str:
    """What a re-roll after an undo is recognised by: the due item, else table, side, date and unit."""
    return item or f"{table.id}|{side}|{cg_date}|{unit_name(purpose)}"


def situation(state: CampaignState, rules: Rules, side: str, rg: int | None = None,
              table: Table | None = None, cg_date: str | None = None) -> Situation:
    """The campaign state a roll is made in, as the log decides it (automatic DRMs read this). Given the
    table, only what its DRMs and limits read is worked out (the audit asks this once per roll). `cg_date`: the CG
    Date a fair roll was declared on, when its dice come after the next one began (`made_on_its_date`)."""
    cg_date = cg_date or state.cg_date
    bought = state.rgs.get(str(rg)) if rg is not None else None
    winner = state.winner_on(cg_date)
    return Situation(
        side=side, cg=state.cg, cg_date=rules.calendar.parse(cg_date), flags=frozenset(state.flags),
        rg=bought["rg"] if bought else None, rg_strength=(bought["strength"] or None) if bought else None,
        won=None if winner is None else winner == side, san=state.san.get(side),
        # 8.619: an RG bought in secret may be one that raises the SAN (RR M2): known to its side only until revealed
        san_unknown=sum(1 for e in state.secret_rgs.values() if e["side"] == side)
        * max((rg.san for rg in rules.rgs.values() if rg.side == side), default=0) if state.secret_rgs else 0,
        **_read_by(state, rules, side, table),
    )


def _read_by(state: CampaignState, rules: Rules, side: str, table: Table | None) -> dict:
    """What only some tables' DRMs and limits read (all of it without a table): worked out only for those."""
    drms = table.drm if table is not None else ()
    every = table is None
    out: dict = {}
    if every or any(d.attacked is not None for d in drms):
        out["attacked"] = state.attacked_before(side)
    if every or any(d.previous_weather for d in drms):
        out["previous_weather"] = previous_weather(state, rules)
    if every or any(d.count for d in drms):
        out["scenario_dates"] = tuple(rules.calendar.parse(d) for d, _w in state.scenarios)
    if every or table.until_unless or table.after:
        out["today"] = frozenset(f"{t}:{c}" for t, c, s in today_results(state) if s == side)
    return out


def previous_weather(state: CampaignState, rules: Rules) -> str | None:
    """The preceding CG Date's weather: its 8.6171 roll (random weather), else the Historical Weather Chart."""
    dates = [d.text for d in rules.calendar]
    index = dates.index(state.cg_date) if state.cg_date in dates else 0
    if index == 0:
        return None
    before = dates[index - 1]
    if before in state.weather:
        return state.weather[before]
    chart = rules.system.weather_chart
    if chart and chart in rules.charts:
        entry = rules.chart_entry(chart, state.cg, rules.calendar.parse(before))
        if entry and entry.text.get("weather"):
            # read as the random table's codes: Mist (any density), Overcast cloud cover, Clear
            weather, overcast = entry.text["weather"].lower(), entry.text.get("cloud", "").lower() == "overcast"
            if "mist" in weather:
                return "mist_overcast" if overcast else "mist"
            if "overcast" in weather or overcast:
                return "overcast"
            return re.sub(r"[^a-z0-9]+", "_", weather).strip("_")
    return None


def admit(state: CampaignState, rules: Rules, table_id: str, side: str, rg: int | None,
          purpose: str, declared: int | None = None, at: str | None = None, if_result: str = "") -> tuple[Table, str]:
    """Every check that needs no dice: the table, the side, the step, the RG, and that the roll is due.
    Returns the table and the due item the roll consumes ('' for a roll made as often as play needs). The step is
    the one the side stands in (`at`: as if it stood there); a fair roll's was checked when it was declared.
    `if_result`: a fair roll declared for one result of its RG's strength roll, which waits for its dice."""
    table = rules.table(table_id)
    side = rules.side(side)
    if if_result and per(table) != "rg":
        raise NotDue(f"table {table.id} is not an RG follow-up roll: it is not declared for a strength result",
                     table.rule)
    date = declared_on(state, declared)
    rules.check_available(table, situation(state, rules, side, None, table, date))
    check_when(rules, state, table)
    if declared is None:
        check_step(rules, state, table, at or acting_step(rules, state, side))
    return table, due_item(state, rules, table, side, rg, purpose, declared, date, if_result)


def declared_on(state: CampaignState, declared: int | None) -> str:
    """The CG Date a fair roll was declared on (the campaign's, for a roll made at once)."""
    if declared is None or not state.declared:
        return state.cg_date
    entry = next((e for e in state.declared.values() if e["version"] == declared), None)
    return (entry or {}).get("cg_date") or state.cg_date


def made_on_its_date(rules: Rules, table_id: str) -> bool:
    """A declared roll whose dice may come after both sides entered the next CG Date, decided as of the CG Date it
    was declared on (KGP 8.6113's Secret DR: one per side, needed, nothing chosen after it): rolled once per side
    and CG Date, it costs nothing, sets nothing the books or a later roll read, adds no need, and its automatic
    DRMs read only that CG Date and its scenario's winner. Any other waits at the door for its dice."""
    table = rules.tables.get(table_id)
    if table is None or table.per != "side/date" or table.cpp or table.when is not None or table.after:
        return False
    if table.effect in BOOKED or table.effect.startswith("rg_") or any(row.sets for row in table.rows):
        return False
    if any(d.kind == "automatic" and (d.state or d.rg or d.rg_strength or d.attacked is not None
                                      or d.previous_weather or d.count) for d in table.drm):
        return False
    return not followed(rules, table.id)


def followed(rules: Rules, table_id: str) -> bool:
    """Whether a roll or a step's need is due 'after' a result of this table (8.6171's mist density)."""
    after = [a for t in rules.tables.values() for a in (t.after or ())]
    after += [a for s in rules.system.steps for n in s.needs for a in (n.after or ())]
    return any(a.split(":", 1)[0].split("/", 1)[0] == table_id for a in after)


def check_when(rules: Rules, state: CampaignState, table: Table) -> None:
    """A roll the rules make only under a condition (`when` in the table's data, read as a step's needs are:
    8.6233a in a Dual Attack, 8.6171 with random weather) is refused when the log says it does not hold."""
    if table.when is None:
        return
    why = condition_fails(rules, state, table.when)
    if why:
        raise NotDue(f"table {table.id} ({table.title}) is rolled only {when_text(table.when)}: {why}",
                     table.when.rule or table.rule)


def when_text(when) -> str:
    """'in a Dual Attack', 'with random weather (chosen at `new`)': what a condition asks, for a refusal."""
    parts = []
    if when.scenario:
        parts.append(f"in {article(when.scenario)}")
    if when.option:
        parts.append(f"with {when.option.replace('_', ' ')} (chosen at `cgledger new`)")
    if when.from_date:
        parts.append(f"from {when.from_date} on")
    if when.unless_flag:
        parts.append(f"while {when.unless_flag} does not apply")
    if when.after:
        parts.append(f"after {' or '.join(when.after)} on the same CG Date")
    return " and ".join(parts)


def check_step(rules: Rules, state: CampaignState, table: Table, at: str | None = None) -> None:
    """A roll belongs to its step (8.6: steps in order), or to a further step the rules name; SSR rolls to the
    scenario. `at`: the step the rolling side stands in (ahead of the campaign's, once each side walks the RePh)."""
    at = at or state.step
    steps = [s for s in (table.step, *table.steps) if s]
    if steps and at not in steps:
        where = " or ".join("during a CG scenario" if s == SCENARIO else f"in step {title(rules, s)}" for s in steps)
        whose = "the campaign is" if at == state.step else "the rolling side is"
        raise BadInput(f"table {table.id} is rolled {where}; {whose} at {title(rules, at)}",
                       table.step if table.step != SCENARIO else table.rule)
    if table.together and state.edition >= 4 and state.step != at:
        raise BadInput(f"table {table.id} is rolled once both sides stand in {title(rules, at)}, all setup complete; "
                       f"the campaign waits at {title(rules, state.step)} for the other side", table.together)
    waiting = setup_unsettled(rules, state, table)
    if waiting is not None:
        raise BadInput(f"table {table.id} is rolled once all setup is complete: the {rules.system.sides[waiting['side']]} "
                       f"roll on {waiting['table']}, which setup waits for, has no dice yet (they come with the other "
                       "side's answer)", table.together)


def setup_unsettled(rules: Rules, state: CampaignState, table: Table) -> dict | None:
    """For a roll made once all setup is complete (`together`, campaigns of edition 5 on): an open roll of an earlier
    step declared and still waiting for its dice, which setup waits for (8.6233a: the side setting up first)."""
    if not table.together or state.edition < 5 or not state.declared:
        return None
    order = [s.id for s in rules.system.steps]
    earlier = set(order[:order.index(table.step)]) if table.step in order else set()
    return next((e for e in state.declared.values() if not e["made"] and not e["secret"]
                 and e["table"] in rules.tables and rules.tables[e["table"]].step in earlier), None)


def due_item(state: CampaignState, rules: Rules, table: Table, side: str, rg: int | None, purpose: str,
             declared: int | None = None, cg_date: str | None = None, if_result: str = "") -> str:
    """The item this roll is for, refused when it is not due (rolled already, not called for); a fair roll's
    item was consumed by its declaration (`declared`), which this roll resolves (on `cg_date`, its CG Date)."""
    cg_date = cg_date or state.cg_date
    how = per(table)
    rule = table.per_rule or table.rule
    if table.after and not any(f"{t}:{c}" in table.after for t, c, s in today_results(state) if s == side):
        raise NotDue(f"table {table.id} is rolled only after {' or '.join(table.after)} on this CG Date", rule)
    flags = {f for row in table.rows for f in row.sets}
    if flags and flags <= set(state.flags):
        raise NotDue(f"table {table.id} is rolled until {', '.join(sorted(flags))} applies, and it already does",
                       rule)
    if rg is not None and how != "rg":
        raise NotDue(f"table {table.id} is not an RG follow-up roll: --rg does not apply", table.rule)
    if how == "any":
        return ""
    if how == "side/date":
        item = f"{table.id}|{side}|{cg_date}"
    elif how == "date":
        item = f"{table.id}|{cg_date}"
    elif how == "unit":
        item = f"{table.id}|{side}|{cg_date}|{unit_name(purpose)}"
    else:
        item = rg_item(state, rules, table, side, rg, declared, if_result)
    if item in state.consumed and not (declared is not None and state.consumed[item][0] == declared):
        what = f" for '{unit_name(purpose)}'" if how == "unit" and purpose.strip() else ""
        hint = " (name the unit with --for)" if how == "unit" and not purpose.strip() else ""
        who = "" if how == "date" else f" by the {rules.system.sides[side]} side"  # 'date': either side's roll
        raise NotDue(f"table {table.id} was rolled already{what}{who} on {cg_date} (event "
                     f"{state.consumed[item][0]}){hint}: undo that roll to make it again", rule)
    return item


def today_results(state: CampaignState):
    """(table, result code, side) of each result rolled this CG Date."""
    for entry in state.today:
        table, code, side = entry.rsplit(":", 2)
        yield table, code, side


def effect_of(state: CampaignState, table: Table) -> str:
    """What a roll on the table does for the books, in the campaign's own reading of the rules (a campaign started
    before the table's effect was read in keeps its own: its rolls there met no need)."""
    return table.effect if state.edition >= table.effect_edition else ""


def rg_item(state: CampaignState, rules: Rules, table: Table, side: str, rg: int | None,
            declared: int | None = None, if_result: str = "") -> str:
    rule = table.per_rule or table.rule
    if rg is None:
        raise NotDue(f"table {table.id} is rolled for one RG: name it with --rg ID#N (e.g. I2#1) or its event", rule)
    bought = state.rgs.get(str(rg))
    if bought is None or bought["side"] != side:
        raise NotDue(f"no RG of the {rules.system.sides[side]} side was bought at event {rg}", rule)
    if if_result and declared is None:
        return _if_result_item(state, rules, table, side, rg, bought, if_result, rule)
    # several of one table due for an RG (RR 2.5192, a dr per SW) are declared at once: each declared and not yet
    # made holds its own item; the roll that makes a declaration takes the item that declaration holds
    waiting = 0 if declared is not None else sum(
        1 for e in state.declared.values() if e["rg"] == rg and e["table"] == table.id and not e["made"])
    n = bought["rolled"].get(table.id, 0) + waiting + 1
    if waiting and not bought.get("sealed") and bought["pending"].count(table.id) <= waiting \
            and bought["strength"] != "sealed":
        raise NotDue(f"table {table.id} for RG {bought['rg']} (event {rg}): the {waiting} roll(s) due are declared "
                     "already and wait for their dice", rule)
    _check_due_for(rules, table, side, rg, bought, n, rule)
    waits = strength_first(rules, state, table, rg)
    if waits is not None:
        drm = next(d for d in table.drm if d.kind == "automatic" and d.rg_strength)
        raise NotDue(f"table {table.id} for RG {bought['rg']} (event {rg}) comes after its strength roll: roll {waits} "
                     f"--rg {rg} first (in the same turn if you like); its result decides the '{drm.text}' DRM", rule)
    return f"{table.id}|rg{rg}|{n}"


def if_result_rolls(state: CampaignState, rules: Rules, side: str, only: int | None = None) -> list:
    """(table, RG, result) of each roll a strength result would make due for the side's RGs (or RG `only`) whose
    strength roll waits for its dice, not declared yet: one per time the RG's chart line lists it for that result."""
    out = []
    for entry in sorted(state.declared.values(), key=lambda e: e["version"]):
        bought = state.rgs.get(str(entry["rg"])) if entry["rg"] is not None else None
        if bought is None or bought.get("sealed") or entry["side"] != side or entry["made"] \
                or (only is not None and entry["rg"] != only) \
                or getattr(rules.tables.get(entry["table"]), "effect", "") != "rg_strength":
            continue
        line = rules.rgs.get((side, bought["rg"]))
        for code, tables in (line.rolls_if.items() if line else ()):
            for table in dict.fromkeys(tables):
                declared = sum(1 for e in state.declared.values() if e["rg"] == entry["rg"] and e["table"] == table
                               and e.get("if_result") == code and not e["made"])
                out += [(table, entry["rg"], code)] * (tables.count(table) - declared)
    return out


def strength_waiting(state: CampaignState, rules: Rules, rg: int | None) -> dict | None:
    """The RG's strength roll declared and waiting for its dice, if any."""
    return next((e for e in state.declared.values() if e["rg"] == rg and not e["made"]
                 and getattr(rules.tables.get(e["table"]), "effect", "") == "rg_strength"), None)


def _if_result_item(state: CampaignState, rules: Rules, table: Table, side: str, rg: int, bought: dict,
                    if_result: str, rule: str) -> str:
    """A roll declared for one result of the RG's strength roll (a Depleted RG's SW drs, RR 2.5192, KGP 8.6204)
    while that roll waits for its dice: due as often as the RG's chart line lists it for that result (for an RG bought
    in secret, as often as some line of the side's chart does: decided again once revealed). Made if the strength
    gives that result, lapsed if not."""
    if strength_waiting(state, rules, rg) is None:
        raise NotDue(f"table {table.id} is declared for a strength result of RG {bought['rg']} only while its strength "
                     "roll waits for its dice: once its result is known, roll what it makes due", rule)
    if bought.get("sealed"):
        allowed = max((line.rolls_if.get(if_result, []).count(table.id)
                       for (s, _i), line in rules.rgs.items() if s == side), default=0)
    else:
        line = rules.rgs.get((side, bought["rg"]))
        allowed = line.rolls_if.get(if_result, []).count(table.id) if line else 0
    waiting = sum(1 for e in state.declared.values() if e["rg"] == rg and e["table"] == table.id and not e["made"])
    if waiting + 1 > allowed:
        raise NotDue(f"table {table.id} is due at most {allowed} time(s) for RG {bought['rg']} if its strength roll "
                     f"gives '{if_result}'" + (f"; {waiting} declared already" if waiting else ""), rule)
    return f"{table.id}|rg{rg}|{bought['rolled'].get(table.id, 0) + waiting + 1}"


def _check_due_for(rules: Rules, table: Table, side: str, rg: int, bought: dict, n: int, rule: str) -> None:
    """The n-th roll of the table is due for the RG: one its purchase or strength made due; for an RG bought in
    secret (8.619), one some line of the side's chart calls for that often (decided again once revealed)."""
    if bought.get("sealed"):  # bought in secret (8.619): the most any line of the side's chart calls for
        allowed = max((line.rolls.count(table.id) + max((more.count(table.id) for more in line.rolls_if.values()),
                                                        default=0)
                       for (s, _i), line in rules.rgs.items() if s == side), default=0)
        if n > allowed and not (allowed and table.at_least):  # a round that falls short: decided once revealed
            raise NotDue(f"table {table.id} is not due for the RG bought in secret at event {rg}: no RG of the "
                         f"{rules.system.sides[side]} chart calls for it {n} time(s)", rule)
    elif table.id not in bought["pending"]:
        line = rules.rgs.get((side, bought["rg"]))
        allowed = max((more.count(table.id) for more in (line.rolls_if.values() if line else ())), default=0)
        if not (bought["strength"] == "sealed" and n <= allowed):
            done = f"; rolled {n - 1} time(s) already" if n > 1 else ""
            owed = ", ".join(bought["pending"]) or "nothing more"
            raise NotDue(f"table {table.id} is not due for RG {bought['rg']} (event {rg}){done}: it still owes "
                         f"{owed}", rule)


SOURCES = ("fair", "entered", "vasl", "rng", "seeded")  # where a roll's dice come from
LEDGER_OWN = ("rng", "seeded")  # dice the rolling side's own ledger made


def check_source(state: CampaignState, rules: Rules, source: str) -> None:
    """Once both sides hold keys and fair dice are in force, the ledger's own dice are fair dice: a roll labelled as
    the ledger's (`rng`, `seeded`) is one an honest ledger never makes; an unknown source is none."""
    if source not in SOURCES:
        raise BadInput(f"dice of an unknown source '{source}' (fair, entered, vasl, rng or seeded)", "cgledger fair dice")
    if source in LEDGER_OWN and state.fair_in_force(rules.system.sides):
        raise BadInput(f"dice labelled '{source}' (the rolling side's own ledger) once both sides hold keys: an honest "
                       "ledger rolls fair dice then, or takes the dice of play (--dice, --vasl)", "cgledger fair dice")


def check_category(rules: Rules, table: Table, line: str, player: str = "") -> None:
    """A VASL report witnesses the roll it was made for: its dice category fits the table (a Refit Phase or SSR roll
    is made with VASL's generic dice, 'Other', or its 'Secret' ones; a table that is rolled like a combat roll names
    its own). A report without a category (VASL's old '*** DR =' lines) cannot be told apart."""
    from ..vasl.bot import parse

    category = parse(line, player or None).category
    allowed = table.vasl_categories or rules.system.vasl_categories
    if category and category.casefold() not in {c.casefold() for c in allowed}:
        raise BadInput(f"the VASL report is a {category} {table.die}; table {table.id} is rolled with VASL's "
                       f"{' or '.join(allowed)} dice: that report was rolled for something else (type the dice with "
                       "--dice for the other side to witness, if this is the roll)", table.rule)


def held_cpp(sealed_cpp) -> int:
    """CPP of a side's own Secret replenishments not yet revealed: the number given, or its books opened (a function
    of none) only when a cost is over the CPP the side has in the open."""
    return sealed_cpp() if callable(sealed_cpp) else sealed_cpp


def roll(state: CampaignState, rules: Rules, cmd: RollCommand, sealed_cpp=0) -> tuple[DiceRolled, Resolution]:
    """The whole decision of a roll: admitted, DRMs (declared ones checked against the log, automatic ones
    derived from it), the table's result, the CPP it costs, what it makes due next. `sealed_cpp`: CPP of the
    side's own Secret replenishments not yet revealed (known to its side only; `held_cpp`)."""
    from ..rules import dice as dicemod

    check_source(state, rules, cmd.source)
    if cmd.if_result and cmd.source != "fair":
        raise BadInput("a roll is declared for one result of its RG's strength roll only with fair dice, before that "
                       "roll's dice come", cmd.table)

    table, item = admit(state, rules, cmd.table, cmd.side, cmd.rg, cmd.purpose, cmd.declared, if_result=cmd.if_result)
    side = rules.side(cmd.side)
    where = situation(state, rules, side, cmd.rg, table, declared_on(state, cmd.declared))
    dicemod.check_faces(table.die, tuple(cmd.faces))
    declared = {}
    for key, n in cmd.drms:
        if key in declared:
            raise BadInput(f"DRM '{key}' given twice")
        declared[key] = n
    _check_how(state, rules, table, side, cmd)
    resolution = rules.resolve(table, tuple(cmd.faces), declared, where)
    cpp = rules.cpp_cost(table, resolution.drms)
    if table.paid_by_rg and state.bought_today_by(side, table.paid_by_rg):
        cpp -= table.cpp  # the RG bought this CG Date paid the roll itself (RR M3 Recon, 2.521)
    if cpp and cpp > state.cpp.get(side, 0) and cpp > state.cpp.get(side, 0) + held_cpp(sealed_cpp):
        raise BadInput(f"table {table.id} costs {cpp} CPP; the {rules.system.sides[side]} side has "
                       f"{state.cpp.get(side, 0) + held_cpp(sealed_cpp)}", table.rule)
    adds = _adds(state, rules, table, side, cmd.rg, resolution.code)
    fact = DiceRolled(
        action=state.next_action, table=table.id, rule=table.rule, side=side, die=table.die, dice=tuple(cmd.faces),
        source=cmd.source, original=resolution.original,
        drms=tuple(AppliedDRM(key=d.key, name=d.name, value=d.value, kind=d.kind, input=d.input)
                   for d in resolution.drms),
        final=resolution.final, result=resolution.result, code=resolution.code, value=resolution.value,
        sets=resolution.sets, secret=cmd.secret or table.secret, purpose=cmd.purpose, effect=effect_of(state, table),
        rg=cmd.rg, cpp=cpp, fair=cmd.fair, vasl=cmd.vasl, player=cmd.player, series=cmd.series, item=item, adds=adds,
        hexes=tuple(cmd.hexes),
    )
    return fact, resolution


def _check_how(state: CampaignState, rules: Rules, table: Table, side: str, cmd: RollCommand) -> None:
    """How the roll is made: an RG bought in secret rolls its follow-ups in secret (8.619); a roll that changes the
    map in the open; a VASL report of the dice category the table is rolled with; a Secret roll of the Refit Phase
    with fair dice once they are in force (campaigns of edition 3 on, steps.EDITION)."""
    if cmd.rg is not None and state.rgs.get(str(cmd.rg), {}).get("sealed") and not (cmd.secret or table.secret):
        raise BadInput(f"the RG of event {cmd.rg} was bought in secret: its follow-up rolls are Secret too (--secret)",
                       table.rule)
    if cmd.hexes and (cmd.secret or table.secret) and side in state.keys and cmd.source != "vasl":
        raise BadInput("a roll that changes the map is made in the open: no --secret with --hex", table.rule)
    if cmd.source == "vasl" and cmd.vasl:
        check_category(rules, table, cmd.vasl, cmd.player)
    if cmd.source == "entered" and (cmd.secret or table.secret):
        secret_takes_fair_dice(state, rules, table, side)


def secret_takes_fair_dice(state: CampaignState, rules: Rules, table: Table | None, side: str) -> None:
    """Once fair dice are in force, a Secret roll of the Refit Phase takes them (campaigns of edition 3 on,
    steps.EDITION): dice typed for it would be sealed, witnessed only once revealed. Decided on what both sides see:
    a sealed roll that is no fair roll was typed. `table` None: a follow-up of an RG bought in secret, its table
    sealed too (always a Refit Phase roll)."""
    if (state.edition >= 3 and (table is None or table.step != SCENARIO)
            and acting_step(rules, state, side) != SCENARIO and state.fair_in_force(rules.system.sides)):
        raise BadInput("once both sides hold keys, a Secret roll of the Refit Phase takes fair dice: dice typed for it "
                       "are sealed, so the other side could witness them only once it is revealed (leave out --dice: "
                       "the other side's ledger answers it)", table.rule if table else None)


def _adds(state: CampaignState, rules: Rules, table: Table, side: str, rg: int | None, code: str) -> tuple[str, ...]:
    """The follow-up rolls a result makes due: an RG's strength by its chart line's `rolls_if`, a round of drs that
    falls short of the minimum again."""
    if rg is None or not code:
        return ()
    if table.effect == "rg_strength":
        line = rules.rgs.get((side, state.rgs[str(rg)]["rg"]))
        return tuple(line.rolls_if.get(code, ())) if line else ()
    if table.at_least is not None:
        return _again(rules, state.rgs[str(rg)], table, side, code)
    return ()


def _again(rules: Rules, bought: dict, table: Table, side: str, code: str) -> tuple[str, ...]:
    """The round rolled again when this roll ends a round of the RG's follow-ups on `table` that falls short of the
    minimum the rules guarantee (`at_least`: KGP 8.6205 EXC, RR 2.5192 EXC), else nothing."""
    least = table.at_least
    line = rules.rgs.get((side, bought["rg"]))
    if line is None or not rg_matches(bought["rg"], least.rg):
        return ()
    pieces = line.rolls_if.get(bought["strength"], ()).count(table.id)
    codes = bought.get("codes", {}).get(table.id, []) + [code]
    if pieces < least.count or len(codes) % pieces:
        return ()  # a round not ended yet (or one that can never give the minimum)
    return (table.id,) * pieces if codes[-pieces:].count(least.code) < least.count else ()


def command_of(fact: DiceRolled, declared: int | None = None) -> RollCommand:
    """The command a stored roll records (for the audit to decide again); `declared`: the declaration a fair roll
    resolves."""
    return RollCommand(table=fact.table, side=fact.side,
                       drms=tuple((d.key, d.input) for d in fact.drms if d.kind == "declared"),
                       faces=tuple(fact.dice), source=fact.source, secret=fact.secret, purpose=fact.purpose,
                       rg=fact.rg, fair=fact.fair, vasl=fact.vasl, player=fact.player, series=fact.series,
                       hexes=tuple(fact.hexes), declared=declared)
