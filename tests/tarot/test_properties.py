"""Properties of random legal deals for 3, 4 and 5 players (hands known)."""

import json

from hypothesis import given, settings, strategies as st

from engine.tarot import (TarotOptions, deal_from_record, random_deal, random_deal_with_revoke,
                          replay_record)
from engine.tarot.tables import CHIEN_SIZE, HAND_SIZE, HALF

players = st.sampled_from([3, 4, 5])
seeds = st.integers(min_value=0, max_value=2 ** 32 - 1)
SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(players, seeds)
def test_cards_conserved_points_91_scores_sum_to_zero(n, seed):
    deal = random_deal(n, seed, chelem_rate=0.1)
    assert deal.phase == "done"
    played = [c for t in deal.tricks for c in t.cards]
    assert len(played) == len(set(played)) == n * HAND_SIZE[n]
    unseen = set(deal.inferred_ecart())
    assert len(unseen) == CHIEN_SIZE[n] and not unseen & set(played)
    for seat in range(n):
        assert sum(seat in t.seats for t in deal.tricks) == HAND_SIZE[n]
    r = deal.result()
    assert 0 <= r.attack_half_points <= 182
    if n == 4:  # both piles even, and the Excuse swap keeps them even
        assert r.attack_half_points % 2 == 0
    assert sum(r.scores) == 0
    assert r.scores[r.taker] * (1 if r.unit >= 0 else -1) >= 0


@SETTINGS
@given(players, seeds)
def test_both_sides_points_sum_to_91(n, seed):
    deal = random_deal(n, seed)
    r = deal.result()
    from engine.tarot.scoring import count_cards
    attack = frozenset({r.taker} if r.partner is None else {r.taker, r.partner})
    defence = frozenset(range(n)) - attack
    unseen = [int(i) for i in deal._unseen()]
    a, _ = count_cards(deal._tricks, attack, unseen, r.contract != "garde_contre")
    d, _ = count_cards(deal._tricks, defence, unseen, r.contract == "garde_contre")
    assert a + d == 182 == sum(HALF)


@SETTINGS
@given(players, seeds)
def test_written_record_replays_to_the_same_result_without_violation(n, seed):
    deal = random_deal(n, seed, chelem_rate=0.05)
    rec = json.loads(json.dumps(deal.to_record()))
    replay = replay_record(rec)
    r = deal.result()
    assert replay["scores"] == list(r.scores)
    assert replay["unit"] == r.unit and replay["attack_points"] == r.attack_points
    assert [t["winner"] for t in replay["tricks"]] == [t.winner for t in deal.tricks]
    # hands hidden, a legal deal proves nothing illegal
    assert replay["violations"] == []
    hidden = deal_from_record(rec)
    assert hidden.audit() == [] and hidden.result() == r
    # the écart unseen (and the chien too): inferred from the unseen cards, no false alarm
    rec["ecart"] = None
    if seed % 2:
        rec["chien"] = None
    blind = deal_from_record(rec)
    assert blind.violations == () and blind.result().scores == r.scores


@SETTINGS
@given(players, seeds)
def test_injected_revoke_caught_at_the_right_seat_and_trick(n, seed):
    deal, fault = random_deal_with_revoke(n, seed)
    found = [(v.trick, v.seat) for v in deal.violations]
    assert found == [(fault.trick, fault.seat)]
    # the end-of-deal audit agrees with what the evidence proved during play
    assert [(v.trick, v.seat) for v in deal.audit()] == found
    replay = replay_record(deal.to_record())
    assert [(v["trick"], v["seat"]) for v in replay["violations"]] == found


@settings(max_examples=30, deadline=None)
@given(players, seeds)
def test_variant_no_trump_lead_until_broken_deals_are_clean(n, seed):
    opts = TarotOptions(no_trump_lead_until_broken=True)
    deal = random_deal(n, seed, options=opts)
    assert deal_from_record(deal.to_record()).violations == ()
    first_trump_trick = next(i for i, t in enumerate(deal.tricks)
                             if any(c.startswith("T") for c in t.cards))
    lead = deal.tricks[first_trump_trick].cards
    first = next(c for c in lead if c != "EX")
    if first.startswith("T"):
        # a trump led before trumps were broken: the leader had only trumps (and the Excuse)
        leader_cards = {c for t in deal.tricks for s, c in zip(t.seats, t.cards)
                        if s == deal.tricks[first_trump_trick].leader}
        later = [c for t in deal.tricks[first_trump_trick:]
                 for s, c in zip(t.seats, t.cards) if s == deal.tricks[first_trump_trick].leader]
        assert all(c.startswith("T") or c == "EX" for c in later), leader_cards


@settings(max_examples=40, deadline=None)
@given(players, seeds)
def test_undo_then_redo_restores_the_same_state(n, seed):
    deal = random_deal(n, seed)
    rec = deal.to_record()
    ops = list(deal.operations)
    k = seed % len(ops)
    removed = [deal.undo() for _ in range(k)]
    for op in reversed(removed):
        deal.apply(op)
    assert deal.to_record() == rec and list(deal.operations) == ops


