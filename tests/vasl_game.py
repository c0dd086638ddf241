"""A VASL game written the way VASL and VASSAL write it, for the tests (the ledger never uses this module).

- `DiceBot`: the lines vasl-developers/vasl src/VASL/build/module/ASLDiceBot.java prints: `DR()` and `dr()`
  with their String.format strings, `IsSpecialDiceRoll()` (SAN, Booby Trap), the running statistics
  (`DiceStats`, Java's NumberFormat: two decimals, the locale's decimal separator), `getSerieInstanceNumber()`,
  the Dust die (src/VASL/environment/Environment.java `getLightDust`/`getModerateDust`, `isLightDust`) and the
  ROF die, as in the newest ASLDiceBot.java (VASL 6.6); `version="6.4"` writes VASL 6.4.2's lines (tag v6.4.2,
  commit d9cc5aca: the series' ')' in the suffix, ' <Turret>' / '<Hull>' after a TH DR, no Dust, no ROF).
- `chat_window()`: the text ASLChatter.java shows for a line with "Use images for dice rolls" off, copied:
  VASL 6.6 (commit 04383238: `parseNewDiceRoll()`, `handleSpecialMessagesForOtherDice()`,
  `makeMessageString()`, `doShow()`; HTML whose tags drop out when copied) or VASL 6.4.2 (`ParseNewDiceRoll()`
  into a styled text pane).
- `write_vlog()`: a .vlog as VASSAL 3.7 writes it (vassalengine/vassal vassal-app/src/main/java/VASSAL/):
  BasicLogger.write() (the game's state, then each logged command as a LogCommand, 'LOG\\t' + command),
  GameModule.encode() (ESC between commands, nested, SequenceEncoder's escaping), Chatter.DisplayText ('CHAT' +
  message), ObfuscatingOutputStream into the zip entry 'savedGame', SaveMetaData's 'savedata' and 'moduledata'.
"""

from __future__ import annotations

import html
import random
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from cgledger.ledger.vasl.vassal import encode, obfuscate

TOTAL = "Total"
DUST = {"LIGHT": "Light Dust (F11.71)", "MODERATE": "Moderate Dust (F11.72)", "HEAVY": "Heavy Dust (F11.73)",
        "VERY_HEAVY": "Very Heavy Dust (F11.731)", "EXTREMELY_HEAVY": "Extremely Heavy Dust (F11.732)"}


def dust_modifier(level: str, die: int) -> int:
    """Environment.isLightDust() is true for LIGHT, HEAVY and VERY_HEAVY: getLightDust, else getModerateDust."""
    return die // 2 if level in ("LIGHT", "HEAVY", "VERY_HEAVY") else die // 2 + die % 2


@dataclass
class Rolled:
    """What the dice bot rolled, for the tests to compare with what the ledger read."""

    line: str
    die: str
    category: str
    player: str
    colored: int
    white: int | None = None
    third: int | None = None
    rof: int | None = None
    special: str = ""
    dust: str = ""  # the Dust level in effect when it was rolled (the chat window shows it)

    @property
    def faces(self) -> tuple[int, ...]:
        return (self.white, self.colored) if self.die == "DR" else (self.colored,)


