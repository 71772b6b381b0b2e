"""``tarotmate trivium check`` through the command dispatcher."""

import json

import pytest

from device.cli import EXIT_ERROR, main


def check_json(capsys, *codes):
    status = main(["trivium", "check", *codes, "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


def test_json_object_has_exactly_the_four_keys(capsys):
    result = check_json(capsys, "C10", "H10", "S01")
    assert result == {
        "combination": "tercia",
        "points": 0,
        "groups": [["C10", "H10", "S01"]],
        "reason": "10 + 10 + 1 = 21",
    }


def test_json_stdout_is_one_object_only(capsys):
    main(["trivium", "check", "HJ", "SN", "HQ", "CK", "--json"])
    out, _ = capsys.readouterr()
    assert out.count("\n") == 1
    assert json.loads(out)["points"] == 50


def test_not_a_combination_has_null_values_and_a_reason(capsys):
    result = check_json(capsys, "C10", "H06", "S04")
    assert result["combination"] is None and result["points"] is None
    assert result["groups"] == []
    assert "10 + 6 + 4 = 20" in result["reason"]


@pytest.mark.parametrize(
    "codes, combination, points",
    [
        ("HJ HN HQ HK", "gran_cuadrivium", 100),
        ("HJ SN HQ CK C10 H10 S01", "gran_maestre", 200),
        ("S07 T15 C10 H07 D04 H10 T07 H02 S01", "trivium", 63),
        ("h02 ex c10 t15 s01 t21 d04 h10", "trivium", 63),
    ],
)
def test_combinations_through_the_command(capsys, codes, combination, points):
    result = check_json(capsys, *codes.split())
    assert (result["combination"], result["points"]) == (combination, points)


def test_pair_group_in_a_trivium_is_a_group_of_two(capsys):
    result = check_json(capsys, *"C10 H10 S01 T15 D04 H02 T21 EX".split())
    assert ["T21", "EX"] in result["groups"]
    assert len(result["groups"]) == 3


@pytest.mark.parametrize("flag, combination", [([], "cuadrivium"), (["--loco-in-gran-cuadrivium"], "gran_cuadrivium")])
def test_option_flag(capsys, flag, combination):
    status = main(["trivium", "check", "HJ", "HN", "HQ", "EX", "--json", *flag])
    assert status == 0
    assert json.loads(capsys.readouterr().out)["combination"] == combination


def test_readable_line_without_json(capsys):
    assert main(["trivium", "check", "T10", "H05", "EX"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tercia, 0 points:") and "El Loco stands for 6" in out
    assert main(["trivium", "check", "T20", "S01", "EX"]) == 0
    assert capsys.readouterr().out.startswith("not a combination: ")


@pytest.mark.parametrize("codes, words", [(["C10", "ZZ"], "unknown card code 'ZZ'"), (["C10", "C10", "S01"], "given twice")])
def test_bad_input_is_a_clear_error_without_traceback(capsys, codes, words):
    status = main(["trivium", "check", *codes, "--json"])
    out, err = capsys.readouterr()
    assert status == EXIT_ERROR == 2  # nothing done: an input that cannot be used
    assert out == ""
    assert words in err and "Traceback" not in err
    assert err.startswith("tarotmate trivium: error:")


def test_check_needs_cards(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["trivium", "check"])
    assert exc.value.code == EXIT_ERROR == 2  # a usage error
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert "tarotmate trivium check: error:" in err and "CARD" in err.upper()


def test_simulate_prints_the_announcements_of_one_game(capsys):
    assert main(["trivium", "simulate", "--players", "2", "--seed", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Player ") and " starts: " in lines[0]
    assert lines[-1].startswith("result: ")


def test_simulate_json_statistics_and_record(capsys, tmp_path):
    from engine.trivium.record import load

    path = tmp_path / "last.json"
    status = main(["trivium", "simulate", "--games", "20", "--players", "4", "--json", "--record", str(path)])
    out, err = capsys.readouterr()
    assert status == 0
    stats = json.loads(out)
    assert stats["games"] == 20 and sum(stats["outcomes"].values()) == 20
    assert "saved the last game" in err
    assert load(path).phase == "finished"


def test_simulate_refuses_zero_games(capsys):
    assert main(["trivium", "simulate", "--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err
