"""The event contracts: small frozen facts, past-tense names, explicit stable tags.

Stored history depends on these tags and field names: add fields only with defaults; a changed meaning is a new event
type. Every fact but CampaignStarted carries the number of the action (one command) that wrote it: `undo` voids it."""

from typing import Union

from msgspec import Struct

from .reports import SkippedReport, VaslReport  # noqa: F401 - a VASL file's reports, as its import records them


class Fact(Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True):
    """A fact of a log; a field it does not know is refused (a bundle cannot carry words no decision reads)."""


class CampaignStarted(Fact, tag="CampaignStarted", frozen=True, kw_only=True):
    name: str
    system: str
    cg: str
    cg_date: str
    start_cpp: dict[str, int] = {}  # CPP each side has before the Initial Scenario (8.51-.53)
    random_weather: bool = False  # 8.6171 chosen by mutual consent instead of the historical chart
    edition: int = 0  # the ledger's reading of the rules the campaign was started under (rules `Condition.edition`)


class AppliedDRM(Struct, frozen=True, kw_only=True):
    key: str
    name: str  # the modifier as the table words it
    value: int
    kind: str  # 'declared' or 'automatic'
    input: int | None = None  # the player's number for a count/value DRM (e.g. uncontrolled_hexes=12)


class DiceRolled(Fact, tag="DiceRolled", frozen=True, kw_only=True):
    action: int
    table: str
    rule: str
    side: str
    die: str  # DR, dr, d10, d100
    dice: tuple[int, ...]  # faces as rolled: (white, colored) for a DR
    source: str  # rng | entered | seeded
    original: int
    drms: tuple[AppliedDRM, ...] = ()
    final: int
    result: str
    code: str = ""
    value: int | None = None  # for tables whose result is a number (8.616 CPP, 8.622 Recon)
    sets: tuple[str, ...] = ()  # lasting campaign conditions this result starts (8.618 shortage)
    secret: bool = False
    purpose: str = ""  # --for TEXT
    effect: str = ""  # what the roll does for the books (the table's effect), e.g. cpp_replenishment
    rg: int | None = None  # the RGPurchased event (its version) this follow-up roll belongs to
    cpp: int = 0  # CPP the roll cost (8.622 Recon)
    fair: int | None = None  # fair dice: the rolling side's n-th fair roll, from which the dice derive
    vasl: str = ""  # the VASL dice report the dice came from (source 'vasl'), as pasted
    player: str = ""  # the VASL player who rolled
    series: str = ""  # the VASL series label
    item: str = ""  # the due item this roll consumed (ledger/due.py), empty for a roll made as often as needed
    adds: tuple[str, ...] = ()  # follow-up tables this result makes due for its RG (a Depleted RG's SW drs)
    hexes: tuple[str, ...] = ()  # the hexes the roll is made for (CGS: a mine attack's hex, a mousehole's hexside)


class DiceReported(Fact, tag="DiceReported", frozen=True, kw_only=True):
    """A VASL dice report not attached to any table: kept so that nothing rolled is lost."""

    action: int
    die: str  # DR or dr
    dice: tuple[int, ...]  # (white, colored) for a DR
    side: str = ""  # when the player was named as a side
    player: str
    category: str = ""  # VASL's category, e.g. 'Other', 'TH'
    special: str = ""  # e.g. 'Allied SAN'
    series: str = ""
    vasl: str  # the report as pasted
    source: str = "vasl"


class VaslLogImported(Fact, tag="VaslLogImported", frozen=True, kw_only=True, omit_defaults=True):
    """One file of VASL dice reports imported, as one action: every report it recorded (an attached one is also
    a DiceRolled on its table, after this event), the ones it skipped. What `dice-stats` counts per scenario."""

    action: int
    file: str  # the file's name
    form: str  # 'vlog', 'vsav' (a VASSAL log or save), 'chat' (the chat window's text), 'raw' (dice-bot lines)
    digest: str  # SHA-256 of the file's bytes
    reports: tuple[VaslReport, ...] = ()
    duplicates: int = 0  # reports already in the log (or twice in the file), not recorded again
    skipped: tuple[SkippedReport, ...] = ()  # lines that looked like reports but could not be read
    module: str = ""  # a VASSAL file's module and version, e.g. 'VASL', '6.6.7'
    module_version: str = ""
    vassal_version: str = ""

    @property
    def vasl(self) -> tuple[str, ...]:
        """The reports' lines (what the audit re-reads, as it does a VASL roll's `vasl`)."""
        return tuple(report.line for report in self.reports)


