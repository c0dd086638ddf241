"""The VASL dice reports an imported file's fact records (`VaslLogImported`): each read from the file, every field
it shows, and the lines that could not be read."""

from msgspec import Struct


class VaslReport(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One VASL dice report as read from a file, every field it shows (ledger/vasl/bot.py reads them; the audit reads
    `line` again). Declared with omit_defaults: a field added later with a default keeps stored digests unchanged."""

    position: int  # its line in a text file, its chat message number in a .vlog/.vsav
    step: int = 0  # in a .vlog: the log step (VASSAL's 'Step forward' count)
    die: str  # DR or dr (3d6: an old VASSAL dice button)
    dice: tuple[int, ...]  # (white, colored) for a DR (VASL prints the colored die first)
    player: str = ""  # VASSAL's player name ('' when VASSAL had none)
    side: str = ""  # when the player was named as a side
    category: str = ""  # IFT, TH, TK, MC, TC, Rally, CC, SA, RS, Other, ...
    special: str = ""  # SAN / Booby Trap; read from the chat window also VASL's notes (Turret, Cower ...)
    stats: str = ""  # VASL's running statistics, e.g. '1 / 8 avg 6,62 (6,62)'
    series: str = ""  # e.g. '01.51 - by random.org'
    third: int | None = None  # the third die of a DR under Dust (F11.71-.73)
    dust: str = ""  # the Dust level VASL names
    total: int | None = None  # the total VASL prints with the Dust die
    rof: int | None = None  # the ROF die (a VASL 6.6 preference, IFT and TH DRs)
    hit: str = ""  # VASL 6.4's 'Turret' / 'Hull' after a TH DR
    form: str  # 'raw' (the dice bot's line), 'legacy' ('*** DR = ...'), 'chat' (the chat window)
    after: str = ""  # a report without statistics: the key of the report before it in its file
    table: str = ""  # attached: the table it was rolled on (the DiceRolled follows in the same action)
    line: str  # the report as read: the evidence


class SkippedReport(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A line that looks like a dice report but cannot be read, as found in an imported file."""

    position: int
    text: str
    problem: str
