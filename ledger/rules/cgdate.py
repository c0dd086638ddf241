"""CG Dates: a day plus time of day ('19 AM', '19 PM', '19 N'), ordered by the system's calendar."""

import re

import msgspec

from ..errors import BadInput

TIMES = {"AM": "AM", "PM": "PM", "N": "N", "NIGHT": "N"}
_SHAPE = re.compile(r"^(?:DEC(?:EMBER)?\s*)?(\d{1,2}|[A-Z]+)\s*(AM|PM|N|NIGHT)$")


class CGDate(msgspec.Struct, frozen=True, order=True):
    index: int  # position in the system's calendar: the order of play
    text: str  # canonical form, e.g. '19 AM'
    day: int | None  # day of December, None for named dates (RR 'Interlude')
    time: str  # 'AM', 'PM' or 'N'

    def __str__(self) -> str:
        return self.text


def normalise(text: str, rule: str | None = "8.6121") -> str:
    """'Dec 19 am' -> '19 AM', '21 Night' -> '21 N'. Raises on a malformed CG Date."""
    cleaned = " ".join(text.replace(".", " ").upper().split())
    match = _SHAPE.match(cleaned)
    if not match:
        raise BadInput(f"malformed CG Date '{text}': CG Dates look like '19 AM', '20 PM' or '21 N'", rule)
    day, time = match.groups()
    return f"{day.title() if not day.isdigit() else int(day)} {TIMES[time]}"


class Calendar:
    """The ordered CG Dates of one rule system: day and time of day ('19 AM'), or plain labels for a
    system whose campaign is a numbered sequence of firefights ('Firefight 3')."""

    def __init__(self, system: str, dates: list[str], rule: str | None = "8.6121"):
        self.system = system
        self.rule = rule  # the rule of New CG Dates (KGP 8.6121, RR 2.5121), cited when a date is wrong
        self._dates: dict[str, CGDate] = {}
        self._labels: dict[str, str] = {}  # folded label -> canonical
        for index, text in enumerate(dates):
            try:
                canonical = normalise(text)
            except BadInput:  # a label, not a day and time
                canonical = " ".join(text.split())
                self._labels[canonical.casefold()] = canonical
                self._dates[canonical] = CGDate(index, canonical, None, "")
                continue
            day, time = canonical.split(" ")
            self._dates[canonical] = CGDate(index, canonical, int(day) if day.isdigit() else None, time)

    def __iter__(self):
        return iter(self._dates.values())

    def parse(self, text: str) -> CGDate:
        if text in self._dates:  # already canonical: the common case when replaying a log
            return self._dates[text]
        label = self._labels.get(" ".join(text.split()).casefold())
        if label:
            return self._dates[label]
        if self._labels and not any(d.time for d in self._dates.values()):
            first, last = next(iter(self._dates)), list(self._dates)[-1]
            raise BadInput(f"no CG Date '{text}' in the {self.system.upper()} calendar ({first} … {last})")
        canonical = normalise(text, self.rule)
        try:
            return self._dates[canonical]
        except KeyError:
            first, last = next(iter(self._dates)), list(self._dates)[-1]
            raise BadInput(
                f"no CG Date '{canonical}' in the {self.system.upper()} calendar ({first} … {last})", self.rule
            ) from None

    def next(self, date: CGDate) -> CGDate | None:
        dates = list(self._dates.values())
        return dates[date.index + 1] if date.index + 1 < len(dates) else None