class ActionUndone(Fact, tag="ActionUndone", frozen=True, kw_only=True):
    action: int
    undone: int  # the action voided
    reason: str = ""
    proposal: int = 0  # the TakeBackProposed event this accepts (the other side's action, or a shared one)
    also: tuple[int, ...] = ()  # the acts the same command recorded just before it, voided with it (edition 4 on)


class TakeBackProposed(Fact, tag="TakeBackProposed", frozen=True, kw_only=True):
    """A side asks to take back an action it may not void alone (the other side's, or a shared one): an undo
    of one action or a rewind to a CG Date's RePh end. The other side accepts it (ActionUndone or Rewound
    naming this event); anything else recorded first lets it lapse."""

    action: int
    kind: str  # 'undo' or 'rewind'
    voided: tuple[int, ...]  # the actions it would void
    cg_date: str = ""  # a rewind's CG Date
    to_version: int = 0  # a rewind's RePh-end event
    reason: str = ""


class CGDateChanged(Fact, tag="CGDateChanged", frozen=True, kw_only=True):
    action: int
    previous: str
    cg_date: str


class TablesOverridden(Fact, tag="TablesOverridden", frozen=True, kw_only=True):
    """A player's own rules file, stored in the log so every reader and the audit use it too."""

    action: int
    source: str  # the file name it was loaded from
    text: str  # the TOML itself
    tables: tuple[str, ...]  # the ids it replaces or adds
    proposal: int = 0  # the RulesProposed event this accepts (once sides have keys, both agree to a rules file)


class RulesProposed(Fact, tag="RulesProposed", frozen=True, kw_only=True):
    """Once sides have keys, a rules file changes the tables for both: one side proposes it, the other accepts it
    (TablesOverridden naming this event); anything else recorded first lets it lapse."""

    action: int
    source: str
    text: str
    tables: tuple[str, ...]


class StepOpened(Fact, tag="StepOpened", frozen=True, kw_only=True):
    """The campaign moved to a RePh step (8.601-8.625), or to 'scenario' (a CG scenario is played)."""

    action: int
    step: str
    skipped: tuple[str, ...] = ()  # steps passed over as not applicable


class SideAdvanced(Fact, tag="SideAdvanced", frozen=True, kw_only=True):
    """Once both sides hold keys each side walks the RePh itself (8.6: the steps "are performed simultaneously by
    each side"): this side is done with its part of the steps before `step` and is now there, ahead of the
    campaign's open step, which waits for the other side."""

    action: int
    side: str
    step: str
    passed: tuple[str, ...] = ()  # the steps this side left behind (its own part of them done)


class ScenarioEnded(Fact, tag="ScenarioEnded", frozen=True, kw_only=True):
    """8.6032: each side's Current-LVP at CG-Scenario End and the winner (8.6234)."""

    action: int
    scenario: str  # Initial Scenario, Dual Attack, German Assault, U.S. Assault
    lvp: dict[str, int]
    winner: str
    declared: bool = False  # the players named the winner (Initial Scenario VC, 8.6234b cut-off)
    from_map: bool = False  # the Current-LVP were read off the loaded maps (8.6032)


class InitiativeChosen(Fact, tag="InitiativeChosen", frozen=True, kw_only=True):
    """8.6232: both chits as revealed and what the matrix makes of them."""

    action: int
    chits: dict[str, str]  # side -> attack | idle
    scenario: str  # Dual Attack, German Assault, U.S. Assault, Idle Day
    us_has_no_units: bool = False  # 8.6232: declared; the German may not then select Attack


