"""Rules tables as data: one folder per rule system, read by one generic engine."""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path

from ..errors import BadInput
from .engine import Applied, Resolution, Rules, Situation, parse_declared
from .schema import SystemFile, TablesFile, decode_toml

HERE = Path(__file__).parent

__all__ = ["Applied", "Resolution", "Rules", "Situation", "parse_declared", "systems", "load", "decode_tables"]


def systems() -> list[str]:
    return sorted(p.parent.name for p in HERE.glob("*/system.toml"))


def decode_tables(data: bytes | str, name: str) -> TablesFile:
    return decode_toml(data, TablesFile, name)


@cache
def _shipped(system: str) -> tuple[SystemFile, tuple[tuple[str, TablesFile], ...]]:
    folder = HERE / system
    if not (folder / "system.toml").is_file():
        raise BadInput(f"unknown rule system '{system}': choose one of {', '.join(systems())}")
    system_file = decode_toml((folder / "system.toml").read_bytes(), SystemFile, f"{system}/system.toml")
    files = tuple(
        (f"{system}/{p.name}", decode_tables(p.read_bytes(), f"{system}/{p.name}"))
        for p in sorted(folder.glob("*.toml"))
        if p.name != "system.toml"
    )
    return system_file, files


@lru_cache(maxsize=32)
def load(system: str, overrides: tuple[tuple[str, str], ...] = ()) -> Rules:
    """The shipped tables of `system`, then each (name, TOML text) override in order.
    Cached: a Rules object is never changed after it is built."""
    system_file, files = _shipped(system)
    rules = Rules(system_file, list(files))
    for name, text in overrides:
        rules.add(name, decode_tables(text, name))
    return rules


def read_rules_file(path: Path) -> str:
    """A player's rules file as text (it goes into the log)."""
    if not path.is_file():
        raise BadInput(f"no rules file at {path}")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"rules file {path.name} is not UTF-8 text") from None
