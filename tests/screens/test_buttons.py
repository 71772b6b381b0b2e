"""Buttons through gpiozero's mock pins: debounce, long press, and whole menu flows."""

from __future__ import annotations

import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from device.hardware.buttons import ButtonPanel, PygameKeys, parse_keys
from device.app.flows import ConfirmCardFlow
from device.games.french_tarot.menus import BiddingFlow, GameMenu
from device.screens import render

PINS = {"up": 5, "down": 6, "ok": 13, "back": 19}
DEBOUNCE_MS = 10
HOLD = 0.4


@pytest.fixture
def factory():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()


@pytest.fixture
def panel(factory):
    with ButtonPanel(PINS, hold_time=HOLD, debounce_ms=DEBOUNCE_MS) as p:
        yield p


def drain(panel, wait=0.05):
    time.sleep(wait)
    return panel.drain()


def tap(factory, name, hold=0.02):
    pin = factory.pin(PINS[name])
    pin.drive_low()
    time.sleep(max(hold, DEBOUNCE_MS / 1000 * 1.5))
    pin.drive_high()
    time.sleep(DEBOUNCE_MS / 1000 * 1.5)


@pytest.fixture
def panel30(factory):
    with ButtonPanel(PINS, hold_time=1.0, debounce_ms=30) as p:
        yield p


def chatter(pin, edges):
    """``edges`` alternating levels 1 ms apart, starting low; returns how long it took."""
    start = time.monotonic()
    for i in range(edges):
        (pin.drive_low if i % 2 == 0 else pin.drive_high)()
        time.sleep(0.001)
    return time.monotonic() - start


def test_chatter_edges_one_ms_apart_give_one_press(factory, panel30):
    pin = factory.pin(PINS["ok"])
    took = chatter(pin, 9)  # a bouncing contact, ending pressed
    time.sleep(0.08)
    pin.drive_high()
    for _ in range(3):  # bouncing on release too
        pin.drive_low(); time.sleep(0.001); pin.drive_high(); time.sleep(0.001)
    if took > 0.025:
        pytest.skip(f"the machine is too loaded to make 1 ms chatter ({took * 1000:.0f} ms)")
    assert drain(panel30, wait=0.1) == [("ok", "press")]


def test_chatter_that_ends_released_still_gives_the_press(factory, panel30):
    pin = factory.pin(PINS["up"])
    took = chatter(pin, 6)  # ends released: the last edge falls in the debounce window
    pin.drive_high()
    if took > 0.025:
        pytest.skip(f"the machine is too loaded to make 1 ms chatter ({took * 1000:.0f} ms)")
    assert drain(panel30, wait=0.1) == [("up", "press")]


def test_long_press_is_sent_once_while_held_and_nothing_on_release(factory, panel):
    pin = factory.pin(PINS["back"])
    pin.drive_low()
    time.sleep(HOLD * 0.4)
    assert drain(panel, wait=0) == []
    time.sleep(HOLD * 1.5)
    assert drain(panel, wait=0) == [("back", "long")]
    pin.drive_high()
    assert drain(panel) == []
    tap(factory, "back")
    assert drain(panel) == [("back", "press")]


def test_callback_receives_the_events(factory):
    got = []
    with ButtonPanel({"ok": 13}, hold_time=HOLD, debounce_ms=DEBOUNCE_MS, callback=got.append):
        tap(factory, "ok")
    assert got == [("ok", "press")]


def test_rotary_encoder_steps_become_up_and_down(factory):
    with ButtonPanel({"ok": 13}, encoder={"a": 20, "b": 21}) as p:
        a, b = factory.pin(20), factory.pin(21)
        a.drive_low(); b.drive_low(); a.drive_high(); b.drive_high()  # clockwise
        b.drive_low(); a.drive_low(); b.drive_high(); a.drive_high()  # anticlockwise
        assert drain(p) == [("down", "press"), ("up", "press")]


def test_unknown_button_is_refused(factory):
    with pytest.raises(ValueError, match="select"):
        ButtonPanel({"select": 4})


def run_flow(factory, panel, flow, presses):
    """Press the buttons in order, feeding every event to the flow; return all decisions."""
    decisions = []
    for name in presses:
        if name.endswith("!"):
            pin = factory.pin(PINS[name[:-1]])
            pin.drive_low(); time.sleep(HOLD * 1.6); pin.drive_high(); time.sleep(0.02)
        else:
            tap(factory, name)
        for event in drain(panel, wait=0.005):
            decisions += flow.handle(event)
            render(flow.view())  # every state of the flow can be drawn
    return decisions


