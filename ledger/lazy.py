"""A module imported on first use: the application
service names every decision module once at its top, but a read runs none of the write verbs' decisions, so the
import of those a read loads nowhere else (~4 ms of a read's ~130) waits until an attribute is first asked for.
The stdlib's own LazyLoader does it; a module already imported is returned as it is."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def module(name: str) -> ModuleType:
    """The module `name` (absolute), executed the first time one of its attributes is read."""
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    lazy = importlib.util.module_from_spec(spec)
    sys.modules[name] = lazy
    spec.loader.exec_module(lazy)
    parent, _, child = name.rpartition(".")
    if parent:  # as the import system does: `from package import child` finds it on its package
        setattr(sys.modules[parent], child, lazy)
    return lazy
