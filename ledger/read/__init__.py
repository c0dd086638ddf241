"""The fast read path: answers and read views kept per log head on this machine."""
