"""The device's main loop (``tarotmate run``) on the simulated table with
mock buttons: bids from the buttons, cards from the camera, sd_notify,
clean stop on SIGTERM, resume from the log."""

import os
import signal
import socket

import pytest

from device.app.loop import StopFlag, run_device
from device.hardware.outputs import Outputs
from device.config import config_from_dict
from device.games.french_tarot.menus import BiddingFlow
from device.hardware.display import open_display
from device.storage.deal_log import DealLog
from engine.tarot import random_deal
from vision.simulator import GroundTruthRecogniser, TableSimulator, Trick, french_deal_script
from vision.sources import Frame
from vision.tracker import Tracker



class ScriptedButtons:
    """Button presses handed to the loop at given frames."""

    def __init__(self, schedule):
        self.schedule = schedule  # {call number: [events]}
        self.calls = 0

    def drain(self):
        self.calls += 1
        return self.schedule.get(self.calls, [])

    def close(self):
        pass


class EcartDoneAfterChien(ScriptedButtons):
    """The bids at once, then "écart done" (OK) once the chien is in the log."""

    def __init__(self, schedule, db):
        super().__init__(schedule)
        self.db = db
        self.pressed = False

    def drain(self):
        events = super().drain()
        if not self.pressed and self.calls > 1:
            import sqlite3

            conn = sqlite3.connect(self.db)
            found = conn.execute("SELECT COUNT(*) FROM operations WHERE op LIKE '%\"chien\"%'").fetchone()[0]
            conn.close()
            if found:
                self.pressed = True
                events = events + [("ok", "press")]
        return events


def bidding_presses(truth):
    """The presses that enter the truth's bids in the bidding menu (down to the bid, OK)."""
    return BiddingFlow.presses([bid for _, bid in truth.bids])


def table(truth, tricks):
    script = french_deal_script(
        [Trick(t.leader + 1, tuple(t.cards), t.winner + 1) for t in truth.tricks[:tricks]],
        players=4, chien=truth.chien if truth.contract in ("prise", "garde") else (), taker=truth.taker + 1)
    sim = TableSimulator(script, players=4, seed=1, size=(640, 360), speed=3.0)
    gt = GroundTruthRecogniser(sim)
    tracker = Tracker(sim.zones, localiser=gt.localise, namer=gt, cropper=gt.crop)
    return (Frame(f.image, f.timestamp, f.index) for f in gt.frames()), tracker


class NotifyListener:
    """A notification socket read as systemd reads it: at once, in its own thread
    (a socket nobody reads fills up after ten datagrams)."""

    def __init__(self, path: str):
        import threading

        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.server.bind(path)
        self.server.settimeout(0.05)
        self.received: list[str] = []
        self._running = True
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self):
        while self._running:
            try:
                self.received.append(self.server.recv(4096).decode())
            except socket.timeout:
                continue
            except OSError:
                return

    def messages(self) -> list[str]:
        import time

        time.sleep(0.2)  # what is in flight arrives
        out, self.received = self.received, []
        return out

    def close(self):
        self._running = False
        self._thread.join(1)
        self.server.close()


@pytest.fixture
def notify_socket(tmp_path, monkeypatch):
    path = str(tmp_path / "notify.sock")
    listener = NotifyListener(path)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "2000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    yield listener
    listener.close()


def messages(listener):
    return listener.messages()


def config_for(tmp_path, truth):
    return config_from_dict({
        "game": {"dealer": truth.dealer, "names": ["Ana", "Luis", "Marta", "Pau"]},
        "display": {"kind": "dummy"}, "ui": {"buzzer": False},
        "store": {"path": str(tmp_path / "device.db")},
    })


def find_deal_with_chien():
    for seed in range(1, 100):
        truth = random_deal(4, seed, poignee_rate=0.0)
        if truth.contract in ("prise", "garde"):
            return truth
    raise AssertionError("no deal with a chien")


