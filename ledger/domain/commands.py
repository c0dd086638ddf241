"""What players ask for, as types: one frozen msgspec Struct per verb, a closed union (`AnyCommand`). Each
action stores the command that made it with its first event (envelope form 3, ledger/trust/chain.py); the
decisions that turn a command into facts are in ledger/decide/commands.py. Pure data: nothing here decides."""

from typing import Union

from msgspec import Struct, field

from .events import DiceRolled, FortificationPlaced, RGPurchased, RollDeclared, RollLapsed


class Command(Struct, frozen=True, kw_only=True, tag=True, tag_field="verb", omit_defaults=True):
    """A player's request, as typed; what the rules give back is decided from it and the log. Stored with the
    first event of the action it made (envelope form 3), tagged by its class name: a name is never reused."""


class RollCommand(Command, frozen=True, kw_only=True):
    """What a player asks for when rolling; the dice come with it (rolled by the service, entered, VASL,
    fair dice)."""

    table: str
    side: str
    drms: tuple[tuple[str, int | None], ...] = ()  # declared DRMs: (key, the player's N or None)
    faces: tuple[int, ...]
    source: str
    secret: bool = False
    purpose: str = ""
    rg: int | None = None  # the RGPurchased event this follow-up roll belongs to
    fair: int | None = None
    vasl: str = ""
    player: str = ""
    series: str = ""
    declared: int | None = None  # the RollDeclared event this fair roll resolves (its due item is consumed there)
    hexes: tuple[str, ...] = ()  # the hexes it is made for (CGS: checked with what its result does, decide/fortify.py)
    if_result: str = ""  # fair dice: declared before its RG's strength is known, made only if it gives this code


class Step(Command, frozen=True, kw_only=True):
    target: str | None = None  # 'next' (None), a step, or 'scenario'


class EndScenario(Command, frozen=True, kw_only=True):
    lvp: dict[str, int] = {}
    winner: str | None = None
    from_map: bool = False  # the Current-LVP read off the map (8.6032), not typed


class Initiative(Command, frozen=True, kw_only=True):
    chits: dict[str, str]
    us_has_no_units: bool = False


class Buy(Command, frozen=True, kw_only=True):
    rg: str
    side: str
    map_group: str = ""
    objective: str = ""
    given: bool = False
    on_map: bool = False
    pre_registered: int = 0
    early: bool = False  # KGP 8.6194b Early Entry


class Fortify(Command, frozen=True, kw_only=True):
    item: str
    side: str
    setup_area: str
    count: int = 1
    size: str = ""
    squads: int | None = None
    front_line: bool = False
    isolated: bool = False


class Control(Command, frozen=True, kw_only=True):
    location: str
    side: str
    strategic: str = ""  # '' keeps the Location's Strategic kind; mapd.CLEAR clears it


class Vacate(Command, frozen=True, kw_only=True):  # KGP 8.6131 EXC
    map_group: str


class RecordHQ(Command, frozen=True, kw_only=True):
    side: str
    location: str


class EndFirefight(Command, frozen=True, kw_only=True):
    map: str
    fires: tuple[str, ...] = ()
    burning_wrecks: tuple[str, ...] = ()
    in_sewer: tuple[str, ...] = ()
    redeployed: tuple[str, ...] = ()


class Place(Command, frozen=True, kw_only=True):
    item: str
    hex: str
    side: str
    hidden: bool = False


class Remove(Command, frozen=True, kw_only=True):
    item: str
    hex: str
    by: str
    side: str | None = None


class Mousehole(Command, frozen=True, kw_only=True):
    hexes: tuple[str, ...]
    side: str
    roll: int = 0


class LoadRules(Command, frozen=True, kw_only=True):
    source: str
    text: str


class Undo(Command, frozen=True, kw_only=True):
    """Takes back the last action in force a player took: alone for one's own, else proposed (rights.py)."""

    reason: str = ""


class Rewind(Command, frozen=True, kw_only=True):
    """Back to the end of a CG Date's RePh: alone when every action voided is one's own, else proposed."""

    cg_date: str
    reason: str = ""


class Accept(Command, frozen=True, kw_only=True):
    """The other side accepts the open proposal (an undo, a rewind, a rules file)."""


class Decline(Command, frozen=True, kw_only=True):
    """The other side declines the open proposal."""

    side: str
    reason: str = ""


class ReturnTurn(Command, frozen=True, kw_only=True):
    """By email: the turn read, nothing to record; its receipt mails it back."""

    side: str


class RegisterKey(Command, frozen=True, kw_only=True):
    """A side's key; with fair dice, its first chains committed in the same action (`chains`)."""

    side: str
    salt: str
    check: str
    public: str = ""
    chains: "CommitDice | None" = None
    dice: str = ""  # the dice mode the side agrees to where its key completes the pair and they are not fair


class SealChit(Command, frozen=True, kw_only=True):
    side: str
    commitment: str
    sealed: str


class RevealChit(Command, frozen=True, kw_only=True):
    side: str
    chit: str
    salt: str


class ChooseDiceMode(Command, frozen=True, kw_only=True):
    mode: str


class CommitDice(Command, frozen=True, kw_only=True):
    side: str
    roll_head: str
    answer_head: str
    length: int
    sealed: str = ""


