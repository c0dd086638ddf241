"""The page runs the very commands the CLI runs: a form becomes a cgledger command line, run in this process through
the same click group (its parsing, its service verb, its one-line refusals), so nothing the page does is refused
differently from the CLI, and nothing in the log tells which one was used."""

from __future__ import annotations

import contextlib
import io
import json
import threading
import uuid
from dataclasses import dataclass, field

import click

# What a form may post. Not: `serve`, `demo`, `script` (they run other commands or servers), and no command that
# reads or writes a file the player names (`report`, `map`, `send`, `receive`, `export`, `import`, `rules`,
# `vasl-import`): the page runs those itself, on files it uploaded or writes into its own folder.
VERBS = frozenset({
    "accept", "answer", "areas", "audit", "buy", "control", "date", "decline", "dice-stats", "fair-dice", "final",
    "firefight-end", "follow-ups", "fortify", "head", "history", "hq", "initiative", "keys", "log", "mousehole", "new",
    "place", "remove", "reveal", "rewind", "rg-chart", "rg-record", "roll", "roster", "scenario-end", "status",
    "step", "tables", "undo", "vacated", "witness",
})


@dataclass
class Outcome:
    """What one command did: its output, what it said on stderr (walks, warnings), or its one-line refusal."""

    words: list[str]
    out: str = ""
    said: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def json(self):
        return json.loads(self.out) if self.out.strip() else None


class Runner:
    """Runs cgledger command lines in-process against one database, one at a time (the ledger is not shared between
    threads), with the player's key held in memory only."""

    def __init__(self, db: str, campaign: str | None = None, material: bytes | None = None, seed: str | None = None):
        self.db, self.campaign, self.material, self.seed = db, campaign, material, seed
        self.lock = threading.RLock()
        self._local = threading.local()  # each request's thread its own last refusal

    def _pin(self) -> None:
        """The page serves one campaign: the one it was started for, else the only one the database holds the first
        time it holds one. A second campaign added later (created on a shared database, or mailed) never takes the
        page over, nor hides its own campaign behind a question of which one."""
        if self.campaign is not None:
            return
        try:
            from cgledger.ledger.application import open_ledger

            names = open_ledger(self.db).store.campaign_names()
        except Exception:  # noqa: BLE001 - no ledger here yet: nothing to pin
            return
        if len(names) == 1:
            self.campaign = names[0]

    @property
    def last_error(self) -> str | None:
        return getattr(self._local, "error", None)

    def run(self, words: list[str], command_id: str | None = None, posted: bool = False) -> Outcome:
        """`posted`: the words came from a form, so only VERBS run."""
        from cgledger.cli import main
        from cgledger.cli.app import LedgerContext

        if not words or (posted and words[0] not in VERBS):
            verb = words[0] if words else ""
            return Outcome(words, error=f"'{verb}' is not a command the page runs" if verb else "no command given")
        if posted and any(w.split("=", 1)[0] in ("--db", "--key-file") for w in words):  # this server's own only
            return Outcome(words, error="the page runs commands on its own database and key: leave out --db and "
                                        "--key-file")
        outcome = Outcome(words)
        out, err = io.StringIO(), io.StringIO()
        self._pin()
        context = LedgerContext(self.db, self.campaign, self.seed, None, command_id or str(uuid.uuid4()),
                                self.material)
        with self.lock, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main.main(args=list(words), prog_name="cgledger", obj=context, standalone_mode=False)
            except click.ClickException as e:
                outcome.error = e.format_message()
            except click.exceptions.Exit as e:
                outcome.error = None if e.exit_code == 0 else f"the command stopped (exit {e.exit_code})"
            except click.exceptions.Abort:
                outcome.error = "the command was stopped"
            except SystemExit as e:  # noqa: PT017 - a command that exits (a closed pipe): not the server
                outcome.error = None if not e.code else f"the command stopped (exit {e.code})"
        outcome.out = out.getvalue()
        outcome.said = [line for line in err.getvalue().splitlines() if line.strip()]
        return outcome

    def data(self, *words: str):
        """A read command's --json, parsed; None when it was refused (its refusal is then in `last_error`)."""
        outcome = self.run([*words, "--json"])
        self._local.error = outcome.error
        return outcome.json() if outcome.ok else None

    def ledger(self):
        """The open ledger of this database (for the live watcher's cheap look at the log's last position)."""
        from cgledger.cli.app import opened

        return opened(self.db)

    def side_of_key(self) -> str | None:
        """The side whose key this server was given (None without one, or before that side's key is set up)."""
        if self.material is None:
            return None
        with self.lock:
            try:
                ledger = self.ledger()
                ledger.key_material = self.material
                state, _rules = ledger.state_as_of(self.campaign)
            except Exception:  # noqa: BLE001 - no campaign yet
                return None
            return ledger.keyring.opens(state)

    def map_groups(self) -> list[str]:
        """The Map Groups (or CGS maps) of the campaign's CG, for the map page."""
        with self.lock:
            try:
                state, rules = self.ledger().state_as_of(self.campaign)
            except Exception:  # noqa: BLE001 - no campaign yet
                return []
            mine = next((c.map_groups for c in rules.system.cg if c.id == state.cg), None)
            return list(mine or [g.id for g in rules.system.map_groups])
