"""Menu flows as pure state machines (no pins)."""

from __future__ import annotations

import pytest

from device.app.setup_menu import SetupFlow
from device.games.french_tarot.menus import BiddingFlow, GameMenu
from device.screens import render
from device.screens.views import MenuView
from engine.errors import TarotmateError


def feed(flow, *buttons):
    decisions = []
    for b in buttons:
        name, kind = (b[:-1], "long") if b.endswith("!") else (b, "press")
        decisions += flow.handle((name, kind))
        render(flow.view(), flow.lang, flow.style)
    return decisions


def test_setup_from_the_config_names_with_back():
    flow = SetupFlow(["Ana", "Bertrand", "Carmen", "Dominique"], lang="fr")
    assert feed(flow, "ok") == []                        # French tarot
    assert feed(flow, "down", "ok") == []                # 4 players
    assert flow.view().items == ("Ana", "Bertrand", "Carmen", "Dominique")
    feed(flow, "down", "ok")                             # seat 1: Bertrand
    assert flow.view().title == "Place 2"
    feed(flow, "back")                                   # changed my mind: seat 1 again
    assert flow.view().title == "Place 1" and flow.players == []
    decisions = feed(flow, "up", "ok", "ok", "ok", "ok")
    assert decisions == [("setup", "tarot", "fft", ("Ana", "Bertrand", "Carmen", "Dominique"))]
    assert flow.done


def test_setup_with_several_variants_asks_for_one():
    flow = SetupFlow(["A", "B", "C"], variants={"tarot": [("FFT", "fft"), ("Sans appel", "no_call")]})
    feed(flow, "ok", "ok")
    assert flow.view().title == "Variant"
    assert feed(flow, "down", "ok", "ok", "ok", "ok") == [("setup", "tarot", "no_call", ("A", "B", "C"))]


def test_setup_needs_names():
    with pytest.raises(TarotmateError):
        SetupFlow(["Solo"])


def test_only_higher_bids_are_offered_and_all_pass_ends_the_auction():
    flow = BiddingFlow(["A", "B", "C"], dealer=2)
    feed(flow, "down", "down", "ok")  # A: garde
    assert flow.view().items == ("Pass", "Garde sans", "Garde contre")
    assert flow.bidding_view().current == 1
    flow = BiddingFlow(["A", "B", "C"], dealer=0)
    assert feed(flow, "ok", "ok", "ok") == [("bid", 1, "pass"), ("bid", 2, "pass"), ("bid", 0, "pass"), ("all_passed",)]


def test_up_wraps_and_long_down_jumps_five():
    flow = GameMenu(["A", "B", "C"])
    feed(flow, "up")
    assert flow.view().selected == 5
    feed(flow, "down!")
    assert flow.view().selected == 4


def test_poignee_and_end_of_game_confirmation():
    flow = GameMenu(["Ana", "Bertrand", "Carmen"], lang="es")
    assert feed(flow, "down", "ok", "down", "ok", "down", "down", "ok") == [("poignee", 1, "triple")]
    flow = GameMenu(["Ana", "Bertrand", "Carmen"])
    feed(flow, "up", "ok")
    assert isinstance(flow.view(), MenuView) and flow.view().items == ("No", "Yes")
    assert feed(flow, "ok") == [] and not flow.done       # "No" returns to the menu
    assert feed(flow, "ok", "down", "ok") == [("end_game",)]


def test_bad_events_are_refused():
    with pytest.raises(ValueError):
        GameMenu(["A", "B", "C"]).handle(("left", "press"))
