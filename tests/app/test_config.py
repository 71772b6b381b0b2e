"""Configuration: defaults, the documented example, and messages naming the key."""

from pathlib import Path

import pytest

from device.config import Config, ConfigError, config_from_dict, describe, load_config

EXAMPLE = Path(__file__).resolve().parents[2] / "device" / "tarotmate.example.toml"


def test_example_file_is_valid_and_matches_the_defaults_except_names():
    config = load_config(EXAMPLE)
    defaults = Config()
    assert config.game.names == ("Ana", "Luis", "Marta", "Pau")
    assert config.display == defaults.display
    assert config.pins == defaults.pins
    assert config.camera == defaults.camera
    assert config.ui == defaults.ui


def test_no_file_gives_defaults():
    config = load_config(None)
    assert config.game.kind == "french-tarot"
    assert config.display.i2c_address == 0x3C
    assert config.game.seat_names() == ["Seat 1", "Seat 2", "Seat 3", "Seat 4"]


@pytest.mark.parametrize(
    "data, message",
    [
        ({"display": {"i2c_address": "abc"}}, 'display.i2c_address: expected an integer like 0x3C, got "abc"'),
        ({"display": {"i2c_address": 0x90}}, "display.i2c_address: expected a value from 3 to 119, got 144"),
        ({"display": {"kind": "oled"}}, 'display.kind: expected one of ssd1306, sh1106, capture, gif, pygame, terminal, dummy, got "oled"'),
        ({"display": {"rotate": 90}}, "display.rotate: expected 0, 1, 2 or 3 (quarter turns), got 90"),
        ({"game": {"players": 6}}, "game.players: expected a value from 3 to 5, got 6"),
        ({"game": {"kind": "trivium", "players": 5}}, "game.players: expected a value from 2 to 4, got 5"),
        ({"game": {"names": ["Ana", "Ana"]}}, "game.names: two players have the same name"),
        ({"game": {"names": ["A", "B", "C", "D", "E"]}}, "game.names: 5 names for 4 players"),
        ({"game": {"dealer": 4}}, "game.dealer: expected a value from 0 to 3, got 4"),
        ({"game": {"player": 4}}, "game.player: unknown key"),
        ({"pins": {"ok": 2}}, "pins.ok: GPIO2 is an I2C line"),
        ({"pins": {"ok": 40}}, "pins.ok: expected a BCM GPIO number from 2 to 27, got 40"),
        ({"pins": {"ok": True}}, "pins.ok: expected a BCM GPIO number like 17, got true"),
        ({"pins": {"back": 5}}, "pins.back: GPIO5 is already used by pins.up"),
        ({"camera": {"fps": "fast"}}, 'camera.fps: expected a number, got "fast"'),
        ({"camera": {"source": "folder"}}, 'camera.path: the "folder" source needs the folder of images'),
        ({"ui": {"language": "de"}}, 'ui.language: expected one of en, fr, es, got "de"'),
        ({"ui": {"buzzer": "yes"}}, 'ui.buzzer: expected true or false, got "yes"'),
        ({"screen": {}}, "screen: unknown section"),
        ({"store": {"path": ""}}, "store.path: cannot be empty"),
        ({"game": {"options": {"no_such_rule": True}}}, "game.options: unknown option 'no_such_rule'"),
        ({"game": {"kind": "trivium", "options": {"no_such_rule": 1}}}, "game.options: unknown Trivium option"),
    ],
)
def test_bad_values_are_refused_with_the_key(data, message):
    with pytest.raises(ConfigError) as info:
        config_from_dict(data)
    assert str(info.value).startswith(message)


def test_engine_options_are_accepted():
    config = config_from_dict({"game": {"options": {"no_trump_lead_until_broken": True}}})
    assert config.game.options == {"no_trump_lead_until_broken": True}


def test_hex_address_as_string_and_disabled_buzzer():
    config = config_from_dict({"display": {"i2c_address": "0x3d"}, "pins": {"buzzer": "none"}})
    assert config.display.i2c_address == 0x3D
    assert config.pins.buzzer is None


def test_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[display]\ni2c_address = "abc"\n')
    with pytest.raises(ConfigError, match=r"bad\.toml: display\.i2c_address: expected an integer like 0x3C"):
        load_config(bad)
    broken = tmp_path / "broken.toml"
    broken.write_text("[display\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(broken)
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "missing.toml")


def test_describe_round_trips_through_toml(tmp_path):
    config = config_from_dict({"game": {"kind": "trivium", "players": 3, "names": ["A", "B", "C"]}, "display": {"i2c_address": 0x3D}})
    text = describe(config)
    out = tmp_path / "effective.toml"
    out.write_text(text.replace('"none"', '"none"'))
    again = load_config(out)
    assert again.game == config.game
    assert again.display == config.display


def test_relative_store_path_goes_to_the_state_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    assert config_from_dict({}).store.resolved() == tmp_path / "tarotmate.db"
    assert config_from_dict({"store": {"path": "/x/y.db"}}).store.resolved() == Path("/x/y.db")


def test_every_key_is_documented_in_the_example_and_the_docs():
    from dataclasses import fields

    from device.config import SECTIONS

    example = EXAMPLE.read_text()
    docs = (EXAMPLE.parents[1] / "docs" / "app.md").read_text()
    for section, cls in SECTIONS.items():
        assert f"[{section}]" in example
        for f in fields(cls):
            assert f"{f.name} =" in example or f"# {f.name} =" in example, f"{section}.{f.name} not in the example"
            assert f"{section}.{f.name}" in docs, f"{section}.{f.name} not in docs/app.md"


def test_the_documented_example_is_generated_from_the_schema():
    from device.config import example_toml

    assert EXAMPLE.read_text(encoding="utf-8") == example_toml()


def test_a_game_target_is_read_and_none_means_no_target():
    assert config_from_dict({"game": {"target": 1000}}).game.target == 1000
    assert config_from_dict({"game": {"target": "none"}}).game.target is None
    with pytest.raises(ConfigError, match="game.target: expected a positive whole number, got 0"):
        config_from_dict({"game": {"target": 0}})
