"""Tarotmate's configuration: one TOML file, defaults for everything, and
validation whose messages name the key at fault.

    from device.config import load_config, Config
    config = load_config("/etc/tarotmate/tarotmate.toml")   # or None: defaults
    config.display.kind, config.pins.ok, config.game.names ...

Every section is a frozen dataclass; what each key accepts, and the comment
the documented example shows above it, is written once, in :data:`SCHEMA`.
``load_config`` raises :class:`ConfigError` (a :class:`TarotmateError`) with a
message such as ``display.i2c_address: expected an integer like 0x3C, got
"abc"``; unknown keys are refused too, so a typo never silently falls back to
a default. The documented example, ``device/tarotmate.example.toml``, is
:func:`example_toml`'s output (``tarotmate config example`` prints it).
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable

from engine.errors import TarotmateError
from engine.text import control_characters, describe_controls

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
    target: int | None = None
    played_in_front: bool = True  # a trick's card lies on its player's side of the middle

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
    give_up_after_s: float | None = None  # None: never; else exit non-zero after this long without a camera
    focus: str = "once"
    lens_position: float = 1.4
    exposure: str = "locked"
    settle_s: float = 1.0
    max_exposure_ms: float = 10.0
    max_gain: float = 8.0
    hfov_deg: float = 66.0
    check_at_start: bool = True
    learn_deck: bool = True  # the table learns its deck as it plays (device.app.deck_learning)


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


# ---------------------------------------------------------------- what a key accepts
#
# A parser is called as ``parse(key, value, section)`` with the key's full name
# (``display.rotate``), the raw TOML value, and the values of the section read
# so far (defaults included); it returns the value or raises ConfigError.

Parser = Callable[[str, Any, dict], Any]


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _to_int(key: str, value: Any, hint: str) -> int:
    if not isinstance(value, bool):
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                return int(value.strip(), 0)
            except ValueError:
                pass
    raise ConfigError(f"{key}: expected {hint}, got {_show(value)}")


def _within(key: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise ConfigError(f"{key}: expected a value from {low} to {high}, got {value}")
    return value


def integer(low: int | Callable[[dict], int], high: int | Callable[[dict], int], hint: str = "an integer",
            choices: tuple[int, ...] = (), choices_text: str = "") -> Parser:
    """A whole number from ``low`` to ``high`` (either may depend on the section), or one of ``choices``."""
    def parse(key: str, value: Any, section: dict) -> int:
        number = _to_int(key, value, hint)
        if choices:
            if number not in choices:
                raise ConfigError(f"{key}: expected {choices_text}, got {number}")
            return number
        lo = low(section) if callable(low) else low
        hi = high(section) if callable(high) else high
        return _within(key, number, lo, hi)
    return parse


def number(low: float, high: float, range_text: str) -> Parser:
    """A number from ``low`` to ``high`` (``range_text``: how the range is said)."""
    def parse(key: str, value: Any, section: dict) -> float:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ConfigError(f"{key}: expected a number, got {_show(value)}")
        value = float(value)
        if not low <= value <= high:
            raise ConfigError(f"{key}: expected {range_text}, got {value}")
        return value
    return parse


def _string_value(key: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    raise ConfigError(f"{key}: expected a string, got {_show(value)}")


def string(required: bool = False) -> Parser:
    def parse(key: str, value: Any, section: dict) -> str:
        text = _string_value(key, value)
        if required and not text.strip():
            raise ConfigError(f"{key}: cannot be empty")
        return text
    return parse


def boolean() -> Parser:
    def parse(key: str, value: Any, section: dict) -> bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{key}: expected true or false, got {_show(value)}")
    return parse


def choice(choices: tuple[str, ...] | Callable[[], tuple[str, ...]]) -> Parser:
    def parse(key: str, value: Any, section: dict) -> str:
        text = _string_value(key, value)
        known = choices() if callable(choices) else choices
        if text not in known:
            raise ConfigError(f"{key}: expected one of {', '.join(known)}, got {_show(value)}")
        return text
    return parse


def gpio(optional: bool = False) -> Parser:
    """A BCM GPIO number of the header, not an I2C line; ``optional``: ``"none"`` when not fitted."""
    def parse(key: str, value: Any, section: dict) -> int | None:
        if optional and value in (False, "none", ""):
            return None
        pin = _to_int(key, value, "a BCM GPIO number like 17")
        if pin not in GPIO_RANGE:
            raise ConfigError(f"{key}: expected a BCM GPIO number from 2 to 27, got {pin}")
        if pin in I2C_PINS:
            raise ConfigError(f"{key}: GPIO{pin} is an I2C line (the OLED); choose another pin")
        return pin
    return parse


def positive_or_none() -> Parser:
    def parse(key: str, value: Any, section: dict) -> int | None:
        if value is False or value in ("none", ""):
            return None
        number = _to_int(key, value, "a positive whole number")
        if number <= 0:
            raise ConfigError(f"{key}: expected a positive whole number, got {number}")
        return number
    return parse


def seconds_or_never(low: float, high: float) -> Parser:
    """Seconds from ``low`` to ``high``, or ``"never"`` (also 0): ``None``."""
    def parse(key: str, value: Any, section: dict) -> float | None:
        if value in ("never", 0):
            return None
        seconds = number(low, high, f"{low:g} to {high:g} seconds")(key, value, section)
        return seconds
    return parse


def ip_address() -> Parser:
    def parse(key: str, value: Any, section: dict) -> str:
        host = _string_value(key, value).strip()
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ConfigError(f"{key}: expected an IP address of this machine (0.0.0.0: every "
                              f"interface, 127.0.0.1: this machine only), got {_show(value)}") from None
        return host
    return parse


def club_url() -> Parser:
    def parse(key: str, value: Any, section: dict) -> str:
        url = _string_value(key, value).strip()
        if url and not (url.startswith(("http://", "https://")) and len(url.split("://", 1)[1]) > 0):
            raise ConfigError(f"{key}: expected http://HOST:PORT (or empty: found on the LAN), got {_show(url)}")
        return url.rstrip("/")
    return parse


def table_name() -> Parser:
    def parse(key: str, value: Any, section: dict) -> str:
        name = " ".join(_string_value(key, value).split())
        if not name or len(name) > 40:
            raise ConfigError(f"{key}: 1 to 40 characters")
        return name
    return parse


def player_names() -> Parser:
    def parse(key: str, value: Any, section: dict) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
            raise ConfigError(f"{key}: expected a list of strings, got {_show(value)}")
        for i, name in enumerate(value):
            if not name.strip():
                raise ConfigError(f"{key}[{i}]: a name cannot be empty")
            if control_characters(name):
                raise ConfigError(f"{key}[{i}]: {name!r} holds control characters ({describe_controls(name)})")
        if len(set(value)) != len(value):
            raise ConfigError(f"{key}: two players have the same name")
        return tuple(n.strip() for n in value)
    return parse


def engine_options() -> Parser:
    """A table of the engine's variant options, judged by the game itself."""
    def parse(key: str, value: Any, section: dict) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a table, got {_show(value)}")
        try:
            _game(section).check_options(dict(value))
        except (TarotmateError, TypeError, ValueError) as exc:
            raise ConfigError(f"{key}: {exc}") from None
        return dict(value)
    return parse