def test_full_bidding_at_five_players_with_a_called_king(factory, panel):
    players = ["Ana", "Bertrand", "Carmen", "Dominique", "Esteban"]
    flow = BiddingFlow(players, dealer=4)
    presses = [
        "ok",                  # Ana (seat 0, right of the dealer): pass
        "down", "ok",          # Bertrand: prise
        "down", "down", "ok",  # Carmen: options pass/garde/garde sans...: garde sans
        "ok",                  # Dominique: pass
        "ok",                  # Esteban: pass
        "down", "ok",          # Carmen calls: Spades K, Hearts K -> the King of Hearts
    ]
    decisions = run_flow(factory, panel, flow, presses)
    assert decisions == [
        ("bid", 0, "pass"), ("bid", 1, "prise"), ("bid", 2, "garde_sans"),
        ("bid", 3, "pass"), ("bid", 4, "pass"), ("call", "HK"),
    ]
    assert flow.done
    assert flow.bidding_view().called_king == "HK"


def test_undo_of_a_bid_with_back(factory, panel):
    flow = BiddingFlow(["Ana", "Bertrand", "Carmen", "Dominique"], dealer=0)
    decisions = run_flow(factory, panel, flow, ["down", "down", "ok", "back", "down", "ok"])
    assert decisions == [("bid", 1, "garde"), ("undo",), ("bid", 1, "prise")]
    assert flow.seat_to_bid() == 2 and not flow.done


def test_card_correction_through_other_card(factory, panel):
    flow = ConfirmCardFlow("H07", 0.55, alternatives=("H08",))
    # options: 7 of Hearts, 8 of Hearts, Other card -> categories: Trumps, Spades, Hearts...
    # Hearts ranks: K Q N J 10 9 8 ...: a long down jumps five (K -> 9), one more -> 8... we want the 6.
    presses = ["up", "ok", "down", "down", "ok", "down!", "down", "down", "down", "ok"]
    decisions = run_flow(factory, panel, flow, presses)
    assert decisions == [("correct_card", "H06")]


def test_confirming_the_seen_card(factory, panel):
    flow = ConfirmCardFlow("T21", 0.7, alternatives=("T20",))
    assert run_flow(factory, panel, flow, ["ok"]) == [("confirm_card", "T21")]


def test_game_menu_undo_and_long_back_leaves(factory, panel):
    flow = GameMenu(["Ana", "Bertrand", "Carmen"])
    assert run_flow(factory, panel, flow, ["ok"]) == [("undo",)]
    flow = GameMenu(["Ana", "Bertrand", "Carmen"])
    assert run_flow(factory, panel, flow, ["down", "back!"]) == [("cancel",)]


def test_terminal_keys():
    assert parse_keys("\x1b[A\x1b[B\r\x7fOx\t") == [
        ("up", "press"), ("down", "press"), ("ok", "press"), ("back", "press"), ("ok", "long"), ("ok", "long")]


def test_pygame_keys_short_and_long():
    import pygame

    now = [0.0]
    keys = PygameKeys(hold_time=0.5, clock=lambda: now[0])
    down = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN)
    up = pygame.event.Event(pygame.KEYUP, key=pygame.K_RETURN)
    assert keys.feed(down) == [] and keys.feed(up) == [("ok", "press")]
    keys.feed(down)
    now[0] = 0.6
    assert keys.tick() == [("ok", "long")] and keys.tick() == []
    assert keys.feed(up) == []


def test_keyboard_buttons_read_a_stream():
    import os

    from device.hardware.buttons import KeyboardButtons

    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb", buffering=0) as stream:
        keys = KeyboardButtons(stream=stream).start()
        os.write(write_end, b"\x1b[B\r")
        got = [keys.get(timeout=2), keys.get(timeout=2)]
        os.close(write_end)  # end of input: the reader stops
        keys._thread.join(timeout=2)
        keys.close()
    assert got == [("down", "press"), ("ok", "press")]
    assert not keys._thread.is_alive()


def test_keyboard_buttons_without_a_file_descriptor():
    import io

    from device.hardware.buttons import KeyboardButtons

    got = []
    keys = KeyboardButtons(stream=io.StringIO("dO"), callback=got.append).start()
    keys._thread.join(timeout=2)
    keys.close()
    assert got == [("down", "press"), ("ok", "long")]


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 5), st.data())
def test_the_presses_of_any_auction_enter_that_auction(players, data):
    """BiddingFlow.presses (the scripted players' presses) fed to a real bidding flow
    gives back the bids, whatever the auction."""
    bids, best = [], None
    for _ in range(players):
        higher = BiddingFlow.ORDER[BiddingFlow.ORDER.index(best) + 1:] if best else BiddingFlow.ORDER
        bid = data.draw(st.sampled_from(["pass", *higher]))
        bids.append(bid)
        best = bid if bid != "pass" else best
    flow = BiddingFlow([f"P{k}" for k in range(players)], dealer=players - 1)
    decisions = []
    for event in BiddingFlow.presses(bids):
        decisions += flow.handle(event)
    assert [d[2] for d in decisions if d[0] == "bid"] == bids