class RGPurchased(Fact, tag="RGPurchased", frozen=True, kw_only=True):
    """8.619: one RG bought (or, `given`, received in the Initial-Scenario OB: no CPP, not counted)."""

    action: int
    side: str
    rg: str  # RG ID, e.g. I2
    group_type: str
    cpp: int
    map_group: str
    objective: str = ""  # Objective Hex (8.6198)
    given: bool = False
    rolls: tuple[str, ...] = ()  # follow-up tables its chart line demands in step 8.620
    fpp: float = 0.0  # FPP it gives for step 8.621 (an FPP line of the RG chart)
    on_map: bool = False  # bought for on-map setup (RR footnote o)
    pre_registered: int = 0  # Pre-Registered hexes bought with it (RR footnote p)
    san: int = 0  # what it adds to the side's SAN (RR M2 Sniper: 'SAN Increase +1')
    early: bool = False  # bought for Early Entry, one CG Date before its Entry Area's arrow (KGP 8.6194b)


class FortificationsPurchased(Fact, tag="FortificationsPurchased", frozen=True, kw_only=True):
    """8.621: Fortifications bought with FPP for one Setup Area (placed on the map at setup, 8.6242)."""

    action: int
    side: str
    item: str  # fortification id of the 8.621 table, e.g. at_mines
    name: str
    size: str = ""  # foxhole capacity, HIP unit type
    count: int
    fpp: float
    setup_area: str
    s_units: int = 0  # how many Fortifications they count as under footnote S
    front_line: bool = False
    isolated: bool = False
    squads: int = 0  # Retained squad-equivalents in the Setup Area, as declared (footnote S)


class Rewound(Fact, tag="Rewound", frozen=True, kw_only=True):
    """Play resumes from the end of a CG Date's RePh: every later action is voided, none deleted."""

    action: int
    cg_date: str
    to_version: int  # the event that ended that CG Date's RePh
    voided: tuple[int, ...]
    reason: str = ""
    proposal: int = 0  # the TakeBackProposed event this accepts


class LocationControlled(Fact, tag="LocationControlled", frozen=True, kw_only=True):
    """A side gained Control of a Location (A26.11-.12); `strategic` is its Strategic Location kind
    (8.605: B building Location, E Entrenchment, F Fortification, G functioning Gun, V manned
    Immobile vehicle with MA >= 20mm), empty for a non-Strategic Location."""

    action: int
    location: str  # e.g. StJ19, StJ19/2
    side: str
    strategic: str = ""


class HQRecorded(Fact, tag="HQRecorded", frozen=True, kw_only=True):
    """8.6052 EXC: the German records another 'HQ' Location on Lg once LgN25 is U.S.-Controlled."""

    action: int
    side: str
    location: str


class FirefightEnded(Fact, tag="FirefightEnded", frozen=True, kw_only=True):
    """CGS: a Campaign Firefight ends and changes the map (6.7.2 Fire -> Rubble, 6.8.2.1 Burning Wrecks ->
    Wrecks, 6.16.3 units In Sewer stay in their sector unless they Re-Deploy)."""

    action: int
    map: str
    firefight: str
    fires: tuple[str, ...] = ()  # hexes with Fire at the end of the firefight
    burning_wrecks: tuple[str, ...] = ()  # hexes holding a Burning Wreck (one entry per wreck)
    in_sewer: tuple[str, ...] = ()  # units In Sewer, as the players name them ('4-4-7 in DTW-N32')
    redeployed: tuple[str, ...] = ()  # of those, the ones that Re-Deployed by Sewer Movement


class FortificationPlaced(Fact, tag="FortificationPlaced", frozen=True, kw_only=True):
    """CGS: a fortification bought as an RG is placed on the map (7.1-7.6)."""

    action: int
    side: str
    item: str  # dug_in, trench, at_trench, mines, roadblock, wire
    hex: str
    rg: int  # the RGPurchased event it came from
    hidden: bool = False


class FortificationRemoved(Fact, tag="FortificationRemoved", frozen=True, kw_only=True):
    """CGS: a placed fortification leaves the map by the rule that removes it: a roll's result in the same action
    (7.4.7.2 "00": the mines), Clearance (7.4.8, 7.5.3, 7.6.3), an FFT 'E' from HE/DC fire (7.5.3, 7.6.3), or its
    units no longer there (7.1.2 Dug-In)."""

    action: int
    side: str  # the fortification's owner
    item: str
    hex: str
    placed: int  # the FortificationPlaced (or HiddenFortificationPlaced) event it removes
    by: str  # roll | clearance | fire | abandoned
    rule: str


