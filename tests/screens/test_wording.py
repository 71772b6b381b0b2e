"""What the screens say: no cut where a shorter wording fits, titles kept at
five players, card labels that do not change or mislead, the check-card screen
saying whose card and where, the crossed Trivium box explained."""

from __future__ import annotations

import pytest

from device.i18n import LANGUAGES
from device.screens import render
from device.screens.draw import ELLIPSIS, ROTATE_TICKS, recording
from device.screens.examples import DEFAULT_STYLE, examples
from device.screens.labels import card_label
from device.screens.views import (BiddingView, ConfirmCardView, TerciaView, TrickPlay, TrickView,
                                  TriviumSeatView, TriviumView)
from engine.cards import CODES

FIVE = ("Ana", "Bertrand", "Carmen", "Dominique", "Esteban")


def _texts(view, lang, style=None, tick=None):
    with recording() as items:
        render(view, lang, style or DEFAULT_STYLE[lang], tick)
    return items


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", ["deal_end", "trivium", "camera", "trick", "bidding", "confirm_card"])
def test_example_screens_cut_nothing(lang, name):
    cut = [i.wanted for i in _texts(examples(lang)[name], lang) if i.fit == "ellipsis"]
    assert not cut, f"{lang}/{name}: cut with an ellipsis: {cut}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_five_player_bidding_and_trick_keep_their_title(lang):
    bidding = BiddingView(FIVE, dealer=4, bids=("pass", "garde", None, None, None), current=2)
    trick = TrickView(4, tuple(TrickPlay(s, c) for s, c in zip(FIVE, ("H07", "HK", "T05", "H10", "HQ"))),
                      winner=1, total=15)
    for view, title in ((bidding, {"en": "Bidding", "fr": "Enchères", "es": "Subasta"}[lang]),
                        (trick, {"en": "Trick 4/15", "fr": "Pli 4/15", "es": "Baza 4/15"}[lang])):
        items = _texts(view, lang)
        assert items[0].shown == title and items[0].box[1] >= 0
        shown = {i.shown for i in items}
        assert all(any(name in s for s in shown) for name in FIVE)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_card_keeps_its_name_as_the_trick_fills(lang):
    plays = tuple(TrickPlay(s, c) for s, c in zip(FIVE, ("D01", "DQ", "DN", "T21", "D10")))
    first_shown = None
    for n in range(1, 6):
        shown = [i.shown for i in _texts(TrickView(3, plays[:n], winner=0, total=15), lang)]
        ace = next(s for s in shown if s not in FIVE and "/" not in s)
        first_shown = first_shown or ace
        assert ace == first_shown, f"{lang}: the ace of diamonds shown as {first_shown!r}, then {ace!r}"


@pytest.mark.parametrize("style", ["french", "tarot"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_card_labels_are_distinct_and_do_not_mislead(lang, style):
    labels = [card_label(code, lang, style) for code in CODES]
    assert len(set(labels)) == 78
    ace = card_label("D01", lang, style)
    assert not ace.startswith("1"), ace  # "1♦" does not say ace
    if lang == "en":
        knight = card_label("DN", lang, style)
        assert knight.startswith("Kn"), knight  # a "C" reads as Clubs


@pytest.mark.parametrize("lang", LANGUAGES)
def test_check_card_says_whose_card_and_where(lang):
    view = ConfirmCardView("H07", 0.62, ("H08",), seat="Carmen", trick=4)
    shown = [i.shown for i in _texts(view, lang)]
    place = {"en": "trick 4", "fr": "pli 4", "es": "baza 4"}[lang]
    assert any("Carmen" in s and place in s for s in shown), shown
    chien = [i.shown for i in _texts(ConfirmCardView("H07", 0.62, place="chien"), lang)]
    assert any({"en": "chien", "fr": "chien", "es": "perro"}[lang] in s.lower() for s in chien), chien


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_card_the_camera_never_saw_shows_no_confidence(lang):
    """A missing card asked for (the camera's confidence 0) has no "0%" in its title; a card
    seen unsurely has its percentage."""
    missing = [i.shown for i in _texts(ConfirmCardView("S10", 0.0, ("H10", "D10"), seat="Pau"), lang)]
    seen = [i.shown for i in _texts(ConfirmCardView("S10", 0.62, ("H10", "D10"), seat="Pau"), lang)]
    assert not any("%" in s for s in missing), missing
    assert any("62%" in s for s in seen), seen


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_card_asked_on_a_deck_the_model_cannot_read_says_so_in_full(lang):
    unread = _texts(ConfirmCardView("S10", 0.31, ("H10", "D10"), seat="Pau", trick=12, unread=True), lang)
    title = {"en": "Deck not read", "fr": "Jeu non lu", "es": "Baraja no leída"}[lang]
    shown = [i for i in unread if i.shown == title]
    assert shown and shown[0].fit != "ellipsis" and shown[0].box[1] < 12  # the title, in full
    assert any("31%" in i.shown for i in unread)  # the camera's confidence still shown
    plain = _texts(ConfirmCardView("S10", 0.31, ("H10", "D10"), seat="Pau", trick=12), lang)
    assert not any(i.shown == title for i in plain)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_crossed_tercia_box_is_explained_in_turn_with_the_loco(lang):
    seats = (TriviumSeatView("Ana", (TerciaView(("T10", "H10", "S01"), False),)), TriviumSeatView("Bertrand"),
             TriviumSeatView("Carmen"))
    view = TriviumView(seats, "C07", loco="wild", loco_seat="Bertrand")
    lines = {tick: _texts(view, lang, tick=tick)[-1].shown for tick in (0, ROTATE_TICKS)}
    assert any("⊠" in line for line in lines.values()), lines
    assert any("Bertrand" in line for line in lines.values()), lines
    assert all(not line.endswith(ELLIPSIS) for line in lines.values())
    plain = TriviumView(seats[1:], "C07", loco="wild", loco_seat="Bertrand")
    assert all("⊠" not in i.shown for t in (0, ROTATE_TICKS) for i in _texts(plain, lang, tick=t))


@pytest.mark.parametrize("lang, made, points, has", [("en", "MADE by 12.5", "53.5 pts", "27.5"),
                                                     ("fr", "FAIT de 12,5", "53,5 pts", "27,5"),
                                                     ("es", "HECHO por 12,5", "53,5 ptos", "27,5")])
def test_half_points_are_written_as_the_language_writes_decimals(lang, made, points, has):
    from device.screens.views import DealEndView, TargetView

    end = {i.shown for i in _texts(DealEndView("garde", "Bertrand", made=True, margin=12.5, oudlers=2,
                                               points=53.5, score=-87.5, petit_au_bout=None), lang)}
    assert made in end and any(s.startswith(points) for s in end), end
    assert "\u221287" + ("." if lang == "en" else ",") + "5" in end
    target = {i.shown for i in _texts(TargetView("garde", "Bertrand", oudlers=2, needs=41, has=27.5,
                                                 tricks_left=9), lang)}
    assert has in target and "41" in target


@pytest.mark.parametrize("lang, fps", [("en", "12.5 frames/s"), ("fr", "12,5 images/s"), ("es", "12,5 imágenes/s")])
def test_the_camera_status_writes_its_frame_rate_as_the_language_writes_decimals(lang, fps):
    from dataclasses import replace

    view = replace(examples(lang)["camera"], fps=12.5)
    assert fps in {i.shown for i in _texts(view, lang)}
