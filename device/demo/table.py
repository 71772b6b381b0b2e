"""The demo: a whole game on the simulated table, through the real pipeline.

A random legal deal (or Trivium game) from the engine is the *truth*. The
table simulator renders its visible part (the chien shown, every card
played, tercias laid) as camera frames; the frames go through the tracker
(localisation, the shipped ONNX card model, votes), the controller, the deal
log and the engine, exactly as on the device. Everything the camera cannot
see (bids, the écart, poignées, draws...) is entered by a scripted player as
menu decisions, as if pressed on the buttons; the same player answers the
OLED when a card is uncertain, and corrects or enters a card by hand when
the camera got it wrong or missed it (each such case is counted).

The player only reads the truth and the engine's state, so the demo is
state-driven: killed at any moment and started again with the same log, it
replays the log and carries on from where the log ends, and it finishes with
the same scores.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from device.app.table import TableApp
from device.hardware.outputs import Outputs
from device.hardware.recorder import ScreenRecorder
from device.paths import ensure_folder
from device.app.registry import game_for
from device.app.session import GameSession
from device.storage.deal_log import DealLog, StoreError
from engine.errors import TarotmateError
from vision.deck_reading import DeckReading, ReadingNews

DB_NAME = "demo.db"


@dataclass
class DemoSettings:
    game: str = "french-tarot"
    players: int = 4
    seed: int = 1
    out: Path = Path("demo-out")
    fast: bool = False
    display: str = "auto"  # auto, pygame, none
    recogniser: str = "auto"  # auto (the model when shipped), model, truth
    deck: str | None = None
    profile: str | None = None  # an enrolled deck's profile names the cards (as `tarotmate run --deck NAME`)
    lang: str = "en"
    style: str = "french"
    fresh: bool = False
    speed: float | None = None  # simulated hands' speed (default 1, 1.6 with --fast)
    frame_width: int | None = None  # simulated camera width (default 1280, 960 with --fast)
    max_seconds: float | None = None
    deals: int = 1  # deals (Trivium: games) to play; fewer when the target is reached
    target: int | None = None  # the total that ends the game early
    conditions: str = "easy"  # the simulated table: easy or hard (vision.simulator.conditions)
    rules_help: bool = True  # the rules tell the camera which cards are possible (off: for measuring)
    follow_weight: float | None = None  # French tarot, for measuring: the prior of a card not following the trick
    seat_sides: bool = True  # a trick's card on a later player's side asks for the missed one (game.played_in_front)
    trace: Path | None = None  # for diagnosis: one JSON line per scene (truth, votes, events, outcome)
    learn_deck: bool = True  # the table learns its deck as it plays (device.app.deck_learning)
    models: Path | None = None  # the card model's folder (default: the shipped models/), for measuring another (its locator.onnx too, when there)
    tracker: Any = None  # for measuring: a dict of tracker settings over the card model's own, or a whole TrackerSettings


# ---------------------------------------------------------------- outputs


def open_demo_outputs(settings: DemoSettings, recorder: ScreenRecorder, report) -> Outputs:
    displays: list[Any] = [recorder]
    want = settings.display
    if want == "auto":
        has_screen = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
        want = "pygame" if has_screen and os.environ.get("SDL_VIDEODRIVER") != "dummy" else "none"
    keep_alive = None
    if want == "pygame":
        from device.hardware.display import open_display

        try:
            displays.append(open_display("pygame", scale=4))
            import pygame

            keep_alive = pygame.event.pump  # the window stays responsive between screens
            report("showing the OLED in a window")
        except Exception as exc:  # no usable window: the GIF still records everything
            report(f"no OLED window ({exc}); the screens go to the GIF only")
    return Outputs(displays, keep_alive=keep_alive)


# ---------------------------------------------------------------- recognition


def locator_in(models: Path | None):
    """The card locator network of ``models`` (another folder than the shipped one, holding a
    ``locator.onnx``), for measuring a candidate card finder; None for the default card finder."""
    if models is None:
        return None
    from vision.locator import LOCATOR_FILE, CardLocator

    path = Path(models) / LOCATOR_FILE
    return CardLocator.load(path) if path.is_file() else None


def check_recognition(kind: str, profile: str | None) -> None:
    """A one-line error for a recogniser the demo does not know, or a deck profile asked for with the
    simulator's truth (a profile names the cards with the card model)."""
    if kind not in ("auto", "model", "truth"):
        raise TarotmateError(f"unknown recogniser {kind!r}: expected auto, model or truth")
    if profile is not None and kind == "truth":
        raise TarotmateError("--profile names the cards with the card model: not with --recogniser truth")