@dataclass
class DiceBot:
    version: str = "6.6"
    decimal: str = ","  # NumberFormat.getInstance(): ',' in most of Europe, '.' in the US
    random_org: bool = False
    axis_san: int = 0
    allied_san: int = 0
    axis_booby: str = ""  # '', 'A', 'B' or 'C' (ScenInfo)
    allied_booby: str = ""
    dust: str = ""  # a DustLevel name ('LIGHT', ...) when Dust is in effect
    show_rof: bool = False
    seed: int = 0
    totals: dict = field(default_factory=dict)  # ('D2'|'D1', category) -> list of totals

    def __post_init__(self):
        self.rng = random.Random(self.seed)
        self.series, self.in_series, self.order = 0, 99, list(range(1, 100))

    def _add(self, kind: str, category: str, total: int) -> None:
        for cat in (TOTAL, category):
            self.totals.setdefault((kind, cat), []).append(total)

    def _avg(self, kind: str, category: str) -> str:
        values = self.totals.get((kind, category))
        return f"{sum(values) / len(values):.2f}".replace(".", self.decimal) if values else "-"

    def _on_total(self, kind: str, total: int) -> str:
        values = self.totals[(kind, TOTAL)]
        return f"{values.count(total)} / {len(values)}"

    def _serie(self) -> str:
        if self.in_series >= 99:
            self.series += 1
            self.in_series = 0
            self.rng.shuffle(self.order)
        number = self.order[self.in_series]
        self.in_series += 1
        return f"{self.series:02d}.{number:02d}"

    def special(self, total: int) -> str:
        axis, allied = total == self.axis_san, total == self.allied_san
        if axis and allied:
            return "Axis/Allied SAN    "
        if axis:
            return "Axis SAN    "
        if allied:
            return "Allied SAN    "
        if total >= 11 and (self.axis_booby or self.allied_booby):
            def trapped(level):
                return (level == "C" and total == 12) or (level == "B" and total == 11) or level == "A"
            if trapped(self.axis_booby) and trapped(self.allied_booby):
                return "Axis/Allied Booby Trap    "
            if trapped(self.axis_booby):
                return "Axis Booby Trap   "
            if trapped(self.allied_booby):
                return "Allied Booby Trap   "
        return ""

    def DR(self, category: str, player: str, colored: int, white: int, third: int | None = None,
           rof: int | None = None) -> Rolled:
        self._add("D2", category, colored + white)
        special = self.special(colored + white)
        stats = (self._on_total("D2", colored + white), self._avg("D2", category), self._avg("D2", TOTAL))
        if self.version == "6.4":
            line = "*** (%s DR) %s,%s ***   <%s>      %s[%s   avg   %s (%s)]    (%s%s" % (
                category, colored, white, player, special, *stats, self._serie(),
                " - by random.org)" if self.random_org else ")")
            if category == "TH":
                line += " <Turret>" if colored < white else "<Hull>"
            return Rolled(line, "DR", category, player, colored, white, special=special.strip())
        by = " - by random.org" if self.random_org else ""
        if self.dust and third and category in ("TH", "IFT", "MC"):
            line = "*** (%s DR) %s,%s,%s *** - total with %s: %s     <%s>      %s[%s   avg   %s (%s)]    (%s%s)" % (
                category, colored, white, third, DUST[self.dust], colored + white + dust_modifier(self.dust, third),
                player, special, *stats, self._serie(), by)
        else:
            third = None
            line = "*** (%s DR) %s,%s ***   <%s>      %s[%s   avg   %s (%s)]    (%s%s)" % (
                category, colored, white, player, special, *stats, self._serie(), by)
        if self.show_rof and category in ("TH", "IFT"):
            line += " ROF die: " + str(rof)
        else:
            rof = None
        return Rolled(line, "DR", category, player, colored, white, third, rof, special.strip(), self.dust)

    def dr(self, category: str, player: str, die: int) -> Rolled:
        self._add("D1", category, die)
        line = "*** (%s dr) %s ***   <%s>      [%s   avg   %s (%s)]    (%s%s" % (
            category, die, player, self._on_total("D1", die), self._avg("D1", category), self._avg("D1", TOTAL),
            self._serie(), (" - by random.org)" if self.random_org else ")"))
        return Rolled(line, "dr", category, player, die, dust=self.dust)