class MouseholeMade(Fact, tag="MouseholeMade", frozen=True, kw_only=True):
    """CGS 7.3: a Mousehole blown by a side's DC SW Team in an interior Factory wall or between Cellars (6.6.3): it
    stays on the hexside between the two hexes."""

    action: int
    side: str
    hexes: tuple[str, ...]  # the two hexes of the hexside
    rule: str
    roll: int = 0  # the 7.3.2 roll it came from, when the players name it


class RubblePlaced(Fact, tag="RubblePlaced", frozen=True, kw_only=True):
    """CGS: Rubble placed during play by a roll's result in the same action (7.3.2 "00": both hexes of the
    mousehole hexside, instead of Fire)."""

    action: int
    hexes: tuple[str, ...]
    rule: str


class HiddenFortificationPlaced(Fact, tag="HiddenFortificationPlaced", frozen=True, kw_only=True):
    """CGS 7.4.4: a fortification set up hidden by a side with a key: both sides see the side, the item and the
    RG it came from; its hex is `sealed` with the side's key under a commitment until it is revealed."""

    action: int
    side: str
    item: str
    rg: int
    commitment: str
    sealed: str


class HiddenFortificationRevealed(Fact, tag="HiddenFortificationRevealed", frozen=True, kw_only=True):
    """CGS 7.4.4: a hidden fortification revealed when an enemy unit enters its hex (`entry`), via Searching
    (`search`, the 7.4.5 roll), or by its side: the placement as made and the salt of its commitment."""

    action: int
    placed: int  # the HiddenFortificationPlaced (or hidden FortificationPlaced) event
    fact: FortificationPlaced
    salt: str = ""
    cause: str = ""  # entry | search | '' (its side's own choice)
    search: int = 0  # the enemy's 7.4.5 roll that searched the hex


class CPPGained(Fact, tag="CPPGained", frozen=True, kw_only=True):
    """CPP a side gains as a CG Date starts, as the chart in force gives them (CGS: the players' own chart)."""

    action: int
    side: str
    cpp: int
    cg_date: str
    chart: str
    rule: str = ""


class SideKeyRegistered(Fact, tag="SideKeyRegistered", frozen=True, kw_only=True):
    """A side set up its key for Secret rolls: the scrypt salt and a check value, never the key."""

    action: int
    side: str
    salt: str
    check: str
    public: str = ""  # the side's Ed25519 public key (hex): its events are signed from this one on
    dice: str = ""  # the dice mode its side agreed to, this key completing the pair (`fair-dice mode`)


class SecretRollMade(Fact, tag="SecretRollMade", frozen=True, kw_only=True):
    """A Secret roll: what both sides see (table, side, purpose, time, commitment); the roll `sealed` with its key."""

    action: int
    table: str
    rule: str
    side: str
    die: str
    purpose: str = ""
    effect: str = ""
    rg: int | None = None
    fair: int | None = None  # fair dice: the rolling side's n-th fair roll
    commitment: str
    sealed: str
    item: str = ""  # the due item it consumed


class FairDiceCommitted(Fact, tag="FairDiceCommitted", frozen=True, kw_only=True):
    """Fair dice: a side commits to its seed (its SHA-256) and publishes its share of the other side's
    fair rolls: `shares[n - 1]` goes into the other side's n-th fair roll."""

    action: int
    side: str
    commitment: str
    shares: tuple[str, ...]


class FairSeedRevealed(Fact, tag="FairSeedRevealed", frozen=True, kw_only=True):
    """Fair dice at campaign end: a side publishes its seed, so that `audit` can prove every fair roll."""

    action: int
    side: str
    seed: str


class SecretRollRevealed(Fact, tag="SecretRollRevealed", frozen=True, kw_only=True):
    """The rolling side published a Secret roll: the roll as made and the salt of its commitment."""

    action: int
    roll: int  # the SecretRollMade event
    fact: "DiceRolled | RollLapsed"  # RollLapsed: made void (a roll its RG's strength did not call for)
    salt: str