option_sets = st.builds(
    TarotOptions,
    no_trump_lead_until_broken=st.booleans(),
    called_suit_after_excuse_lead=st.booleans(),
    excuse_wins_last_trick_for_defence=st.booleans(),
    defence_chelem_bonus=st.booleans(),
    partner_shares_bonuses=st.booleans(),
)


@settings(max_examples=40, deadline=None)
@given(players, seeds, option_sets)
def test_any_options_legal_deals_replay_clean_and_balanced(n, seed, options):
    deal = random_deal(n, seed, options=options, chelem_rate=0.1)
    rec = json.loads(json.dumps(deal.to_record()))
    assert TarotOptions.from_dict(rec["options"]) == options
    replay = replay_record(rec)
    assert replay["violations"] == []
    assert replay["scores"] == list(deal.result().scores) and sum(replay["scores"]) == 0


@settings(max_examples=25, deadline=None)
@given(players, seeds, st.randoms(use_true_random=False))
def test_refused_operations_never_change_the_state(n, seed, rnd):
    """can(op) is None exactly when apply(op) succeeds; a refusal leaves no trace."""
    from engine.tarot import (AnnounceChelem, Bid, CallCard, DeclarePoignee, Ecart,
                              IllegalOperation, Play, RevealChien)
    from engine.tarot.simulate import deal_cards
    from engine.tarot.state import TarotDeal
    from engine.tarot.tables import CODE, CONTRACTS
    import random

    hands, chien = deal_cards(n, random.Random(seed))
    deal = TarotDeal(n, seed % n, hands={s: [CODE[c] for c in h] for s, h in hands.items()},
                     chien=[CODE[c] for c in chien])

    def random_op():
        kind = rnd.randrange(8)
        seat = rnd.randrange(n + 1)
        card = rnd.choice(CODE)
        if kind == 0:
            return Bid(seat, rnd.choice(("pass",) + CONTRACTS))
        if kind == 1:
            return CallCard(rnd.choice(["SK", "HQ", "DN", "CJ", "T05"]))
        if kind == 2:
            return RevealChien(None if rnd.random() < 0.5 else tuple(rnd.sample(CODE, len(chien))))
        if kind == 3:
            return Ecart(tuple(rnd.sample(CODE, len(chien))))
        if kind == 4:
            return AnnounceChelem()
        if kind == 5:
            return DeclarePoignee(seat % n, "simple", tuple(rnd.sample(CODE[:21], 10)))
        return Play(seat, card)

    for _ in range(300):
        if deal.is_over():
            break
        op = random_op()
        if deal.phase == "play" and rnd.random() < 0.7 and deal.legal_moves():
            op = rnd.choice(deal.legal_moves())
        before = (deal.to_record(), deal.current_trick, deal.operations, deal.violations)
        reason = deal.can(op)
        try:
            deal.apply(op)
        except IllegalOperation as exc:
            assert reason == str(exc) and exc.rule
            assert (deal.to_record(), deal.current_trick, deal.operations, deal.violations) == before
        else:
            assert reason is None
            assert deal.operations[-1] == op
    assert deal.violations == ()  # hands known: nothing illegal ever got in


def swap_injection(rec, rnd):
    """Swap two cards of one seat so that it fails to follow suit at an earlier trick.

    Returns (trick number, seat) of the injected revoke, or None if the deal
    offers no such pair."""
    n = rec["players"]
    plays = [((t["leader"] + j) % n, i, j, c) for i, t in enumerate(rec["tricks"])
             for j, c in enumerate(t["cards"])]
    candidates = []
    for s, i, j, x in plays:
        led = next((c for c in rec["tricks"][i]["cards"] if c != "EX"), None)
        if j == 0 or x == "EX" or led is None or x[0] != led[0] or rec["tricks"][i]["cards"][0] == "EX":
            continue
        for s2, i2, j2, y in plays:
            if s2 == s and i2 > i and y != "EX" and y[0] != led[0]:
                candidates.append((i, j, i2, j2))
    if not candidates:
        return None
    i, j, i2, j2 = rnd.choice(candidates)
    a, b = rec["tricks"][i]["cards"][j], rec["tricks"][i2]["cards"][j2]
    rec["tricks"][i]["cards"][j], rec["tricks"][i2]["cards"][j2] = b, a
    return i + 1, (rec["tricks"][i]["leader"] + j) % n


@settings(max_examples=40, deadline=None)
@given(players, seeds, st.randoms(use_true_random=False))
def test_revoke_injected_by_swapping_two_cards_is_reported(n, seed, rnd):
    rec = json.loads(json.dumps(random_deal(n, seed).to_record()))
    injected = swap_injection(rec, rnd)
    if injected is None:
        return
    replay = replay_record(rec)  # never a crash, whatever the swap did to later tricks
    # follow_suit, or must_trump when the trick was a trump lead
    found = {(v["trick"], v["seat"]) for v in replay["violations"]
             if v["rule"] in ("follow_suit", "must_trump")}
    assert injected in found
    assert sum(replay["scores"]) == 0
