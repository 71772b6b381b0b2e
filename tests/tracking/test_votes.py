"""Naming a card by its views' votes (vision.votes): agreement, margins, and the commit bar."""

from dataclasses import replace

from hypothesis import given, settings, strategies as st

from vision.tracker_settings import TrackerSettings
from vision.votes import (CARD, UNCERTAIN_VERDICT, WAIT, Vote, certain, colour_twin, model_suit_margin, pip_above,
                          pip_above_margin, pip_margin, pip_neighbours, scores, suit_margin, verdict)

S = TrackerSettings()


def vote(card, p, second="H02", q=None):
    q = (1 - p) * 0.5 if q is None else q
    return Vote(card if p >= 0.5 else None, p, [(card, p), (second, q)])


def test_agreeing_confident_views_name_the_card():
    kind, card, conf = verdict([vote("T21", 0.95)] * 3, S, final=False)
    assert (kind, card) == (CARD, "T21") and abs(conf - 0.95) < 1e-9


def test_a_split_is_a_question_never_a_guess():
    votes = [vote("T21", 0.9), vote("T20", 0.9), vote("T21", 0.9)]
    assert verdict(votes, S, final=True)[0] == UNCERTAIN_VERDICT


def test_under_the_commit_bar_a_confident_card_is_asked():
    votes = [vote("D03", 0.93)] * 3
    strict = replace(S, commit_bar=0.97)
    assert verdict(votes, S, final=True)[:2] == (CARD, "D03")
    assert verdict(votes, strict, final=True)[0] == UNCERTAIN_VERDICT
    assert verdict(votes[:2], strict, final=False)[0] == WAIT  # a third view may still lift it
    assert verdict([vote("D03", 0.99)] * 3, strict, final=True)[:2] == (CARD, "D03")


def test_the_bar_averages_views_over_all_of_them():
    # two sure views and one where the card is barely second: the mean counts the weak view too
    votes = [vote("S10", 0.999), vote("S10", 0.999), Vote(None, 0.4, [("S01", 0.4), ("S10", 0.35)])]
    assert abs(scores(votes)["S10"] - (0.999 * 2 + 0.35) / 3) < 1e-9
    assert not certain(votes, "S10", replace(S, commit_bar=0.9))
    assert certain(votes, "S10", S)  # no bar: as before


def test_pip_neighbours_are_one_pip_away_in_the_suit():
    assert pip_neighbours("C05") == ("C04", "C06")
    assert pip_neighbours("D01") == ("D02",) and pip_neighbours("S10") == ("S09",)
    for other in ("SK", "HQ", "T05", "T21", "EX", "C11", "C00", "", "X05"):
        assert pip_neighbours(other) == ()


def test_a_pip_card_close_to_its_neighbour_is_asked_under_the_pip_margin():
    votes = [vote("C04", 0.92, second="C05", q=0.05)] * 3  # C05 read as C04: its neighbour close behind
    assert abs(pip_margin(votes, "C04") - 0.92 / 0.05) < 1e-9
    assert verdict(votes, S, final=True)[:2] == (CARD, "C04")
    strict = replace(S, pip_margin=30)
    assert verdict(votes, strict, final=True)[0] == UNCERTAIN_VERDICT
    far = [vote("C04", 0.92, second="H02", q=0.05)] * 3  # the next card is no pip neighbour
    assert verdict(far, strict, final=True)[:2] == (CARD, "C04")
    trump = [vote("T04", 0.92, second="T05", q=0.05)] * 3  # trumps carry their number: not pips
    assert verdict(trump, strict, final=True)[:2] == (CARD, "T04")


def test_the_card_one_pip_above_is_the_next_pip_of_the_suit():
    assert pip_above("C04") == "C05" and pip_above("D01") == "D02" and pip_above("H09") == "H10"
    for none in ("S10", "SK", "T05", "T21", "EX", "C11", ""):
        assert pip_above(none) is None


