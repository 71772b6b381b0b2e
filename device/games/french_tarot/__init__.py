"""French tarot at the table."""
