"""Tarotmate's configuration: one TOML file, defaults for everything, and
validation whose messages name the key at fault.

    from device.config import load_config, Config
    config = load_config("/etc/tarotmate/tarotmate.toml")   # or None: defaults
    config.display.kind, config.pins.ok, config.game.names ...

Every section is a frozen dataclass. ``load_config`` raises
:class:`ConfigError` (a :class:`TarotmateError`) with a message such as
``display.i2c_address: expected an integer like 0x3C, got "abc"``; unknown
keys are refused too, so a typo never silently falls back to a default.
The documented example is ``device/tarotmate.example.toml``.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from engine.errors import TarotmateError

LANGUAGES = ("en", "fr", "es")
CARD_STYLES = ("french", "tarot")
DISPLAY_KINDS = ("ssd1306", "sh1106", "capture", "gif", "pygame", "terminal", "dummy")
CAMERA_SOURCES = ("picamera2", "opencv", "folder", "simulator")
# BCM numbers a Raspberry Pi exposes on its 40-pin header.
GPIO_RANGE = range(2, 28)
# GPIO2/GPIO3 carry I2C (the OLED); they cannot also be buttons.
I2C_PINS = (2, 3)


class ConfigError(TarotmateError):
    """The configuration file is missing, unreadable or has a bad value."""


@dataclass(frozen=True)
class GameConfig:
    kind: str = "french-tarot"
    players: int = 4
    names: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    dealer: int = 0

    def seat_names(self) -> list[str]:
        """The display name of every seat: the configured ones, then "Seat N"."""
        names = list(self.names[: self.players])
        names += [f"Seat {i + 1}" for i in range(len(names), self.players)]
        return names


@dataclass(frozen=True)
class UiConfig:
    language: str = "en"
    card_style: str = "french"
    buzzer: bool = True
    long_press_s: float = 0.8


@dataclass(frozen=True)
class CameraConfig:
    source: str = "picamera2"
    device: int = 0
    path: str = ""
    width: int = 1280
    height: int = 720
    fps: float = 10.0
    zones: str = ""
    deck: str = ""


@dataclass(frozen=True)
class DisplayConfig:
    kind: str = "ssd1306"
    i2c_port: int = 1
    i2c_address: int = 0x3C
    rotate: int = 0
    width: int = 128
    height: int = 64
    out: str = ""
    scale: int = 4


@dataclass(frozen=True)
class PinsConfig:
    up: int = 5
    down: int = 6
    ok: int = 13
    back: int = 19
    buzzer: int | None = 12
    led: int | None = 26


@dataclass(frozen=True)
class StoreConfig:
    path: str = "tarotmate.db"

    def resolved(self) -> Path:
        """The database path: relative paths live in the state directory
        (``$STATE_DIRECTORY`` under systemd, else ``~/.local/state/tarotmate``)."""
        path = Path(os.path.expanduser(self.path))
        if path.is_absolute():
            return path
        return state_directory() / path


@dataclass(frozen=True)
class WebConfig:
    """The table's own live page (docs/club.md)."""

    enabled: bool = False
    host: str = "0.0.0.0"
    port: int = 8080


@dataclass(frozen=True)
class ClubConfig:
    """Publishing finished deals to a club server (docs/club.md)."""

    enabled: bool = False
    url: str = ""  # empty: found on the LAN by DNS-SD
    table_name: str = "Tarotmate table"
    outbox: str = "club-outbox.db"

    def resolved_outbox(self, deal_log: Path) -> Path:
        """The outbox file: a relative path lives beside the deal log."""
        path = Path(os.path.expanduser(self.outbox))
        return path if path.is_absolute() else deal_log.parent / path


