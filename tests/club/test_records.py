"""What a table publishes is replayed by the engine; anything else is refused with a reason naming the field."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device.club.records import Refused, check_publication, parse_body
from engine.trivium.bot import random_game

from .helpers import publication


def test_a_finished_deal_with_its_scores_is_accepted():
    pub = publication(5)
    checked = check_publication(pub)
    assert checked.uid == "deal-5"
    assert checked.game == "french-tarot"
    assert checked.scores == pub["scores"]
    assert [s.name for s in checked.seats] == pub["record"]["names"]
    assert sum(s.taker for s in checked.seats) == 1


@pytest.mark.parametrize("change, field, words", [
    (lambda p: p.update(scores=[s + 10 for s in p["scores"]]), "scores", "do not replay"),
    (lambda p: p.pop("scores"), "scores", "missing"),
    (lambda p: p.update(id="has space"), "id", "letters"),
    (lambda p: p.update(id="x" * 65), "id", "letters"),
    (lambda p: p["record"].pop("names"), "record.names", "names"),
    (lambda p: p["record"].update(names=["Ana", "Ana", "B", "C"]), "record.names", "twice"),
    (lambda p: p["record"]["tricks"].pop(), "record.tricks", "not finished"),
    (lambda p: p["record"]["tricks"][0]["cards"].__setitem__(0, "H11"), "record.tricks[0].cards[0]", "unknown card"),
    (lambda p: p["record"].update(format="tarot-deal/9"), "record.format", "expected"),
    (lambda p: p.update(round=0), "round", "round"),
    (lambda p: p.pop("record"), "record", "missing"),
])
def test_a_bad_publication_is_refused_naming_the_field(change, field, words):
    pub = copy.deepcopy(publication(3))
    change(pub)
    with pytest.raises(Refused) as exc:
        check_publication(pub)
    assert exc.value.field == field
    assert words in str(exc.value)


def test_a_trivium_game_is_replayed_from_its_record():
    from engine.trivium.record import game_to_record

    game = random_game(["Ana", "Luis", "Marta"], seed=4)
    record = game_to_record(game)
    checked = check_publication({"id": "t-1", "record": record})
    assert checked.game == "trivium"
    assert checked.scores == record["result"]["scores"]
    bad = copy.deepcopy(record)
    bad["result"]["scores"] = [s + 1 for s in bad["result"]["scores"]]
    with pytest.raises(Refused, match="differs from its replay"):
        check_publication({"id": "t-2", "record": bad})


def test_a_body_that_is_not_json_is_refused():
    with pytest.raises(Refused, match="not JSON"):
        parse_body(b"{nope")
    with pytest.raises(Refused, match="over"):
        parse_body(b" " * (300 * 1024))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)


publication_like = st.fixed_dictionaries(
    {"id": st.just("deal-1") | json_values},
    optional={"record": json_values, "scores": json_values, "round": st.integers(1, 999) | json_values})


@settings(max_examples=150, deadline=None)
@given(json_values | publication_like)
def test_any_json_is_refused_with_a_reason_never_a_crash(value):
    # no random value is a replayable record: each is refused, an object naming its field
    with pytest.raises(Refused) as exc:
        check_publication(value)
    refusal = exc.value
    assert refusal.reason
    if isinstance(value, dict):
        assert refusal.field.split(".")[0].split("[")[0] in ("id", "round", "record", "scores"), refusal.field
        assert str(refusal) == f"{refusal.field}: {refusal.reason}"
    else:
        assert refusal.field == "" and "JSON object" in refusal.reason


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["players", "dealer", "taker", "contract", "tricks", "bids",
                                                  "chien", "ecart", "poignees", "options", "called_card"]),
       json_values)
def test_a_damaged_record_is_refused_with_a_field(seed, key, value):
    pub = publication(seed)
    pub["record"][key] = value
    try:
        checked = check_publication(json.loads(json.dumps(pub)))
    except Refused as exc:
        assert exc.field
    else:  # the damage left a valid record: its scores are the engine's
        assert checked.scores == pub["scores"]


def test_a_record_is_kept_as_the_table_sent_it():
    pub = publication(8)
    pub["record"]["comment"] = "kept"
    assert check_publication(pub).record == pub["record"]


def test_a_name_with_odd_spaces_is_refused_not_changed():
    pub = publication(8)
    pub["record"]["names"][1] = " Luis  Pérez"
    with pytest.raises(Refused, match="doubled spaces") as exc:
        check_publication(pub)
    assert exc.value.field == "record.names[1]"