def _game(section: dict):
    from device.app.registry import game_for

    return game_for(section["kind"])


def _game_kinds() -> tuple[str, ...]:
    from device.app.registry import kinds

    return kinds()


def _players_low(section: dict) -> int:
    return _game(section).players[0]


def _players_high(section: dict) -> int:
    return _game(section).players[1]


def _kind_comment() -> str:
    from device.app.registry import games

    return " or ".join(f'"{g.kind}" ({g.players[0]} to {g.players[1]} players)' for g in games()) + "."


# ---------------------------------------------------------------- the schema

_DEFAULT = object()


@dataclass(frozen=True)
class Key:
    """One key: how it is read, the comment above it in the example, and the example's value
    when it is not the default (``commented``: shown as a commented-out line)."""

    name: str
    parse: Parser
    doc: str | Callable[[], str] = ""
    example: Any = _DEFAULT
    commented: bool = False
    example_text: str = ""  # the example's value written out, when no value would say it as well


@dataclass(frozen=True)
class Section:
    name: str
    cls: type
    keys: tuple[Key, ...]
    finish: Callable[[dict, dict], None] | None = None  # (values, raw): defaults and rules across keys


def _finish_game(values: dict, raw: dict) -> None:
    if "players" not in raw:
        values["players"] = _game(values).default_players
    if len(values["names"]) > values["players"]:
        raise ConfigError(f"game.names: {len(values['names'])} names for {values['players']} players")


