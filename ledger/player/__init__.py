"""The side at this keyboard: its key and what it opens, its own books of secrets, its part in the fair-dice and sealed-chit protocols."""
