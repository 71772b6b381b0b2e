"""The device's edges: the OLED (or its emulators), the buttons, the buzzer, and opening them from the configuration."""
