"""The `cgledger` command line: a group that only registers commands (one module each). A command's module is
imported when that command runs, so `--help` and a quick command start without the others: COMMANDS names every
command, its module under cli/ and its short help (tests/test_cli_registry.py checks both against the command)."""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str]] = {
    "accept": ("undo", "Accept the other side's open proposal (an undo, a rewind or a rules file): it is carried "
                       "out, both signed."),
    "answer": ("secret", "Answer the other side's fair rolls waiting for your side's value, and make your own "
                         "answered Secret rolls (any command run with your key does this first)."),
    "areas": ("mapcmd", "Setup Areas, No Man's Land, Uncontrolled Territory and Isolated Locations of a Map Group "
                        "(8.605)."),
    "audit": ("audit", "Replay the whole log and re-check every roll and the hash chain."),
    "buy": ("buy", "Purchase an RG (KGP 8.619, RR 2.518) against the side's RG chart, CPP and limits."),
    "control": ("mapcmd", "Record that SIDE gained Control of LOCATION (a hex such as StJ19, or a level: StJ19/1)."),
    "date": ("date", "Show the campaign's CG and current CG Date."),
    "decline": ("undo", "Decline the other side's open proposal (an undo, a rewind or a rules file): it is over, both "
                        "sides told."),
    "demo": ("script", "Replay the shipped sample campaign into a fresh ledger, print both rosters, write the "
                       "report."),
    "dice-stats": ("stats", "Each side's dice over the whole campaign, per source (ledger, entered, vasl); undone "
                            "rolls apart; VASL rolls per scenario (each imported file), per player and per "
                            "category."),
    "export": ("exchange", "Write the events your opponent does not have yet to FILE (to send by email)."),
    "fair-dice": ("secret", "Dice nobody can choose or foresee: each side's chains, committed with its key (see "
                            "docs/guide/fair-dice.md)."),
    "final": ("books", "The end of the CG: each side's final CG-LVP, scenarios won, CPP and RG totals (before the end:"
                       " the result so far)."),
    "firefight-end": ("firefight", "End the CGS Campaign Firefight: what it leaves on the map; the campaign moves "
                                   "to the next firefight."),
    "follow-ups": ("roll", "Every follow-up roll due now for the side's RGs (8.620, RR 2.519), in step order, in one "
                           "command: each as `roll TABLE --rg REF` makes it (declared, with fair dice)."),
    "fortify": ("buy", "Purchase Fortifications with this CG Date's FPP (KGP 8.621, RR 2.520): `rg-chart --side SIDE` "
                       "lists the items and their FPP."),
    "head": ("head", "Print a short fingerprint of the whole log: equal fingerprints, same history."),
    "history": ("books", "The campaign's story per CG Date: scenario, winner, LVP, CPP, RG, weather, notable rolls,"
                         " undos."),
    "hq": ("mapcmd", "8.6052 EXC: record the 'HQ' Location the German traces Isolation to on Lg (instead of LgN25)."),
    "import": ("exchange", "Append your opponent's bundle, after checking it continues this log's hash chain."),
    "initiative": ("play", "Initiative Determination (8.6232, RR 2.5222): both chits, revealed together."),
    "keys": ("secret", "Your side's key: signs its events and seals its Secret rolls (set up once per side)."),
    "log": ("log", "Print the campaign's event log in order (undone actions are marked, never removed)."),
    "map": ("mapcmd", "Draw the Map Group as hexes: Strategic Locations outlined, No Man's Land yellow, Setup "
                      "Areas, Isolated (a CGS map: its terrain, fortifications and Mouseholes, as `terrain --svg` "
                      "draws it for the side of the key given)."),
    "mousehole": ("firefight", "Record a Mousehole a DC SW Team blew (7.3): an interior Factory wall or between "
                               "Cellars (DTW-P5/P6)."),
    "new": ("new", "Start a campaign NAME (8.5x): its CG and starting CG Date."),
    "place": ("firefight", "Place a fortification bought as an RG (dug_in, trench, at_trench, mines, roadblock, "
                           "wire) on the map."),
    "remove": ("firefight", "Remove a placed fortification by the rule that removes it."),
    "report": ("books", "Write the campaign's story as one self-contained HTML page (history, rosters, RG records, "
                        "LVP chart)."),
    "reveal": ("secret", "Publish a Secret roll (its event number) or a hidden fortification (its placement event),"
                         " or --all of a side's: the roll or the hex, and the salt; `audit` then checks each "
                         "against its commitment and re-decides it."),
    "rewind": ("rewind", "Resume play from the end of DATE's RePh: every later action is voided by one new event."),
    "receive": ("turn", "Read your opponent's bundle (or your inbox), carry out what your ledger owes, and say what "
                        "happened."),
    "rg-chart": ("buy", "The side's RG chart now: each RG's cost, and what the CG Date and CG maxima leave "
                        "(8.6191-8.6197); the Fortifications it may buy with FPP (8.621, RR 2.520)."),
    "rg-record": ("books", "The side's RG Purchase Record (8.6198)."),
    "serve": ("web.serve", "Play in your browser: a page on this machine over the same ledger (127.0.0.1; the URL it "
                       "prints carries the page's token)."),
    "roll": ("roll", "Roll on TABLE and record it (in the step the table belongs to)."),
    "roster": ("books", "The side's CG Roster (8.6162): Start, Repl, Total, Spent, Left, RG, LVP, CG-LVP, Win, "
                        "Weather, Recon."),
    "rules": ("rules", "A campaign's own rules files (overrides of shipped tables)."),
    "scenario-end": ("play", "CG-Scenario End (8.6032-8.6033): Current-LVP of each side, the winner, new CG-LVP "
                             "totals."),
    "script": ("script", "Run a file of cgledger commands (one per line, # comments): enter a session from notes."),
    "send": ("turn", "Write everything your opponent has not yet received to FILE, to mail him: no fingerprint to "
                     "type."),
    "status": ("step", "CG, CG Date, the open RePh step and what it still needs."),
    "step": ("step", "Show the open step, or move forward: `step next`, `step 8.616`, `step scenario` (8.6)."),
    "tables": ("tables", "List every table with its rule number, or show one TABLE: die, rows and DRMs."),
    "terrain": ("firefight", "The map as the Campaign Firefights left it (6.7.2, 6.8.2.1, 6.16.3, 7.1-7.6), as JSON"
                             " or drawn."),
    "vacated": ("mapcmd", "KGP 8.6131 EXC: every Retained on-map U.S. unit on Map Group GROUP (St, Ch, Lg) is "
                          "Eliminated or has Escaped or Shifted to a Holding Box: the German gains Control of all its "
                          "Strategic Locations."),
    "undo": ("undo", "Void the last action in force a player took by appending an undo event; nothing is deleted."),
    "witness": ("witness", "Witness the dice the other side typed or took from VASL (their event numbers, or --all), "
                           "once both sides hold keys; or dispute them with --dispute REASON."),
    "vasl-import": ("vasl", "Import the VASL dice reports of each FILE, in order: a VASSAL log or save (.vlog, "
                            ".vsav), the chat window's text (copied with dice images off) or dice-bot lines."),
}


def __getattr__(name: str):
    """`main`, the click group (cli/app.py), imported when asked for: the quick path (cli/quick.py) runs the reads
    it takes (its COMMANDS) without click."""
    if name == "main":
        from .app import main

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["COMMANDS", "main"]