def _finish_camera(values: dict, raw: dict) -> None:
    if values["source"] == "folder" and not values["path"]:
        raise ConfigError('camera.path: the "folder" source needs the folder of images')


def _finish_pins(values: dict, raw: dict) -> None:
    seen: dict[int, str] = {}
    for name, pin in values.items():
        if pin is None:
            continue
        if pin in seen:
            raise ConfigError(f"pins.{name}: GPIO{pin} is already used by pins.{seen[pin]}")
        seen[pin] = name


SCHEMA: tuple[Section, ...] = (
    Section("game", GameConfig, (
        Key("kind", choice(_game_kinds), _kind_comment),
        Key("players", integer(_players_low, _players_high)),
        Key("names", player_names(),
            "Seat names in playing order: the player after seat s is seat s+1.\n"
            '(Example values; the default is "Seat 1", "Seat 2", ...)', example=("Ana", "Luis", "Marta", "Pau")),
        Key("dealer", integer(0, lambda s: s["players"] - 1), "Seat of the first dealer (0 = the first name)."),
        Key("options", engine_options(), "Variant options of the engine, by name ({} = the federation rules).",
            example_text="{ no_trump_lead_until_broken = true }", commented=True),
        Key("target", positive_or_none(),
            "The total that ends the game (French tarot: like options.game_target, e.g.\n"
            "Michelsen's 1000; Trivium: the match target); \"none\": play on until ended."),
        Key("played_in_front", boolean(),
            "French tarot: players lay their trick card on their own side of the middle. A card\n"
            "on the side of a player still to play, while another is to play, asks for the card\n"
            "of the player to play (the camera missed it). false: cards go by turn order only."),
    ), _finish_game),
    Section("ui", UiConfig, (
        Key("language", choice(LANGUAGES), 'Language of the screens: "en", "fr" or "es".'),
        Key("card_style", choice(CARD_STYLES),
            'Card names: "french" (Roi de Cœur, King of Hearts) or "tarot" (Rey de Copas).'),
        Key("buzzer", boolean(), "Sound the buzzer on alerts (needs pins.buzzer)."),
        Key("long_press_s", number(0.2, 5.0, "0.2 to 5.0 seconds"), "Seconds a button must be held for a long press."),
    )),
    Section("camera", CameraConfig, (
        Key("source", choice(CAMERA_SOURCES),
            '"picamera2" (the Pi camera), "opencv" (a webcam: camera.device, or a video\n'
            'file: camera.path), "folder" (a folder of images: camera.path) or "simulator".'),
        Key("device", integer(0, 63)),
        Key("path", string()),
        Key("width", integer(160, 4056)),
        Key("height", integer(120, 3040)),
        Key("fps", number(1, 60, "1 to 60 frames per second"),
            "Frames per second read from the camera; recognition needs no more than ~10."),
        Key("zones", string(), "Zone file (TOML, normalised coordinates); empty: the whole frame is the middle."),
        Key("deck", string(), "Deck profile name (see `tarotmate decks`); empty: the built-in recognition."),
        Key("give_up_after_s", seconds_or_never(5.0, 86400.0),
            "A camera lost (unplugged, timing out) is retried while the game goes on from\n"
            "the buttons; after this many seconds the service exits non-zero so that\n"
            'systemd restarts it. "never" (the default): retry for ever.'),
        Key("focus", choice(("once", "fixed", "continuous")),
            'Pi camera with autofocus (Camera Module 3): "once" (one autofocus cycle on the\n'
            'table at start, then the lens held there while hands move), "fixed" (the lens\n'
            'at camera.lens_position) or "continuous" (the autofocus never stops; it hunts).'),
        Key("lens_position", number(0.0, 15.0, "0 to 15 dioptres"),
            "Lens position in dioptres, 1 / (the table's distance in metres): 1.4 for 0.7 m,\n"
            "1.25 for 0.8 m, 1.67 for 0.6 m; used by \"fixed\" and when autofocus fails."),
        Key("exposure", choice(("locked", "auto")),
            '"locked": exposure and white balance settle on the empty table at start, then\n'
            'stay (a hand or a white card does not change the whole frame); "auto": they follow.'),
        Key("settle_s", number(0.0, 10.0, "0 to 10 seconds"), "Seconds the automatic exposure settles before it is locked."),
        Key("max_exposure_ms", number(1.0, 100.0, "1 to 100 milliseconds"),
            "The longest exposure (a thrown card blurs less; 10 ms is one flicker period of a\n"
            "lamp on 50 Hz mains); the gain makes up the rest."),
        Key("max_gain", number(1.0, 16.0, "1 to 16"), "The highest analogue gain the locked exposure may use (Camera Module 3: 16)."),
        Key("hfov_deg", number(20.0, 140.0, "20 to 140 degrees"),
            "The camera's horizontal field of view, for the camera check's tilt (Camera\n"
            "Module 3: 66; its Wide model: 102)."),
        Key("check_at_start", boolean(), "Show the camera check on the OLED at start when it has advice (a camera, not a\nvideo, a folder or the simulator)."),
        Key("learn_deck", boolean(), "Learn the deck in play from the cards whose names are proven (answered, or\n"
            "undisputed until the deal is scored), kept in deck-memory.db beside the deal log\n"
            "(`tarotmate deck memory`; forgotten from the setup menu or with `--reset`). On by\n"
            "default: a table learning its deck asks fewer questions deal after deal (docs/enrollment.md)."),
    ), _finish_camera),
    Section("display", DisplayConfig, (
        Key("kind", choice(DISPLAY_KINDS),
            '"ssd1306" or "sh1106" (a real OLED over I2C), or an emulator on a desktop:\n'
            '"pygame" (a window), "capture" (PNG files in display.out), "gif"\n'
            '(an animated GIF in display.out), "terminal", "dummy" (nothing shown).'),
        Key("i2c_port", integer(0, 22)),
        Key("i2c_address", integer(0x03, 0x77, "an integer like 0x3C"),
            "The module's I2C address: 0x3C on most boards, some use 0x3D."),
        Key("rotate", integer(0, 3, choices=(0, 1, 2, 3), choices_text="0, 1, 2 or 3 (quarter turns)"),
            "Quarter turns: 0, 1, 2 or 3 (2 = the display mounted upside down)."),
        Key("width", integer(32, 256)),
        Key("height", integer(16, 128)),
        Key("out", string(), 'Output folder of the "capture" and "gif" emulators.'),
        Key("scale", integer(1, 8), "Zoom of the emulated display."),
    )),
    Section("pins", PinsConfig, (
        Key("up", gpio(), "BCM GPIO numbers (not header pin numbers); each button goes to GND."),
        Key("down", gpio()),
        Key("ok", gpio()),
        Key("back", gpio()),
        Key("buzzer", gpio(optional=True), 'Active buzzer and LED (through a resistor); "none" when not fitted.'),
        Key("led", gpio(optional=True)),
    ), _finish_pins),
    Section("store", StoreConfig, (
        Key("path", string(required=True),
            "The deal log (SQLite). A relative path lives in the state directory:\n"
            "/var/lib/tarotmate under systemd, else ~/.local/state/tarotmate."),
    )),
    Section("web", WebConfig, (
        Key("enabled", boolean(),
            "The table's own live page on the LAN (phones open it from the QR code in\n"
            "the OLED's menu): the deal in progress, the score sheet, the earlier games."),
        Key("host", ip_address(), "0.0.0.0: every interface of the Pi; 127.0.0.1: this machine only."),
        Key("port", integer(1, 65535)),
    )),
    Section("club", ClubConfig, (
        Key("enabled", boolean(), "Publish every finished deal to the club server (tarotmate club serve)."),
        Key("url", club_url(), 'The server, e.g. "http://192.168.1.10:8377"; empty: found on the LAN (DNS-SD).'),
        Key("table_name", table_name(), "The name the director sees when pairing this table."),
        Key("outbox", string(required=True),
            "Deals waiting for the server (SQLite); a relative path lives beside the deal log."),
    )),
)

