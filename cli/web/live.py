"""Live play: the server watches the log. On a shared PostgreSQL it LISTENs on the channel the event store NOTIFYs
on every insert, so it wakes the moment the other side records something; on a SQLite file it looks every second (a
command typed beside the page shows too). On each change it first carries out what the protocol owes the side of
its key (`answer`: the other side's fair rolls are answered at once, so live play never waits for a turn), then
tells every open page, which reloads itself (server-sent events)."""

from __future__ import annotations

import threading

from .runner import Runner


class Watcher:
    ROUNDS = 8  # duties carried out again while each run records something (a bound: never a busy loop)

    def __init__(self, runner: Runner, poll: float = 1.0):
        self.runner, self.poll = runner, poll
        self.version = 0  # bumped on every change seen: pages compare it
        self.changed = threading.Condition()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="cgledger-live", daemon=True)
        self.answered: tuple[int, list[str]] = (-1, [])  # what its own `answer` did, and at which version
        self.seen = 0  # the log's last position the pages were told of
        self.listener = None
        self.listening = False  # woken by PostgreSQL's NOTIFY (else it looks every `poll` seconds)

    def start(self) -> "Watcher":
        self.listener = self._listener()  # before the first page is served, which says whether it listens
        self.listening = self.listener is not None
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self.listener is not None:
            try:
                self.listener.close()
            except Exception:  # noqa: BLE001 - already gone
                pass

    def position(self) -> int:
        with self.runner.lock:
            try:
                return self.runner.ledger().store.app.recorder.max_notification_id() or 0
            except Exception:  # noqa: BLE001 - a lost connection: looked at again on the next beat
                return -1

    def _run(self) -> None:
        self.seen = self.position()
        listener = self.listener
        self._settle()  # what was owed before the server started
        while not self.stopping.is_set():
            self._wait(listener)
            now = self.position()
            if now == self.seen or now < 0:
                continue
            self._settle()

    def _settle(self) -> None:
        """The side's duties carried out until a run finds none, then the log is seen as it stood before that run: a
        record the other side makes meanwhile (its answer to this side's roll) is met on the next beat, never taken
        as seen."""
        for _ in range(self.ROUNDS):
            before = self.position()
            if before < 0 or not self._duties():
                break
        self.sync(before)

    def _duties(self) -> bool:
        """The duties of this side's key first: the other side's fair rolls answered, this side's answered Secret
        rolls made (`answer`). Whether it recorded anything."""
        if self.runner.material is None:
            return False
        outcome = self.runner.run(["answer"])
        if outcome.ok and outcome.out.strip() and "nothing" not in outcome.out:
            self.answered = (self.version + 1, outcome.out.strip().splitlines()[-3:])  # shown until the log moves on
            return True
        return False

    def latest_answers(self) -> list[str]:
        """What this server answered for its side on the log's last move (nothing once the log moved on)."""
        at, lines = self.answered
        return lines if at == self.version else []

    def sync(self, at: int | None = None) -> None:
        """The log as it is now (or at position `at`) is seen: pages rendered from here on are current (after the
        page's own command, so the page that made it does not reload once more)."""
        now = self.position() if at is None else at
        with self.changed:
            if now != self.seen:
                self.seen = now
                self.version += 1
                self.changed.notify_all()

    def _listener(self):
        """A LISTEN connection on PostgreSQL (its own, outside the ledger's pool), else None."""
        from cgledger.ledger.store.database import is_postgres

        if not is_postgres(self.runner.db):
            return None
        try:
            import psycopg
            from psycopg import sql

            with self.runner.lock:
                channel = self.runner.ledger().store.app.recorder.channel_name
            conn = psycopg.connect(self.runner.db, autocommit=True)
            conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
            return conn
        except Exception:  # noqa: BLE001 - no LISTEN: the watcher looks every second instead
            return None

    def _wait(self, listener) -> None:
        if listener is None:
            self.stopping.wait(self.poll)
            return
        try:
            for _ in listener.notifies(timeout=self.poll, stop_after=1):
                break
        except Exception:  # noqa: BLE001 - the connection went: look every second from now on
            self.stopping.wait(self.poll)