class RenewChain(Command, frozen=True, kw_only=True):  # a side's ledger, as a chain nears its end
    side: str
    chain: str
    head: str
    length: int
    sealed: str = ""


class DeclareRoll(Command, frozen=True, kw_only=True):
    roll: RollCommand
    value: str = ""  # the roll chain's value, published now unless the roll is Secret
    blinded: str = ""  # a Secret roll: the SHA-256 of its blinding value (ledger/trust/fairdice.py `blind`)


class DeclareSealed(Command, frozen=True, kw_only=True):
    """A fair roll declared for an RG bought in secret (8.619): its side and RG; the declaration itself (its table,
    DRMs, purpose, due item, condition) sealed with the side's key under `commitment`, opened with the RG."""

    side: str
    rg: int  # the RGPurchaseSealed event
    commitment: str
    sealed: str
    blinded: str = ""


class AnswerRoll(Command, frozen=True, kw_only=True):
    declared: int
    value: str


class LapseRoll(Command, frozen=True, kw_only=True):
    """A roll declared for one result of its RG's strength lapses: the strength gave another (its roller's ledger,
    for a Secret roll; an open one lapses with its answer)."""

    declared: int


class PublishValue(Command, frozen=True, kw_only=True):
    side: str
    n: int
    value: str
    blind: str = ""


class Witness(Command, frozen=True, kw_only=True):
    side: str
    rolls: tuple[int, ...]
    disputed: str = ""
    log_digest: str = ""


class SealRoll(Command, frozen=True, kw_only=True):
    """A Secret roll made: what both sides see of it (its table, side and purpose; a follow-up of an RG bought in
    secret: its side and RG alone, the table '' too); the roll itself is sealed with the rolling side's key under
    `commitment` (8.6202; fair dice: its answered declaration, `fair`)."""

    table: str
    side: str
    purpose: str = ""
    rg: int | None = None
    fair: int | None = None
    commitment: str
    sealed: str


class SealPurchase(Command, frozen=True, kw_only=True):
    """An RG bought in secret (8.619, RR 2.518): the side and the commitment; which RG is sealed with its key."""

    side: str
    commitment: str
    sealed: str


class HidePlacement(Command, frozen=True, kw_only=True):
    """A fortification set up hidden (CGS 7.4.4): side and item; the hex sealed with the side's key."""

    side: str
    item: str
    commitment: str
    sealed: str


class RevealRoll(Command, frozen=True, kw_only=True):
    """A Secret roll published: the roll as made and the salt of its commitment; a fair one with its roll value."""

    roll: int  # the event that made it
    fact: DiceRolled | RollLapsed  # RollLapsed: made void
    salt: str
    value: str = ""
    blind: str = ""  # a blinded fair roll's blinding value, published with its roll value


class RevealPurchase(Command, frozen=True, kw_only=True):
    purchase: int  # the event that sealed it
    fact: RGPurchased
    salt: str


class RevealDeclaration(Command, frozen=True, kw_only=True):
    """A veiled declaration published with its RG: the declaration as made and the salt of its commitment."""

    declared: int  # the veiled RollDeclared event
    fact: RollDeclared
    salt: str


class RevealPlacement(Command, frozen=True, kw_only=True):
    placed: int  # the event that placed it
    fact: FortificationPlaced
    salt: str = ""
    cause: str = ""  # entry | search | '' (its side's own choice)
    search: int = 0


class Reveal(Command, frozen=True, kw_only=True):
    """What a side publishes at once, as one action: each act decided on the campaign before it."""

    acts: tuple[Union[RevealRoll, RevealPurchase, RevealDeclaration, RevealPlacement], ...]


class RollRevealing(Command, frozen=True, kw_only=True):
    """A roll on hexes where the rolling side's own hidden fortifications stand (CGS 7.4.4: an enemy unit entering
    reveals them): each revealed first, then the roll and what its result does there, as one action."""

    reveals: tuple[RevealPlacement, ...]
    roll: RollCommand


class Attachment(Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """One dice report attached to a table (a --map file's [[attach]] entry, or --attach)."""

    line: int  # its position: the line of a text file, the chat message number of a .vlog/.vsav
    table: str
    file: str = ""  # which file, when several are imported
    side: str = ""
    drm: tuple[str, ...] = ()
    purpose: str = field(name="for", default="")


class ImportVasl(Command, frozen=True, kw_only=True):
    """One VASL file imported (ledger/decide/vasl.py): the file as read (its report lines with their places, its
    SHA-256 and form), the reports attached to tables and the player names given sides; decided again from these."""

    file: str
    form: str
    digest: str
    lines: tuple[tuple[int, int, str], ...]
    module: str = ""
    module_version: str = ""
    vassal_version: str = ""
    players: dict[str, str] = {}
    attach: tuple[Attachment, ...] = ()


class CommitFairSeed(Command, frozen=True, kw_only=True):  # the first fair-dice protocol, still read
    side: str
    commitment: str
    shares: tuple[str, ...] = ()


class RevealFairSeed(Command, frozen=True, kw_only=True):
    side: str
    seed: str


def _verbs(base: type) -> list[type]:
    out = []
    for cls in base.__subclasses__():
        out += [cls, *_verbs(cls)]
    return out


VERBS: tuple[type, ...] = tuple(_verbs(Command))
AnyCommand = Union[tuple(VERBS)]  # type: ignore[valid-type]
