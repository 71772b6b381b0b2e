"""The table app: the game session over the deal log, the controller, the menus, the main loop."""
