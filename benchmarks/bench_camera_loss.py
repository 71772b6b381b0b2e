"""The camera lost for a while mid-deal, then back: the game goes on, nothing is lost.

``run_device`` (the main loop of ``tarotmate run``) plays two tricks of a
French tarot deal on the simulated table, the bids and the écart entered
with the (scripted) buttons, through a fake camera that delivers the
simulator's frames in real time (30 frames/s) behind the real camera
supervisor. When the first trick is in the log the camera fails
(``RuntimeError("Camera frontend has timed out!")``, as libcamera says) and
cannot be opened again for ``--outage`` seconds; meanwhile the player enters
the next card with the buttons (OK, Correct a card, the card). Then the
camera is back and the deal goes on from the camera. sd_notify goes to a
real notification socket, read as systemd would.

Prints (``--json``: one object on stdout): the outage, the longest gap
between two watchdog pings against the watchdog interval, the STATUS= lines
seen while the camera was lost, the screens shown, and whether the log holds
every card once, in order. Exits 1 when anything is lost or duplicated, the
watchdog would have lapsed, or the camera-lost screen never showed.

    .venv/bin/python benchmarks/bench_camera_loss.py [--outage 60] [--json]

(tests/app/test_camera_loss.py runs it with a 3 s outage.)
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

WATCHDOG_USEC = 2_000_000  # pings due every second; systemd would restart after 2 s without one


def deal_with_chien():
    from engine.tarot import random_deal

    for seed in range(1, 100):
        truth = random_deal(4, seed, poignee_rate=0.0)
        if truth.contract in ("prise", "garde"):
            return truth
    raise RuntimeError("no deal with a chien")


def bidding_presses(truth) -> list[tuple[str, str]]:
    from device.games.french_tarot.menus import BiddingFlow

    return BiddingFlow.presses([bid for _, bid in truth.bids])


def card_presses(code: str) -> list[tuple[str, str]]:
    """OK (the game menu), down to "Correct a card", OK, then the card's category and rank."""
    from engine.cards import SUITS

    presses = [("ok", "press")] + [("down", "press")] * 3 + [("ok", "press")]
    categories = ["T", *SUITS, "EX"]
    category = "EX" if code == "EX" else code[0]
    presses += [("down", "press")] * categories.index(category) + [("ok", "press")]
    if category == "EX":
        return presses
    ranks = ([f"T{n:02d}" for n in range(21, 0, -1)] if category == "T"
             else [category + r for r in ("K", "Q", "N", "J")] + [f"{category}{n:02d}" for n in range(10, 0, -1)])
    return presses + [("down", "press")] * ranks.index(code) + [("ok", "press")]


def log_ops(db: Path) -> list[dict]:
    from device.storage.deal_log import DealLog, StoreError

    if not db.exists():
        return []
    try:
        with DealLog.open(db, writer=False) as log:
            game = log.open_game("device")
            deal = log.open_deal(game.id) if game else None
            return log.operations(deal.id) if deal else []
    except StoreError:
        return []


class FakeCamera:
    """The simulator's frames in real time; fails after the first trick, refuses to open during the outage."""

    def __init__(self, frames, fps: float, outage_s: float, cut_when):
        self.frames = frames  # one iterator shared by every opening: the table goes on while the camera is away
        self.fps = fps
        self.outage_s = outage_s
        self.cut_when = cut_when
        self.state = "before"  # before, outage, after
        self.lost_at = self.back_at = None
        self.exhausted = False

    def open(self):
        from vision.sources import SourceError

        if self.state == "outage":
            if time.monotonic() < self.back_at:
                raise SourceError("Pi camera 0: no camera found (the cable is out)")
            self.state = "after"
        return _Stream(self)


class _Stream:
    def __init__(self, camera: FakeCamera):
        self.camera = camera
        self.fps = camera.fps

    def __iter__(self):
        from vision.sources import Frame

        cam = self.camera
        for f in cam.frames:
            if cam.state == "before" and cam.cut_when():
                cam.state, cam.lost_at = "outage", time.monotonic()
                cam.back_at = cam.lost_at + cam.outage_s
                raise RuntimeError("Camera frontend has timed out!")
            time.sleep(1 / cam.fps)
            yield Frame(f.image, f.timestamp, f.index)
        cam.exhausted = True

    def close(self):
        pass


class Player:
    """The buttons: the bids, "écart done" once the chien is seen, the card missed while the
    camera is away, and the end of the run once the camera has shown everything."""

    def __init__(self, truth, db: Path, camera: FakeCamera, stop, lost_screen_seen):
        self.truth, self.db, self.camera, self.stop = truth, db, camera, stop
        self.lost_screen_seen = lost_screen_seen  # the player reads the OLED before pressing
        self.queue = bidding_presses(truth)
        self.ecart_done = self.card_entered = False
        self.by_hand: str | None = None
        self.checked = 0.0

    def drain(self):
        now = time.monotonic()
        if now - self.checked >= 0.1 and not self.queue:
            self.checked = now
            ops = log_ops(self.db)
            plays = [op["card"] for op in ops if op["op"] == "play"]
            if not self.ecart_done and any(op["op"] == "chien" for op in ops):
                self.ecart_done = True
                self.queue = [("ok", "press")]
            elif (self.camera.state == "outage" and not self.card_entered and len(plays) == 4
                  and self.lost_screen_seen()):
                self.card_entered = True
                self.by_hand = self.truth.tricks[1].cards[0]
                self.queue = card_presses(self.by_hand)
            elif self.camera.exhausted and len(plays) >= 8:
                self.stop.set("done")
        events, self.queue = self.queue[:1], self.queue[1:]  # one press per loop turn, like a hand
        return events

    def close(self):
        pass


