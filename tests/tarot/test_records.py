"""Deal records: hand-made records replayed against scores counted by hand,
malformed records refused naming the field, the ``tarotmate replay`` command."""

import copy
import json
from pathlib import Path

import pytest

from device.cli import main
from engine.tarot import RecordError, TarotOptions, deal_from_record, random_deal, replay_record
from engine.tarot.record import validate_record

RECORDS = Path(__file__).parent / "records"
RECORD_FILES = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json"))
REPLAY_KEYS = ["format", "tricks", "partner", "attack_points", "attack_oudlers", "target",
               "petit_au_bout", "chelem", "won", "diff", "unit", "scores", "violations"]


def load(path):
    return json.loads(Path(path).read_text())


def test_there_are_records_for_three_four_and_five_players():
    players = {load(p)["players"] for p in RECORD_FILES}
    assert players == {3, 4, 5}
    assert len(RECORD_FILES) >= 8


@pytest.mark.parametrize("path", RECORD_FILES, ids=[p.stem for p in RECORD_FILES])
def test_record_replays_to_the_scores_counted_by_hand(path):
    expected = load(path.with_name(path.stem + ".expected.json"))
    got = replay_record(load(path))
    assert list(got) == REPLAY_KEYS
    assert [t["winner"] for t in got["tricks"]] == expected["winners"]
    for key in ("partner", "attack_points", "attack_oudlers", "target", "petit_au_bout",
                "chelem", "won", "diff", "unit", "scores"):
        assert got[key] == expected[key], key
    assert [[v["trick"], v["seat"], v["rule"]] for v in got["violations"]] == expected["violations"]
    if got["scores"] is not None:
        assert sum(got["scores"]) == 0


def test_spec_example_shape_of_a_violation():
    got = replay_record(load(RECORDS / "4p-injected-revoke.json"))
    v = got["violations"][0]
    assert set(v) == {"trick", "seat", "rule", "evidence"}
    assert v["evidence"] == "trumped on hearts at trick 10 but played H10 at trick 11"


def test_record_round_trip_gives_the_same_record_and_result():
    for players in (3, 4, 5):
        deal = random_deal(players, 99)
        rec = deal.to_record()
        again = deal_from_record(json.loads(json.dumps(rec)))
        assert again.to_record() == rec
        assert again.result() == deal.result()


def test_record_without_bids_or_dealer():
    rec = load(RECORDS / "5p-partner.json")
    full = replay_record(rec)
    rec2 = dict(rec, bids=None, dealer=None)
    del rec2["bids"]
    assert replay_record(rec2)["scores"] == full["scores"]


def test_options_are_stored_and_read():
    deal = random_deal(4, 5, options=TarotOptions(defence_chelem_bonus=False))
    rec = deal.to_record()
    assert rec["options"] == {"defence_chelem_bonus": False}
    assert deal_from_record(rec).options.defence_chelem_bonus is False


# ----------------------------------------------------------- malformed records
BASE = load(RECORDS / "3p-half-points.json")


def broken(**changes):
    rec = copy.deepcopy(BASE)
    for path, value in changes.items():
        target = rec
        keys = path.split("__")
        for k in keys[:-1]:
            target = target[int(k)] if k.isdigit() else target[k]
        last = keys[-1]
        if value is DELETE:
            del target[int(last) if last.isdigit() else last]
        elif last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value
    return rec


DELETE = object()


@pytest.mark.parametrize("changes,message", [
    ({"tricks__3__cards__1": "H11"}, "tricks[3].cards[1]: unknown card code 'H11'"),
    ({"tricks__3__cards": ["H01", "H02"]}, "tricks[3].cards: a trick has 3 cards"),
    ({"tricks__2__leader": 7}, "tricks[2].leader: seat 7 out of range"),
    ({"players": DELETE}, "players: missing field"),
    ({"tricks": DELETE}, "tricks: missing field"),
    ({"format": "tarot-deal/2"}, "format: expected 'tarot-deal/1'"),
    ({"players": 6}, "players: expected 3, 4 or 5"),
    ({"contract": "garde_avec"}, "contract: 'garde_avec' is not one of"),
    ({"taker": 3}, "taker: seat 3 out of range"),
    ({"options": {"no_such_rule": True}}, "options: unknown option 'no_such_rule'"),
    ({"dealer": -1}, "dealer: seat -1 out of range"),
    ({"bids__0__1": "double"}, "bids[0][1]: 'double' is not one of"),
    ({"chelem_announced": "yes"}, "chelem_announced: expected true or false"),
    ({"chien": ["S01"]}, "chien: expected 6 cards"),
])
def test_malformed_record_names_the_field(changes, message):
    with pytest.raises(RecordError) as e:
        validate_record(broken(**changes))
    assert message in str(e.value)


