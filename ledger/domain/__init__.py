"""The game as the ledger records it: events (facts), the state they fold into, and what the state tells (in force, the map, the timeline, the words)."""
