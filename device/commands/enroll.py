"""``tarotmate enroll NAME --from-dir DIR``: teach Tarotmate a new deck from card images.

DIR holds one image per card named by its code (``T01.jpg`` .. ``T21.jpg``,
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

HELP = "teach Tarotmate a new deck from a folder with one image per card (deck profile)"


def configure(parser: argparse.ArgumentParser) -> None:
    from vision.enroll import DEFAULT_STRATEGY, DEFAULT_VIEWS, STRATEGIES

    parser.add_argument("name", help="the deck's name (letters, digits, '.', '_', '-'), used by --deck NAME")
    parser.add_argument("--from-dir", metavar="DIR", required=True,
                        help="folder with one image per card named by card code, e.g. T01.jpg, EX.png, HK.jpg")
    parser.add_argument("--views", type=int, default=DEFAULT_VIEWS, metavar="N",
                        help=f"augmented views embedded per card (default {DEFAULT_VIEWS})")
    parser.add_argument("--strategy", choices=STRATEGIES, default=DEFAULT_STRATEGY,
                        help=f"prototypes per card: one mean, one per orientation, or every view (default {DEFAULT_STRATEGY})")
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
    from engine.cards import CODES
    from vision.deck_profiles import check_name, save_profile, user_decks_dir
    from vision.enroll import EnrollmentError, default_embedder, enroll_faces, read_deck_folder

    name = check_name(args.name)
    if args.views < 1:
        raise EnrollmentError(f"--views must be at least 1, got {args.views}")
    target = Path(args.decks_dir) if args.decks_dir else user_decks_dir()
    if not args.force and (target / f"{name}.json").exists():
        raise EnrollmentError(f"deck {name!r} already exists in {target}: add --force to replace it")
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
    profile = enroll_faces(name, faces, embedder, views=args.views, strategy=args.strategy, seed=args.seed,
                           source=str(folder.path.resolve()), progress=_progress)
    path = save_profile(profile, target)
    seconds = time.perf_counter() - start
    print(f"enrolled {len(profile.cards)} cards in {seconds:.1f} s", file=sys.stderr)

    result = {
        "deck": name,
        "path": str(path),
        "cards": len(profile.cards),
        "views": args.views,
        "missing": list(profile.missing),
        "unknown_files": list(folder.unknown),
        "problems": problems,
        "similar_pairs": [p.to_json() for p in profile.similar_pairs],
        "threshold": round(profile.threshold, 4),
        "seconds": round(seconds, 2),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"deck {name}: {len(profile.cards)} of {len(CODES)} cards enrolled ({args.views} views each) "
          f"in {seconds:.1f} s")
    print(f"saved {path}")
    if profile.missing:
        print(f"missing ({len(profile.missing)}): {' '.join(profile.missing)}")
    if folder.unknown:
        print(f"not card images, ignored ({len(folder.unknown)}): {' '.join(folder.unknown)}")
    if profile.similar_pairs:
        print(f"cards the model can hardly tell apart ({len(profile.similar_pairs)}): show them again "
              "with better images, or check they are not the same card:")
        for pair in profile.similar_pairs:
            print(f"  {pair.first} ~ {pair.second}  similarity {pair.similarity:.3f}")
    print(f"use it with: tarotmate classify --deck {name} ..., or camera.deck = \"{name}\" in the configuration")
    return 0
