"""``tarotmate enroll NAME --from-dir DIR | --camera SOURCE``: teach Tarotmate a new deck.

``--camera``: guided enrollment at the table, in the terminal. Each card is
named ("Show: King of Hearts"), the player lays it alone under the camera
and moves it a little; a few captures later it is kept (Enter) or redone,
skipped, or the previous card is shown again. Progress is saved after every
card: the same command resumes an interrupted enrollment.

``--camera SOURCE --display KIND``: the same on the device's OLED (or an
emulated display: ``pygame``, ``terminal``, ``capture``, ``gif``, ``dummy``)
with its buttons, as the configuration (``--config``) describes them; see
:mod:`device.enroll.on_device`.

``--from-dir``: DIR holds one image per card named by its code (``T01.jpg`` .. ``T21.jpg``,
``EX.jpg``, ``S01.png`` .. ``CK.png``): scans, or photos of single cards with
``--locate``. Each card is embedded in several augmented views by the
recognition model and the deck profile is saved among the user's decks.
Missing cards and files that are not card images are reported; so are pairs
of cards the model can hardly tell apart (show them again: a better image of
one of them, or check they are not the same card).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from device.config import DISPLAY_KINDS

HELP = "teach Tarotmate a new deck from a folder with one image per card (deck profile)"


def configure(parser: argparse.ArgumentParser) -> None:
    # no numpy/OpenCV import here: `tarotmate --help` configures every command
    parser.add_argument("name", help="the deck's name (letters, digits, '.', '_', '-'), used by --deck NAME")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--from-dir", metavar="DIR",
                        help="folder with one image per card named by card code, e.g. T01.jpg, EX.png, HK.jpg")
    source.add_argument("--camera", metavar="SOURCE",
                        help="guided enrollment at the table from a camera (picamera2, 0, ...), a video or an image folder")
    parser.add_argument("--cards", metavar="CODES",
                        help="with --camera: enrol only these cards, comma-separated (e.g. T01,EX,HK; default all 78)")
    parser.add_argument("--auto", action="store_true",
                        help="with --camera: keep every card as soon as it is captured, without asking")
    parser.add_argument("--display", metavar="KIND", choices=DISPLAY_KINDS,
                        help="with --camera: guide on a display with the buttons instead of the terminal: "
                             f"{', '.join(DISPLAY_KINDS)} (pins, I2C address... from --config)")
    parser.add_argument("--display-out", metavar="PATH",
                        help="with --display capture or gif: the folder or GIF file to write (overrides display.out)")
    parser.add_argument("--config", metavar="FILE",
                        help="with --display: configuration file for the display, pins and language (default: "
                             "$TAROTMATE_CONFIG, /etc/tarotmate/tarotmate.toml, ~/.config/tarotmate/tarotmate.toml)")
    parser.add_argument("--lang", choices=("en", "fr", "es"), default=None,
                        help="language of the card names (default en; with --display, ui.language)")
    parser.add_argument("--style", choices=("french", "tarot"), default=None,
                        help="card names with French suits or tarot (Spanish / Rider-Waite) suits "
                             "(default french; with --display, ui.card_style)")
    parser.add_argument("--views", type=int, default=None, metavar="N",
                        help="views embedded per card (default 16 from files, 12 from the camera)")
    parser.add_argument("--strategy", default=None, metavar="NAME",
                        help="prototypes per card: 'mean' (one, the default) or 'orientation' (one upright, one turned)")
    parser.add_argument("--locate", action="store_true",
                        help="the images are photos of a card on a table: find the card in each (default: each image is the card)")
    parser.add_argument("--decks-dir", metavar="DIR",
                        help="where to save the profile (default $TAROTMATE_DATA/decks or ~/.local/share/tarotmate/decks)")
    parser.add_argument("--force", action="store_true", help="replace a deck of the same name")
    parser.add_argument("--seed", type=int, default=0, help="seed of the augmentations (default 0)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")


def _progress(done: int, total: int, code: str) -> None:
    width = 30
    filled = width * done // total
    line = f"\renrolling [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {code:<3}"
    if sys.stderr.isatty():
        print(line, end="" if done < total else "\n", file=sys.stderr, flush=True)
    elif done == total or done % 10 == 0:
        print(line.strip(), file=sys.stderr, flush=True)


def load_faces(folder, locate: bool) -> tuple[dict, list[str]]:
    """The card faces of a deck folder, and the problems met (unreadable file, no card found)."""
    from vision.builtin_deck import CARD_SIZE
    from vision.enroll import EnrollmentError, read_image, single_card

    faces, problems = {}, []
    for code, path in folder.files.items():
        try:
            image = read_image(path)
        except EnrollmentError as exc:
            problems.append(str(exc))
            continue
        if locate:
            face = single_card(image, CARD_SIZE)
            if face is None:
                problems.append(f"{path.name}: not exactly one card found in the photo")
                continue
            image = face
        faces[code] = image
    return faces, problems


def run(args: argparse.Namespace) -> int:
    from vision.deck_profiles import check_name, user_decks_dir
    from vision.enroll import DEFAULT_STRATEGY, STRATEGIES, EnrollmentError

    check_name(args.name)
    if args.views is not None and args.views < 1:
        raise EnrollmentError(f"--views must be at least 1, got {args.views}")
    args.strategy = args.strategy or DEFAULT_STRATEGY
    if args.strategy not in STRATEGIES:
        raise EnrollmentError(f"unknown --strategy {args.strategy!r}: expected one of {', '.join(STRATEGIES)}")
    target = Path(args.decks_dir) if args.decks_dir else user_decks_dir()
    if not args.force and (target / f"{args.name}.json").exists():
        raise EnrollmentError(f"deck {args.name!r} already exists in {target}: add --force to replace it")
    if args.display and not args.camera:
        raise EnrollmentError("--display goes with --camera (guided enrollment at the table)")
    if args.camera and args.display:
        return run_display(args, target)
    if args.camera:
        return run_camera(args, target)
    return run_from_dir(args, target)


def run_from_dir(args: argparse.Namespace, target: Path) -> int:
    from engine.cards import CODES
    from vision.deck_profiles import save_profile
    from vision.enroll import DEFAULT_VIEWS, EnrollmentError, default_embedder, enroll_faces, read_deck_folder

    name = args.name
    views = args.views or DEFAULT_VIEWS
    folder = read_deck_folder(args.from_dir)
    if not folder.files:
        raise EnrollmentError(f"no card image in {folder.path} (expected files like T01.jpg, EX.png, HK.jpg)")

    start = time.perf_counter()
    faces, problems = load_faces(folder, args.locate)
    for problem in problems:
        print(f"skipped: {problem}", file=sys.stderr)
    if not faces:
        raise EnrollmentError(f"no usable card image in {folder.path}")
    embedder = default_embedder()
    profile = enroll_faces(name, faces, embedder, views=views, strategy=args.strategy, seed=args.seed,
                           source=str(folder.path.resolve()), progress=_progress)
    path = save_profile(profile, target)
    seconds = time.perf_counter() - start
    print(f"enrolled {len(profile.cards)} cards in {seconds:.1f} s", file=sys.stderr)

    return report(args, profile, path, seconds, views, folder.unknown, problems)


def report(args, profile, path: Path, seconds: float, views: int, unknown=(), problems=()) -> int:
    """Print what enrollment made (one JSON object with --json)."""
    from engine.cards import CODES

    name = profile.name
    result = {
        "deck": name,
        "path": str(path),
        "cards": len(profile.cards),
        "views": views,
        "missing": list(profile.missing),
        "unknown_files": list(unknown),
        "problems": list(problems),
        "similar_pairs": [p.to_json() for p in profile.similar_pairs],
        "threshold": round(profile.threshold, 4),
        "temperature": None if profile.temperature is None else round(profile.temperature, 5),  # its calibration
        "red_pips": profile.red_pips,  # whether its hearts' and diamonds' pip cards are printed in red ink
        "seconds": round(seconds, 2),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"deck {name}: {len(profile.cards)} of {len(CODES)} cards enrolled ({views} views each) "
          f"in {seconds:.1f} s")
    print(f"saved {path}")
    if profile.missing:
        print(f"missing ({len(profile.missing)}): {' '.join(profile.missing)}")
    if unknown:
        print(f"not card images, ignored ({len(unknown)}): {' '.join(unknown)}")
    if profile.similar_pairs:
        print(f"cards the model can hardly tell apart ({len(profile.similar_pairs)}): show them again "
              "with better images, or check they are not the same card:")
        for pair in profile.similar_pairs:
            print(f"  {pair.first} ~ {pair.second}  similarity {pair.similarity:.3f}")
    if profile.red_pips is False:
        print("its hearts' and diamonds' pip cards are not printed in red ink: at the table they are not "
              "asked for showing none")
    print(f"use it with: tarotmate classify --deck {name} ..., or camera.deck = \"{name}\" in the configuration")
    return 0


# ---------------------------------------------------------------------- guided, from a camera

_STATUS = {
    "no-card": "lay the card alone under the camera",
    "remove": "take the previous card away",
    "moving": "hold still...",
}


def guide(flow, capturer, frames, ask, poll, say, names, auto: bool = False) -> bool:
    """Drive ``flow`` from camera ``frames`` and the player's answers; True when every card is done.

    ``ask(question)`` reads an answer (blocking), ``poll()`` a command typed
    while capturing, or None; ``say(text)`` shows a line; ``names(code)`` is a
    card's display name. Answers: Enter keeps, ``r`` redoes, ``s`` skips,
    ``b`` shows the previous card again, ``q`` stops (progress is saved).
    """
    from device.enroll.flow import CAPTURED, CONFIRM, DONE, REVIEW, SHOW

    shown, status = None, None
    for frame in frames:
        prompt = flow.prompt()
        if prompt.step == SHOW:
            if prompt.card != shown:
                shown, status = prompt.card, None
                say(f"[{prompt.enrolled + prompt.skipped + 1}/{prompt.total}] show: {names(prompt.card)} ({prompt.card})")
            command = poll()
            if command and not _command(flow, command.strip().lower()):
                return False
            if flow.prompt().step != SHOW:
                continue
            new = capturer.offer(frame.image, frame.timestamp)
            if new == CAPTURED:
                say(f"  captured {flow.prompt().views}/{prompt.views_needed} views")
            elif new != status and new in _STATUS:
                say(f"  {_STATUS[new]}")
            status = new
            prompt = flow.prompt()
        if prompt.step == CONFIRM:
            answer = "" if auto else ask(f"  keep {names(prompt.card)}? [Enter] keep, r redo, s skip, b back, q quit: ")
            if not _command(flow, answer.strip().lower() or "keep"):
                return False
        elif prompt.step == REVIEW:
            pair = prompt.pair
            say(f"{names(pair.first)} ({pair.first}) and {names(pair.second)} ({pair.second}) look alike "
                f"(similarity {pair.similarity:.3f})")
            answer = "" if auto else ask("  [Enter] keep them as they are, a show both again, k keep all pairs, q quit: ")
            answer = answer.strip().lower()
            if answer == "q":
                return False
            {"a": flow.show_again, "k": flow.accept_all}.get(answer, flow.accept)()
        if flow.prompt().step == DONE:
            return True
    return flow.prompt().step == DONE


def _command(flow, command: str) -> bool:
    """Apply a typed command; False for quit."""
    from device.enroll.flow import EnrollFlowError

    actions = {"keep": flow.confirm, "r": flow.redo, "s": flow.skip, "b": flow.back}
    if command == "q":
        return False
    if command in actions:
        try:
            actions[command]()
        except EnrollFlowError as exc:
            print(f"  {exc}", file=sys.stderr)
    return True


def _terminal_poll():
    """A line typed on the terminal, without waiting; None if nothing was typed."""
    import select

    if not sys.stdin.isatty():
        return None
    ready, _, _ = select.select([sys.stdin], [], [], 0)
    return sys.stdin.readline() if ready else None


def _ask(question: str) -> str:
    print(question, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    return line if line else "q"


def run_camera(args: argparse.Namespace, target: Path) -> int:
    from device.enroll.flow import DEFAULT_VIEWS_NEEDED, Capturer, ProgressFile
    from engine.card_names import name as card_name
    from engine.cards import CODES, parse_distinct
    from vision.deck_profiles import save_profile
    from vision.enroll import default_embedder, model_id
    from vision.sources import open_source

    embedder = default_embedder()
    views = args.views or DEFAULT_VIEWS_NEEDED
    progress = ProgressFile.for_deck(args.name, target)
    order = tuple(c.code for c in parse_distinct(args.cards.split(","))) if args.cards else CODES
    flow = progress.resume_or_start(args.name, model_id(embedder), views, order, args.strategy)
    if flow.prompt().enrolled or flow.prompt().skipped:
        print(f"resuming deck {args.name}: {flow.prompt().enrolled} cards enrolled, "
              f"{flow.prompt().skipped} skipped", file=sys.stderr)
    capturer = Capturer(flow, embedder, seed=args.seed)
    start = time.perf_counter()
    with open_source(args.camera) as frames:
        finished = guide(flow, capturer, frames, _ask, _terminal_poll,
                         lambda text: print(text, file=sys.stderr, flush=True),
                         lambda code: card_name(code, args.lang or "en", args.style or "french"), auto=args.auto)
    if not finished:
        where = flow.prompt().card
        print(f"stopped{' at ' + where if where else ''}: progress saved in {progress.path}; "
              "run the same command again to go on", file=sys.stderr)
        return 1
    profile = flow.build_profile(embedder, source=f"camera {args.camera}")
    path = save_profile(profile, target)
    progress.remove()
    return report(args, profile, path, time.perf_counter() - start, views)


def run_display(args: argparse.Namespace, target: Path) -> int:
    """``--camera SOURCE --display KIND``: the OLED (or an emulated display) and the buttons guide."""
    import signal
    from dataclasses import replace

    from device.app.loop import StopFlag
    from device.config import default_config_path, load_config
    from device.enroll.on_device import enroll_with_display
    from engine.cards import parse_distinct

    config = load_config(args.config or default_config_path())
    display = replace(config.display, kind=args.display, out=args.display_out or config.display.out)
    config = replace(config, display=display)
    order = tuple(c.code for c in parse_distinct(args.cards.split(","))) if args.cards else None
    stop = StopFlag()
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    stop.install()  # Ctrl-C or SIGTERM: the progress is saved and the command ends
    start = time.perf_counter()
    try:
        result = enroll_with_display(config, args.name, args.camera, target, order=order, views=args.views,
                                     strategy=args.strategy, seed=args.seed, auto=args.auto, lang=args.lang,
                                     style=args.style, stop=stop,
                                     report=lambda text: print(text, file=sys.stderr, flush=True))
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    if not result.finished:
        where = result.flow.prompt().card
        print(f"stopped{' at ' + where if where else ''}: progress saved in {result.progress.path}; "
              "run the same command again to go on", file=sys.stderr)
        return 1
    return report(args, result.profile, result.path, time.perf_counter() - start, result.flow.views_needed)
