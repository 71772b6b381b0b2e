"""Example states of every screen, used by ``tarotmate screens``, the golden
images and the benchmark. Names are chosen long on purpose (the longest
strings of the three languages must fit)."""

from __future__ import annotations

from device.i18n import N_, translator
from engine.reasons import Reason
from device.screens.camera_check import CameraCheckView
from device.screens.online import CLUB_PAIRING, TABLE_PAGE, OnlineView
from device.screens.views import (
    AnnouncementView,
    BiddingView,
    CameraLostView,
    CameraStatusView,
    ConfirmCardView,
    DealEndView,
    EnrollCardView,
    EnrollConfirmView,
    EnrollDoneView,
    EnrollReviewView,
    GameOverView,
    MenuView,
    ScoreTableView,
    SetupView,
    TargetView,
    TerciaView,
    TrickPlay,
    TrickView,
    TriviumSeatView,
    TriviumView,
    ViolationView,
)

# The card style each language shows by default (Spanish players use Spanish suits).
DEFAULT_STYLE = {"en": "french", "fr": "french", "es": "tarot"}

FIVE = ("Ana", "Bertrand", "Carmen", "Dominique", "Esteban")
FOUR = ("Ana", "Bertrand", "Carmen", "Dominique")


def examples(lang: str = "en") -> dict[str, object]:
    """Screen name -> an example view (menus are translated into ``lang``)."""
    tr = translator(lang)
    return {
        "setup": SetupView(N_("French tarot"), "FFT · 5", FIVE, dealer=3),
        "bidding": BiddingView(FIVE, dealer=4, bids=("pass", "garde", "pass", None, None), current=3),
        "bidding4": BiddingView(FOUR, dealer=0, bids=(None, "prise", "garde_contre", "pass"), current=None),
        "target": TargetView("garde_contre", "Bertrand", oudlers=2, needs=41, has=27.5, tricks_left=9,
                             called_king="HK"),
        "target_last": TargetView("prise", "Ana", oudlers=1, needs=51, has=48, tricks_left=1),
        "trick": TrickView(4, tuple(TrickPlay(s, c) for s, c in
                                    zip(FIVE, ("H07", "HK", "T05", "H10", "HQ"))), winner=2, total=15),
        "trick4": TrickView(12, tuple(TrickPlay(s, c) for s, c in zip(FOUR, ("DN", "D02", "EX", "DQ"))),
                            winner=0),
        "violation": ViolationView("revoke", "Dominique", trick=4, suit="H", card="C07"),
        "refused": ViolationView("refused", "Carmen", trick=2, card="S02",
                                 detail="S02 was already played at trick 1 by seat 0",
                                 why=Reason("{card} was already played at trick {trick} by {seat}",
                                            {"card": "S02", "trick": 1, "seat": 0}), names=FIVE),
        "deal_end": DealEndView("garde", "Bertrand", made=True, margin=12.5, oudlers=2, points=53.5,
                                petit_au_bout="Bertrand", poignees=(("Carmen", "double"),), score=150),
        "deal_failed": DealEndView("garde_sans", "Esteban", made=False, margin=3, oudlers=1, points=48,
                                   score=-198),
        "scores": ScoreTableView(FIVE, deal_scores=(150, 75, -75, -75, -75), totals=(320, -1250, 45, 12, 873),
                                 deal_number=7),
        "game_over": GameOverView(FIVE, totals=(320, -1250, 45, 12, 1012), winner=4, deals=11),
        "match_over": GameOverView(FOUR, totals=(63, 0, 63, 20), winner=None, deals=5, unit="game"),
        "trivium": TriviumView(
            (TriviumSeatView("Ana", (TerciaView(("T10", "H10", "S01"), True),), 9),
             TriviumSeatView("Bertrand", (TerciaView(("T15", "C04", "D02"), True),
                                          TerciaView(("EX", "T21"), True)), 7),
             TriviumSeatView("Carmen", (TerciaView(("T20", "H01", "EX"), False),), 9)),
            olla_top="C07", loco="wild", loco_seat="Bertrand", current=1),
        "trivium4": TriviumView(
            tuple(TriviumSeatView(name, tercias, 9) for name, tercias in zip(FOUR, (
                (TerciaView(("T10", "H10", "S01"), True), TerciaView(("T07", "C07", "D07"), True)),
                (),
                (TerciaView(("T20", "H02", "S01"), False),),
                (TerciaView(("T18", "C02", "D01"), True),),
            ))),
            olla_top="EX", loco="in_olla", current=3),
        "announcement": AnnouncementView("trivium", "Bertrand", 63),
        "camera": CameraStatusView("ok", fps=11.6, model="tarotmate-cards-v1 (efficientnet-lite0)",
                                   cards_seen=23, last_card="DN", confidence=0.97),
        "camera_lost": CameraLostView("no_frames", seconds=42),
        "confirm_card": ConfirmCardView("H07", 0.62, ("H08", "D07"), selected=0, seat="Carmen",
                                        trick=4),
        "menu": MenuView(tr(N_("Menu")), (tr(N_("Undo last event")), tr(N_("Announce a poignée")),
                                          tr(N_("Announce a chelem")), tr(N_("Correct a card")),
                                          tr(N_("New deal")), tr(N_("End the game"))), selected=1),
        "enroll_card": EnrollCardView("DN", 12, 78, "captured", captures=2, captures_needed=3),
        "enroll_wait": EnrollCardView("HK", 13, 78, "remove"),
        "enroll_confirm": EnrollConfirmView("SN", 45, 78),
        "enroll_review": EnrollReviewView("HQ", "DQ", 0.979),
        "enroll_done": EnrollDoneView("marseille-grimaud-1930", 75, 3, 78, pairs=2),
        "online_qr": OnlineView(TABLE_PAGE, (), "http://192.168.100.200:8080/"),
        "online_pairing": OnlineView(CLUB_PAIRING, ("http://192.168.1.10:8377",), big="K7QXA"),
        "camera_check": CameraCheckView(("glare", "small_cards", "tilted")),
    }