def test_a_card_seen_twice_is_refused():
    rec = copy.deepcopy(BASE)
    rec["tricks"][5]["cards"][0] = rec["tricks"][1]["cards"][2]
    with pytest.raises(RecordError, match=r"tricks\[5\]\.cards\[0\]: card .* is seen twice"):
        validate_record(rec)


def test_a_chien_card_played_by_a_defender_is_refused():
    rec = copy.deepcopy(BASE)
    defender_pos = next(j for j in range(3) if (rec["tricks"][0]["leader"] + j) % 3 != rec["taker"])
    rec["chien"] = [rec["tricks"][0]["cards"][defender_pos]] + [
        c for c in rec["ecart"] if c != rec["tricks"][0]["cards"][defender_pos]][:5]
    with pytest.raises(RecordError, match=r"tricks\[0\]\.cards\[\d\]: card .* was in the chien"):
        validate_record(rec)


def test_record_not_an_object():
    with pytest.raises(RecordError, match="JSON object"):
        validate_record([1, 2])


# ------------------------------------------------------------------- the CLI
def test_cli_replay_json_prints_exactly_the_replay_object(capsys):
    path = RECORDS / "4p-garde-sans-chelem-87.json"
    assert main(["replay", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == replay_record(load(path))
    assert out.count("\n") == 1


def test_cli_replay_text_summary(capsys):
    assert main(["replay", str(RECORDS / "4p-injected-revoke.json")]) == 0
    out = capsys.readouterr().out
    assert "Scores:" in out and "Violations (1):" in out and "follow_suit" in out
    assert " 10. " in out


def test_cli_replay_malformed_record_exit_2_and_message(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(broken(tricks__3__cards__1="H11")))
    assert main(["replay", str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "tricks[3].cards[1]: unknown card code 'H11'" in captured.err
    assert "Traceback" not in captured.err


def test_cli_replay_missing_file_and_invalid_json(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["replay", str(bad)]) == 2
    assert "invalid JSON" in capsys.readouterr().err


def test_required_fields_and_lenient_forms():
    for field in ("options", "chien", "ecart", "poignees", "chelem_announced", "dealer",
                  "taker", "contract"):
        rec = copy.deepcopy(BASE)
        del rec[field]
        with pytest.raises(RecordError, match=f"^{field}: missing field"):
            validate_record(rec)
    # names and bids are optional; "petite" is prise; [] reads as null;
    # players after the last recorded bid passed
    rec = copy.deepcopy(BASE)
    rec.pop("names", None)
    rec["bids"] = [b if b[1] != "prise" else [b[0], "petite"] for b in rec["bids"]]
    last = max(i for i, b in enumerate(rec["bids"]) if b[1] != "pass")
    rec["bids"] = rec["bids"][:last + 1]
    rec["chien"] = [] if rec["contract"] not in ("prise", "garde") else rec["chien"]
    assert replay_record(rec)["scores"] == replay_record(BASE)["scores"]
    five = load(RECORDS / "5p-partner.json")
    del five["called_card"]
    with pytest.raises(RecordError, match="^called_card: missing field"):
        validate_record(five)


def taker_trumps(deal):
    return sorted({c for t in deal.tricks for s, c in zip(t.seats, t.cards)
                   if s == deal.taker and c.startswith("T")}, reverse=True)


def test_overfull_poignee_in_a_record_is_counted_and_reported():
    deal = next(d for d in (random_deal(4, s, poignee_rate=0.0) for s in range(500))
                if len(taker_trumps(d)) >= 11)
    rec = deal.to_record()
    rec["poignees"] = [{"seat": deal.taker, "level": "simple", "shown": taker_trumps(deal)[:11]}]
    got = replay_record(rec)
    assert [v["rule"] for v in got["violations"]] == ["poignee"]
    assert abs(got["unit"] - replay_record(deal.to_record())["unit"]) == 20
