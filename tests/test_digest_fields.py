"""The fields a form 2 or 3 digest leaves out (ledger/trust/chain.py `_without_defaults`): each fact type's own
function gives the bytes the long way gives (`msgspec.to_builtins`, then every field equal to its default's builtins
deleted), for every kind of value a default can be compared with, and for every event the shipped samples store."""

import enum
from datetime import datetime, timedelta, timezone

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cgledger.ledger.domain.events import FACTS
from cgledger.ledger.trust import chain
from cgledger.ledger.trust.envelope import decode_envelope
from conftest import sql


def the_long_way(fact) -> bytes:
    data = msgspec.to_builtins(fact)
    for name, default in chain._defaults(type(fact)).items():
        if name in data and data[name] == default:
            del data[name]
    return msgspec.json.encode(data)


def fast(fact) -> bytes:
    return msgspec.json.encode(chain._without_defaults(fact))


class Colour(enum.Enum):
    WHITE = ""
    RED = "red"


class Inner(msgspec.Struct, frozen=True, kw_only=True):
    code: str = ""
    drm: float = 0


class Kinds(msgspec.Struct, frozen=True, kw_only=True, tag="Kinds", tag_field="type"):
    action: int
    fpp: float = 0.0
    cpp: int = 0
    given: bool = False
    text: str = ""
    value: int | None = None
    rolls: tuple[int, ...] = ()
    hexes: list[str] = []
    start: dict[str, int] = {}
    inner: Inner | None = None
    same: Inner = Inner()
    colour: object = ""
    many: object = ()
    when: datetime | None = None


class Quiet(msgspec.Struct, frozen=True, kw_only=True, tag=True, tag_field="verb", omit_defaults=True):
    note: str = "xyz"
    ratio: float = 0.5
    purpose: str = msgspec.field(name="for", default="")


@pytest.mark.parametrize("fact", [
    Kinds(action=1),
    Kinds(action=2, fpp=0, cpp=0.0, given=0, text="", value=0, rolls=(), hexes=[], start={}),  # 0 in a float field
    Kinds(action=3, fpp=-0.0, cpp=True, given=1, text="a", value=None, rolls=[], hexes=(), start={"g": 0}),
    Kinds(action=4, rolls=(1, 2), hexes=["x"], inner=Inner(), same=Inner(), when=datetime(2026, 1, 1, tzinfo=timezone.utc)),
    Kinds(action=5, same=Inner(code="x"), inner=Inner(drm=1)),
    Kinds(action=6, colour=Colour.WHITE, many=frozenset()),  # an enum at its default's value, a set: the long way
    Kinds(action=7, colour=Colour.RED, many=set()),
    Kinds(action=8, text=msgspec.UNSET),
    Quiet(), Quiet(note="".join(["x", "yz"]), ratio=float("0.5"), purpose=""), Quiet(purpose="a roll", ratio=1),
])
def test_each_kind_of_value_left_out_as_the_long_way_leaves_it_out(fact):
    assert fast(fact) == the_long_way(fact)


def test_every_fact_type_takes_the_short_way():
    """Every fact type has its own function (none renamed, no default of another kind)."""
    assert [cls.__name__ for cls in FACTS if chain._left_out(cls) is None] == []


@pytest.mark.parametrize("sample", ["kgp-cg1-sample.cgl", "rr-sample.cgl", "cgs-sample.cgl"])
def test_every_stored_event_of_the_samples_digests_as_the_long_way(played, sample):
    rows = sql(played(sample), "SELECT state FROM {events} ORDER BY originator_version")
    assert len(rows) > 40
    for (state,) in rows:
        envelope = decode_envelope(bytes(state))
        for part in (envelope.fact, envelope.request):
            if part is not None:
                assert fast(part) == the_long_way(part)
        stamp = envelope.timestamp
        assert chain.iso_utc(stamp) == stamp.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_a_timestamp_not_in_utc_reads_as_before():
    from datetime import timedelta

    for moment in (datetime(2026, 11, 29, 13, 9, 26, tzinfo=timezone(timedelta(hours=2))),
                   datetime(2026, 11, 29, 13, 9, 26, 5, tzinfo=timezone.utc), datetime(999, 1, 1, tzinfo=timezone.utc)):
        assert chain.iso_utc(moment) == moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@settings(max_examples=500, deadline=None)
@given(st.datetimes(min_value=datetime(1, 1, 1), timezones=st.sampled_from([timezone.utc, None])
                    | st.builds(timezone, st.timedeltas(min_value=timedelta(hours=-23), max_value=timedelta(hours=23)))))
def test_a_timestamps_text_is_the_long_ways_for_any_moment(moment):
    """The texts made sooner (msgspec's for a UTC timestamp) are the long ways' to the character: the digest's
    (strftime's, in UTC) and the log's (isoformat's), with and without microseconds, any year, any offset."""
    assert chain.iso_text(moment) == moment.isoformat()
    if moment.tzinfo is not None:
        assert chain.iso_utc(moment) == moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