class Recognition:
    """Builds a tracker for each simulated scene: the real recognition
    (localiser + ONNX namer) or, on request, the simulator's ground truth."""

    def __init__(self, kind: str, deck: str | None, report, models: Path | None = None, tracker: Any = None,
                 profile: str | None = None):
        self.kind = kind
        self.namer = None
        self.fallback = False
        self.sim_frame = None  # the simulator's frame the tracker reads now
        self.tracker_settings = tracker  # None: the tracker's own for the namer; a dict: those, changed
        self.localiser = None  # None: the default card finder (models/locator.onnx)
        self.reading = None  # how surely the card model reads the deck: one gauge for all the scenes
        self.tracker = None  # the latest scene's tracker
        self.news = ReadingNews()  # what was last said of the deck's reading (reading_news)
        check_recognition(kind, profile)
        if kind in ("auto", "model"):
            from vision.decks import load_namer

            try:
                self.namer = load_namer(deck=profile, models_dir=models, at_table=True)
                self.kind = "model"
                self.localiser = locator_in(models)
            except TarotmateError as exc:
                if kind == "model" or profile is not None:  # a deck asked for by name is never replaced
                    raise
                report(f"WARNING: {exc}")
                report("WARNING: the cards are named from the simulator's ground truth instead of the model")
                self.kind = "truth"
                self.fallback = True
        if self.kind == "model" and profile is not None:
            self.description = f"deck profile {profile}"
            report(f"deck profile {profile} ({self.namer.input_size[0]}x{self.namer.input_size[1]} crops)")
        elif self.kind == "model":
            self.description = f"ONNX model {self.namer.model_id}"
            report(f"card model {self.namer.model_id} ({self.namer.input_size[0]}x{self.namer.input_size[1]})")
        else:
            self.description = "the simulator's ground truth" + (" (no card model)" if self.fallback else "")

    def tracker_and_frames(self, simulator):
        from vision.sources import Frame
        from vision.tracker import Tracker

        if self.kind == "truth":
            from vision.simulator import GroundTruthRecogniser

            truth = GroundTruthRecogniser(simulator)
            tracker = Tracker(simulator.zones, localiser=truth.localise, namer=truth, cropper=truth.crop)
            frames = (Frame(f.image, f.timestamp, f.index) for f in self._remembered(truth.frames()))
        else:
            extra = {}
            if isinstance(self.tracker_settings, dict):
                from vision.tracker import settings_for
                from vision.tracker_settings import with_bars

                extra["settings"] = with_bars(settings_for(self.namer), self.tracker_settings)
            elif self.tracker_settings is not None:
                extra["settings"] = self.tracker_settings
            if self.localiser is not None:
                extra["localiser"] = self.localiser
            if self.reading is None:  # the table's deck memory keeps one (kept_reading), else the demo's own
                from vision.tracker import kept_reading

                self.reading = kept_reading(self.namer) or DeckReading()
            tracker = Tracker(simulator.zones, namer=self.namer, reading=self.reading, **extra)
            frames = (Frame(f.image, f.timestamp, f.index) for f in self._remembered(simulator.frames()))
        self.tracker = tracker
        return tracker, frames

    def reading_news(self) -> str | None:
        """A line for the log when the tracker's judgement of the deck changed since it was last
        said: the card model cannot read it (every card asked), or reads it again; else None."""
        if self.tracker is None or self.reading is None:
            return None
        return self.news.news(self.tracker)

    def _remembered(self, frames):
        """The simulator's frames, each kept in :attr:`sim_frame` while the tracker reads it (for a trace)."""
        for f in frames:
            self.sim_frame = f
            yield f


# ---------------------------------------------------------------- running a demo