def test_bids_from_buttons_cards_from_camera_and_sd_notify(tmp_path, notify_socket):
    truth = find_deal_with_chien()
    frames, tracker = table(truth, tricks=2)
    buttons = EcartDoneAfterChien({1: bidding_presses(truth)}, tmp_path / "device.db")
    display = open_display("dummy")
    rc = run_device(config_for(tmp_path, truth), source=frames, tracker=tracker, buttons=buttons,
                    outputs=Outputs([display]), report=lambda t: None)
    assert rc == 0
    with DealLog.open(tmp_path / "device.db") as log:
        deal = log.open_deal(log.open_game("device").id)
        ops = log.operations(deal.id)
    kinds = [op["op"] for op in ops]
    assert kinds[: len(truth.bids)] == ["bid"] * len(truth.bids)
    assert {"op": "chien", "cards": list(truth.chien)} in ops
    plays = [op["card"] for op in ops if op["op"] == "play"]
    assert plays == list(truth.tricks[0].cards) + list(truth.tricks[1].cards)
    sent = messages(notify_socket)
    assert sent[0].startswith("STATUS=starting")
    assert any(m.startswith("READY=1") for m in sent)
    assert "WATCHDOG=1" in sent and sent[-1] == "STOPPING=1"
    assert display.shown > 0


def test_sigterm_stops_the_loop_cleanly_and_the_log_resumes(tmp_path, notify_socket):
    truth = find_deal_with_chien()
    frames, tracker = table(truth, tricks=1)
    stop = StopFlag()
    previous = signal.getsignal(signal.SIGTERM)
    stop.install()
    presses = bidding_presses(truth)

    class TermAfterBids(ScriptedButtons):
        def drain(self):
            events = super().drain()
            if self.calls == 3:
                os.kill(os.getpid(), signal.SIGTERM)
            return events

    try:
        run_device(config_for(tmp_path, truth), stop=stop, source=frames, tracker=tracker,
                   buttons=TermAfterBids({1: presses}), outputs=Outputs([open_display("dummy")]),
                   report=lambda t: None)
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    assert stop and stop.reason == "SIGTERM"
    assert messages(notify_socket)[-1] == "STOPPING=1"
    with DealLog.open(tmp_path / "device.db") as log:
        ops = log.operations(log.open_deal(log.open_game("device").id).id)
    assert [op["op"] for op in ops] == ["bid"] * len(truth.bids)  # stopped at once: no card yet
    # the next start replays the bids from the log and goes on with the camera
    frames, tracker = table(truth, tricks=1)
    run_device(config_for(tmp_path, truth), source=frames, tracker=tracker, buttons=EcartDoneAfterChien({}, tmp_path / "device.db"),
               outputs=Outputs([open_display("dummy")]), report=lambda t: None)
    with DealLog.open(tmp_path / "device.db") as log:
        ops = log.operations(log.open_deal(log.open_game("device").id).id)
    assert [op for op in ops if op["op"] == "bid"] == [{"op": "bid", "seat": s, "bid": b} for s, b in truth.bids]
    assert [op["card"] for op in ops if op["op"] == "play"] == list(truth.tricks[0].cards)


MODEL = __import__("pathlib").Path(__file__).resolve().parents[2] / "models" / "cards.onnx"


