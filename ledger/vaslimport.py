"""VASL dice reports into the ledger: `roll --vasl LINE` and `vasl-import FILE`, decided like any roll;
parsing lives in ledger/vasl.py."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from .errors import BadInput
from .events import DiceReported
from .inforce import live
from .rules import parse_declared
from .vasl import Report, scan


class Attachment(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """One dice report attached to a table (a --map file's [[attach]] entry)."""

    line: int
    table: str
    side: str = ""
    drm: list[str] = []
    purpose: str = msgspec.field(name="for", default="")


class ImportMap(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    players: dict[str, str] = {}  # VASL player name -> side
    attach: list[Attachment] = []


@dataclass(frozen=True)
class Imported:
    number: int  # line number in the pasted file
    report: Report
    table: str | None
    side: str
    result: str = ""
    version: int | None = None


def read_map(text: str, name: str) -> ImportMap:
    try:
        return msgspec.toml.decode(text, type=ImportMap)
    except (msgspec.ValidationError, msgspec.DecodeError) as e:
        raise BadInput(f"map file {name}: {e}") from None


def check_new_reports(history, reports: list[Report]) -> None:
    """The same VASL report may be in force only once (an undone one may be entered again)."""
    seen: dict[str, int] = {}
    for event in live(history):
        line = getattr(event.fact, "vasl", "")
        if line:
            seen[Report(line, "", (), "", "", "", "", "").key] = event.version
    batch: set[str] = set()
    for report in reports:
        if report.key in seen:
            raise BadInput(f"this VASL dice report is already in the log (event {seen[report.key]}): "
                           f"{report.line[:50]!r}…")
        if report.key in batch:
            raise BadInput(f"this VASL dice report appears twice in the file: {report.line[:50]!r}…")
        batch.add(report.key)


def decide_import(campaign, rules, history, lines: list[str], source: str, attach: list[Attachment],
                  players: dict[str, str]) -> tuple[list[Imported], list]:
    """Every dice report of a pasted chat, in order: attached ones become rolls on their tables (each decided
    like any roll, on the state the ones before it leave), the others plain DiceReported events. One action:
    undo takes the whole import back."""
    from .audit import snapshot
    from .decide import rolls

    reports, problems = scan(lines)
    if problems:
        number, problem = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise BadInput(f"{source} line {number}: {problem}{more}")
    if not reports:
        raise BadInput(f"{source} holds no VASL dice report ('*** (… DR) W,C *** <player> …')")
    sides = {player: rules.side(side) for player, side in players.items()}
    by_line = {number: report for number, report in reports}
    attached: dict[int, Attachment] = {}
    for item in attach:
        if item.line not in by_line:
            raise BadInput(f"{source} line {item.line} is not a dice report: nothing to attach to {item.table}")
        if item.line in attached:
            raise BadInput(f"{source} line {item.line} is attached twice")
        attached[item.line] = item
    check_new_reports(history, [r for _n, r in reports])
    state = snapshot(campaign)
    action, version = campaign.next_action, campaign.version
    imported, facts = [], []
    for number, report in reports:
        item = attached.get(number)
        side = item.side if item and item.side else sides.get(report.player, "")
        if item is None:
            imported.append(Imported(number, report, None, side))
            facts.append(DiceReported(action=action, die=report.die, dice=report.faces, side=side,
                                      player=report.player, category=report.category, special=report.special,
                                      series=report.series, vasl=report.line))
            continue
        if not side:
            raise BadInput(f"{source} line {number}: whose roll is it? name the side (--player "
                           f"{report.player}=SIDE, or side in the map file)")
        try:
            table = rules.table(item.table)
            if report.die != table.die:
                raise BadInput(f"table {table.id} takes a {table.die}; the VASL report is a {report.die}", table.rule)
            command = rolls.RollCommand(table=table.id, side=rules.side(side),
                                        drms=tuple(parse_declared(tuple(item.drm)).items()), faces=report.faces,
                                        source="vasl", purpose=item.purpose, vasl=report.line, player=report.player,
                                        series=report.series)
            fact, _resolution = rolls.roll(state, rules, command)
        except BadInput as e:
            raise BadInput(f"{source} line {number}: {e.message}", e.rule) from None
        fact = msgspec.structs.replace(fact, action=action)
        imported.append(Imported(number, report, item.table, fact.side, fact.result))
        facts.append(fact)
        version += 1
        state.evolve(fact, "", version)
    return imported, facts
