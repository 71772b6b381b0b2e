"""The table's page (device/web) stands below the club and the commands: it imports neither; the games
(device/games) stand below both network parts: how a game shows on the page is its own page module."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

DEVICE = Path(__file__).resolve().parents[2] / "device"
WEB = DEVICE / "web"
ABOVE = ("device.club", "device.commands")


def imports_of(folder: Path, above: tuple[str, ...]) -> list[str]:
    """Every import (at the top or inside a function) of a module under ``folder`` that names ``above``."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.relative_to(DEVICE)}: {n}" for n in names if n.startswith(above)]
    return found


def test_no_module_of_device_web_names_the_club_or_the_commands():
    assert imports_of(WEB, ABOVE) == []


def test_no_game_names_the_table_page_or_the_club():
    assert imports_of(DEVICE / "games", ("device.web", "device.club", "device.commands")) == []


def test_serving_the_table_page_loads_nothing_of_the_club_or_the_commands():
    code = ("import sys, device.web.server, device.web.table_state;"
            "page = device.web.server.TablePage('127.0.0.1', 0).start(); page.stop();"
            f"print(sorted(m for m in sys.modules if m.startswith({ABOVE!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_the_club_server_names_its_deals_without_loading_the_devices_games(tmp_path):
    """The club's pages name a deal's result from the engines (``device.club.records.result_label``):
    the server loads no screen, camera or menu code (about 20 MiB of PIL and numpy)."""
    code = ("import sys; from device.club.db import Database; from device.club.store import ClubStore;"
            "from device.club.server import ClubApp, result_label;"
            f"app = ClubApp(ClubStore(Database({str(tmp_path / 'club.db')!r})));"
            "assert app.board_data(None)['tables'] == [];"
            "labels = [result_label({'game': 'trivium', 'combination': 'gran_maestre'}),"
            "          result_label({'game': 'french-tarot', 'contract': 'garde_sans'}),"
            "          result_label({'game': 'french-tarot', 'contract': None})];"
            "app.close();"
            "print(labels, sorted(m for m in ('PIL', 'numpy', 'device.games', 'device.screens') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "['GRAN MAESTRE', 'Garde sans', 'Passed'] []"
