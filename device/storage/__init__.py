"""Where the device keeps what was played: the deal log (SQLite)."""