# ---- ASLChatter: the chat window ------------------------------------------------------------------------------
def _notes(category: str, first: int, second: int, level: int, dust: str, third: int | None) -> list[str]:
    """parseNewDiceRoll's notes after the SAN / Booby Trap (6.6 with handleSpecialMessagesForOtherDice)."""
    notes = []
    if level < 2:
        return notes
    if category == "TH":
        if first == second:
            if first == 1:
                notes.append("Unlikely Hit (C3.6)")
            if level == 3:
                notes.append("Multiple Hits 15..40mm (C3.8)")
        notes.append("Turret" if first < second else "Hull")
    elif category == "TK" and first == second == 6:
        notes.append("Dud (C7.35)")
    elif category == "MC":
        if first == second == 1 and level == 3:
            notes.append("Heat of Battle (A15.1)")
        elif first == second == 6:
            notes.append("Casualty MC (A10.31)")
    elif category == "Rally":
        if first == second == 1 and level == 3:
            notes.append("Heat of Battle (A15.1) or Field Promotion (A18.11)")
        elif first == second == 6:
            notes.append("Fate -> Casualty Reduction (A10.64)")
    elif category == "IFT" and first == second:
        if first == 1 and level == 3:
            notes.append("Unlikely Kill vs * (A7.309)")
        notes.append("Cower if MMC w/o LDR")
    elif category == "CC" and first == second and level == 3:
        if first == 1:
            notes.append("Infiltration (A11.22), Field Promotion (A18.12), Unlikely Kill (A11.501)")
        elif first == 6:
            notes.append("Infiltration (A11.22)")
    if category in ("TH", "IFT", "MC") and dust:
        total = first + second
        if third and level == 3:
            if category == "MC":
                total -= dust_modifier(dust, third)
                notes.append(f"{DUST[dust]} - if interdicted, MC is {total}")
            else:
                total += dust_modifier(dust, third)
                notes.append(DUST[dust] + " ")
        notes.append(f"Total: {total}")
    return notes


SNIPER = {1: "Eliminates SMC, Dummy stack, Sniper; Stuns & Recalls CE crew; breaks MMC & Inherent crew of certain "
             "vehicles; immobilizes unarmored vehicle (A14.3)",
          2: "Eliminates Dummy stack; Wounds SMC; Stuns CE crew; pins MMC, Inherent crew of certain vehicles, "
             "Sniper (A14.3)"}
SAN_NOTES = ("Axis SAN", "Allied SAN", "Axis/Allied SAN")
TRAP_NOTES = ("Axis Booby Trap", "Allied Booby Trap", "Axis/Allied Booby Trap")


def _san(category: str, after: str, level: int) -> tuple[list[str], str]:
    """The SAN (not for TK, CC, Rally) and TC's Booby Trap, taken off the front of the rest as notes."""
    notes = []
    if level in (1, 3):
        for names, applies in ((SAN_NOTES, category not in ("TK", "CC", "Rally")), (TRAP_NOTES, category == "TC")):
            note = next((n for n in names if applies and after.startswith(n)), None)
            if note:
                notes.append(note)
                after = after[len(note):]
    return notes, after


def _find_user(value: str) -> tuple[str, str, str]:
    start, end = value.find("<"), value.find(">")
    if start == -1 or end == -1:
        return value, "", ""
    return value[: start + 1], value[start + 1: end], value[end + 1:]


def chat_window(message: str, version: str = "6.6", level: int = 3, stats: bool = False, dust: str = "",
                collapse: bool = False) -> str:
    """The line the chat window shows for one chat message, as copied with dice images off."""
    if version == "6.4":
        return _chat_64(message, level, stats)
    parts = {"category": "", "c": "", "w": "", "user": "", "special": "", "rest": ""}
    if message.startswith("*** ("):
        parts.update(_parse_66(message, level, stats, dust))
    elif message.startswith("<"):
        _before, user, after = _find_user(message)
        if user and after:
            parts.update(user=user, rest=after)
    else:
        return message
    shown = ("*~<span class=msgcategory>" + parts["category"] + "</span>" + " " + parts["c"] + " " + parts["w"] + " "
             + "<span class=other>" + "  ...  " + parts["user"] + "</span>" + " " + "<u>"
             + "<span class=msgspecial>" + parts["special"] + "</span>" + "</u>" + " "
             + "<span class=other>" + parts["rest"] + "</span>").strip()
    shown = shown.replace("~", "", 1)  # doShow: stripQuickColorTagLocal
    text = html.unescape(re.sub(r"<[^>]*>", "", shown))  # what a copy of the HTML pane gives
    return " ".join(text.split()) if collapse else text