SECTIONS: dict[str, type] = {s.name: s.cls for s in SCHEMA}
_BY_NAME = {s.name: s for s in SCHEMA}

EXAMPLE_HEADER = (
    "Tarotmate configuration: copy to /etc/tarotmate/tarotmate.toml (the systemd\n"
    "service reads it there) and check it with `tarotmate config check FILE`.\n"
    "Every key is optional; the value shown is the default unless marked."
)


# ---------------------------------------------------------------- reading

def _read_section(section: Section, raw: dict[str, Any]) -> Any:
    known = [k.name for k in section.keys]
    for key in raw:
        if key not in known:
            raise ConfigError(f"{section.name}.{key}: unknown key (known keys: {', '.join(known)})")
    defaults = section.cls()
    values = {f.name: getattr(defaults, f.name) for f in fields(section.cls)}
    for key in section.keys:
        if key.name in raw:
            values[key.name] = key.parse(f"{section.name}.{key.name}", raw[key.name], values)
    if section.finish is not None:
        section.finish(values, raw)
    return section.cls(**values)


def config_from_dict(data: dict[str, Any], source: str = "(dict)") -> Config:
    """Validate a parsed TOML document and build the :class:`Config`."""
    sections: dict[str, Any] = {}
    for name, raw in data.items():
        if name not in _BY_NAME:
            raise ConfigError(f"{name}: unknown section (known sections: {', '.join(SECTIONS)})")
        if not isinstance(raw, dict):
            raise ConfigError(f"{name}: expected a [{name}] table, got {_show(raw)}")
        sections[name] = _read_section(_BY_NAME[name], raw)
    return Config(**sections, source=source)


