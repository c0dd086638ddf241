"""Start instantly: a read command loads only what it uses, and the parsed rules are kept between
processes (ledger/rules/cachefile.py) under the SHA-256 of every source that went into them, never trusted across
an edit of any of them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from cgledger.cli import main
from cgledger.ledger import rules as rulesmod
from cgledger.ledger.rules import cachefile
from cgledger.ledger.rules.schema import SystemFile, TablesFile, decode_toml

ROOT = Path(__file__).parent.parent

# loaded only by the commands that need them: the audit's re-decisions, the VASL parser, the cipher (a campaign
# without keys opens none), the TOML parser (the rules come from the cache once it holds them)
NOT_FOR_READS = ("cgledger.ledger.audit.replay", "cgledger.ledger.decide.redecide", "cgledger.ledger.vasl.bot", "cryptography", "tomllib")

OVERRIDE = ('[[table]]\nid = "KGP3"\nstep = "scenario"\nrule = "KGP3"\nper = "any"\nper_rule = "KGP3"\n'
            'title = "{title}"\ndie = "DR"\nrows = [ {{ max = 6, result = "no change" }}, '
            '{{ min = 7, result = "change" }} ]\n')


def run(args: list[str], cache: Path, cwd: Path = ROOT, code: str | None = None, state: Path | None = None,
        site: Path | None = None) -> str:
    """A command in its own process, as a player runs it; its output, then the modules it loaded (`state`: this
    machine's state folder, where it keeps the answers of reads: ledger/read/answers.py; `site`: a folder the package
    was installed into, read before this checkout's)."""
    code = code or ("import sys; from cgledger.cli import main\n"
                    f"main({args!r}, prog_name='cgledger', standalone_mode=False)\n")
    code += "import sys; print('LOADED', ' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache), "COLUMNS": "200",
                               **({"XDG_STATE_HOME": str(state)} if state else {}),
                               **({"PYTHONPATH": str(site)} if site else {})})
    assert done.returncode == 0, done.stderr
    return done.stdout


def loaded(output: str) -> set[str]:
    return set(output.rsplit("LOADED ", 1)[1].split())


def campaign(tmp_path: Path) -> str:
    db = str(tmp_path / "c.db")
    for args in (["new", "Quick", "--system", "kgp", "--cg", "I"], ["rules", "load", str(rules_file(tmp_path))]):
        made = CliRunner().invoke(main, ["--db", db, *args])
        assert made.exit_code == 0, made.output
    return db


def rules_file(tmp_path: Path, title: str = "Mist Change DR (our copy)") -> Path:
    path = tmp_path / "mist.toml"
    path.write_text(OVERRIDE.format(title=title))
    return path


@pytest.mark.sqlite_only
@pytest.mark.parametrize("read", [["status"], ["roster", "--side", "german"], ["rg-record", "--side", "german"],
                                  ["history"], ["dice-stats"], ["tables"]])
def test_reads_do_not_load_what_only_writes_and_the_audit_use(tmp_path, read):
    db = campaign(tmp_path)
    run(["--db", db, *read], tmp_path / "cache")  # the first fills the rules cache
    modules = loaded(run(["--db", db, *read], tmp_path / "cache", state=tmp_path / "fresh"))  # no answer kept here
    assert "cgledger.ledger.application" in modules  # it did read the campaign
    assert not {m for m in modules if m.split(".")[0] in NOT_FOR_READS or m in NOT_FOR_READS}


def parsed_afresh(system: str, overrides=()) -> tuple:
    """Every source parsed from its TOML here, without the cache."""
    folder = rulesmod.HERE / system
    system_file = decode_toml((folder / "system.toml").read_bytes(), SystemFile, f"{system}/system.toml")
    files = [(f"{system}/{p.name}", decode_toml(p.read_bytes(), TablesFile, p.name))
             for p in sorted(folder.glob("*.toml")) if p.name != "system.toml"]
    return system_file, files, [(name, decode_toml(text, TablesFile, name)) for name, text in overrides]


def installed_copy(tmp_path: Path) -> tuple[Path, Path]:
    """The package installed from a copy of the checkout into a folder of its own, as pip installs it anywhere:
    (the installed cgledger, the folder to put on the path)."""
    copy, site = tmp_path / "checkout", tmp_path / "site"
    for folder in ("cgledger", "ledger", "cli", "projections", "fixtures"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, copy)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                           "--no-compile", "--target", str(site), str(copy)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return site / "cgledger", site


def cache_files(cache: Path) -> list[Path]:
    return sorted((cache / "cgledger" / "rules").glob("*.msgpack"))


@pytest.mark.parametrize("system", rulesmod.systems())
def test_the_cached_parse_is_the_fresh_parse_whole(tmp_path, monkeypatch, system):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    overrides = (("mist.toml", OVERRIDE.format(title="ours")),) if system == "kgp" else ()
    fresh = rulesmod.load.__wrapped__(system, overrides)  # parsed, then stored
    stored, = cache_files(tmp_path)
    kept = cachefile.read(stored.stem)
    assert (kept.system, kept.files, kept.overrides) == parsed_afresh(system, overrides)
    again = rulesmod.load.__wrapped__(system, overrides)  # from the cache
    assert again is not fresh and again.system == fresh.system
    for attribute in ("tables", "charts", "missing", "rgs", "fortifications", "maps", "placements", "victory", "origin",
                      "steps"):
        assert getattr(again, attribute) == getattr(fresh, attribute), attribute
    assert again.calendar.__dict__ == fresh.calendar.__dict__