def _parse_66(message: str, level: int, stats: bool, dust: str) -> dict:
    rest = message[len("*** ("):]
    if " DR) " in rest:
        category, rest = rest.split(" DR) ", 1)
        dice, rest = rest.split(" ***", 1)
        values = dice.split(",")
        if len(values) == 3 and not dust or len(values) not in (2, 3):
            return {}
        first, second = int(values[0]), int(values[1])
        third = int(values[2]) if len(values) == 3 else None
        _b, user, after = _find_user(rest)
        if not user or not after:
            return {}
        notes, after = _san(category, after.replace(">", " ").strip(), level)
        notes += _notes(category, first, second, level, dust, third)
        return {"category": "   " + category, "c": str(first), "w": str(second), "user": user,
                "special": ", ".join(notes), "rest": after if stats else ""}
    category, rest = rest.split(" dr) ", 1)
    dice, rest = rest.split(" ***", 1)
    _b, user, after = _find_user(rest)
    if len(dice) != 1 or not user or not after:
        return {}
    special = SNIPER.get(int(dice), "") if category == "SA" else ""
    return {"category": "   " + category, "c": dice, "user": user, "special": special, "rest": rest if stats else ""}


def _chat_64(message: str, level: int, stats: bool) -> str:
    """VASL 6.4.2's ParseNewDiceRoll into its text pane (no Dust, no environment notes)."""
    if not message.startswith("*** ("):
        return message
    rest = message[len("*** ("):]
    kind = " DR) " if " DR) " in rest else " dr) "
    category, rest = rest.split(kind, 1)
    dice, rest = rest.split(" ***", 1)
    _b, user, after = _find_user(rest)
    if not user or not after:
        return message  # shown as it came
    after = after.replace(">", " ").strip()
    if kind == " dr) ":
        line = "   " + category + "\t" + dice + "  ...  " + user + ("   " + after if stats else " ")
        return line + ("   " + SNIPER[int(dice)] if category == "SA" and int(dice) in SNIPER else "")
    first, second = (int(v) for v in dice.split(","))
    notes, after = _san(category, after, level)
    notes += _notes(category, first, second, level, "", None)
    return "   " + category + "\t" + dice + "  ...  " + user + "   " + ", ".join(notes) + (after if stats else " ")


# ---- VASSAL: the .vlog ----------------------------------------------------------------------------------------
@dataclass
class Command:
    text: str
    subs: list["Command"] = field(default_factory=list)


def encode_command(command: Command) -> str:
    """GameModule.encode: the command, then each sub-command encoded in turn, joined by SequenceEncoder."""
    if not command.subs:
        return command.text
    return encode([command.text, *(encode_command(sub) for sub in command.subs)])


def logged(command: Command) -> Command:
    """BasicLogger.LogCommand: 'LOG\\t' + the command without its sub-commands, each sub-command logged in turn."""
    return Command("LOG\t" + command.text, [logged(sub) for sub in command.subs])


def chat(message: str) -> Command:
    return Command("CHAT" + message)


def game_state() -> Command:
    """GameState.getRestoreCommand(): 'begin_save', the version check, the pieces, ..., 'end_save'."""
    return Command("begin_save", [
        Command("COND\tVersion<3.7.5\tALERT\tThis game was saved with a later version of VASSAL"),
        Command("+/1632945\t/piece;;;germans/467s.gif;4-6-7\t\\\tMain Map;512;640;1632945"),
        Command("+/1632946\t/piece;;;americans/667.gif;6-6-7\tMain Map;700;640;1632946", [
            Command("D/1632946\tTurret;0;tca"),
        ]),
        Command("'quoted state'"),
        Command("end_save"),
    ])


def write_vlog(path: Path, steps: list[Command], key: int = 0x58, module: str = "VASL", module_version: str = "6.6.7",
               vassal_version: str = "3.7.5", state: Command | None = None, plain: bool = False) -> Path:
    root = state or game_state()
    root = Command(root.text, [*root.subs, *(logged(step) for step in steps)])
    data = encode_command(root).encode("utf-8")
    meta = (f'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<data version="1">\n'
            f"  <version>{module_version}</version>\n  <VassalVersion>{vassal_version}</VassalVersion>\n"
            f"  <dateSaved>1700000000000</dateSaved>\n")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("savedGame", data if plain else obfuscate(data, key))
        archive.writestr("savedata", meta + "</data>\n")
        archive.writestr("moduledata", meta + f"  <name>{module}</name>\n</data>\n")
    return path


