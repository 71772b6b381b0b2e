"""Hardware chosen by configuration, emulated on a desktop."""

import pytest

from device.config import config_from_dict
from device.hardware.from_config import PygameButtons, open_buttons, open_outputs


def test_pygame_window_keys_are_buttons():
    pygame = pytest.importorskip("pygame")
    pygame.display.init()
    try:
        pygame.display.set_mode((64, 32))
        buttons = open_buttons(config_from_dict({"display": {"kind": "pygame"}}))
        assert isinstance(buttons, PygameButtons)
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN))
        pygame.event.post(pygame.event.Event(pygame.KEYUP, key=pygame.K_RETURN))
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_DOWN))
        pygame.event.post(pygame.event.Event(pygame.KEYUP, key=pygame.K_DOWN))
        assert buttons.drain() == [("ok", "press"), ("down", "press")]
    finally:
        pygame.display.quit()


def test_gpio_buttons_on_mock_pins():
    from gpiozero import Device

    buttons = open_buttons(config_from_dict({"display": {"kind": "dummy"}}))
    try:
        pin = Device.pin_factory.pin(13)  # pins.ok
        pin.drive_low()
        pin.drive_high()
        import time

        deadline = time.monotonic() + 1.0
        events = []
        while not events and time.monotonic() < deadline:
            time.sleep(0.05)
            events = buttons.drain()
        assert events == [("ok", "press")]
    finally:
        buttons.close()
        Device.pin_factory.reset()


def test_missing_oled_does_not_stop_the_app(capsys):
    outputs = open_outputs(config_from_dict({"display": {"kind": "ssd1306", "i2c_port": 9}, "ui": {"buzzer": False}}),
                           report=lambda text: print(text))
    try:
        assert "no display" in capsys.readouterr().out
        from PIL import Image

        outputs.show(Image.new("1", (128, 64)))
    finally:
        outputs.close()
