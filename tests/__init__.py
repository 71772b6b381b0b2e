"""Tarotmate's tests. A package, so that tests/vision/ is ``tests.vision`` and never hides the ``vision`` package."""
