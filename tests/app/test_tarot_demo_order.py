"""The demo's scripted player takes the chien the camera committed in another order for the same
chien: no undo, no card entered by hand, nothing counted wrong (vision names each card; the chien is a set)."""

from hypothesis import given, strategies as st

from device.games.french_tarot.demo import normalised

CHIEN = ["T09", "T16", "SJ", "D08", "DK", "C09"]


@given(st.permutations(CHIEN))
def test_the_same_cards_in_another_order_are_the_same_chien(order):
    assert normalised({"op": "chien", "cards": list(order)}) == normalised({"op": "chien", "cards": CHIEN})


def test_another_card_or_another_operation_is_not_the_same():
    assert normalised({"op": "chien", "cards": CHIEN[:5] + ["C10"]}) != normalised({"op": "chien", "cards": CHIEN})
    assert normalised({"op": "play", "seat": 1, "card": "C09"}) != normalised({"op": "play", "seat": 1, "card": "C10"})
    # a trick is played in order: only the sets are compared without it
    assert normalised({"op": "play", "seat": 1, "card": "C09"}) == {"op": "play", "seat": 1, "card": "C09"}
    ecart = {"op": "ecart", "cards": ["C09", "D08"], "trumps_shown": []}
    assert normalised(ecart) == normalised({"op": "ecart", "cards": ["D08", "C09"], "trumps_shown": []})
