"""Domain errors. Every check raises one of these before any event is triggered."""


class LedgerError(Exception):
    """A refusal: one line naming the problem and, where there is one, the rule."""

    def __init__(self, message: str, rule: str | None = None):
        self.message = message
        self.rule = rule
        super().__init__(self.line())

    def line(self) -> str:
        return f"{self.message} ({self.rule})" if self.rule else self.message


class UnknownTable(LedgerError):
    pass


class BadInput(LedgerError):
    """A side, DRM, dice value, CG Date or option the rules do not allow."""


class CampaignNotFound(LedgerError):
    pass


class DatabaseError(LedgerError):
    """A missing, corrupt or foreign database."""


class RulesDataError(LedgerError):
    """A rules data file (shipped or a user's override) that does not decode or is inconsistent."""


class CampaignMovedOn(LedgerError):
    """Another writer recorded first; nothing of ours was stored. `protocol_only`: what it recorded were only the
    records a side's ledger makes by itself (its answers, its Secret rolls made, its chit revealed)."""

    def __init__(self, message: str, protocol_only: bool = False):
        super().__init__(message)
        self.protocol_only = protocol_only


class AlreadyRecorded(LedgerError):
    """A retried command (same command id) that is already in the log: nothing is done again (exit 0)."""

    def __init__(self, version: int):
        self.version = version
        super().__init__(f"already recorded as event {version}: nothing done again")