def test_a_pip_card_read_one_pip_down_is_asked_under_the_pip_above_margin():
    # H03 with a pip lost in glare reads H02: the card above close behind makes it a question
    down = [vote("H02", 0.9, second="H03", q=0.02)] * 3
    assert abs(pip_above_margin(down, "H02") - 0.9 / 0.02) < 1e-9
    assert verdict(down, S, final=True)[:2] == (CARD, "H02")  # off by default: as before
    strict = replace(S, pip_above_margin=60)
    assert verdict(down, strict, final=True)[0] == UNCERTAIN_VERDICT
    assert verdict(down[:2], strict, final=False)[0] == WAIT  # a third view may still lift it
    # the card one pip below close behind is not the misread a hidden pip makes: committed
    up = [vote("H02", 0.9, second="H01", q=0.02)] * 3
    assert verdict(up, strict, final=True)[:2] == (CARD, "H02")
    ten = [vote("S10", 0.9, second="S09", q=0.05)] * 3  # nothing above a ten
    assert abs(pip_above_margin(ten, "S10") - 0.9 / 0.01) < 1e-9 and verdict(ten, strict, final=True)[:2] == (CARD, "S10")
    court = [vote("CK", 0.9, second="CQ", q=0.05)] * 3
    assert verdict(court, strict, final=True)[:2] == (CARD, "CK")


def test_the_colour_twin_is_the_same_rank_in_the_other_suit_of_its_colour():
    assert [colour_twin(c) for c in ("SQ", "CN", "H07", "D10", "S01")] == ["CQ", "SN", "D07", "H10", "C01"]
    assert colour_twin("T21") is None and colour_twin("EX") is None


def test_a_card_close_to_its_colour_twin_is_asked_under_the_suit_margin():
    # SQ read as CQ, the spade queen close behind: a question with the suit margin, as before without
    twin = [vote("CQ", 0.8, second="SQ", q=0.19)] * 2
    assert abs(suit_margin(twin, "CQ") - 0.8 / 0.19) < 1e-9
    assert verdict(twin, S, final=True)[:2] == (CARD, "CQ")  # off by default
    strict = replace(S, suit_margin=5)
    assert verdict(twin, strict, final=True)[0] == UNCERTAIN_VERDICT
    assert verdict(twin, strict, final=False)[0] == WAIT  # a third view may still lift it
    # another look-alike close behind (the red queen) is not the colour twin: committed
    red = [vote("CQ", 0.8, second="HQ", q=0.19)] * 2
    assert verdict(red, strict, final=True)[:2] == (CARD, "CQ")
    trump = [vote("T21", 0.8, second="T12", q=0.19)] * 2  # a trump has no twin
    assert verdict(trump, strict, final=True)[:2] == (CARD, "T21")


def test_a_card_its_memory_made_sure_is_asked_when_the_model_itself_hesitated_with_its_colour_twin():
    # an SN the model read as CN 0.52 against SN 0.3, which the table's deck memory made CN 0.97
    def weighed(model):
        v = vote("CN", 0.97, second="SN", q=0.02)
        v.model_top = model
        return v

    hesitant = [weighed([("CN", 0.52), ("SN", 0.3), ("SQ", 0.02)])] * 2
    assert model_suit_margin(hesitant, "CN") == 0.52 / 0.3
    strict = replace(S, model_suit_margin=3)
    assert verdict(hesitant, replace(S, suit_margin=5), final=True)[:2] == (CARD, "CN")  # the fused twin is far
    assert verdict(hesitant, strict, final=True)[0] == UNCERTAIN_VERDICT
    assert verdict(hesitant, strict, final=False)[0] == WAIT
    # the model sure of it too, or its hesitation with a card that is not the twin: committed
    sure = [weighed([("CN", 0.9), ("SN", 0.05)])] * 2
    other = [weighed([("CN", 0.5), ("HN", 0.45), ("SN", 0.01)])] * 2
    assert verdict(sure, strict, final=True)[:2] == (CARD, "CN")
    assert verdict(other, strict, final=True)[:2] == (CARD, "CN")
    # a deck the model barely knows (its probabilities spread thin): the memory's to name
    thin = [weighed([("CN", 0.2), ("SN", 0.15), ("HN", 0.1)])] * 2
    assert model_suit_margin(thin, "CN") == 100.0 and verdict(thin, strict, final=True)[:2] == (CARD, "CN")
    # views without the model's own namings (a namer without a memory): nothing to hold against it
    plain = [vote("CN", 0.97, second="SN", q=0.02)] * 2
    assert model_suit_margin(plain, "CN") == 100.0 and verdict(plain, strict, final=True)[:2] == (CARD, "CN")


