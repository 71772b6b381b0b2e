"""``tarotmate run`` before the game starts: nothing in the deal log until the
hardware is up, one line for a deal log it cannot create, a pygame window
refused without a desktop, and headless without its OLED."""

from __future__ import annotations

import pytest

from device.cli import EXIT_ERROR, main
from device.hardware.display import no_desktop, open_display
from engine.errors import TarotmateError


def _config(tmp_path, store, camera='source = "opencv"\ndevice = 7', display='kind = "dummy"'):
    path = tmp_path / "tarotmate.toml"
    path.write_text(f"[camera]\n{camera}\n[display]\n{display}\n[ui]\nbuzzer = false\n"
                    f'[store]\npath = "{store}"\n')
    return path


def _error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("tarotmate run: error: ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_no_camera_creates_nothing_in_the_deal_log(tmp_path, capsys):
    store = tmp_path / "state" / "tarotmate.db"
    assert main(["run", "--config", str(_config(tmp_path, store))]) == EXIT_ERROR
    assert "cannot open camera 7" in _error(capsys.readouterr().err)
    assert not store.exists() and not store.parent.exists()


def test_an_empty_image_folder_creates_nothing_either(tmp_path, capsys):
    store = tmp_path / "tarotmate.db"
    (tmp_path / "frames").mkdir()
    code = main(["run", "--config", str(_config(tmp_path, store, camera=f'source = "folder"\npath = "{tmp_path / "frames"}"'))])
    assert code == EXIT_ERROR and "no images in" in _error(capsys.readouterr().err)
    assert not store.exists()


@pytest.mark.parametrize("store,why", [
    ("{tmp}/afile/tarotmate.db", "is a file, not a folder"),
    ("/proc/tarotmate/tarotmate.db", "cannot create it"),
    ("{tmp}", "is a folder, not a file"),
])
def test_a_deal_log_that_cannot_be_created(tmp_path, capsys, store, why):
    (tmp_path / "afile").write_text("x")
    store = store.format(tmp=tmp_path)
    config = _config(tmp_path, store, camera='source = "simulator"\nwidth = 320\nheight = 180')
    assert main(["run", "--config", str(config), "--max-frames", "2"]) == EXIT_ERROR
    line = _error(capsys.readouterr().err)
    assert "store.path" in line and store in line and why in line


def test_pygame_without_a_desktop_is_a_clear_error(monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    assert no_desktop() is not None
    with pytest.raises(TarotmateError, match=r'display.kind = "pygame" needs a desktop.*"terminal"'):
        open_display("pygame")
    assert no_desktop({"DISPLAY": ":0"}) is None and no_desktop({"SDL_VIDEODRIVER": "dummy"}) is None


def test_run_with_pygame_and_no_desktop_stops_with_one_line(tmp_path, capsys, monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    store = tmp_path / "tarotmate.db"
    config = _config(tmp_path, store, camera='source = "simulator"', display='kind = "pygame"')
    assert main(["run", "--config", str(config), "--max-frames", "2"]) == EXIT_ERROR
    assert "needs a desktop" in _error(capsys.readouterr().err)
    assert not store.exists()


def test_run_without_its_oled_goes_on_headless(tmp_path, capsys):
    store = tmp_path / "tarotmate.db"
    config = _config(tmp_path, store, camera='source = "simulator"\nwidth = 320\nheight = 180',
                     display='kind = "ssd1306"\ni2c_port = 9')
    assert main(["run", "--config", str(config), "--max-frames", "3"]) == 0
    err = capsys.readouterr().err
    assert "no display" in err and "running without it" in err
    assert store.exists()


# --- the desktop recipe: the simulated table waits for the players ---------------

class LateBids:
    """The simulated deal's bids entered late: nothing for many frames, then
    the bids one press at a time (a player at the keys), then OK ("écart
    done") once the chien is in the log."""

    def __init__(self, presses, db, wait=40):
        self.presses, self.db, self.wait, self.calls, self.ecart_done = list(presses), db, wait, 0, False

    def drain(self):
        self.calls += 1
        if self.calls > self.wait and self.presses and self.calls % 2 == 0:
            return [self.presses.pop(0)]
        if not self.presses and not self.ecart_done and self.db.exists():
            import sqlite3

            conn = sqlite3.connect(self.db)
            seen = conn.execute("SELECT COUNT(*) FROM operations WHERE op LIKE '%\"chien\"%'").fetchone()[0]
            conn.close()
            if seen:
                self.ecart_done = True
                return [("ok", "press")]
        return []

    def close(self):
        pass


def test_the_simulated_table_waits_for_the_bids(tmp_path, capsys):
    from device.app.loop import run_device
    from device.config import config_from_dict
    from device.games.french_tarot.simulated import simulated_deal
    from device.storage.deal_log import DealLog
    from tests.app.test_run import bidding_presses

    config = config_from_dict({
        "game": {"dealer": 1, "names": ["Ana", "Luis", "Marta", "Pau"]},
        "camera": {"source": "simulator", "width": 480, "height": 270, "fps": 50},
        "display": {"kind": "dummy"}, "ui": {"buzzer": False},
        "store": {"path": str(tmp_path / "device.db")},
    })
    truth = simulated_deal(config.game, 1)
    assert truth.contract in ("prise", "garde")  # a chien to show, an écart to confirm
    from device.hardware.from_config import simulated_table
    from vision.simulator import GroundTruthRecogniser
    from vision.sources import Frame
    from vision.tracker import Tracker

    lines = []
    from device.app.registry import game_for

    sim = simulated_table(config, game_for(config.game.kind), report=lines.append).simulator  # the recipe's table, named without the model
    gt = GroundTruthRecogniser(sim)
    tracker = Tracker(sim.zones, localiser=gt.localise, namer=gt, cropper=gt.crop)
    frames = (Frame(f.image, f.timestamp, f.index) for f in gt.frames())
    run_device(config, source=frames, tracker=tracker, buttons=LateBids(bidding_presses(truth), tmp_path / "device.db"),
               max_frames=900, report=lines.append)
    assert any("the deal was bid" in line for line in lines)
    assert not [line for line in lines if "refused" in line], [line for line in lines if "refused" in line][:3]
    with DealLog.open(tmp_path / "device.db") as log:
        game = log.open_game("device")
        deal = log.open_deal(game.id) or log.deals(game.id)[-1]
        ops = [op for op in log.operations(deal.id)]
    kinds = [op.get("op") or op.get("kind") for op in ops]
    assert kinds[:4] == ["bid"] * 4, kinds[:8]
    assert "chien" in kinds and "play" in kinds  # once the players had bid, the table went on
    assert kinds.index("play") > kinds.index("chien")


def test_a_camera_that_gives_no_frame_creates_nothing(tmp_path):
    from device.app.loop import run_device
    from device.config import config_from_dict

    store = tmp_path / "device.db"
    config = config_from_dict({"display": {"kind": "dummy"}, "ui": {"buzzer": False}, "store": {"path": str(store)}})

    class Nothing:
        def drain(self):
            return []

        def close(self):
            pass

    with pytest.raises(TarotmateError, match="no frame came from it"):
        run_device(config, source=[], tracker=object(), buttons=Nothing(), report=lambda t: None)
    assert not store.exists()
