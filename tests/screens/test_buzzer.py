"""The optional buzzer and LED through mock pins."""

from __future__ import annotations

import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from device.hardware.buzzer import Signal


def ons(factory, pin):
    return [s.state for s in factory.pin(pin).states].count(True)


def settle(factory, pins, expected, timeout=3.0):
    """Wait until the blink patterns have run (they run on gpiozero's threads)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and [ons(factory, p) for p in pins] != expected:
        time.sleep(0.05)
    time.sleep(0.3)  # and nothing more comes
    return [ons(factory, p) for p in pins]


@pytest.fixture
def factory():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()


def test_violation_beeps_three_times_and_blinks(factory):
    signal = Signal(buzzer_pin=18, led_pin=23)
    signal.alert("violation")
    assert settle(factory, (18, 23), [3, 3]) == [3, 3]
    signal.close()


def test_confirm_blinks_without_a_sound(factory):
    signal = Signal(buzzer_pin=18, led_pin=23)
    signal.alert("confirm")
    assert settle(factory, (18, 23), [0, 2]) == [0, 2]
    signal.close()


def test_unknown_alert_and_missing_parts(factory):
    with pytest.raises(ValueError):
        Signal().alert("party")
    Signal().alert("violation")  # nothing fitted: nothing happens
