"""PostgreSQL reads against SQLite's, side by side in one run ("PostgreSQL reads within 1.3x SQLite's at
5,000 events").

    .venv/bin/python bench/bench_pg.py --pg-url postgresql://USER:PASS@127.0.0.1:54329/postgres [--events 5000]

Builds the campaign of bench_cli.py (the shipped sample, then both sides' keys and signed rolls) in a SQLite file,
exports it whole and imports the bundle into a new PostgreSQL database (dropped afterwards). Then every read
command of bench_cli.py runs as a subprocess against each, alternating run by run: best and median of --runs, wall
time and the ratio. The new database is vacuumed and analysed once (else autovacuum's ANALYZE of the imported rows
may run during the timings, on the same 2 cores). Each backend's log is checked once by a first `status` (this
machine's mark, ledger/trust/mark.py) before the timings.
The reads go through libpq (ledger/store/libpq.py), never psycopg: the last table compares the two clients' cost (import,
connect, the head row's query), measured inside fresh processes, best of --runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_cli  # noqa: E402
from bench_cli import CGLEDGER, READS, build, run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg-url", required=True, help="an admin URL of a PostgreSQL server (a database is made)")
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reads", default="", help="only these read commands, comma-separated (e.g. head,status)")
    args = parser.parse_args()
    import psycopg

    tmp = Path(tempfile.mkdtemp(prefix="cgledger-bench-pg-"))
    env = bench_cli.isolate(tmp)
    name = f"cgledger_bench_{uuid.uuid4().hex[:8]}"
    base = args.pg_url.rsplit("/", 1)[0]
    try:
        t0 = time.perf_counter()
        sqlite_db = build(tmp, [args.events])[args.events]
        bundle = tmp / "bundle.json"
        subprocess.run([*CGLEDGER, "--db", str(sqlite_db), "export", "--since", "0", str(bundle)], env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with psycopg.connect(args.pg_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        pg_db = f"{base}/{name}"
        subprocess.run([*CGLEDGER, "--db", pg_db, "import", str(bundle)], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with psycopg.connect(pg_db, autocommit=True) as conn:  # what autovacuum would otherwise do during the timings
            conn.execute("VACUUM ANALYZE")
        print(f"built {args.events:,} events in SQLite and PostgreSQL in {time.perf_counter() - t0:.0f} s", flush=True)
        dbs = {"SQLite": str(sqlite_db), "PostgreSQL": pg_db}
        for db in dbs.values():
            run([*CGLEDGER, "--db", db, "status"], 1, env)
        rows = []
        for label, argv in READS:
            if args.reads and label not in args.reads.split(","):
                continue
            argv = [a.replace("{tmp}", str(tmp)) for a in argv]
            walls: dict[str, list[float]] = {backend: [] for backend in dbs}
            for _ in range(args.runs):  # run by run, alternating: a slower stretch of the machine hits both
                for backend, db in dbs.items():
                    walls[backend].append(run([*CGLEDGER, "--db", db, *argv], 1, env)[0])
            rows.append((label, min(walls["SQLite"]), min(walls["PostgreSQL"]),
                         statistics.median(walls["SQLite"]), statistics.median(walls["PostgreSQL"])))
        clients = {client: client_cost(client, pg_db, args.runs, env) for client in CLIENTS}
    finally:
        with psycopg.connect(args.pg_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nPostgreSQL (loopback) against SQLite at {args.events:,} events: wall time of each command as a subprocess, "
          f"best and median of {args.runs}, the backends alternating run by run\n")
    print(f"{'read command':<16}{'SQLite ms':>11}{'PG ms':>9}{'PG/SQLite':>11}{'median ms':>20}{'ratio':>8}")
    for label, lite, pg, lite_median, pg_median in rows:
        print(f"{label:<16}{lite * 1000:>11.0f}{pg * 1000:>9.0f}{pg / lite:>10.2f}x"
              f"{f'{lite_median * 1000:.0f} / {pg_median * 1000:.0f}':>20}{pg_median / lite_median:>7.2f}x")
    worst = max(rows, key=lambda r: r[2] / r[1])
    worst_median = max(rows, key=lambda r: r[4] / r[3])
    print(f"highest ratio: {worst[0]} {worst[2] / worst[1]:.2f}x (best of {args.runs}); {worst_median[0]} "
          f"{worst_median[4] / worst_median[3]:.2f}x (medians)")
    print(f"\nimport + connect + the head row's query, inside a fresh process, best of {args.runs}\n")
    print(f"{'client':<26}{'ms':>8}")
    for client, ms in clients.items():
        print(f"{client:<26}{ms:>8.1f}")
    print(f"psycopg / libpq: {clients['psycopg'] / clients['libpq (ctypes)']:.1f}x")


CLIENTS = {  # the client's import and connect, then the row `head` reads (its campaign's last event)
    "libpq (ctypes)": "from cgledger.ledger.store import libpq\nconn = libpq.connect(URL, [*libpq.bundled(), *libpq.LIBRARIES])\n"
                      "rows = conn.query(QUERY)\nconn.close()",
    "psycopg": "import psycopg\nconn = psycopg.connect(URL, connect_timeout=10)\n"
               "rows = conn.execute(QUERY).fetchall()\nconn.close()",
}
QUERY = "SELECT originator_version, topic, state FROM cgledger_events ORDER BY notification_id DESC LIMIT 1"


def client_cost(client: str, url: str, runs: int, env: dict) -> float:
    """Milliseconds from the client's import to the head row read and the connection closed, in a fresh process."""
    code = (f"import time\nt0 = time.perf_counter()\nURL, QUERY = {url!r}, {QUERY!r}\n{CLIENTS[client]}\n"
            "assert rows\nprint((time.perf_counter() - t0) * 1000)")
    return min(float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True,
                                    text=True).stdout) for _ in range(runs))


if __name__ == "__main__":
    main()