probability = st.floats(0.0, 1.0, allow_nan=False)
cards = st.sampled_from(["T21", "T01", "H07", "H08", "D07", "S10", "S09", "C10", None])


@st.composite
def votes_of_a_card(draw):
    n = draw(st.integers(1, 4))
    out = []
    for _ in range(n):
        first, p = draw(cards), draw(probability)
        second, q = draw(cards), draw(st.floats(0.0, 1.0 - p, allow_nan=False))
        out.append(Vote(first if first is not None and p >= 0.5 else None, p, [(first, p), (second, q)]))
    return out


@settings(max_examples=300, deadline=None)
@given(votes_of_a_card(), st.floats(0.0, 1.0), st.booleans(), st.sampled_from([0.0, 5.0, 30.0]),
       st.sampled_from([0.0, 20.0, 60.0]), st.sampled_from([0.0, 5.0, 12.0]))
def test_a_committed_card_always_clears_the_bar(votes, bar, final, pips, above, suits):
    s = replace(S, commit_bar=bar, pip_margin=pips, pip_above_margin=above, suit_margin=suits)
    kind, card, _ = verdict(votes, s, final)
    if kind == CARD:
        assert scores(votes)[card] >= bar
        assert pips == 0 or not pip_neighbours(card) or pip_margin(votes, card) >= pips
        assert above == 0 or pip_above(card) is None or pip_above_margin(votes, card) >= above
        assert suits == 0 or colour_twin(card) is None or suit_margin(votes, card) >= suits
    # a bar only ever turns a named card into a wait or a question, never into another card
    loose = verdict(votes, S, final)
    if kind == CARD:
        assert loose[:2] == (CARD, card)


def test_a_vote_keeps_the_namers_own_probabilities_before_the_rules_rescore_them():
    import numpy as np

    from vision.possible import PossibleCards
    from vision.votes import best_vote, namer_votes

    class Namer:
        labels = ["T21", "T20", "unknown"]
        threshold = 0.3

        def run(self, crops):
            return np.array([[0.5, 0.4, 0.1]] * len(crops), np.float32), np.ones((len(crops), 2), np.float32)

    votes = namer_votes(Namer(), [None, None], PossibleCards.of(["T20"]), 0.2)
    assert votes[0].top[0][0] == "T20"  # the rules moved the best card
    assert np.allclose(votes[0].probs, [0.5, 0.4, 0.1])  # but the model's own view is kept
    assert best_vote(votes, "T20") is votes[0] and best_vote(votes, "T21") is None

    class OnlyName:
        def name(self, crops):
            return [type("N", (), {"card": "T21", "confidence": 0.9})() for _ in crops]

    assert namer_votes(OnlyName(), [None], None, 0.2)[0].probs is None  # a namer without its probabilities


