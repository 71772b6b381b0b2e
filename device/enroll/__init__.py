"""Guided deck enrollment on the device."""
