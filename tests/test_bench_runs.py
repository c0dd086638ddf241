"""The benchmark script keeps working (a smoke run on a tiny log; no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def bench(name: str, *args: str) -> str:
    """The bench script run as a player would run it; its output (it must exit 0)."""
    script = Path(__file__).parent.parent / "bench" / name
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_bench_runs_on_a_small_log():
    out = bench("bench_ledger.py", "--rolls", "60")
    assert "audit report: " in out and "CLEAN" in out
    assert "x floor" in out and "mapper: ours is" in out


def test_areas_bench_runs_on_a_small_grid():
    out = bench("bench_areas.py", "--hexes", "20", "--strategic", "30", "--runs", "1")
    assert "x the plain BFS" in out


def test_cli_bench_runs_on_a_small_campaign():
    out = bench("bench_cli.py", "--sizes", "300", "--runs", "1", "--reads", "status,roster,audit")
    assert "x click" in out and "x floor" in out and "audit / typed-decode floor" in out
    assert "300 cold  current" in out and "300 repeated   first" in out  # the kept views and answers tables


def test_cli_bench_audit_only_runs_on_a_small_campaign():
    out = bench("bench_cli.py", "--sizes", "300", "--runs", "1", "--audit-only")
    assert "floor + Ed25519 verify of each" in out and "shared with the child" in out and "x click" not in out


def test_agent_bench_runs_on_a_small_campaign():
    out = bench("bench_agent.py", "--sizes", "300,400", "--runs", "1")
    assert "agent on ms" in out and "target: a signed roll at 400 events within 1.1x" in out


def test_web_bench_runs_on_a_small_campaign():
    from cgledger.cli.web.pages import VIEWS

    out = bench("bench_web.py", "--events", "200", "--repeat", "1")
    lines = out.splitlines()
    for path in [*VIEWS, "/roll?table=8.616", "FLOOR status --json"]:
        assert any(line.split()[:1] == [path] or line.startswith(path + " ") for line in lines), path
    assert "x 150 ms" in out and "over 150 ms at " in out


def test_snapshot_bench_runs_across_cg_dates():
    out = bench("bench_snapshots.py", "--sizes", "300,600", "--per-date", "100")
    assert "snapshot bytes / event bytes: " in out
    rows = [line.split() for line in out.splitlines() if line.split()[:1] and line.split()[0].isdigit()]
    assert len(rows) == 2 and int(rows[-1][0]) >= 600 and int(rows[-1][1]) >= 5, out  # CG Dates crossed


def test_kept_audit_bench_runs_on_a_small_campaign():
    out = bench("bench_audit_kept.py", "--events", "300", "--moves", "2")
    assert "each kept report equal to the whole one" in out and "whole/kept" in out


def test_targets_bench_prints_every_target_on_a_small_campaign():
    out = bench("bench_targets.py", "--sizes", "200,300,400,500", "--runs", "1", "--reads", "status,step")
    for target in ("every read after a move at 300 events", "every read after a move at 400 events",
                   "the page's /audit after one new event at 300 events", "first read on a new machine at 500 events",
                   "`audit` at 500 events within 1.2x", "a signed roll at 500 events within 1.1x one at 200",
                   "peak memory of `audit` at 400 events", "peak memory of `report --html` after a move at 400 events"):
        assert target in out, target
    assert "of 13 targets met" in out
