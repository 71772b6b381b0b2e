"""What users and disks feed in: records (tarot and Trivium), ``replay -``,
configuration files. Every bad input gives one clear error (a
TarotmateError), never a traceback and never a hang."""

import io
import json
import re
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import bounded_json
from engine.bounded_json import JSONInputError
from engine.text import control_characters, printable

ROOT = Path(__file__).resolve().parent
RECORDS = sorted((ROOT / "tarot" / "records").glob("*.json"))
RECORDS = [p for p in RECORDS if not p.name.endswith(".expected.json")]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 30, 10 ** 30)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=25,
)


# ---------------------------------------------------------------- bounded JSON

@given(json_values)
def test_what_fits_the_limits_reads_back_unchanged(value):
    text = json.dumps(value, ensure_ascii=False)
    assert bounded_json.loads(text) == value
    bounded_json.check(value)


@settings(max_examples=300)
@given(st.text(alphabet='[]{}",:0123456789.eE-+ \\ntruefalsn\ud800', max_size=200))
def test_any_text_reads_or_gives_one_clear_error(text):
    try:
        bounded_json.loads(text)
    except JSONInputError as exc:
        assert str(exc).startswith("JSON: ")


@given(st.binary(max_size=200) | st.builds(lambda v: json.dumps(v, ensure_ascii=False).encode(), json_values))
def test_any_bytes_read_or_give_one_clear_error(data):
    # bytes read as the standard library reads their UTF-8 text, or one line saying why not
    try:
        value = bounded_json.loads(data)
    except JSONInputError as exc:
        message = str(exc)
        assert message.startswith("JSON: ") and "\n" not in message
    else:
        assert value == json.loads(data.decode("utf-8"))


@settings(max_examples=20, deadline=None)
@given(st.integers(bounded_json.MAX_DEPTH + 1, 200_000), st.sampled_from(["[", '{"a":']))
def test_deep_nesting_is_refused_before_parsing(depth, opener):
    closer = "]" if opener == "[" else "}"
    with pytest.raises(JSONInputError, match="nested deeper than"):
        bounded_json.loads(opener * depth + "1" + closer * depth)


def test_nesting_at_the_limit_is_fine_and_brackets_in_strings_do_not_count():
    assert bounded_json.loads("[" * bounded_json.MAX_DEPTH + "]" * bounded_json.MAX_DEPTH)
    assert bounded_json.loads(json.dumps(["[" * 1000])) == ["[" * 1000]


@pytest.mark.parametrize("text, problem", [
    ("9" * 5000, "5000 digits"),
    ("-" + "9" * 41, "41 digits"),
    ("1" + "0" * 70 + ".5", "characters"),
    ("1e400", "out of range"),
    ("NaN", "NaN is not a JSON number"),
    ("[-Infinity]", "-Infinity is not a JSON number"),
    ('"\\ud800"', "unpaired surrogate"),
    ('{"\\udfff": 1}', "unpaired surrogate"),
    (b"\xff\xfe[]", "not UTF-8"),
])
def test_numbers_and_strings_beyond_the_limits(text, problem):
    with pytest.raises(JSONInputError, match=problem):
        bounded_json.loads(text)


def test_check_refuses_what_loads_would_refuse():
    for bad in (float("nan"), 10 ** 41, {1: 2}, object(), "\ud800"):
        with pytest.raises(JSONInputError):
            bounded_json.check({"v": bad})


# ---------------------------------------------------------------- names on a terminal

@given(st.text(max_size=30))
def test_printable_leaves_no_control_character(text):
    shown = printable(text)
    assert not control_characters(shown)
    if not control_characters(text):
        assert shown == text


# ---------------------------------------------------------------- deal records

def _mutations():
    """A record with one field replaced, removed, or nested inside itself."""
    paths = st.sampled_from(["format", "players", "names", "options", "dealer", "bids", "taker", "contract",
                             "called_card", "chien", "ecart", "poignees", "tricks", "misere"])
    return st.tuples(st.sampled_from(RECORDS), paths, st.one_of(json_values, st.just("<delete>")),
                     st.integers(0, 12))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutations())