# ---- a whole game ---------------------------------------------------------------------------------------------
CATEGORIES_DR = ("IFT", "TH", "TK", "MC", "TC", "Rally", "CC", "Other")
CATEGORIES_DR_SASL = ("EP",)
CATEGORIES_dr = ("Other", "SA", "RS")


def play(count: int, seed: int = 1, players: tuple[str, ...] = ("Fred Kors", "Player2"), **bot) -> tuple[DiceBot, list]:
    """`count` dice-bot reports of every kind with chat and moves between them: (the bot, the steps of the log as
    [(Command, Rolled | None)])."""
    rng = random.Random(seed)
    bot.setdefault("axis_san", 7)
    bot.setdefault("allied_san", 5)
    dicebot = DiceBot(seed=seed, **bot)
    steps: list = []
    for n in range(count):
        player = players[n % len(players)]
        if n % 11 == 5:
            steps.append((Command("M/1632945\tMain Map;520;700", [chat(f"* {player}: 4-6-7 moves C4 -> C5 *")]), None))
        if n % 13 == 7:
            name = player or "(Anonymous)"  # ASLChatter.formatChat: a player without a name
            steps.append((chat(f"<{name}> - roll for it... 'ok' \\o/"), None))
        if rng.random() < 0.3:
            category = rng.choice(CATEGORIES_dr)
            rolled = dicebot.dr(category, player, rng.randint(1, 6))
        else:
            category = rng.choice(CATEGORIES_DR + CATEGORIES_DR_SASL)
            rolled = dicebot.DR(category, player, rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6),
                                rng.randint(1, 6))
        steps.append((chat(rolled.line), rolled))
    return dicebot, steps


# ---- the shipped fixtures (fixtures/vasl/*.txt): each body is exactly what this module writes --------------------
def dicebot_66() -> list[Rolled]:
    """Every line ASLDiceBot 6.6 prints: each category's DR and dr, SAN and Booby Trap, random.org or not, decimal
    comma or point, the ROF die, the Dust DR's three dice, a player with spaces and one without a name."""
    fred = DiceBot(random_org=True, show_rof=True, axis_san=3, allied_san=4, axis_booby="A", allied_booby="C", seed=6)
    other = DiceBot(decimal=".", axis_san=3, allied_san=4, axis_booby="A", allied_booby="C", seed=7)
    nameless = DiceBot(axis_san=3, allied_san=4, seed=8)
    out = [fred.DR("IFT", "Fred Kors", 3, 5, rof=2), other.DR("IFT", "Player2", 4, 4),
           fred.DR("TH", "Fred Kors", 2, 5, rof=6), other.DR("TH", "Player2", 6, 1),
           fred.DR("TK", "Fred Kors", 6, 6), other.DR("MC", "Player2", 5, 6), fred.DR("Rally", "Fred Kors", 1, 1),
           other.DR("CC", "Player2", 3, 2), fred.DR("TC", "Fred Kors", 5, 6), other.DR("TC", "Player2", 6, 6),
           fred.DR("Other", "Fred Kors", 1, 2), other.DR("Other", "Player2", 2, 2), fred.DR("Other", "Fred Kors", 3, 1),
           other.DR("EP", "Player2", 3, 3),
           fred.dr("Other", "Fred Kors", 4), other.dr("SA", "Player2", 1), fred.dr("SA", "Fred Kors", 2),
           other.dr("RS", "Player2", 6), nameless.DR("Other", "", 4, 2), nameless.dr("RS", "", 5)]
    for bot in (fred, other):
        bot.dust = "LIGHT"
    out += [fred.DR("TH", "Fred Kors", 2, 5, 4, rof=3), other.DR("IFT", "Player2", 4, 6, 5),
            fred.DR("MC", "Fred Kors", 3, 3, 3, rof=5), other.DR("Other", "Player2", 1, 6, 2)]
    other.dust = "MODERATE"
    out.append(other.DR("MC", "Player2", 2, 4, 3))
    return out


def dicebot_64() -> list[Rolled]:
    """VASL 6.4.2's lines: a TH DR ends with ' <Turret>' or '<Hull>'; no Dust, no ROF die."""
    bot = DiceBot(version="6.4", random_org=True, axis_san=6, allied_san=8, axis_booby="B", seed=64)
    return [bot.DR("TH", "FredKors", 2, 5), bot.DR("TH", "FredKors", 5, 2), bot.DR("TH", "FredKors", 3, 3),
            bot.DR("IFT", "FredKors", 1, 5), bot.DR("TC", "FredKors", 5, 6), bot.DR("Other", "FredKors", 4, 4),
            bot.dr("SA", "FredKors", 2)]