class RGPurchaseSealed(Fact, tag="RGPurchaseSealed", frozen=True, kw_only=True):
    """8.619 (RR 2.518): an RG bought in secret. The other side sees that the side bought one RG on this CG Date and
    a commitment (SHA-256 of the RGPurchased and a salt); which RG, its CPP, Map Group and Objective Hex (8.6192,
    8.6198) are sealed with the buyer's key until it reveals them. Its follow-up rolls name this event (--rg)."""

    action: int
    side: str
    cg_date: str
    commitment: str
    sealed: str


class RGPurchaseRevealed(Fact, tag="RGPurchaseRevealed", frozen=True, kw_only=True):
    """A secret RG purchase published by its buyer: the RGPurchased it committed to and the salt."""

    action: int
    purchase: int  # the RGPurchaseSealed event
    fact: RGPurchased
    salt: str


# ---- fair dice: reversed hash chains committed first, rolls declared, then answered ----------------
class DiceCommitted(Fact, tag="DiceCommitted", frozen=True, kw_only=True):
    """A side's fair-dice commitment: the heads of two reversed hash chains from a random seed (the OS's, never
    the passphrase), the seed itself sealed with the side's key. Value k of a chain (k = 1, 2, ...) is the one
    whose SHA-256 is value k-1 (value 0 = the head): fixed now, unknown to anyone else until published."""

    action: int
    side: str
    roll_head: str  # the chain the side's own fair rolls take their values from (its n-th roll: value n)
    answer_head: str  # the chain it answers the other side's fair rolls from (their n-th roll: value n)
    length: int  # values in each chain
    sealed: str  # the seed, sealed (Fernet) with the side's stretched key


class DiceChainRenewed(Fact, tag="DiceChainRenewed", frozen=True, kw_only=True):
    """A side's next chain of one kind, committed by its ledger while the one in use still has values left:
    the same length, from a new random seed sealed with the side's key. It serves fair rolls `first` ..
    `first` + length - 1 (roll n takes its value n - first + 1), so no roll waits for a chain."""

    action: int
    side: str
    chain: str  # 'roll' (the side's own fair rolls) or 'answer' (its answers to the other side's)
    first: int  # the first fair roll it serves: the one after the last value of the chain before it
    head: str
    length: int
    sealed: str


class DiceModeChosen(Fact, tag="DiceModeChosen", frozen=True, kw_only=True):
    """The campaign's dice: 'fair' (the default once both sides hold keys: declared, then answered) or
    'immediate' (the rolling side's ledger rolls at once, or dice entered / from VASL)."""

    action: int
    mode: str


class RollDeclared(Fact, tag="RollDeclared", frozen=True, kw_only=True):
    """A fair roll asked for: everything but the dice. Its due item is consumed now; its dice come from the
    side's roll-chain value n (published here, or at reveal for a Secret roll) and the other side's answer."""

    action: int
    table: str
    side: str
    n: int  # the side's n-th fair roll
    value: str = ""  # the side's roll-chain value n ('' for a Secret roll: published when revealed)
    drms: tuple[tuple[str, int | None], ...] = ()  # declared DRMs: (key, the player's N or None)
    purpose: str = ""
    rg: int | None = None
    item: str = ""  # the due item it consumed
    secret: bool = False
    if_result: str = ""  # made only if its RG's strength roll, declared before it, gives this code (RR 2.5192)
    # veiled (8.619: a follow-up of an RG bought in secret): all but side, n and RG sealed with its side's key
    commitment: str = ""
    sealed: str = ""
    blinded: str = ""  # a Secret roll: SHA-256 of the blinding value its dice also take (published when revealed)


class RollDeclarationRevealed(Fact, tag="RollDeclarationRevealed", frozen=True, kw_only=True):
    """A veiled fair roll's declaration published with its secret RG: the RollDeclared it committed to, the salt."""

    action: int
    declared: int  # the veiled RollDeclared event
    fact: RollDeclared
    salt: str