def test_mutated_records_replay_or_give_a_record_error(mutation):
    from engine.tarot import replay_record
    from engine.tarot.record import RecordError

    path, key, value, index = mutation
    record = json.loads(path.read_text())
    if value == "<delete>":
        record.pop(key, None)
    elif isinstance(record.get(key), list) and record[key]:
        record[key][index % len(record[key])] = value  # one element of a list
    else:
        record[key] = value
    text = json.dumps(record)
    try:
        replay = replay_record(bounded_json.loads(text))
    except RecordError as exc:  # one line that starts with the field at fault, one of the record's
        message = str(exc)
        field = re.match(r"([a-z_]+)(\[\d+\])*(\.[a-z_]+(\[\d+\])*)*: ", message)
        assert field and field.group(1) in set(json.loads(path.read_text())) | {key}, message
        assert "\n" not in message
    else:  # a record the change left valid: scored zero-sum, or not scored for its violations
        if replay["scores"] is None:
            assert replay["violations"]
        else:
            assert sum(replay["scores"]) == 0


def _replay_stdin(monkeypatch, capsys, data: bytes) -> tuple[int, str]:
    from device.cli import main

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code = main(["replay", "-"])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("data, problem", [
    (b"[" * 100_000 + b"]" * 100_000, "nested deeper than 32 levels"),
    (b'{"format": "tarot-deal/1", "players": ' + b"9" * 5000 + b"}", "5000 digits"),
    (b"\xff", "not UTF-8"),
    (b"", "invalid JSON"),
])
def test_replay_from_stdin_refuses_bad_input_in_one_line(monkeypatch, capsys, data, problem):
    code, err = _replay_stdin(monkeypatch, capsys, data)
    assert code == 2
    assert problem in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_deep_options_and_control_characters_in_a_record_file(tmp_path, capsys):
    from device.cli import main

    record = json.loads(RECORDS[0].read_text())
    nested: list = []
    for _ in range(600):
        nested = [nested]
    record["options"] = {"x": nested}
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps(record))
    assert main(["replay", str(deep)]) == 2
    assert "nested deeper" in capsys.readouterr().err
    record = json.loads(RECORDS[0].read_text())
    record["names"] = ["A\x1b[2J", "B\x07", "C", "D", "E"][: record["players"]]
    named = tmp_path / "names.json"
    named.write_text(json.dumps(record))
    assert main(["replay", str(named)]) == 2
    err = capsys.readouterr().err
    assert "names[0]" in err and "U+001B" in err and "\x1b" not in err


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300))
def test_replay_of_any_bytes_from_stdin(monkeypatch, capsys, data):
    code, err = _replay_stdin(monkeypatch, capsys, data)  # no short run of bytes is a record
    assert code == 2 and "Traceback" not in err
    assert err.startswith("tarotmate replay: error: ") and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------- Trivium records

@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["players", "options", "operations", "result", "format"]), json_values)
def test_mutated_trivium_records_give_a_record_error(key, value):
    from engine.trivium import random_game
    from engine.trivium.record import RecordError, game_to_record, loads

    game = random_game(3, seed=1)
    record = game_to_record(game)
    record[key] = value
    try:
        loaded = loads(json.dumps(record))
    except RecordError as exc:  # one line naming what is wrong ("players", an option...), or
        message = str(exc)  # that the result no longer is the operations' replay
        assert key.removesuffix("s") in message or "result" in message and "differs from its replay" in message, message
        assert "\n" not in message
    else:  # only a change that leaves the game as it was is accepted (no options, the same format...)
        assert game_to_record(loaded)["result"] == game_to_record(game)["result"]


def test_trivium_record_limits():
    from engine.trivium.record import RecordError, loads

    with pytest.raises(RecordError, match="nested deeper"):
        loads("[" * 50_000 + "]" * 50_000)
    with pytest.raises(RecordError, match="control characters"):
        loads(json.dumps({"format": "trivium-game/1", "players": ["A\x1b]0;x\x07", "B"], "operations": []}))


