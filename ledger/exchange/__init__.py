"""Play by email: the bundle, export and import, the email turn."""
