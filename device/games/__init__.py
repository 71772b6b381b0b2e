"""The games the device knows, each behind the same interface."""
