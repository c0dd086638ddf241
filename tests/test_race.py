"""Two players recording at the same moment: two real processes against one campaign (the backend under
test: one SQLite file, or PostgreSQL), hundreds of rolls each. The loser of each race gets 'the campaign
moved on' and retries; nothing is lost and nothing is doubled."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

WORKER = """
import json, sys, time
sys.path.insert(0, {root!r})
from cgledger.ledger.application import open_ledger
from cgledger.ledger.verbs import rolling
from cgledger.ledger.errors import CampaignMovedOn
db, worker, count, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
ledger = open_ledger(db)
while time.time() < start:
    time.sleep(0.001)
retries, messages = 0, set()
for i in range(count):
    while True:
        try:
            rolling.roll(ledger, None, "8.610", "german", dice=str(i % 6 + 1), purpose=f"{{worker}}-{{i}}")
            break
        except CampaignMovedOn as e:
            retries += 1
            messages.add(e.line().split(":")[0])
print(json.dumps({{"retries": retries, "messages": sorted(messages)}}))
"""

ROLLS = 150  # per process


def test_two_processes_racing_lose_and_double_nothing(at):
    cli = at("8.610")
    before = cli.events()
    root = str(Path(__file__).resolve().parent.parent)
    start = time.time() + 1.5
    workers = [subprocess.Popen([sys.executable, "-c", WORKER.format(root=root), str(cli.db), name, str(ROLLS), str(start)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in ("german", "us")]
    results = []
    for worker in workers:
        out, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err[-2000:]
        results.append(json.loads(out))
    log = cli.json("log")
    purposes = [r["purpose"] for r in log if r["type"] == "DiceRolled" and r["version"] > before]
    assert cli.events() == before + 2 * ROLLS  # nothing lost
    assert sorted(purposes) == sorted(f"{w}-{i}" for w in ("german", "us") for i in range(ROLLS))  # nothing doubled
    assert cli("audit").exit_code == 0
    for result in results:
        assert result["messages"] in ([], ["the campaign moved on"])
    print("retries:", [r["retries"] for r in results])
