"""The optional buzzer and LED through mock pins."""

from __future__ import annotations

import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from device.buzzer import Signal


@pytest.fixture
def factory():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()


def test_violation_beeps_three_times_and_blinks(factory):
    signal = Signal(buzzer_pin=18, led_pin=23)
    signal.alert("violation")
    time.sleep(0.8)
    buzzer_on = [s.state for s in factory.pin(18).states].count(True)
    led_on = [s.state for s in factory.pin(23).states].count(True)
    signal.close()
    assert buzzer_on == 3 and led_on == 3


def test_confirm_blinks_without_a_sound(factory):
    signal = Signal(buzzer_pin=18, led_pin=23)
    signal.alert("confirm")
    time.sleep(0.5)
    assert [s.state for s in factory.pin(18).states].count(True) == 0
    assert [s.state for s in factory.pin(23).states].count(True) == 2
    signal.close()


def test_unknown_alert_and_missing_parts(factory):
    with pytest.raises(ValueError):
        Signal().alert("party")
    Signal().alert("violation")  # nothing fitted: nothing happens