class ScreenLog:
    """A display that keeps the images shown."""

    def __init__(self):
        self.images = []

    def show(self, image):
        if not self.images or self.images[-1].tobytes() != image.tobytes():
            self.images.append(image.copy())

    def close(self):
        pass


def scenario(outage_s: float) -> dict:
    from device.app.loop import StopFlag, run_device
    from device.config import config_from_dict
    from device.hardware.outputs import Outputs
    from device.screens import render
    from device.screens.views import CameraLostView
    from vision.simulator import GroundTruthRecogniser, TableSimulator, Trick, french_deal_script
    from vision.supervised_source import SupervisedSource
    from vision.tracker import Tracker

    truth = deal_with_chien()
    work = Path(tempfile.mkdtemp(prefix="tarotmate-camera-loss-"))
    db = work / "device.db"
    script = french_deal_script([Trick(t.leader + 1, tuple(t.cards), t.winner + 1) for t in truth.tricks[:2]],
                                players=4, chien=truth.chien, taker=truth.taker + 1)
    sim = TableSimulator(script, players=4, seed=1, size=(640, 360), speed=3.0)
    oracle = GroundTruthRecogniser(sim)
    tracker = Tracker(sim.zones, localiser=oracle.localise, namer=oracle, cropper=oracle.crop)

    def trick_one_logged() -> bool:
        return sum(op["op"] == "play" for op in log_ops(db)) >= 4

    camera = FakeCamera(oracle.frames(), sim.fps, outage_s, trick_one_logged)
    source = SupervisedSource(camera.open, live=True, stall_s=5.0, backoff_s=(0.5, 2.0), fps=sim.fps,
                              report=lambda text: print(text, file=sys.stderr, flush=True))
    stop = StopFlag()
    screens = ScreenLog()
    lost_screens = {render(CameraLostView(problem, s)).tobytes() for problem in ("failed", "no_camera")
                    for s in range(int(outage_s) + 8)}
    player = Player(truth, db, camera, stop,
                    lambda: any(image.tobytes() in lost_screens for image in screens.images))

    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(work / "notify.sock"))
    server.settimeout(0.2)
    received: list[tuple[float, str]] = []
    listening = threading.Event()
    listening.set()

    def listen():
        while listening.is_set():
            try:
                received.append((time.monotonic(), server.recv(4096).decode()))
            except socket.timeout:
                continue
            except OSError:
                return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    os.environ.update(NOTIFY_SOCKET=str(work / "notify.sock"), WATCHDOG_USEC=str(WATCHDOG_USEC))
    os.environ.pop("WATCHDOG_PID", None)
    config = config_from_dict({
        "game": {"dealer": truth.dealer, "names": ["Ana", "Luis", "Marta", "Pau"]},
        "display": {"kind": "dummy"}, "ui": {"buzzer": False}, "store": {"path": str(db)},
    })
    started = time.monotonic()
    rc = run_device(config, stop=stop, source=source, tracker=tracker, buttons=player,
                    outputs=Outputs([screens]), report=lambda text: print(text, file=sys.stderr, flush=True))
    elapsed = time.monotonic() - started
    time.sleep(0.3)
    listening.clear()
    thread.join(1)
    server.close()

    plays = [op["card"] for op in log_ops(db) if op["op"] == "play"]
    expected = list(truth.tricks[0].cards) + list(truth.tricks[1].cards)
    pings = [t for t, m in received if "WATCHDOG=1" in m]
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    ready_at = next((t for t, m in received if m.startswith("READY=1")), None)
    status_lost = sorted({m.split("\n")[0] for t, m in received if "camera lost" in m})
    shown_lost = sum(image.tobytes() in lost_screens for image in screens.images)
    return {
        "outage_s": outage_s,
        "camera_lost_for_s": round((camera.back_at or 0) - (camera.lost_at or 0), 1),
        "run_s": round(elapsed, 1),
        "exit_code": rc,
        "cards_in_log": plays,
        "cards_expected": expected,
        "nothing_lost": plays == expected,
        "entered_by_hand": player.by_hand,
        "watchdog_interval_s": WATCHDOG_USEC / 2e6,
        "pings": len(pings),
        "longest_ping_gap_s": round(max(gaps), 2) if gaps else None,
        "watchdog_lapsed": bool(gaps) and max(gaps) >= WATCHDOG_USEC / 1e6 or not gaps,
        "ready": ready_at is not None,
        "status_lines_while_lost": status_lost[:3],
        "camera_lost_screens_shown": shown_lost,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outage", type=float, default=60.0, help="seconds without a camera (default 60)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = scenario(args.outage)
    ok = (result["nothing_lost"] and not result["watchdog_lapsed"] and result["camera_lost_screens_shown"] > 0
          and result["exit_code"] == 0 and result["status_lines_while_lost"])
    if args.json:
        print(json.dumps({**result, "ok": ok}))
    else:
        print(f"camera lost for {result['camera_lost_for_s']} s mid-deal, then back; run took {result['run_s']} s")
        print(f"  cards in the log: {len(result['cards_in_log'])}/{len(result['cards_expected'])}, "
              f"{'each once, in order' if result['nothing_lost'] else 'LOST OR DUPLICATED'}; "
              f"{result['entered_by_hand']} entered with the buttons while the camera was away")
        print(f"  watchdog: {result['pings']} pings, longest gap {result['longest_ping_gap_s']} s "
              f"(due every {result['watchdog_interval_s']:g} s; lapses after {WATCHDOG_USEC / 1e6:g} s): "
              f"{'lapsed' if result['watchdog_lapsed'] else 'never lapsed'}")
        print(f"  camera-lost screens shown: {result['camera_lost_screens_shown']}")
        for line in result["status_lines_while_lost"]:
            print(f"  {line}")
        print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
