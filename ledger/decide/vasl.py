"""VASL dice reports into the ledger: `roll --vasl LINE` and `vasl-import FILE...`, decided like any roll.

A file is a VASSAL log or save (ledger/vasl/vassal.py), the chat window's text or dice-bot lines (ledger/vasl/bot.py,
ledger/vasl/chat.py). Each file with new reports is one action: a VaslLogImported event keeping every report it
records, then a DiceRolled for each report attached to a table. A report already in the log is not recorded
again: known by its key (its statistics and series, or its place in its file), or as part of a run of WINDOW
reports the log holds in the same order (the same game read from a log and from a chat copy, or an overlapping
copy; runs leave out a nameless player's reports, which VASL 6.6's chat window shows empty), or because the very
file was imported before.
"""


import codecs
import hashlib
import json
from dataclasses import dataclass, field, replace

import msgspec

from ..errors import BadInput
from ..domain.commands import Attachment, ImportVasl
from ..domain.events import DiceReported, DiceRolled, SkippedReport, VaslLogImported, VaslReport
from ..domain.inforce import live
from ..rules import parse_declared
from ..vasl.bot import Report, entry_key, parse, read
from ..vasl.report import same_report, squash
from ..vasl.vassal import is_saved_game, is_zip, read_game, read_saved_game

WINDOW = 8  # reports in a row that make the same stretch of a game (false match: about 36**-8 per stretch)


