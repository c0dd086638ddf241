"""Pure decisions: (campaign state, rules, command) -> facts, or a LedgerError citing the rule of the
campaign's own system. The application service calls them before it appends; the audit and `import`
call the very same functions on every stored event (ledger/decide/redecide.py)."""