# ---------------------------------------------------------------- configuration files

def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if value == value and abs(value) != float("inf") else "nan"
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string with JSON's escapes
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"


KEYS = {
    "game": ["kind", "players", "names", "dealer", "options", "oops"],
    "ui": ["language", "card_style", "buzzer", "long_press_s"],
    "camera": ["source", "device", "path", "width", "height", "fps", "zones", "deck"],
    "display": ["kind", "i2c_port", "i2c_address", "rotate", "width", "height", "out", "scale"],
    "pins": ["up", "down", "ok", "back", "buzzer", "led"],
    "store": ["path"],
    "nonsense": ["x"],
}
toml_scalars = (st.none() | st.booleans() | st.integers(-10 ** 20, 10 ** 20) | st.floats()
                | st.text(max_size=12) | st.sampled_from(["french-tarot", "trivium", "sim", "dummy", "en"]))
toml_values = st.recursive(toml_scalars.filter(lambda v: v is not None),
                           lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(min_size=1, max_size=5), inner, max_size=3),
                           max_leaves=10)
configs = st.dictionaries(
    st.sampled_from(sorted(KEYS)),
    st.data(),
    max_size=4,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_configuration_files_load_or_give_a_config_error(tmp_path, data):
    from device.config import ConfigError, describe, load_config

    lines = []
    for section in data.draw(st.lists(st.sampled_from(sorted(KEYS)), max_size=4, unique=True)):
        lines.append(f"[{section}]")
        for key in data.draw(st.lists(st.sampled_from(KEYS[section]), max_size=4, unique=True)):
            lines.append(f"{key} = {_toml_value(data.draw(toml_values))}")
    path = tmp_path / "fuzz.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        config = load_config(path)
    except ConfigError as exc:
        message = str(exc)
        assert message.startswith(f"{path}: ") and "\n" not in message
    else:  # what loads is what ``config check`` writes back, and that loads the same
        again = tmp_path / "again.toml"
        again.write_text(describe(config), encoding="utf-8")
        assert replace(load_config(again), source=config.source) == config


def test_config_check_writes_back_control_characters_as_toml_escapes(tmp_path):
    from device.config import describe, load_config

    path = tmp_path / "c.toml"
    path.write_text('[store]\npath = "0\\u001F\\t\\"x\\\\"\n', encoding="utf-8")
    config = load_config(path)
    assert config.store.path.endswith('0\x1f\t"x\\')
    again = tmp_path / "again.toml"
    again.write_text(describe(config), encoding="utf-8")
    assert replace(load_config(again), source=config.source) == config


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200))
@example(raw=b"\r")  # a lone carriage return: no line break in TOML, refused as such
def test_any_bytes_as_a_configuration_file(tmp_path, raw):
    from device.config import Config, ConfigError, load_config

    path = tmp_path / "bytes.toml"
    path.write_bytes(raw)
    try:
        config = load_config(path)
    except ConfigError as exc:
        message = str(exc)
        assert message.startswith(f"{path}: ") and "\n" not in message
    else:  # only bytes that are TOML setting nothing (blank, comments, empty tables) load: the defaults
        assert all(value == {} for value in tomllib.loads(raw.decode("utf-8")).values())
        assert replace(config, source=Config().source) == Config()


@pytest.mark.parametrize("text, problem", [
    ("[game]\nplayers = " + "9" * 5000 + "\n", "thousands of digits"),
    ("[game]\noptions = { x = " + "[" * 5000 + "]" * 5000 + " }\n", "nested too deeply"),
    ('[game]\nnames = ["A\\u001b[31m", "B", "C", "D"]\n', "control characters (U+001B)"),
    ('[game]\nnames = ["A", "B\\u202e", "C", "D"]\n', "control characters (U+202E)"),
])
def test_configuration_limits(tmp_path, text, problem):
    from device.config import ConfigError, load_config

    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert problem in str(refused.value)
