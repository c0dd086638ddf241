"""The campaign ledger domain: events, the campaign aggregate, dice, rules tables, service."""
