"""The shape of the code holds its targets (tools/house.py prints them, docs/architecture.md quotes a run): a service
that only loads, decides and appends; no module too long to read whole; no function too branched to follow; no
circle of imports between the rooms of the house, inside functions and lazy imports included."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def house():
    spec = importlib.util.spec_from_file_location("house", ROOT / "tools" / "house.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["house"] = module
    spec.loader.exec_module(module)
    return module


def test_the_service_only_loads_decides_and_appends():
    tool = house()
    assert tool.lines_of(tool.SERVICE) < tool.SERVICE_MOST


def test_no_module_is_too_long_and_no_function_too_branched():
    found = house().figures()
    assert found["modules_over"] == {} and found["functions_over"] == {}


def test_no_circle_of_imports_between_the_rooms():
    tool = house()
    assert tool.circles(tool.imports()) == []


def test_a_circle_is_found_where_there_is_one():
    tool = house()
    graph = {"ledger/a": {"ledger/b"}, "ledger/b": {"ledger/c"}, "ledger/c": {"ledger/a"}, "cli": {"ledger/a"}}
    assert tool.circles(graph) == [["ledger/a", "ledger/b", "ledger/c"]]


def test_imports_inside_functions_and_lazy_ones_are_read(tmp_path):
    """A circle hidden in a function's import and a lazy module is a circle all the same."""
    tool = house()
    (tmp_path / "ledger" / "a").mkdir(parents=True)
    (tmp_path / "ledger" / "a" / "__init__.py").write_text("def f():\n    from ..b import g\n")
    (tmp_path / "ledger" / "b.py").write_text('from . import lazy\nm = lazy.module("cgledger.ledger.c.d")\n')
    (tmp_path / "ledger" / "c").mkdir()
    (tmp_path / "ledger" / "c" / "d.py").write_text("import cgledger.ledger.a\n")
    (tmp_path / "cli" / "web").mkdir(parents=True)
    (tmp_path / "cli" / "web" / "app.py").write_text("from .. import quick\n")
    graph = tool.imports(tmp_path)
    assert graph["ledger/a"] == {"ledger/b"} and graph["ledger/b"] == {"ledger/lazy", "ledger/c"}
    assert graph["cli/web"] == {"cli"}
    assert tool.circles(graph) == [["ledger/a", "ledger/b", "ledger/c"]]
