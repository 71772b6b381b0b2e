"""The demo: a whole game on the simulated table, through the real pipeline."""
