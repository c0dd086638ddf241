"""Setup Area Determination on a 60 x 60-hex Map Group with 200 Strategic Locations, next to a plain
breadth-first search over the same grid (the floor: one BFS visiting every hex), in one run.

    .venv/bin/python bench/bench_areas.py [--hexes 60] [--strategic 200] [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cgledger.ledger import rules as rulesmod  # noqa: E402
from cgledger.ledger.rules.hexmap import Location, column_label  # noqa: E402
from cgledger.projections.areas import determine  # noqa: E402


def grid_file(size: int) -> str:
    last = column_label(size - 1)
    west = ", ".join(f'"St{column_label(0)}{r}"' for r in range(1, size + 1, 7))
    east = ", ".join(f'"St{last}{r}"' for r in range(1, size + 1, 7))
    return (f'[[map]]\ngroup = "St"\ncolumns = ["A", "{last}"]\nrows = [1, {size}]\nshifted = "odd"\n'
            f'entry_areas = [ {{ id = "w", sides = ["german"], hexes = [{west}] }}, '
            f'{{ id = "e", sides = ["us"], hexes = [{east}] }} ]\n')


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hexes", type=int, default=60, help="hexes per side of the square grid")
    parser.add_argument("--strategic", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    size = args.hexes
    rules = rulesmod.load("kgp", (("bench", grid_file(size)),))
    geometry = rules.map_of("St")
    grid = rules.grid(geometry)
    dice = random.Random(7)
    hexes = grid.hexes
    control = {Location(h): (dice.choice(["german", "us"]), dice.choice("BEFGV"))
               for h in dice.sample(hexes, args.strategic)}

    def plain_bfs() -> int:
        seen, queue = {hexes[0]}, deque([hexes[0]])
        while queue:
            for n in grid.neighbours(queue.popleft()):
                if n not in seen:
                    seen.add(n)
                    queue.append(n)
        return len(seen)

    grid.neighbours(hexes[0])
    t_bfs = best(plain_bfs, args.runs)
    t_areas = best(lambda: determine(rules, geometry, control, {}), args.runs)
    print(f"grid {size} x {size} = {len(hexes)} hexes, {args.strategic} Strategic Locations, best of {args.runs}")
    print(f"plain BFS over the grid          {t_bfs * 1000:8.2f} ms")
    print(f"Setup Area Determination (8.605)  {t_areas * 1000:8.2f} ms   = {t_areas / t_bfs:.1f}x the plain BFS")


if __name__ == "__main__":
    main()
