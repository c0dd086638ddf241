"""The benchmark script keeps working (a smoke run on a tiny log; no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_bench_runs_on_a_small_log():
    script = Path(__file__).parent.parent / "bench" / "bench_ledger.py"
    done = subprocess.run([sys.executable, str(script), "--rolls", "60"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "audit report: " in done.stdout and "CLEAN" in done.stdout
    assert "x floor" in done.stdout and "mapper: ours is" in done.stdout


def test_areas_bench_runs_on_a_small_grid():
    script = Path(__file__).parent.parent / "bench" / "bench_areas.py"
    done = subprocess.run([sys.executable, str(script), "--hexes", "20", "--strategic", "30", "--runs", "1"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "x the plain BFS" in done.stdout


def test_cli_bench_runs_on_a_small_campaign():
    script = Path(__file__).parent.parent / "bench" / "bench_cli.py"
    done = subprocess.run([sys.executable, str(script), "--sizes", "300", "--runs", "1"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "x click" in done.stdout and "x floor" in done.stdout and "audit / typed-decode floor" in done.stdout


def test_agent_bench_runs_on_a_small_campaign():
    script = Path(__file__).parent.parent / "bench" / "bench_agent.py"
    done = subprocess.run([sys.executable, str(script), "--sizes", "300,400", "--runs", "1"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "agent on ms" in done.stdout and "target: a signed roll at 400 events within 1.2x" in done.stdout


def test_web_bench_runs_on_a_small_campaign():
    from cgledger.cli.web.pages import VIEWS

    script = Path(__file__).parent.parent / "bench" / "bench_web.py"
    done = subprocess.run([sys.executable, str(script), "--events", "200", "--repeat", "1"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    for path in [*VIEWS, "/roll?table=8.616", "FLOOR status --json"]:
        assert any(line.split()[:1] == [path] or line.startswith(path + " ") for line in lines), path
    assert "x 150 ms" in done.stdout and "over 150 ms at " in done.stdout


def test_snapshot_bench_runs_across_cg_dates():
    script = Path(__file__).parent.parent / "bench" / "bench_snapshots.py"
    done = subprocess.run([sys.executable, str(script), "--sizes", "300,600", "--per-date", "100"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "snapshot bytes / event bytes: " in done.stdout
    rows = [line.split() for line in done.stdout.splitlines() if line.split()[:1] and line.split()[0].isdigit()]
    assert len(rows) == 2 and int(rows[-1][0]) >= 600 and int(rows[-1][1]) >= 5, done.stdout  # CG Dates crossed