class ImportMap(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    players: dict[str, str] = {}  # VASL player name -> side
    attach: list[Attachment] = []


def read_map(text: str, name: str) -> ImportMap:
    try:
        return msgspec.toml.decode(text, type=ImportMap)
    except (msgspec.ValidationError, msgspec.DecodeError) as e:
        raise BadInput(f"map file {name}: {e}") from None


@dataclass(frozen=True)
class Found:
    position: int
    report: Report | None = None
    text: str = ""
    problem: str = ""  # set: looked like a report, could not be read
    step: int = 0


@dataclass(frozen=True)
class Source:
    """One file, read: its reports and unreadable lines in order."""

    name: str
    form: str  # vlog, vsav, chat, raw
    digest: str
    found: tuple[Found, ...]
    module: str = ""
    module_version: str = ""
    vassal_version: str = ""
    lines: tuple = ()  # (position, step, text) of each line that held a report or looked like one

    @property
    def unit(self) -> str:
        return "message" if self.form in ("vlog", "vsav") else "line"

    def where(self, position: int) -> str:
        return f"{self.name} {self.unit} {position}"


def _text(data: bytes, name: str) -> str:
    for bom, codec in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(codec, errors="replace")
    if b"\x00" in data[:4096]:
        raise BadInput(f"{name} is neither a VASSAL log or save (.vlog, .vsav) nor text: not a VASL file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")  # a chat saved by a Windows editor


def read_lines(lines, form: str, players: tuple[str, ...] = ()) -> tuple[list[Found], str, tuple]:
    """The reports and unreadable lines among (position, step, text) lines, the file's form ('raw' turns 'chat' at
    the first chat-window report) and the lines that held them: what an import keeps as its command's input."""
    found, after, kept = [], "", []
    for position, step, line in lines:
        try:
            report = read(line, players)
        except BadInput as e:
            found.append(Found(position, text=line.strip(), problem=e.message, step=step))
            kept.append((position, step, line))
            continue
        if report is None:
            continue
        if form == "raw" and report.form == "chat":
            form = "chat"
        if not (report.stats or report.series):
            report = replace(report, after=after)
        after = report.key
        found.append(Found(position, report, line.strip(), step=step))
        kept.append((position, step, line))
    return found, form, tuple(kept)


def read_source(data: bytes, name: str, players: tuple[str, ...] = ()) -> Source:
    """What a file holds; a file that is not VASL at all is refused whole."""
    digest = hashlib.sha256(data).hexdigest()
    meta: dict = {}
    if is_zip(data) or is_saved_game(data):
        try:
            game = read_game(data) if is_zip(data) else read_saved_game(data)
        except BadInput as e:
            raise BadInput(f"{name}: {e.message}") from None
        lines = [(m.number, m.step, m.text) for m in game.messages]
        form = "vlog" if game.kind == "log" else "vsav"
        meta = {"module": game.module, "module_version": game.module_version, "vassal_version": game.vassal_version}
    else:
        lines = [(n, 0, line) for n, line in enumerate(_text(data, name).splitlines(), 1)]
        form = "raw"
    found, form, _kept = read_lines(lines, form, players)
    if not found:
        if meta and meta["module"] and "VASL" not in meta["module"].upper():
            raise BadInput(f"{name} is a VASSAL {form[1:]} of '{meta['module']}', not of VASL: no dice report")
        what = "VASSAL log" if form == "vlog" else "VASSAL save (a save keeps no chat: import the .vlog)" \
            if form == "vsav" else "file"
        raise BadInput(f"{name}: this {what} holds no VASL dice report (the dice bot's '*** (IFT DR) 3,5 *** <player> "
                       f"...', colored die first, or the chat window's '*   IFT 3 5   ...  player')")
    return Source(name, form, digest, tuple(found), **meta, lines=_kept)


@dataclass
class Known:
    """The VASL reports in force in the log: keys, and the rolls in order (for runs)."""

    keys: dict[str, int] = field(default_factory=dict)
    rolls: list[tuple[tuple, int]] = field(default_factory=list)
    runs: dict[str, list[int]] = field(default_factory=dict)

    def add(self, key: str, roll: tuple, version: int) -> None:
        self.keys.setdefault(key, version)
        if not roll[3]:
            return  # a nameless player's report: VASL 6.6's chat window cannot show it, so runs skip it
        self.rolls.append((roll, version))
        if len(self.rolls) >= WINDOW:
            stretch = self.rolls[-WINDOW:]
            self.runs.setdefault(_run([r for r, _v in stretch]), [v for _r, v in stretch])


def _run(rolls: list[tuple]) -> str:
    return hashlib.sha256(json.dumps(rolls).encode()).hexdigest()


def _entry_roll(entry) -> tuple:
    return Report(line=entry.line, die=entry.die, faces=tuple(entry.dice), category=entry.category,
                  player=entry.player).roll


def known_reports(history) -> Known:
    known = Known()
    imported: set[int] = set()
    for event in live(history):
        fact = event.fact
        if isinstance(fact, VaslLogImported):
            imported.add(fact.action)
            for entry in fact.reports:
                known.add(entry_key(entry), _entry_roll(entry), event.version)
        elif isinstance(fact, (DiceReported, DiceRolled)) and fact.vasl and fact.action not in imported:
            try:
                report = parse(fact.vasl, fact.player or None)
            except BadInput:
                continue  # the audit names it
            known.add(report.key, report.roll, event.version)
    return known


def check_new_reports(history, reports: list[Report]) -> None:
    """`roll --vasl`: a report is used once (an undone one may be entered again); it must say which report it is."""
    known = known_reports(history)
    for report in reports:
        if not (report.stats or report.series):
            raise BadInput("this VASL line does not say which report it is (no statistics or series: the chat window "
                           "without 'Show dice stats'): give the dice bot's line, or import the chat with vasl-import")
        if report.key in known.keys:
            raise BadInput(f"this VASL dice report is already in the log (event {known.keys[report.key]}): "
                           f"{report.line[:50]!r}…")


@dataclass(frozen=True)
class Imported:
    position: int
    report: Report
    table: str | None = None
    side: str = ""
    result: str = ""
    duplicate_of: int | None = None  # the event that holds it already
    repeats: int | None = None  # the position earlier in the same file that holds it


@dataclass
class FileImport:
    source: Source
    items: list[Imported] = field(default_factory=list)
    action: int | None = None  # None: nothing new, nothing recorded

    @property
    def problems(self) -> list[Found]:
        return [f for f in self.source.found if f.problem]


def _attachments(sources: list[Source], attach: list[Attachment]) -> dict[tuple[int, int], Attachment]:
    names = {}
    for index, source in enumerate(sources):
        names.setdefault(source.name, index)
    out: dict[tuple[int, int], Attachment] = {}
    for item in attach:
        if item.file:
            index = names.get(item.file.replace("\\", "/").rsplit("/", 1)[-1])
            if index is None:
                raise BadInput(f"--attach names {item.file}, which is not being imported ({', '.join(names)})")
        elif len(sources) > 1:
            raise BadInput(f"--attach {item.line}={item.table}: name the file too, e.g. "
                           f"{sources[0].name}:{item.line}={item.table}")
        else:
            index = 0
        source = sources[index]
        if not any(f.report and f.position == item.line for f in source.found):
            raise BadInput(f"{source.where(item.line)} is not a dice report: nothing to attach to {item.table}")
        if (index, item.line) in out:
            raise BadInput(f"{source.where(item.line)} is attached twice")
        out[(index, item.line)] = item
    return out


def decide_import(campaign, rules, history, sources: list[Source], attach: list[Attachment],
                  players: dict[str, str]) -> tuple[list[FileImport], list]:
    """Every file in order, each one action: its new reports in one VaslLogImported, the attached ones rolled on
    their tables (each decided like any roll, on the state the ones before it leave). Reports already in the log
    are listed, not recorded; unreadable lines are listed and kept in the import event."""
    from ..domain.evolve import snapshot

    sides = {player: rules.side(side) for player, side in players.items()}
    attached = _attachments(sources, attach)
    known = known_reports(history)
    state = snapshot(campaign)
    version = campaign.version
    results, facts = [], []
    for index, source in enumerate(sources):
        result, new, version = _decide_file(state, rules, source, known, sides, version,
                                            {pos: a for (i, pos), a in attached.items() if i == index})
        if new:
            for entry in new[0].reports:
                known.add(entry_key(entry), _entry_roll(entry), version - len(new) + 1)
        results.append(result)
        facts += new
    return results, facts


def commands_of(sources: list[Source], attach: list[Attachment], players: dict[str, str],
                results: list[FileImport]):
    """One command per file that records something: the file as read (its report lines, digest and form), its
    attachments and the player names given, so that the import is decided again from what it was given."""
    from ..domain.commands import ImportVasl

    attached = _attachments(sources, attach)
    return [ImportVasl(file=source.name, form=source.form, digest=source.digest, lines=source.lines,
                       module=source.module, module_version=source.module_version,
                       vassal_version=source.vassal_version, players=dict(players),
                       attach=tuple(a for (i, _pos), a in sorted(attached.items()) if i == index))
            for index, (source, result) in enumerate(zip(sources, results)) if result.action is not None]


def decide_file(state, rules, command, log) -> list:
    """The whole action of one file imported (its command, `commands_of`): decided on a copy of the state."""
    from ..domain.evolve import snapshot

    found, form, _kept = read_lines(command.lines, command.form, tuple(command.players))
    source = Source(command.file, form, command.digest, tuple(found), command.module, command.module_version,
                    command.vassal_version, tuple(command.lines))
    sides = {player: rules.side(side) for player, side in command.players.items()}
    log = list(log)
    version = max((e.version for e in log), default=0)
    _result, facts, _version = _decide_file(snapshot(state), rules, source, known_reports(log), sides, version,
                                            {a.line: a for a in command.attach})
    if not facts:
        raise BadInput(f"{command.file}: every dice report in it is in the log already: nothing to record")
    return facts


def _duplicates(source: Source, reports: list[Found], known: Known) -> dict[int, int]:
    """position -> the event holding it, for reports the log holds already."""
    out = {f.position: known.keys[f.report.key] for f in reports if f.report.key in known.keys}
    named = [f for f in reports if f.report.player]
    rolls = [f.report.roll for f in named]
    for end in range(WINDOW, len(named) + 1):
        versions = known.runs.get(_run(rolls[end - WINDOW:end]))
        if versions:
            for f, version in zip(named[end - WINDOW:end], versions):
                out.setdefault(f.position, version)
    return out


def _decide_file(state, rules, source: Source, known: Known, sides: dict[str, str], version: int,
                 attached: dict[int, Attachment]) -> tuple[FileImport, list, int]:
    """This file's facts, evolved into `state` (the import event first, then each roll: a roll is decided on the
    state the ones before it leave); returns the log's version after them."""
    from . import rolls

    result = FileImport(source)
    reports = [f for f in source.found if f.report]
    duplicate = _duplicates(source, reports, known)
    action = state.next_action
    header = VaslLogImported(action=action, file=source.name, form=source.form, digest=source.digest)
    first: dict[str, int] = {}
    entries, rolled = [], []
    for found in reports:
        report, position = found.report, found.position
        item = attached.get(position)
        repeats = first.get(report.key)
        if position in duplicate or repeats is not None:
            if item is not None:
                held = f"event {duplicate[position]}" if position in duplicate else f"{source.unit} {repeats}"
                raise BadInput(f"{source.where(position)}: this report is already recorded ({held}); "
                               f"nothing to attach to {item.table}")
            result.items.append(Imported(position, report, duplicate_of=duplicate.get(position), repeats=repeats))
            continue
        first[report.key] = position
        side = item.side if item and item.side else sides.get(report.player, "")
        table = None
        if item is not None:
            if not rolled:
                state.evolve(header, "", version + 1)  # the import event comes first
            fact = _roll(state, rules, rolls, source, found, item, side, action)
            rolled.append(fact)
            state.evolve(fact, "", version + 1 + len(rolled))
            table, side = fact.table, fact.side
            result.items.append(Imported(position, report, table, fact.side, fact.result))
        else:
            result.items.append(Imported(position, report, None, side))
        entries.append(VaslReport(
            position=position, step=found.step, die=report.die, dice=report.faces, player=report.player, side=side,
            category=report.category, special=report.special, stats=report.stats, series=report.series,
            third=report.third, dust=report.dust, total=report.total, rof=report.rof, hit=report.hit,
            form=report.form, after=report.after, table=table or "", line=report.line))
    if not entries:
        return result, [], version
    if not rolled:
        state.evolve(header, "", version + 1)
    result.action = action
    header = msgspec.structs.replace(
        header, reports=tuple(entries),
        duplicates=sum(1 for i in result.items if i.duplicate_of is not None or i.repeats is not None),
        skipped=tuple(SkippedReport(position=f.position, text=f.text[:500], problem=f.problem)
                      for f in source.found if f.problem),
        module=source.module, module_version=source.module_version, vassal_version=source.vassal_version)
    return result, [header, *rolled], version + 1 + len(rolled)


def _roll(state, rules, rolls, source: Source, found: Found, item: Attachment, side: str, action: int):
    report = found.report
    if not side:
        raise BadInput(f"{source.where(found.position)}: whose roll is it? name the side (--player "
                       f"{report.player or 'NAME'}=SIDE, or side in the map file)")
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
        raise BadInput(f"{source.where(found.position)}: {e.message}", e.rule) from None
    return msgspec.structs.replace(fact, action=action)


def _entry_report(entry) -> Report:
    return Report(line=entry.line, die=entry.die, faces=tuple(entry.dice), category=entry.category,
                  player=entry.player, stats=entry.stats, series=entry.series, after=entry.after)


def claimed_reports(history, claims: set[int]) -> dict[int, Report]:
    """The very VASL report each claimed roll was recorded from: its own line (`roll --vasl`), or in an import the
    report attached to it (the attached reports of an import and its rolls come in the same order)."""
    imports = {e.fact.action: e.fact for e in history if isinstance(e.fact, VaslLogImported)}
    attached: dict[int, list] = {a: [r for r in f.reports if r.table] for a, f in imports.items()}
    out: dict[int, Report] = {}
    for event in history:
        fact = event.fact
        if not isinstance(fact, DiceRolled) or not fact.vasl:
            continue
        if fact.action in imports:
            entries = attached[fact.action]
            if entries:
                entry = entries.pop(0)
                if event.version in claims and entry.line == fact.vasl:  # only the very report it was recorded from
                    out[event.version] = _entry_report(entry)
            continue
        if event.version in claims:
            try:
                out[event.version] = parse(fact.vasl, fact.player or None)
            except BadInput:
                continue  # the audit names it
    return out


def names_of(history, side: str, given: dict[str, str]) -> dict[str, str]:
    """The VASL player names the witness gave sides to now (`given`), in his own earlier VASL imports, and those his
    own side's reports in the log name (recorded by it for it, in force): a report witnessed from his copy must not
    be his own."""
    named = dict(given)
    for event in live(history):
        fact, request = event.fact, getattr(event, "request", None)
        if event.author != side:
            continue
        if isinstance(request, ImportVasl):
            for name, whose in request.players.items():
                named.setdefault(name, whose.strip().lower())
        if isinstance(fact, (DiceReported, DiceRolled)) and fact.player and fact.side == side:
            named.setdefault(fact.player, side)
    return named


def witnessed_in(history, results: list[FileImport], claims: dict[int, list],
                 players: dict[str, str] | None = None) -> list[tuple[str, tuple[int, ...]]]:
    """(file digest, roll events): the claims (the other side's VASL rolls not yet witnessed, `claims`: event ->
    [claimant, roller, ...]) whose very reports stand in the files just read, the witness's own copy of the log.
    Only a roll the rolling side recorded itself (one recorded for the witness's side is his to accept by hand),
    only by the very report (its statistics, series or place, never another with the same dice), and never by a
    file the claimant imported himself (decide/witness.py decides the act). `players`: the VASL player names the
    witness gave sides to (`--player NAME=SIDE`): a report of a player he names for the other side witnesses no
    roll of this one."""
    named = {squash(name).casefold(): side for name, side in (players or {}).items()}
    own = {c[0]: {e.fact.digest for e in history if isinstance(e.fact, VaslLogImported) and e.author == c[0]}
           for c in claims.values()}
    wanted = {v: c for v, c in claims.items() if c[0] == c[1] and c[4] == "vasl"}
    reports = claimed_reports(history, set(wanted))
    out = []
    for result in results:
        found = [v for v, report in reports.items() if result.source.digest not in own[wanted[v][0]]
                 and named.get(squash(report.player).casefold(), wanted[v][1]) == wanted[v][1]
                 and any(same_report(report, item.report) for item in result.items)]
        if found:
            out.append((result.source.digest, tuple(sorted(found))))
    return out
