"""cgledger: the campaign ledger for ASL campaign games. One name in site-packages: the
top-level folders of this repository (ledger/, projections/, cli/) are installed as cgledger.ledger,
cgledger.projections and cgledger.cli (pyproject.toml's package-dir)."""

from __future__ import annotations

import os as _os

_here = _os.path.dirname(_os.path.abspath(__file__))
_checkout = _os.path.dirname(_here)
if not _os.path.isdir(_os.path.join(_here, "ledger")) \
        and _os.path.isfile(_os.path.join(_checkout, "ledger", "__init__.py")) \
        and _os.path.isfile(_os.path.join(_checkout, "pyproject.toml")):
    # run from the source checkout (tests, `python -m`): the subpackages are this folder's siblings
    __path__.append(_checkout)  # noqa: F821 - a package's own __path__