def test_a_vote_keeps_the_card_models_own_best_cards_apart_from_a_memorys():
    """A namer that weighs the model's probabilities with a memory gives them too: the vote keeps
    the model's own best cards (what model_suit_margin reads), rescored with the rules as its own
    top is, through a spread of crops too (their mean); a namer without a memory keeps none."""
    import numpy as np

    from vision.possible import PossibleCards
    from vision.votes import SpreadViews, namer_votes

    class Weighed:
        labels = ["SN", "CN", "HN", "unknown"]
        threshold = 0.3

        def run_with_model(self, crops):
            n = len(crops)
            model = np.array([[0.3 + 0.1 * (k % 2), 0.5 - 0.1 * (k % 2), 0.1, 0.1] for k in range(n)], np.float32)
            fused = np.array([[0.02, 0.96, 0.01, 0.01]] * n, np.float32)
            return fused, np.ones((n, 2), np.float32), model

        def run(self, crops):
            return self.run_with_model(crops)[:2]

    (v,) = namer_votes(Weighed(), [None], None, 0.2)
    assert v.top[0][0] == "CN" and np.allclose(v.probs, [0.02, 0.96, 0.01, 0.01])
    assert [c for c, _ in v.model_top][:2] == ["CN", "SN"] and dict(v.model_top)["SN"] == np.float32(0.3).item()
    (spread,) = namer_votes(SpreadViews(Weighed(), 2), [None, None], None, 0.2)
    assert abs(dict(spread.model_top)["SN"] - 0.35) < 1e-6 and abs(dict(spread.model_top)["CN"] - 0.45) < 1e-6
    # the rules: the SN already played is no rival of the CN in the model's own namings either
    (ruled,) = namer_votes(Weighed(), [None], PossibleCards.of(["CN", "HN"]), 0.2)
    assert dict(ruled.model_top).get("SN", 0.0) < 0.01 and model_suit_margin([ruled], "CN") > 2

    class NotWeighing(Weighed):  # a memory that does not weigh yet: the model's own are its probabilities
        def run_with_model(self, crops):
            probs, emb, _ = super().run_with_model(crops)
            return probs, emb, probs

    for votes in (namer_votes(NotWeighing(), [None], PossibleCards.of(["CN", "HN"]), 0.2),
                  namer_votes(SpreadViews(NotWeighing(), 2), [None, None], PossibleCards.of(["CN", "HN"]), 0.2)):
        assert votes[0].model_top[:len(votes[0].top)] == votes[0].top

    class Plain:
        labels = ["SN", "CN", "unknown"]
        threshold = 0.3

        def run(self, crops):
            return np.array([[0.3, 0.6, 0.1]] * len(crops), np.float32), np.ones((len(crops), 2), np.float32)

    assert namer_votes(Plain(), [None], None, 0.2)[0].model_top is None  # no memory: nothing apart
    assert namer_votes(SpreadViews(Plain(), 2), [None, None], None, 0.2)[0].model_top is None


def test_views_none_confident_alone_name_a_card_only_from_half_their_mass():
    # a trump read three times as C02, never confidently (0.40, 0.57, 0.40): a mean of 0.46,
    # six times the next card's; the evidence bar of 0.5 makes it a question
    weak = [Vote("C02", 0.395, [("C02", 0.395), ("T04", 0.119)]), Vote("C02", 0.567, [("C02", 0.567), ("H01", 0.059)]),
            Vote("C02", 0.40, [("C02", 0.40), ("H01", 0.109)])]
    assert S.evidence_score == 0.5
    assert verdict(weak, S, final=True)[0] == UNCERTAIN_VERDICT
    assert verdict(weak, replace(S, evidence_score=0.45), final=True)[:2] == (CARD, "C02")
    firmer = [Vote("CQ", 0.55, [("CQ", 0.55), ("CN", 0.07)])] * 3  # every view's best, none over min_confidence
    kind, card, conf = verdict(firmer, S, final=True)
    assert (kind, card) == (CARD, "CQ") and abs(conf - 0.55) < 1e-9


