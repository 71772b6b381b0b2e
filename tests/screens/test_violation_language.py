"""A violation's proof in the screen's language: the engine gives it as a reason,
the alert translates it; records and ``replay --json`` keep the English sentence."""

from hypothesis import given, settings
from hypothesis import strategies as st

from device.games.french_tarot.screens import violation_view
from device.screens.reasons import reason_text
from engine.tarot import Play, TarotDeal, random_deal
from engine.tarot.record import deal_from_record
from tests.tarot.tarot_helpers import bid_to, play_out

NAMES = ["Ana", "Bruno", "Carmen", "Dario"]


def _ecart_king_violation():
    """The taker kept an écart card and a King it played went unseen: the King was discarded."""
    for seed in range(200):
        rec = random_deal(4, seed).to_record()
        if rec["contract"] not in ("prise", "garde"):
            continue
        kings = [(i, j) for i, t in enumerate(rec["tricks"]) for j, c in enumerate(t["cards"])
                 if c.endswith("K") and (t["leader"] + j) % rec["players"] == rec["taker"]]
        if not kings:
            continue
        i, j = kings[0]
        low = [c for c in rec["ecart"] if not c.startswith("T")]
        rec["tricks"][i]["cards"][j] = low[0]
        rec["ecart"] = None
        deal = deal_from_record(rec)
        found = [v for v in deal.violations if v.rule == "ecart"]
        if found:
            return deal, found[0]
    raise AssertionError("no deal found")


def test_an_ecart_violation_is_shown_in_french_and_spanish():
    deal, violation = _ecart_king_violation()
    assert violation.evidence.startswith("discarded ") and "Kings and oudlers may never be discarded" in violation.evidence
    view = violation_view(violation, NAMES, deal)
    assert view.kind == "other"
    french = reason_text(view.why, "fr", "french", view.names)
    spanish = reason_text(view.why, "es", "french", view.names)
    assert french.startswith("a écarté ") and "Rois et bouts ne s'écartent jamais" in french
    assert spanish.startswith("descartó ") and "no se descartan nunca" in spanish
    assert str(view.why) == violation.evidence  # the English sentence, as records keep it


def test_a_revoke_proof_names_the_suit_and_the_player_in_the_language():
    deal = TarotDeal(4, 3)
    bid_to(deal, 0, "garde_sans")
    play_out(deal, ["H01", "T05", "H02", "H03"])   # seat 1 trumps on hearts
    play_out(deal, ["H04"])                          # ... and now plays a heart
    violation = deal.violations[0]
    assert violation.evidence == "trumped on hearts at trick 1 but played H04 at trick 2"
    assert str(violation.why) == violation.evidence
    french = reason_text(violation.why, "fr", "french", NAMES)
    assert french.startswith("a coupé à cœur au pli 1 mais a joué ") and french.endswith(" au pli 2")


def test_lead_out_of_turn_names_the_player_whose_lead_it_was():
    deal = TarotDeal(4, 3, audit=True)  # a record read back: a lead out of turn is taken and reported
    bid_to(deal, 0, "garde_sans")
    play_out(deal, ["H01", "H02", "H03", "H04"])
    winner = deal.tricks[0].winner
    wrong = (winner + 1) % 4
    deal.apply(Play(wrong, "C05"))
    v = next(v for v in deal.violations if v.rule == "lead_out_of_turn")
    assert f"but seat {winner} was to lead" in v.evidence
    assert f"c'était à {NAMES[winner]} d'entamer" in reason_text(v.why, "fr", "french", NAMES)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([3, 4, 5]))
def test_every_violation_of_a_recorded_deal_keeps_its_english_proof(seed, players):
    """Records read back with violations: ``evidence`` is the English sentence of ``why``;
    with a card swapped between two seats' tricks, whatever the audit proves still says so."""
    rec = random_deal(players, seed).to_record()
    tricks = rec["tricks"]
    if len(tricks) > 2:  # swap two cards of different seats in different tricks: often a revoke
        a, b = tricks[0]["cards"], tricks[-1]["cards"]
        a[1], b[0] = b[0], a[1]
    try:
        deal = deal_from_record(rec)
    except Exception:
        return  # a record the swap made impossible (a card twice, a short hand): refused, not shown
    for v in deal.violations:
        assert v.why is not None and str(v.why) == v.evidence
        for lang in ("fr", "es"):
            text = reason_text(v.why, lang, "french", NAMES[:players])
            assert text and "{" not in text