@pytest.mark.skipif(not MODEL.is_file(), reason="needs the card model in models/ (cards.onnx)")
def test_tarotmate_run_as_systemd_sees_it(tmp_path):
    """The real command in a subprocess: READY=1 on the socket, then SIGTERM
    stops it cleanly (exit 0, STOPPING=1) well within TimeoutStopSec."""
    import subprocess
    import sys
    import time

    config = tmp_path / "tarotmate.toml"
    config.write_text(
        '[camera]\nsource = "simulator"\nwidth = 640\nheight = 360\n'
        '[display]\nkind = "dummy"\n[ui]\nbuzzer = false\n'
        f'[store]\npath = "{tmp_path / "device.db"}"\n'
    )
    path = str(tmp_path / "notify.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    server.settimeout(60)
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="10000000", GPIOZERO_PIN_FACTORY="mock")
    proc = subprocess.Popen([sys.executable, "-m", "device.cli", "run", "--config", str(config)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        received = []
        while not any(m.startswith("READY=1") for m in received):
            received.append(server.recv(4096).decode())
        proc.send_signal(signal.SIGTERM)
        started = time.monotonic()
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
        assert time.monotonic() - started < 10
        assert "stopped (SIGTERM)" in err
        server.settimeout(1)
        rest = []
        try:
            while True:
                rest.append(server.recv(4096).decode())
        except (socket.timeout, BlockingIOError):
            pass
        assert rest and rest[-1] == "STOPPING=1"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        server.close()


def test_a_new_configuration_closes_the_old_game(tmp_path):
    from device.app.loop import close_other_game

    with DealLog.open(tmp_path / "log.db") as log:
        game = log.start_game("french-tarot", ["A", "B", "C", "D"], {}, label="device")
        log.start_deal(game.id, {"dealer": 0})
        close_other_game(log, "french-tarot", ["A", "B", "C", "D"], {}, report=lambda t: None)
        assert log.open_game("device").id == game.id  # same game: kept
        said = []
        close_other_game(log, "trivium", ["A", "B", "C"], {}, report=said.append)
        assert log.open_game("device") is None and "game 1 closed" in said[0]
        assert log.deals(game.id)[0].finished is not None


@pytest.mark.parametrize("learn", [False, True, None])
def test_camera_learn_deck_lets_the_table_learn_its_deck(tmp_path, learn):
    from vision.deck_memory import MemoryNamer, memory_path_beside
    from vision.namer import MODEL_FILE, Namer, models_dir

    if not (models_dir() / MODEL_FILE).is_file():
        pytest.skip("needs the card model")
    truth = find_deal_with_chien()
    script = french_deal_script([], players=4, chien=(), taker=truth.taker + 1)
    sim = TableSimulator(script, players=4, seed=1, size=(640, 360), speed=3.0)
    tracker = Tracker(sim.zones, namer=Namer.load())
    frames = (Frame(f.image, f.timestamp, f.index) for f in sim.frames())
    config = config_from_dict({
        "game": {"dealer": truth.dealer, "names": ["Ana", "Luis", "Marta", "Pau"]},
        "display": {"kind": "dummy"}, "ui": {"buzzer": False}, "store": {"path": str(tmp_path / "device.db")},
        "camera": {} if learn is None else {"learn_deck": learn}})
    learn = config.camera.learn_deck if learn is None else learn
    assert config.camera.learn_deck is learn  # said, or on by default
    rc = run_device(config, source=frames, tracker=tracker, buttons=ScriptedButtons({}),
                    outputs=Outputs([open_display("dummy")]), report=lambda t: None)
    assert rc == 0
    assert memory_path_beside(tmp_path / "device.db").is_file() == learn
    assert isinstance(tracker.namer, MemoryNamer) == learn
    assert tracker.settings.suit_margin == (5.0 if learn else 0.0)  # the learning bars go with the memory
    assert tracker.settings.model_suit_margin == (2.0 if learn else 0.0)


class JudgedTracker:
    """A tracker that finds, from its sixth frame, that the card model cannot read the deck."""

    def __init__(self, inner):
        self.inner = inner
        self.frames = 0

    def process(self, frame):
        self.frames += 1
        return self.inner.process(frame)

    def deck_unread(self):
        return self.frames > 5

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_a_deck_the_card_model_cannot_read_is_said_in_the_journal_and_on_the_status_line(tmp_path, notify_socket):
    from device.app.loop import UNREAD_STATUS

    truth = find_deal_with_chien()
    frames, tracker = table(truth, tricks=1)
    said = []
    rc = run_device(config_for(tmp_path, truth), source=frames, tracker=JudgedTracker(tracker),
                    buttons=ScriptedButtons({1: bidding_presses(truth)}), outputs=Outputs([open_display("dummy")]),
                    report=said.append)
    assert rc == 0
    assert sum("cannot read this deck" in line for line in said) == 1  # said once, when it changed
    assert any("tarotmate enroll" in line for line in said)
    statuses = [m for m in messages(notify_socket) if m.startswith("STATUS=")]
    assert any(UNREAD_STATUS in m for m in statuses)
    assert not any(UNREAD_STATUS in m for m in statuses[:1])  # not before