def _card_crop(ink_bgr, light=(1.0, 1.0, 1.0), blobs=6):
    """A drawn card: white paper with ``blobs`` pips of ink, 64x96, lit by ``light`` (a gain per
    channel, blue green red)."""
    import cv2
    import numpy as np

    crop = np.full((96, 64, 3), (240, 242, 245), np.uint8)
    for k in range(blobs):
        cv2.circle(crop, (20 + 24 * (k % 2), 18 + 12 * (k // 2)), 5, ink_bgr, -1)
    return np.clip(crop * np.asarray(light, np.float32), 0, 255).astype(np.uint8)


def test_red_ink_tells_red_pips_from_black_ones_under_any_light():
    from vision.votes import red_ink

    for light in ((1.0, 1.0, 1.0), (0.6, 0.85, 1.0), (0.45, 0.45, 0.45)):  # daylight, a warm lamp, dim
        red = red_ink(_card_crop((40, 40, 200), light))
        black = red_ink(_card_crop((30, 30, 30), light))
        assert red is not None and black is not None
        assert red > 20 and black < 6, (light, red, black)  # black ink: no redder than the paper
    assert red_ink(_card_crop((30, 30, 30), blobs=0)) is None  # no ink: nothing to say
    assert red_ink(None) is None and red_ink("H07") is None


def test_a_heart_or_diamond_pip_card_whose_views_show_no_red_is_asked_under_the_red_ink_bar():
    def views(card, red):
        return [Vote(card, 0.97, [(card, 0.97), ("S01", 0.02)], red=red) for _ in range(3)]

    strict = S
    assert S.red_ink == 6.0
    assert verdict(views("D01", 1.5), replace(S, red_ink=0.0), final=True)[:2] == (CARD, "D01")  # off
    assert verdict(views("D01", 1.5), strict, final=True)[0] == UNCERTAIN_VERDICT  # an S01 read D01
    assert verdict(views("D01", 30.0), strict, final=True)[:2] == (CARD, "D01")
    assert verdict(views("D01", None), strict, final=True)[:2] == (CARD, "D01")  # not measured: as before
    assert verdict(views("S01", 1.5), strict, final=True)[:2] == (CARD, "S01")  # black cards are not held
    assert verdict(views("HQ", 1.5), strict, final=True)[:2] == (CARD, "HQ")  # nor court cards: coloured pictures
    mixed = views("H05", 2.0)[:2] + views("H05", 25.0)[:1]  # one view shows the red (a hand over the others)
    assert verdict(mixed, strict, final=True)[:2] == (CARD, "H05")


def test_one_view_named_at_sure_view_names_a_card_every_view_puts_first():
    from vision.enroll import TABLE_BARS

    settled = replace(S, **TABLE_BARS)  # an enrolled deck's bars
    assert settled.sure_view == 0.999  # where its faces' keypoints settle a view
    enrolled = replace(settled, sure_view=0.0)
    # a face's keypoints settled one view; the other two name the card under the profile's threshold (0.7)
    votes = [vote("S05", 0.7, q=0.05), vote("S05", 0.999, q=0.0005), vote("S05", 0.69, q=0.05)]
    assert verdict(votes, enrolled, final=True)[0] == UNCERTAIN_VERDICT  # a mean of 0.80, under 0.97
    kind, card, conf = verdict(votes, settled, final=True)
    assert (kind, card) == (CARD, "S05") and abs(conf - (0.7 + 0.999 + 0.69) / 3) < 1e-9
    assert verdict(votes[:2], settled, final=False)[0] == WAIT  # all its views first
    # not when a view puts another card first, nor "not a card face", nor when the next card comes close
    split = [vote("S05", 0.999, q=0.0005), vote("S05", 0.7), vote("S06", 0.6, second="S05", q=0.3)]
    assert verdict(split, settled, final=True)[0] == UNCERTAIN_VERDICT
    faceless = [vote("S05", 0.999, q=0.0005), vote("S05", 0.7), Vote(None, 0.6, [(None, 0.6), ("S05", 0.35)])]
    assert verdict(faceless, settled, final=True)[0] == UNCERTAIN_VERDICT
    close = [vote("S05", 0.999, q=0.0005), vote("S05", 0.4, q=0.35), vote("S05", 0.4, q=0.35)]
    assert verdict(close, settled, final=True)[0] == UNCERTAIN_VERDICT  # 0.60 against 0.23: under 4 times
    # nor a heart's pip card whose views show no red ink, on a deck printing them in red
    reds = [Vote(v.card, v.confidence, [("H05", v.top[0][1]), ("H02", v.top[1][1])], red=1.0) for v in votes]
    assert verdict(reds, settled, final=True)[0] == UNCERTAIN_VERDICT
    assert verdict(reds, replace(settled, red_ink=0.0), final=True)[:2] == (CARD, "H05")
