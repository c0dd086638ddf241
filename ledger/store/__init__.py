"""Where the log lives: SQLite and PostgreSQL, the aggregate and its snapshots, reads with and without the event-sourcing library."""
