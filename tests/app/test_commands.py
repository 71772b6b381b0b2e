"""``tarotmate config`` and ``tarotmate history`` as a user runs them."""

import csv
import io

from device.cli import main
from device.storage.deal_log import DealLog

EXAMPLE_NAMES = ["Ana", "Luis", "Marta", "Pau"]


def test_config_check_valid_and_invalid(tmp_path, capsys):
    good = tmp_path / "good.toml"
    good.write_text('[game]\nkind = "trivium"\nplayers = 3\n[display]\ni2c_address = 0x3D\n')
    assert main(["config", "check", str(good)]) == 0
    out = capsys.readouterr().out
    assert 'kind = "trivium"' in out and "i2c_address = 0x3D" in out
    bad = tmp_path / "bad.toml"
    bad.write_text('[display]\ni2c_address = "abc"\n')
    assert main(["config", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        f'tarotmate config: error: {bad}: display.i2c_address: expected an integer like 0x3C, got "abc"'
    )


def test_config_example_is_the_documented_file(capsys, tmp_path):
    assert main(["config", "example"]) == 0
    text = capsys.readouterr().out
    copy = tmp_path / "copy.toml"
    copy.write_text(text)
    assert main(["config", "check", "-q", str(copy)]) == 0


def _played_log(path):
    with DealLog.open(path) as log:
        game = log.start_game("french-tarot", EXAMPLE_NAMES)
        for scores in ([52, 52, -156, 52], [-60, 180, -60, -60]):
            deal = log.start_deal(game.id)
            log.finish_deal(deal.id, {"format": "tarot-deal/1"}, scores)
        log.start_deal(game.id)


def test_history_table_and_csv(tmp_path, capsys):
    db = tmp_path / "log.db"
    _played_log(db)
    out_csv = tmp_path / "scores.csv"
    assert main(["history", "--db", str(db), "--csv", str(out_csv)]) == 0
    text = capsys.readouterr().out
    assert "game 1 · french-tarot · 4 players" in text
    total_line = [line for line in text.splitlines() if line.strip().startswith("total")][0]
    assert total_line.split()[1:] == ["-8", "232", "-216", "-8"]
    rows = list(csv.DictReader(io.StringIO(out_csv.read_text())))
    assert [r["deal"] for r in rows] == ["1", "2", "3"]
    assert rows[1]["total_1"] == "232" and rows[2]["status"] == "in progress"


def test_history_refuses_a_foreign_file(tmp_path, capsys):
    db = tmp_path / "photos.db"
    db.write_bytes(b"\x89PNG" + b"\0" * 200)
    assert main(["history", "--db", str(db)]) == 2
    assert "not a Tarotmate deal log" in capsys.readouterr().err
    assert db.read_bytes() == b"\x89PNG" + b"\0" * 200


def test_demo_command_prints_scores_on_stdout_and_checks_its_arguments(tmp_path, capsys):
    out = tmp_path / "demo"
    args = ["demo", "--out", str(out), "--seed", "3", "--fast", "--display", "none", "--recogniser", "truth",
            "--frame-width", "640", "--speed", "3"]
    assert main(args) == 0
    captured = capsys.readouterr()
    rows = [line.split() for line in captured.out.splitlines() if line.split()[:1] in (["Ana"], ["Luis"], ["Marta"], ["Pau"])]
    assert len(rows) == 4 and sum(float(r[1]) for r in rows) == 0
    assert "trick 18" in captured.err and "trick 18" not in captured.out
    assert main(["demo", "--players", "6", "--out", str(out)]) == 2
    assert "--players: french-tarot is played by 3 to 5 players, not 6" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["demo", "--out", str(tmp_path / "file")]) == 2
    assert "not a folder" in capsys.readouterr().err
