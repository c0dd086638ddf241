"""cgledger: the campaign ledger for ASL campaign games. One name in site-packages: the top-level folders of this
repository (ledger/, projections/, cli/) are installed as cgledger.ledger, cgledger.projections and cgledger.cli
(pyproject.toml's package-dir); an editable install (`pip install -e .`, as the README's commands do) maps them
the same way from the checkout."""