@dataclass(frozen=True)
class Config:
    game: GameConfig = field(default_factory=GameConfig)
    ui: UiConfig = field(default_factory=UiConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    pins: PinsConfig = field(default_factory=PinsConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    web: WebConfig = field(default_factory=WebConfig)
    club: ClubConfig = field(default_factory=ClubConfig)
    source: str = "(defaults)"


SECTIONS: dict[str, type] = {
    "game": GameConfig,
    "ui": UiConfig,
    "camera": CameraConfig,
    "display": DisplayConfig,
    "pins": PinsConfig,
    "store": StoreConfig,
    "web": WebConfig,
    "club": ClubConfig,
}

DEFAULT_PATHS = (
    Path("/etc/tarotmate/tarotmate.toml"),
    Path("~/.config/tarotmate/tarotmate.toml"),
)


def state_directory() -> Path:
    """Where the deal log lives by default."""
    env = os.environ.get("STATE_DIRECTORY")
    if env:
        return Path(env.split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(base) / "tarotmate"


def default_config_path() -> Path | None:
    """The first existing default config file, or ``None``."""
    env = os.environ.get("TAROTMATE_CONFIG")
    if env:
        return Path(env)
    for path in DEFAULT_PATHS:
        path = Path(os.path.expanduser(str(path)))
        if path.is_file():
            return path
    return None


# ---------------------------------------------------------------- parsing


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _integer(key: str, value: Any, hint: str = "an integer") -> int:
    if isinstance(value, bool):
        raise ConfigError(f"{key}: expected {hint}, got {_show(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip(), 0)
        except ValueError:
            pass
    raise ConfigError(f"{key}: expected {hint}, got {_show(value)}")


def _number(key: str, value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise ConfigError(f"{key}: expected a number, got {_show(value)}")


def _string(key: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    raise ConfigError(f"{key}: expected a string, got {_show(value)}")


def _boolean(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ConfigError(f"{key}: expected true or false, got {_show(value)}")


def _choice(key: str, value: Any, choices: tuple[str, ...]) -> str:
    text = _string(key, value)
    if text not in choices:
        raise ConfigError(f"{key}: expected one of {', '.join(choices)}, got {_show(value)}")
    return text


def _in_range(key: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise ConfigError(f"{key}: expected a value from {low} to {high}, got {value}")
    return value


def _parse_game(raw: dict[str, Any]) -> dict[str, Any]:
    from device.games.registry import game_for, kinds

    out: dict[str, Any] = {}
    if "kind" in raw:
        out["kind"] = _choice("game.kind", raw["kind"], kinds())
    game = game_for(out.get("kind", GameConfig.kind))
    if "players" in raw:
        low, high = game.players
        out["players"] = _in_range("game.players", _integer("game.players", raw["players"]), low, high)
    else:
        out["players"] = game.default_players
    if "names" in raw:
        names = raw["names"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ConfigError(f"game.names: expected a list of strings, got {_show(names)}")
        for i, name in enumerate(names):
            if not name.strip():
                raise ConfigError(f"game.names[{i}]: a name cannot be empty")
        if len(set(names)) != len(names):
            raise ConfigError("game.names: two players have the same name")
        out["names"] = tuple(n.strip() for n in names)
    if "options" in raw:
        if not isinstance(raw["options"], dict):
            raise ConfigError(f"game.options: expected a table, got {_show(raw['options'])}")
        out["options"] = dict(raw["options"])
        _check_options(game, out["options"])
    players = out.get("players", GameConfig.players)
    if "dealer" in raw:
        out["dealer"] = _in_range("game.dealer", _integer("game.dealer", raw["dealer"]), 0, players - 1)
    if len(out.get("names", ())) > players:
        raise ConfigError(f"game.names: {len(out['names'])} names for {players} players")
    return out


def _check_options(game, options: dict[str, Any]) -> None:
    """The engine itself judges its variant options (names and values)."""
    try:
        game.check_options(options)
    except (TarotmateError, TypeError, ValueError) as exc:
        raise ConfigError(f"game.options: {exc}") from None


def _parse_ui(raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "language" in raw:
        out["language"] = _choice("ui.language", raw["language"], LANGUAGES)
    if "card_style" in raw:
        out["card_style"] = _choice("ui.card_style", raw["card_style"], CARD_STYLES)
    if "buzzer" in raw:
        out["buzzer"] = _boolean("ui.buzzer", raw["buzzer"])
    if "long_press_s" in raw:
        value = _number("ui.long_press_s", raw["long_press_s"])
        if not 0.2 <= value <= 5.0:
            raise ConfigError(f"ui.long_press_s: expected 0.2 to 5.0 seconds, got {value}")
        out["long_press_s"] = value
    return out


def _parse_camera(raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "source" in raw:
        out["source"] = _choice("camera.source", raw["source"], CAMERA_SOURCES)
    if "device" in raw:
        out["device"] = _in_range("camera.device", _integer("camera.device", raw["device"]), 0, 63)
    for key in ("path", "zones", "deck"):
        if key in raw:
            out[key] = _string(f"camera.{key}", raw[key])
    if "width" in raw:
        out["width"] = _in_range("camera.width", _integer("camera.width", raw["width"]), 160, 4056)
    if "height" in raw:
        out["height"] = _in_range("camera.height", _integer("camera.height", raw["height"]), 120, 3040)
    if "fps" in raw:
        fps = _number("camera.fps", raw["fps"])
        if not 1.0 <= fps <= 60.0:
            raise ConfigError(f"camera.fps: expected 1 to 60 frames per second, got {fps}")
        out["fps"] = fps
    source = out.get("source", CameraConfig.source)
    if source == "folder" and not out.get("path"):
        raise ConfigError('camera.path: the "folder" source needs the folder of images')
    return out


def _parse_display(raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "kind" in raw:
        out["kind"] = _choice("display.kind", raw["kind"], DISPLAY_KINDS)
    if "i2c_port" in raw:
        out["i2c_port"] = _in_range("display.i2c_port", _integer("display.i2c_port", raw["i2c_port"]), 0, 22)
    if "i2c_address" in raw:
        address = _integer("display.i2c_address", raw["i2c_address"], "an integer like 0x3C")
        out["i2c_address"] = _in_range("display.i2c_address", address, 0x03, 0x77)
    if "rotate" in raw:
        rotate = _integer("display.rotate", raw["rotate"])
        if rotate not in (0, 1, 2, 3):
            raise ConfigError(f"display.rotate: expected 0, 1, 2 or 3 (quarter turns), got {rotate}")
        out["rotate"] = rotate
    if "width" in raw:
        out["width"] = _in_range("display.width", _integer("display.width", raw["width"]), 32, 256)
    if "height" in raw:
        out["height"] = _in_range("display.height", _integer("display.height", raw["height"]), 16, 128)
    if "out" in raw:
        out["out"] = _string("display.out", raw["out"])
    if "scale" in raw:
        out["scale"] = _in_range("display.scale", _integer("display.scale", raw["scale"]), 1, 8)
    return out


def _parse_pins(raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("up", "down", "ok", "back", "buzzer", "led"):
        if name not in raw:
            continue
        value = raw[name]
        key = f"pins.{name}"
        if name in ("buzzer", "led") and value in (False, "none", ""):
            out[name] = None
            continue
        pin = _integer(key, value, "a BCM GPIO number like 17")
        if pin not in GPIO_RANGE:
            raise ConfigError(f"{key}: expected a BCM GPIO number from 2 to 27, got {pin}")
        if pin in I2C_PINS:
            raise ConfigError(f"{key}: GPIO{pin} is an I2C line (the OLED); choose another pin")
        out[name] = pin
    return out


def _parse_store(raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "path" in raw:
        path = _string("store.path", raw["path"])
        if not path.strip():
            raise ConfigError("store.path: cannot be empty")
        out["path"] = path
    return out


def _parse_web(raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "enabled" in raw:
        out["enabled"] = _boolean("web.enabled", raw["enabled"])
    if "host" in raw:
        host = _string("web.host", raw["host"]).strip()
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ConfigError(f"web.host: expected an IP address of this machine (0.0.0.0: every "
                              f"interface, 127.0.0.1: this machine only), got {_show(raw['host'])}") from None
        out["host"] = host
    if "port" in raw:
        out["port"] = _in_range("web.port", _integer("web.port", raw["port"]), 1, 65535)
    return out


def _parse_club(raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "enabled" in raw:
        out["enabled"] = _boolean("club.enabled", raw["enabled"])
    if "url" in raw:
        url = _string("club.url", raw["url"]).strip()
        if url and not (url.startswith(("http://", "https://")) and len(url.split("://", 1)[1]) > 0):
            raise ConfigError(f"club.url: expected http://HOST:PORT (or empty: found on the LAN), got {_show(url)}")
        out["url"] = url.rstrip("/")
    if "table_name" in raw:
        name = " ".join(_string("club.table_name", raw["table_name"]).split())
        if not name or len(name) > 40:
            raise ConfigError("club.table_name: 1 to 40 characters")
        out["table_name"] = name
    if "outbox" in raw:
        path = _string("club.outbox", raw["outbox"])
        if not path.strip():
            raise ConfigError("club.outbox: cannot be empty")
        out["outbox"] = path
    return out


PARSERS = {
    "web": _parse_web,
    "club": _parse_club,
    "game": _parse_game,
    "ui": _parse_ui,
    "camera": _parse_camera,
    "display": _parse_display,
    "pins": _parse_pins,
    "store": _parse_store,
}


def _check_known(section: str, raw: dict[str, Any]) -> None:
    known = [f.name for f in fields(SECTIONS[section])]
    for key in raw:
        if key not in known:
            raise ConfigError(f"{section}.{key}: unknown key (known keys: {', '.join(known)})")


def _check_pins_distinct(pins: PinsConfig) -> None:
    seen: dict[int, str] = {}
    for f in fields(PinsConfig):
        pin = getattr(pins, f.name)
        if pin is None:
            continue
        if pin in seen:
            raise ConfigError(f"pins.{f.name}: GPIO{pin} is already used by pins.{seen[pin]}")
        seen[pin] = f.name


def config_from_dict(data: dict[str, Any], source: str = "(dict)") -> Config:
    """Validate a parsed TOML document and build the :class:`Config`."""
    sections: dict[str, Any] = {}
    for name, raw in data.items():
        if name not in SECTIONS:
            raise ConfigError(f"{name}: unknown section (known sections: {', '.join(SECTIONS)})")
        if not isinstance(raw, dict):
            raise ConfigError(f"{name}: expected a [{name}] table, got {_show(raw)}")
        _check_known(name, raw)
        sections[name] = SECTIONS[name](**PARSERS[name](raw))
    config = Config(**sections, source=source)
    _check_pins_distinct(config.pins)
    return config


def load_config(path: str | os.PathLike[str] | None) -> Config:
    """Read and validate a TOML configuration file; ``None`` gives the defaults."""
    if path is None:
        return Config()
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    try:
        return config_from_dict(data, source=str(path))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def describe(config: Config) -> str:
    """The effective configuration, as TOML-like text (for ``config check``)."""
    lines = [f"# effective configuration from {config.source}"]
    for name in SECTIONS:
        section = getattr(config, name)
        lines.append(f"\n[{name}]")
        for f in fields(section):
            value = getattr(section, f.name)
            lines.append(f"{f.name} = {_toml_value(name, f.name, value)}")
    return "\n".join(lines) + "\n"


def _toml_value(section: str, key: str, value: Any) -> str:
    if value is None:
        return '"none"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if section == "display" and key == "i2c_address":
        return f"0x{value:02X}"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(section, key, v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(section, k, v)}" for k, v in value.items()) + "}"
    return repr(value)