class RollLapsed(Fact, tag="RollLapsed", frozen=True, kw_only=True):
    """A declared roll made only if its RG's strength roll gave `if_result` (RR 2.5192, KGP 8.6204: a Depleted RG's
    SW drs) lapses: the strength gave another result, so no such roll. Recorded by the answering side's ledger for an
    open roll; a Secret one's roller seals it in a SecretRollMade (made void), and older logs hold it in the open."""

    action: int
    declared: int  # the RollDeclared event
    side: str  # the side whose roll it was


class RollAnswered(Fact, tag="RollAnswered", frozen=True, kw_only=True):
    """The other side's answer to a declared fair roll: its answer-chain value n. For an open roll the
    DiceRolled follows in the same action; a Secret roll is made by the roller's ledger next."""

    action: int
    declared: int  # the RollDeclared event
    side: str  # the answering side
    n: int
    value: str


class RollValuePublished(Fact, tag="RollValuePublished", frozen=True, kw_only=True):
    """A Secret fair roll revealed: the roller's roll-chain value n, so that anyone can check its dice."""

    action: int
    side: str
    n: int
    value: str
    blind: str = ""  # its blinding value, where its declaration committed to one


class ChitSealed(Fact, tag="ChitSealed", frozen=True, kw_only=True):
    """8.6232: a side's Initiative chit, chosen at the same time as the other's: a commitment (SHA-256 of the
    chit and a salt) both sides see, the chit sealed with the side's key."""

    action: int
    side: str
    cg_date: str
    commitment: str
    sealed: str


class ChitRevealed(Fact, tag="ChitRevealed", frozen=True, kw_only=True):
    """A sealed Initiative chit published (once both are sealed): the chit and the salt of its commitment."""

    action: int
    side: str
    chit: str
    salt: str


class DiceWitnessed(Fact, tag="DiceWitnessed", frozen=True, kw_only=True, omit_defaults=True):
    """The other side's word on dice its ledger did not see made fairly (typed, or taken from VASL, once both sides
    hold keys): witnessed, or disputed with its reason. A statement on record: no undo or rewind takes it back."""

    action: int
    side: str  # the witnessing side
    rolls: tuple[int, ...]  # the events of the rolls (a DiceRolled, or a revealed Secret roll's SecretRollMade)
    disputed: str = ""  # the witness refuses them, and why
    log_digest: str = ""  # witnessed by the witness's own copy of the VASL log or chat: its digest


class ProposalDeclined(Fact, tag="ProposalDeclined", frozen=True, kw_only=True, omit_defaults=True):
    """The other side declines the open proposal (an undo, a rewind, a rules file): it is over, said once. A statement
    on record, as a witness is: no undo or rewind takes it back."""

    action: int
    side: str  # the declining side
    proposal: int  # the proposal's event
    reason: str = ""


class TurnReturned(Fact, tag="TurnReturned", frozen=True, kw_only=True):
    """By email, a side read the other's turn and has nothing to record: its signed receipt mails the turn back (what
    it read is received: a shared act of it is then taken back only by a proposal). A statement on record."""

    action: int
    side: str


FACTS: tuple[type[Fact], ...] = (
    CampaignStarted, DiceRolled, ActionUndone, CGDateChanged, TablesOverridden, StepOpened, ScenarioEnded,
    InitiativeChosen, RGPurchased, Rewound, FortificationsPurchased, DiceReported, LocationControlled, HQRecorded,
    SideKeyRegistered, SecretRollMade, SecretRollRevealed, FairDiceCommitted, FairSeedRevealed, FirefightEnded,
    FortificationPlaced, TakeBackProposed, DiceCommitted, DiceModeChosen, RollDeclared, RollAnswered,
    RollValuePublished, ChitSealed, ChitRevealed, FortificationRemoved, MouseholeMade, RubblePlaced,
    HiddenFortificationPlaced, HiddenFortificationRevealed, CPPGained, VaslLogImported, RulesProposed, RGPurchaseSealed,
    RGPurchaseRevealed, SideAdvanced, DiceWitnessed, DiceChainRenewed, ProposalDeclined, RollLapsed,
    RollDeclarationRevealed, TurnReturned,
)
AnyFact = Union[FACTS]  # type: ignore[valid-type] - every fact kind, as decoding reads them
TAGS: dict[type[Fact], str] = {cls: cls.__struct_config__.tag for cls in FACTS}
