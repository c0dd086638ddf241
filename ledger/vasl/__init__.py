"""VASL's dice reports: the dice bot's lines, the chat window, VASSAL's .vlog and .vsav files."""
