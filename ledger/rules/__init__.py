"""Rules tables as data: one folder per rule system, read by one generic engine.

A player's own rules file (`cgledger rules load FILE`) is read by `read_rules_file`: a regular file (not
a directory, device or pipe: a pipe would block the command), at most MAX_RULES_FILE bytes, UTF-8 text
without NUL bytes. 256 KiB is eight times the largest shipped rules file (kgp/reph.toml, about 34 KB) and
holds a map file listing the terrain of thousands of hexes; the text is stored whole in every campaign
log that loads it, so a larger file only bloats the log (and what the opponent must import).
"""

from __future__ import annotations

import os
import stat
from functools import cache, lru_cache
from pathlib import Path

from .. import caching
from ..errors import BadInput
from .engine import Applied, Resolution, Rules, Situation, parse_declared
from .schema import SystemFile, TablesFile, decode_toml

HERE = Path(__file__).parent

MAX_RULES_FILE = 256 * 1024  # bytes; why: see the module docstring

__all__ = ["Applied", "Resolution", "Rules", "Situation", "parse_declared", "systems", "load", "decode_tables",
           "read_rules_file", "MAX_RULES_FILE"]


def systems() -> list[str]:
    return sorted(p.parent.name for p in HERE.glob("*/system.toml"))


def read_rules_file(path: str) -> str:
    """The text of a player's rules file, refused (BadInput, one line) unless it is a regular file of at
    most MAX_RULES_FILE bytes of UTF-8 text without NUL bytes."""
    try:  # opened without blocking and checked on the open file: no race between a check and the read
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise BadInput(f"no rules file at {path}") from None
    except OSError as e:
        raise BadInput(f"cannot read rules file {path}: {e.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise BadInput(f"rules file {path} is not a regular file (a directory, device or pipe)")
        chunks, size = [], 0
        while size <= MAX_RULES_FILE:  # never more than the limit (+1 to tell) in memory
            chunk = os.read(fd, MAX_RULES_FILE + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    except OSError as e:
        raise BadInput(f"cannot read rules file {path}: {e.strerror}") from None
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if len(data) > MAX_RULES_FILE:
            raise BadInput(f"rules file {path} is larger than {MAX_RULES_FILE // 1024} KiB") from None
        line = data.count(b"\n", 0, e.start) + 1
        raise BadInput(f"rules file {path} is not UTF-8 text: byte 0x{data[e.start]:02x} on line {line}") from None
    return check_rules_text(text, str(path))


def check_rules_text(text: str, name: str) -> str:
    """The checks on a rules file's text that hold wherever it comes from: a file being loaded, or a
    TablesOverridden event in a log or an imported bundle (the audit runs them through the same decision)."""
    if len(text.encode("utf-8")) > MAX_RULES_FILE:
        raise BadInput(f"rules file {name} is larger than {MAX_RULES_FILE // 1024} KiB")
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        raise BadInput(f"rules file {name} contains a NUL byte on line {line} (saved as UTF-16?)")
    return text


def _purchase_rule(system: str | None):
    """The rule a purchase line falls under ('rg' / 'fortification'): this system's purchase step, or
    every shipped system's where the system is not known (e.g. 'KGP 8.619, RR 2.518')."""

    def rule_for(kind: str) -> str:
        purchase = "fortifications" if kind == "fortification" else kind
        found = []
        for each in [system] if system else systems():
            step = next((s.id for s in _system_file(each).steps if s.purchase == purchase), None)
            if step:
                found.append(step if system else f"{each.upper()} {step}")
        return ", ".join(found)

    return rule_for


def decode_tables(data: bytes | str, name: str, system: str | None = None) -> TablesFile:
    return decode_toml(data, TablesFile, name, _purchase_rule(system))


def _known(system: str) -> None:
    if system not in systems():  # a name, never a path: '../x' or an over-long name is just unknown
        shown = system if len(system) <= 40 else f"{system[:30]}… ({len(system)} characters)"
        raise BadInput(f"unknown rule system '{shown}': choose one of {', '.join(systems())}")


@cache
def _system_file(system: str) -> SystemFile:
    _known(system)
    folder = HERE / system
    return decode_toml((folder / "system.toml").read_bytes(), SystemFile, f"{system}/system.toml")


@cache
def _sources(system: str) -> tuple[tuple[str, bytes], ...]:
    """The bytes of a system's shipped files (system.toml first, then the tables files in load order), read once per
    process: what _shipped parses is what the cache's key hashes."""
    _known(system)
    folder = HERE / system
    return ((f"{system}/system.toml", (folder / "system.toml").read_bytes()),
            *((f"{system}/{p.name}", p.read_bytes()) for p in sorted(folder.glob("*.toml")) if p.name != "system.toml"))


@cache
def _shipped(system: str) -> tuple[SystemFile, tuple[tuple[str, TablesFile], ...]]:
    (name, data), *tables = _sources(system)
    system_file = decode_toml(data, SystemFile, name)
    return system_file, tuple((name, decode_tables(data, name, system)) for name, data in tables)


def for_campaign(state) -> Rules:
    """The tables in force in a campaign: its system's, with the rules files both sides accepted."""
    return load(state.system, state.override_sources())


@lru_cache(maxsize=32)
def load(system: str, overrides: tuple[tuple[str, str], ...] = ()) -> Rules:
    """The shipped tables of `system`, then each (name, TOML text) override in order.
    Cached: a Rules object is never changed after it is built. The parsed files are also kept between processes
    (rules/cachefile.py), under the SHA-256 of every file and override text that went into them."""
    from . import cachefile as disk

    try:
        sources = _sources(system) if system in systems() else None  # an unknown system: refused by the parse
    except OSError:
        sources = None
    key = disk.key(system, list(sources), overrides) if sources and caching.on() else None
    parsed = disk.read(key) if key else None
    if parsed is not None:
        rules = Rules(parsed.system, list(parsed.files), checked=True)  # stored only once they went through
        for name, tables_file in parsed.overrides:
            rules.add(name, tables_file, checked=True)
        return rules
    system_file, files = _shipped(system)
    rules = Rules(system_file, list(files))
    added = []
    for name, text in overrides:
        tables_file = decode_tables(text, name, system)
        rules.add(name, tables_file)
        added.append((name, tables_file))
    if key:  # stored only once the whole parse went through: a refusal is always the parse's own
        disk.write(disk.Parsed(key, system_file, list(files), added))
    return rules