def load_config(path: str | os.PathLike[str] | None) -> Config:
    """Read and validate a TOML configuration file; ``None`` gives the defaults."""
    if path is None:
        return Config()
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")  # as written: a lone carriage return is no line break in TOML
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:
        raise ConfigError(f"{path}: not a Tarotmate configuration (arrays or tables nested too deeply)") from None
    except ValueError as exc:  # an integer of thousands of digits
        problem = "a number with thousands of digits" if "digits" in str(exc) else str(exc)
        raise ConfigError(f"{path}: not a Tarotmate configuration ({problem})") from None
    try:
        return config_from_dict(data, source=str(path))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


# ---------------------------------------------------------------- writing

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


def example_toml() -> str:
    """The documented example configuration, from :data:`SCHEMA` (``device/tarotmate.example.toml``)."""
    lines = [f"# {line}" for line in EXAMPLE_HEADER.splitlines()]
    for section in SCHEMA:
        defaults = section.cls()
        lines += ["", f"[{section.name}]"]
        for key in section.keys:
            doc = key.doc() if callable(key.doc) else key.doc
            lines += [f"# {line}" for line in doc.splitlines()]
            value = getattr(defaults, key.name) if key.example is _DEFAULT else key.example
            line = f"{key.name} = {key.example_text or _toml_value(section.name, key.name, value)}"
            lines.append(f"# {line}" if key.commented else line)
    return "\n".join(lines) + "\n"


def _toml_value(section: str, key: str, value: Any) -> str:
    if value is None and (section, key) == ("camera", "give_up_after_s"):
        return '"never"'
    if value is None:
        return '"none"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if section == "display" and key == "i2c_address":
        return f"0x{value:02X}"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(section, key, v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(section, k, v)}" for k, v in value.items()) + "}"
    return repr(value)


_TOML_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_string(text: str) -> str:
    """A TOML basic string of ``text``: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in _TOML_ESCAPES:
            out.append(_TOML_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_key(key: str) -> str:
    """A TOML key: bare when it may be, else quoted."""
    return key if key and all(c.isascii() and (c.isalnum() or c in "-_") for c in key) else _toml_string(key)
