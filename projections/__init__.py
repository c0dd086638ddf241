"""Read models rebuilt from the event sequence: pure folds, no I/O."""
