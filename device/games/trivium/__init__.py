"""Trivium at the table."""