def chat_lines(rolled: list[Rolled], version: str, stats: bool, chatter: list[tuple[int, str]] = ()) -> list[str]:
    """The chat window's text of these dice-bot lines (and players' chat inserted at the given indexes)."""
    said = dict(chatter)
    out = []
    for n, roll in enumerate(rolled):
        if n in said:
            out.append(chat_window(said[n], version=version))
        out.append(chat_window(roll.line, version=version, stats=stats, dust=roll.dust))
    return out


CHATTER = [(0, "<Fred Kors> - ready when you are"), (5, "<Player2> - ouch"), (18, "<(Anonymous)> - who am I?")]
FIXTURES = {
    "dicebot-6.6.txt": lambda: [r.line for r in dicebot_66()],
    "dicebot-6.4.txt": lambda: [r.line for r in dicebot_64()],
    "chat-6.6.txt": lambda: chat_lines(dicebot_66(), "6.6", False, CHATTER),
    "chat-6.6-stats.txt": lambda: chat_lines(dicebot_66(), "6.6", True, CHATTER),
    "chat-6.4.txt": lambda: chat_lines(dicebot_64(), "6.4", False, [(1, "<FredKors> - hit!")]),
    "chat-6.4-stats.txt": lambda: chat_lines(dicebot_64(), "6.4", True),
}


def fixture_body(path: Path) -> list[str]:
    """The lines of a fixture file after its '#' header."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if not line.startswith("#")]


def every_format(count: int, seed: int = 5) -> list[tuple[Command, Rolled | None]]:
    """A game of `count` dice-bot reports in every format of VASL 6.6, as the steps of its log: two players with
    their own dice bots (Fred Kors: random.org, decimal comma, ROF die; Player2: decimal point), a player without
    a name, every category, SAN and Booby Traps, Dust from the middle of the game on (Light, then Moderate), the
    players' chat and piece moves in between."""
    rng = random.Random(seed)
    settings = dict(axis_san=3, allied_san=4, axis_booby="A", allied_booby="C")
    bots = {"Fred Kors": DiceBot(random_org=True, show_rof=True, seed=seed, **settings),
            "Player2": DiceBot(decimal=".", seed=seed + 1, **settings),
            "": DiceBot(seed=seed + 2, **settings)}
    steps: list = []
    for n in range(count):
        player = ("Fred Kors", "Player2", "Fred Kors", "Player2", "")[n % 5]
        bot = bots[player]
        for b in bots.values():
            b.dust = "" if n < count // 2 else ("LIGHT" if n < 3 * count // 4 else "MODERATE")
        if n % 9 == 4:
            steps.append((Command("M/1632945\tMain Map;520;700", [chat(f"* {player or '?'}: 4-6-7 moves C4 -> C5 *")]),
                          None))
        if n % 17 == 8:
            steps.append((chat(f"<{player or '(Anonymous)'}> - {n}... 'really' \\o/ ok"), None))
        if n % 4 == 3:
            rolled = bot.dr(rng.choice(CATEGORIES_dr), player, rng.randint(1, 6))
        else:
            rolled = bot.DR(rng.choice(CATEGORIES_DR + CATEGORIES_DR_SASL), player, rng.randint(1, 6),
                            rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
        steps.append((chat(rolled.line), rolled))
    return steps


def chat_copy(steps: list, version: str = "6.6", stats: bool = False, collapse: bool = False) -> list[str]:
    """The chat window of a game, every message as it shows it (a move's report included)."""
    lines = []
    for command, rolled in steps:
        for message in _messages(command):
            lines.append(chat_window(message, version=version, stats=stats, dust=rolled.dust if rolled else "",
                                     collapse=collapse))
    return lines


def _messages(command: Command) -> list[str]:
    own = [command.text[4:]] if command.text.startswith("CHAT") else []
    return own + [m for sub in command.subs for m in _messages(sub)]
