"""Audit: replay a campaign's whole log and re-check it (replay.py: the one pass; tally.py: what it keeps as it goes;
checks.py: what only the whole log or state shows; verification.py: `audit`, `audit --fast` and `head` read from
the store). The events are read one at a time (ledger/store/stream.py). A read loads verification.py alone."""