def write_scores(out: Path, names: list[str], scores: list, totals: list, extra: list[str]) -> str:
    width = max(len(n) for n in names) + 2
    lines = [f"{'player':<{width}}{'deal':>8}{'total':>8}"]
    for name, score, total in zip(names, scores, totals):
        lines.append(f"{name:<{width}}{score:>8g}{total:>8g}")
    text = "\n".join(extra + [""] + lines) + "\n"
    (out / "scores.txt").write_text(text, encoding="utf-8")
    with (out / "scores.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["seat", "player", "deal", "total"])
        for seat, (name, score, total) in enumerate(zip(names, scores, totals)):
            writer.writerow([seat, name, f"{score:g}", f"{total:g}"])
    return text


def run_demo(settings: DemoSettings, report: Callable[[str], None] | None = None) -> dict:
    """Play (or resume) the demo: ``settings.deals`` deals (Trivium: games), fewer
    when the game's target is reached first; returns a summary with the scores."""
    report = report or (lambda text: print(text, file=sys.stderr, flush=True))
    out = Path(settings.out)
    if out.exists() and not out.is_dir():
        raise TarotmateError(f"--out {out}: is a file, not a folder")
    if settings.fresh and out.exists():
        DealLog.delete(out / DB_NAME)  # refused while another demo plays in --out
        (out / STATS_NAME).unlink(missing_ok=True)
        for suffix in ("", "-wal", "-shm"):  # what the table had learned of its deck
            (out / f"deck-memory.db{suffix}").unlink(missing_ok=True)
        shutil.rmtree(out / "screens", ignore_errors=True)
    ensure_folder(out, "--out")  # or one line naming it and why (under a file, read-only, ...)
    game = game_for(settings.game)
    demo: Any = game.demo(game, settings, report)
    started = time.monotonic()
    deadline = started + settings.max_seconds if settings.max_seconds else None
    log = DealLog.open(out / DB_NAME)
    recorder = ScreenRecorder(out / "screens")
    outputs = open_demo_outputs(settings, recorder, report)
    try:
        session = finished_session(log, demo)
        stats_path = out / STATS_NAME
        if session is None:
            session = demo.new_session(log)
            if (session.replayed or session.deal.number > 1) and stats_path.exists():
                demo.stats = load_stats(stats_path, demo.stats)  # the part played before the resume counts too
            demo.after_scene = lambda: save_stats(stats_path, demo.stats)
            app = TableApp(session, outputs, lang=settings.lang, style=settings.style, report=lambda t: None)
            play_deals(session, app, demo, settings, deadline, report)
            session.finish_game()
        else:
            if stats_path.exists():
                demo.stats = load_stats(stats_path, demo.stats)
            app = TableApp(session, outputs, lang=settings.lang, style=settings.style, report=lambda t: None)
            report(f"the demo in {out} is already complete; showing its result again")
        deals = [d for d in log.deals(session.game.id) if d.record is not None]
        record, scores = deals[-1].record, deals[-1].scores
        extra: list[str] = []
        for deal in deals:
            replayed = demo.replay_scores(deal.record)
            if list(replayed) != list(deal.scores):
                raise TarotmateError(f"replay of the exported record of deal {deal.number} gives {replayed}, "
                                     f"the table gave {deal.scores}")
            lines = demo.summary_lines(deal.record, deal.scores)
            extra += lines if len(deals) == 1 else [f"{game.deal_word} {deal.number}: {line}" for line in lines]
        totals = session.totals()
        app.refresh(app.score_view())
        record_path = out / game.record_file
        record_path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if len(deals) > 1:
            extra.append(f"{len(deals)} {game.deal_word}s; {record_path.name} is the last one's record")
        extra.append(f"replay of {record_path.name}: same scores {list(demo.replay_scores(record))} — checked")
        if demo.stats.frames:
            extra.append("camera: " + demo.stats.line())
        text = write_scores(out, demo.names, scores, totals, extra)
        write_summary(out, game.kind, len(demo.names), len(deals), totals, demo.stats)
        frames = recorder.write_gif(out / "demo.gif")
        report(f"wrote {out / 'demo.gif'} ({frames} screens), {record_path}, {out / 'scores.txt'}, "
               f"{out / 'scores.csv'}, {out / SUMMARY_NAME}")
        return {"scores": list(scores), "totals": totals, "record": record, "text": text, "deals": len(deals),
                "stats": demo.stats, "seconds": time.monotonic() - started}
    finally:
        outputs.close()
        log.close()


def table_tracker(game, tracker: Any) -> Any:
    """The demo's tracker settings: the game's table's own (``Game.tracker_changes``, as the device's
    tracker has them), then ``tracker`` (a dict of changes, or a whole TrackerSettings, kept as it is)."""
    if tracker is not None and not isinstance(tracker, dict):
        return tracker
    changes = {**game.tracker_changes(), **(tracker or {})}
    return changes or None


def play_deals(session: GameSession, app: TableApp, demo, settings: DemoSettings, deadline, report) -> None:
    """Deal after deal until the agreed number is played or the target is reached;
    each deal's record and scores go to the log as it ends."""
    recognition = None
    while True:
        demo.start_deal(session)
        if session.replayed:
            report(f"resuming deal {session.deal.number}: {session.replayed} operations replayed")
        elif session.deal.number == 1:
            report(f"new {settings.game} demo, seed {settings.seed}, {settings.players} players: "
                   + ", ".join(demo.names))
        app.refresh()
        if recognition is None:
            recognition = Recognition(settings.recogniser, settings.deck, report, settings.models,
                                      table_tracker(game_for(settings.game), settings.tracker), settings.profile)
            demo.stats.recognition = recognition.description
            if getattr(settings, "learn_deck", False) and recognition.namer is not None:
                from device.app.deck_learning import attach

                learning = attach(app.controller, recognition.namer, session.log.path, report)
                if learning is not recognition.namer:  # the simulator's truth learns nothing
                    recognition.namer = learning
                    demo.stats.recognition += ", learning the deck"
        demo.play(app, recognition, deadline)
        if (news := recognition.reading_news()) is not None:
            report(news)
        demo.check_against_truth(session)
        app.refresh()
        if session.match_over:
            if session.deal.finished is None:
                session.finish_deal()
            break
        app.on_decision(("new_deal",))  # the player's "New deal": the deal is closed, the next one dealt


SUMMARY_NAME = "summary.json"


def write_summary(out: Path, game: str, players: int, deals: int, totals: list, stats) -> dict:
    """``summary.json``: the game, the number of players, the deals played, the
    cards the camera had to see, what the camera did, what the player pressed,
    the total per player, and that the exported record replays.

    camera: ``right`` (committed from the camera without a question, and
    right), ``wrong`` (committed without a question, not the card played),
    ``confirmed`` (committed after a question), ``by_hand`` (entered from the
    menu); ``prompts``: questions shown; ``presses``: the scripted player's
    button presses, bids and écart included; ``replay``: every deal's exported
    record replayed gives the same scores (checked before this is written);
    ``per_deal``: one ``{"prompts", "wrong", "by_hand", "right", "confirmed"}``
    per deal, in order (what each deal cost, so that a table that learns its
    deck shows it deal after deal)."""
    summary = {"game": game, "players": players, "deals": deals, "cards": stats.cards, "camera": stats.camera(),
               "prompts": stats.prompts, "presses": stats.presses, "scores": [_number(t) for t in totals],
               "replay": "ok", "per_deal": stats.per_deal()}
    (out / SUMMARY_NAME).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def _number(value: float) -> float | int:
    return int(value) if value == int(value) else value


STATS_NAME = "camera-stats.json"


def save_stats(path: Path, stats) -> None:
    """The camera counts so far, written whole (a crash leaves the previous file)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(stats.to_dict(), indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)


def load_stats(path: Path, fresh):
    """The counts saved by the run this one resumes (``fresh`` if unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        loaded = type(fresh).from_dict(data)
    except (OSError, ValueError, TypeError):
        return fresh
    return loaded


def finished_session(log: DealLog, demo) -> GameSession | None:
    """The demo's game when it is already finished in the log (a rerun)."""
    game = log.latest_game(demo.label)
    if game is None or game.finished is None:
        return None
    deals = [d for d in log.deals(game.id) if d.record is not None]
    if not deals:
        return None
    deal = deals[-1]
    rules = demo.rules()
    state = rules.new_state(game, deal.setup)
    session = GameSession(log, rules, game, deal, state)
    for index, data in enumerate(log.operations(deal.id), 1):
        try:
            op = rules.op_from_dict(data)
            refusal = rules.refusal(state, op)
        except (TarotmateError, KeyError, TypeError, ValueError) as exc:
            refusal = f"{type(exc).__name__}: {exc}"
        if refusal is not None:
            raise StoreError(f"{log.path}: game {game.id}, deal {deal.number}: operation {index} ({data}) no longer "
                             f"replays ({getattr(refusal, 'reason', refusal)}); the log was left untouched")
        rules.apply(state, op)
    return session
