"""What makes the log trustworthy: the hash chain and the stored envelope, signatures, commitments of secrets, the fair-dice arithmetic, the verify-once marks."""
