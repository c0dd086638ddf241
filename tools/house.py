"""The shape of the code against its targets (docs/architecture.md quotes a run): the service's length, the longest
modules, the most complex functions (radon's cyclomatic complexity), the product code's size, and the circles of
imports between the rooms: the subpackages and top modules of ledger/, projections/, cli/ and cli/web/ (every import
read, those inside functions too).

`python tools/house.py` prints each target and whether it is met; `--json` prints the figures."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("ledger", "projections", "cli")  # without tests, bench, docs, tools
SERVICE = ROOT / "ledger" / "application.py"
SERVICE_MOST, MODULE_MOST, COMPLEXITY_MOST = 250, 600, 25
BEFORE = 22_100  # product lines when the targets were set; the target is at least 20% fewer
SMALLER = 0.8


def product_files(root: Path = ROOT) -> list[Path]:
    return sorted(p for top in PRODUCT for p in (root / top).rglob("*.py") if "__pycache__" not in p.parts)


def lines_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def complex_functions(files: list[Path]) -> list[tuple[str, int]]:
    found = []
    for path in files:
        for block in cc_visit(path.read_text(encoding="utf-8")):
            for item in [block, *getattr(block, "methods", [])]:
                if isinstance(item, Function) and item.complexity > COMPLEXITY_MOST:  # a class's figure is no function's
                    found.append((f"{path.relative_to(ROOT)}:{item.lineno} {item.fullname}", item.complexity))
    return sorted(set(found), key=lambda f: -f[1])


def room_of(parts: list[str]) -> str | None:
    """The room of a module of cgledger (its dotted name after `cgledger`): a subpackage or top module of ledger/,
    projections/, cli/ or cli/web/."""
    if not parts or parts[0] not in PRODUCT:
        return None
    if parts[0] == "ledger":
        return f"ledger/{parts[1]}" if len(parts) > 1 else None
    return "cli/web" if parts[:2] == ["cli", "web"] else parts[0]


def imports(root: Path = ROOT) -> dict[str, set[str]]:
    """Room -> the rooms it imports: relative and absolute imports at any depth of the code (inside functions too),
    and the modules named to ledger/lazy.py."""
    graph: dict[str, set[str]] = {}
    for path in product_files(root):
        rel = list(path.relative_to(root).with_suffix("").parts)
        package = rel[:-1]
        here = room_of([p for p in rel if p != "__init__"])
        if here is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[list[str]] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - node.level + 1] + (node.module.split(".") if node.module else [])
                else:
                    base = (node.module or "").split(".")
                names = [base + [a.name] for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name.split(".") for a in node.names]
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "module" and node.args \
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                names = [node.args[0].value.split(".")]
            for name in names:
                other = room_of(name[1:] if name[:1] == ["cgledger"] else name if getattr(node, "level", 0) else [])
                if other is not None and other != here:
                    graph.setdefault(here, set()).add(other)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one room (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def figures() -> dict:
    files = product_files()
    sizes = {str(p.relative_to(ROOT)): lines_of(p) for p in files}
    return {
        "service_lines": lines_of(SERVICE),
        "modules_over": {k: v for k, v in sorted(sizes.items(), key=lambda i: -i[1]) if v > MODULE_MOST},
        "functions_over": dict(complex_functions(files)),
        "product_lines": sum(sizes.values()),
        "circles": circles(imports()),
    }


def main() -> None:
    found = figures()
    if "--json" in sys.argv[1:]:
        print(json.dumps(found, indent=2))
        return
    most = int(BEFORE * SMALLER)
    rows = [
        (f"the service (ledger/application.py) under {SERVICE_MOST} lines", f"{found['service_lines']} lines",
         found["service_lines"] < SERVICE_MOST),
        (f"no module over {MODULE_MOST} lines", ", ".join(f"{k} {v}" for k, v in found["modules_over"].items())
         or "none", not found["modules_over"]),
        (f"no function above complexity {COMPLEXITY_MOST}",
         ", ".join(f"{k} {v}" for k, v in found["functions_over"].items()) or "none", not found["functions_over"]),
        (f"product code at most {most:,} lines (20% under {BEFORE:,})", f"{found['product_lines']:,} lines",
         found["product_lines"] <= most),
        ("no circle of imports between the rooms (ledger/*, projections, cli, cli/web)", "; ".join(" <-> ".join(c) for c in found["circles"])
         or "none", not found["circles"]),
    ]
    for target, now, met in rows:
        print(f"{'met    ' if met else 'NOT MET'}  {target}: {now}")


if __name__ == "__main__":
    main()