def test_an_edited_override_is_parsed_again_and_used(tmp_path):
    db, cache = campaign(tmp_path), tmp_path / "cache"
    assert "Mist Change DR (our copy)" in run(["--db", db, "tables", "KGP3"], cache)
    assert "Mist Change DR (our copy)" in run(["--db", db, "tables", "KGP3"], cache)  # from the cache
    before = cache_files(cache)
    made = CliRunner().invoke(main, ["--db", db, "rules", "load", str(rules_file(tmp_path, "Mist Change DR (edited)"))])
    assert made.exit_code == 0, made.output
    shown = run(["--db", db, "tables", "KGP3"], cache)
    assert "Mist Change DR (edited)" in shown and "(our copy)" not in shown
    assert len(cache_files(cache)) == len(before) + 1  # another key: nothing stored before was used


def test_an_edited_shipped_file_is_parsed_again_and_used(tmp_path):
    """The package installed from a copy of the checkout, one byte of a shipped rules file changed."""
    cache = tmp_path / "cache"
    copy, site = installed_copy(tmp_path)
    code = ("import cgledger; from cgledger.ledger import rules\n"
            "print(cgledger.__path__[-1], rules.load('kgp').table('KGP3').title)\n")
    assert run([], cache, tmp_path, code, site=site).split("\n")[0] == f"{copy} Mist Change DR"
    assert run([], cache, tmp_path, code, site=site).split("\n")[0] == f"{copy} Mist Change DR"  # from the cache
    ssr = copy / "ledger" / "rules" / "kgp" / "ssr.toml"
    ssr.write_bytes(ssr.read_bytes().replace(b'title = "Mist Change DR"', b'title = "Mist Change DX"'))
    assert run([], cache, tmp_path, code, site=site).split("\n")[0] == f"{copy} Mist Change DX"
    assert len(cache_files(cache)) == 2


def test_a_parse_read_back_is_not_checked_again_but_a_new_check_makes_a_new_key(tmp_path):
    """A parse read back from the cache skips the engine's checks (it passed them before), so its key names
    validate.py's source: a check added there (here: one refusing KGP3) runs on the next load, cache or not."""
    cache = tmp_path / "cache"
    copy, site = installed_copy(tmp_path)
    code = ("import cgledger; from cgledger.ledger import rules\n"
            "try:\n    print(cgledger.__path__[-1], rules.load('kgp').table('KGP3').title)\n"
            "except Exception as e:\n    print(cgledger.__path__[-1], 'refused:', e)\n")
    assert run([], cache, tmp_path, code, site=site).split("\n")[0] == f"{copy} Mist Change DR"
    checks = copy / "ledger" / "rules" / "validate.py"
    check = "def check_table(rules, name: str, table: Table) -> None:\n"
    assert check in checks.read_text()
    checks.write_text(checks.read_text().replace(check, check + "    if table.id == 'KGP3':\n"
                                                                "        fail(rules, name, table, 'a new check')\n"))
    refused = run([], cache, tmp_path, code, site=site)
    assert "refused:" in refused.split("\n")[0] and "a new check" in refused


def test_a_corrupt_cache_file_is_ignored_and_written_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    overrides = (("mist.toml", OVERRIDE.format(title="ours")),)
    fresh = rulesmod.load.__wrapped__("kgp", overrides)
    stored, = cache_files(tmp_path)
    whole = stored.read_bytes()
    for damaged in (whole[: len(whole) // 2], b"", b"\xc1not msgpack", msgspec.msgpack.encode([1, 2, 3]),
                    whole.replace(b"Mist Change DR", b"Mist Change DX")):  # the last would still decode
        stored.write_bytes(damaged)
        again = rulesmod.load.__wrapped__("kgp", overrides)
        assert again.tables == fresh.tables and again.table("KGP3/recall").title == fresh.table("KGP3/recall").title
        assert stored.read_bytes() == whole  # written again


def test_a_file_stored_under_another_key_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rulesmod.load.__wrapped__("kgp", (("mist.toml", OVERRIDE.format(title="one")),))
    one, = cache_files(tmp_path)
    key = cachefile.key("kgp", list(rulesmod._sources("kgp")), (("mist.toml", OVERRIDE.format(title="two")),))
    one.rename(one.parent / f"{key}.msgpack")  # the parse of "one" where "two" would be looked up
    assert rulesmod.load.__wrapped__("kgp", (("mist.toml", OVERRIDE.format(title="two")),)).table("KGP3").title == "two"


def test_an_unwritable_cache_folder_just_parses(tmp_path, monkeypatch):
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "not-a-folder"))
    for _ in range(2):
        assert rulesmod.load.__wrapped__("kgp").table("KGP3").title == "Mist Change DR"
    assert (tmp_path / "not-a-folder").read_text() == "" and sorted(os.listdir(tmp_path)) == ["not-a-folder"]


def test_the_cache_keeps_at_most_keep_files(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for n in range(cachefile.KEEP + 3):
        rulesmod.load.__wrapped__("cgs", (("mine.toml", f'source = "mine {n}"\n'),))
    assert len(cache_files(tmp_path)) == cachefile.KEEP
    assert not list((tmp_path / "cgledger" / "rules").glob(".*"))  # no partial files left


def test_modules_of_msgspec_structs_keep_their_annotations_real():
    """msgspec builds a decoder from a Struct's annotations; postponed ones (`from __future__ import annotations`)
    are strings it evaluates one by one: the rules cache's decoder took ~6 ms more to build in every process."""
    postponed = [str(path.relative_to(ROOT)) for folder in ("ledger", "projections") for path in (ROOT / folder).rglob("*.py")
                 if re.search(r"\((msgspec\.)?Struct\b", path.read_text())
                 and "from __future__ import annotations" in path.read_text()]
    assert postponed == []
