"""Benchmark of deck enrollment: time to build a profile, and accuracy before and after.

    .venv/bin/python benchmarks/bench_enroll.py [--decks ../shared/decks] [--views 16] [--quick]
        [--models-dir DIR] [--only NAME[,NAME]]

For every deck folder of ``--decks`` (one image per card named by code), and
for the stand-in decks below, as if the deck were new to Tarotmate:

1. **enrollment**: the deck's 78 images are enrolled as ``tarotmate enroll
   NAME --from-dir DIR`` does (one thread); the wall time and the CPU time
   are printed, and a Raspberry Pi 4 estimate (x4 to x6 the CPU time: the
   wall time on a shared machine counts the waits for other processes);
2. **test crops**, synthesised afresh with :func:`vision.synth.make_crop`
   (another seed than enrollment: corner jitter as the localiser gives,
   table at the edges, half turned, light, glare, shadow, blur, noise, low
   resolution, JPEG, colour casts), ``--crops`` per card, plus
   ``--unknown`` non-card crops (backs, hands, coins, bare table, a card
   mostly outside the crop) from :func:`vision.synth.make_unknown_crop`;
3. **test scenes** (``--scenes``): 1280x720 table frames from
   :func:`vision.synth.make_scene` (scattered cards, a trick of overlapping
   cards, distractors), recognised end to end (localise, warp, name);
4. the share of cards **named right** by the shipped model alone ("base")
   and by the deck profile ("profile"), named wrong by the profile, named
   right by the profile with a confidence of at least 0.6 ("sure", the
   tracker's default bar), and the share of non-card crops rejected;
5. the same crops named by the profile with its cards' faces' keypoints
   (``PrototypeNamer.name``, what ``classify --deck`` does; the scenes are
   named so too);
6. the red ink of its clean faces' pip cards (:func:`vision.votes.red_ink`),
   and whether the profile takes the deck for one printing its hearts and
   diamonds in red (``red_pips``, :func:`vision.enroll.red_pips`).

Stand-in decks (the shipped model was trained on every deck of
``../shared/decks`` and on the built-in deck, so none of them is truly
unseen): ``builtin-recoloured`` is the built-in deck mirrored left to right
with its hues turned by 90 degrees, ``builtin-inverted`` the same with its
tones inverted (a dark deck) -- the drawings of a known deck in colours and
a handedness the model never saw. Pass ``--restyle-all`` to add such copies
of every deck.

For an honest measurement on an unseen deck, pass a classifier trained
without it: ``python -m vision.training.build_models --exclude NAME --out DIR
--work DIR2``, then ``--models-dir DIR --only NAME`` here ("base" is then that
model alone). ``--only`` takes deck names, comma-separated, stand-ins
included (``builtin-recoloured``); without it every deck is measured.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.cards import CODES  # noqa: E402
from vision import synth  # noqa: E402
from vision.builtin_deck import render_card  # noqa: E402
from vision.enroll import (  # noqa: E402
    DEFAULT_STRATEGY,
    DEFAULT_VIEWS,
    STRATEGIES,
    TEMPERATURE,
    PrototypeNamer,
    card_views,
    enroll_faces,
    normalise,
    portrait,
    read_deck_folder,
    read_image,
)
from vision.namer import UNKNOWN, Namer  # noqa: E402
from vision.recognise import recognise  # noqa: E402
from vision.votes import pip_neighbours, red_ink, red_pip  # noqa: E402

PI4_FACTOR = (4, 6)
SURE = 0.6  # the tracker's default min_confidence: namings under it make 'uncertain' events


def recolour(image: np.ndarray, invert: bool = False) -> np.ndarray:
    """A deck the model never saw, made from one it knows: mirrored, hues turned 90 degrees, tones inverted or not."""
    hsv = cv2.cvtColor(np.ascontiguousarray(image[:, ::-1]), cv2.COLOR_BGR2HSV)
    hsv[..., 0] = (hsv[..., 0].astype(np.int32) + 45) % 180
    if invert:
        hsv[..., 2] = 255 - hsv[..., 2]
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


@dataclass
class Deck:
    name: str
    faces: dict[str, np.ndarray]  # code -> BGR image, as read from the deck folder
    index: int = 0  # place among all the decks measured: seeds its test crops, so --only measures the same crops


def read_decks(args) -> list[Deck]:
    decks = []
    if args.decks and Path(args.decks).is_dir():
        for folder in synth.deck_folders(args.decks):
            found = read_deck_folder(folder)
            decks.append(Deck(folder.name, {code: read_image(path) for code, path in found.files.items()}, len(decks)))
    else:
        print(f"no deck folder at {args.decks}: only the stand-in deck is measured", file=sys.stderr)
    stand_ins = [Deck("builtin", {c: np.array(render_card(c)) for c in CODES})]
    if args.restyle_all:
        stand_ins += decks
    first = len(decks)
    for j, d in enumerate(stand_ins):
        if args.only and not {f"{d.name}-recoloured", f"{d.name}-inverted"} & set(args.only):
            continue  # restyling 78 images for nothing
        decks.append(Deck(f"{d.name}-recoloured", {c: recolour(img) for c, img in d.faces.items()}, first + 2 * j))
        decks.append(Deck(f"{d.name}-inverted", {c: recolour(img, invert=True) for c, img in d.faces.items()}, first + 2 * j + 1))
    if args.only:
        missing = [n for n in args.only if n not in {d.name for d in decks}]
        if missing:
            raise SystemExit(f"--only: no deck named {', '.join(missing)} (decks: "
                             f"{', '.join(f.name for f in synth.deck_folders(args.decks)) if args.decks and Path(args.decks).is_dir() else 'none'}"
                             f"; stand-ins: builtin-recoloured, builtin-inverted)")
        decks = [d for d in decks if d.name in args.only]
    return decks


def test_crops(deck: Deck, size, rng, per_card: int, backgrounds) -> tuple[list[np.ndarray], list[str]]:
    crops, truth = [], []
    for code in CODES:
        if code not in deck.faces:
            continue
        face = synth.face_from_image(code, deck.faces[code])
        for _ in range(per_card):
            crops.append(synth.make_crop(rng, face, size, backgrounds))
            truth.append(code)
    return crops, truth


def unknown_crops(deck: Deck, size, rng, n: int, backgrounds) -> list[np.ndarray]:
    pool = [synth.face_from_image(c, img) for c, img in deck.faces.items()]
    return [synth.make_unknown_crop(rng, size, pool, backgrounds)[0] for _ in range(n)]


def name_all(namer: Namer, deck_namer: PrototypeNamer, crops) -> tuple[list, list, list, list]:
    """Namings of ``crops`` by the base model, by the profile (with the model's unknown veto), without the veto,
    and by the profile with its cards' faces' keypoints (``PrototypeNamer.name``: what ``classify --deck`` does)."""
    base, mine, no_veto, faces = [], [], [], []
    for i in range(0, len(crops), 64):
        batch = crops[i : i + 64]
        base += namer.name(batch)
        probs, embeddings = namer.run(batch)
        embeddings = normalise(embeddings)
        mine += deck_namer.name_embeddings(embeddings, probs[:, namer.labels.index(UNKNOWN)])
        no_veto += deck_namer.name_embeddings(embeddings)
        faces += deck_namer.name(batch)
    return base, mine, no_veto, faces


def calibration_line(profile, namer: Namer, crops, truth) -> str:
    """How well the profile's confidences mean what they say on the test crops: the expected
    calibration error of the cards it names, at the default temperature and at the deck's own
    (fitted at enrollment), and how many crops each names right at the tracker's bar."""
    from vision.calibration import ece

    if profile.temperature is None:
        return "calibration: no temperature of its own (too few views a card)"
    embeddings, p_unknown = [], []
    for i in range(0, len(crops), 64):  # the model once; only the temperature differs below
        probs, emb = namer.run(crops[i : i + 64])
        embeddings.append(normalise(emb))
        p_unknown.append(probs[:, namer.labels.index(UNKNOWN)])
    embeddings, p_unknown = np.concatenate(embeddings), np.concatenate(p_unknown)
    out = []
    for t in (TEMPERATURE, profile.temperature):
        namings = PrototypeNamer(profile, namer, temperature=t).name_embeddings(embeddings, p_unknown)
        named = [(n.confidence, n.card == c) for n, c in zip(namings, truth) if n.card is not None]
        conf = np.array([c for c, _ in named])
        right = np.array([r for _, r in named], bool)
        out.append((t, 100 * ece(conf, right), share(n.card == c and n.confidence >= SURE for n, c in zip(namings, truth)),
                    share(n.card not in (None, c) and n.confidence >= SURE for n, c in zip(namings, truth))))
    (t0, e0, s0, w0), (t1, e1, s1, w1) = out
    return (f"calibration: expected calibration error {e0:.1f}% at the default temperature {t0:g} -> {e1:.1f}% at the "
            f"deck's own {t1:.3f}; at confidence >= {SURE}: right {s0:.1f} -> {s1:.1f}%, wrong {w0:.1f} -> {w1:.1f}%")


def model_info(namer: Namer) -> dict:
    """The model's ``tarotmate`` metadata (training steps, minutes, decks left out)."""
    import json

    return json.loads(namer.session.get_modelmeta().custom_metadata_map.get("tarotmate", "{}"))


def share(flags) -> float:
    flags = list(flags)
    return 100.0 * sum(flags) / max(1, len(flags))


def scene_accuracy(deck: Deck, namer, deck_namer, rng, n: int, backgrounds) -> dict:
    """Over the cards of ``n`` scenes: the share localised, and the share of those named right by the base model and by the profile."""
    faces = [synth.face_from_image(c, img) for c, img in deck.faces.items()]
    counts = {"cards": 0, "found": 0, "base": 0, "profile": 0}
    for _ in range(n):
        scene = synth.make_scene(rng, faces, trick=int(rng.integers(0, 2)) * 3, distractors=1, backgrounds_dir=backgrounds)
        found = {key: recognise(scene.image, who, keep_unknown=True) for key, who in (("base", namer), ("profile", deck_namer))}
        for placed in scene.cards:
            centre = placed.corners.mean(0)
            reach = 0.25 * np.linalg.norm(placed.corners[0] - placed.corners[2])
            near = {key: [d for d in found[key] if np.linalg.norm(d.corners.mean(0) - centre) < reach] for key in found}
            counts["cards"] += 1
            if near["base"]:
                counts["found"] += 1
                for key in ("base", "profile"):
                    counts[key] += any(d.card == placed.code for d in near[key])
    return counts


def guided_compute(deck: Deck, namer, rng, cards: int = 10) -> tuple[float, int]:
    """CPU seconds per card of the guided flow (localise, warp, synthesise, embed), from frames.

    Each card is seen in a 1280x720 frame as the camera would: the table
    without it, then lying still until its captures are taken (at most 50
    frames). Returns the mean seconds per captured card and how many cards
    were captured.
    """
    from device.enroll.flow import CONFIRM, Capturer, EnrollFlow

    codes = [c for c in CODES if c in deck.faces][:cards]
    flow = EnrollFlow("timing", "m", order=codes)
    capturer = Capturer(flow, namer)
    spent, captured, t = 0.0, 0, 0.0
    for code in codes:
        face = synth.face_from_image(code, deck.faces[code])
        image = synth.make_scene(rng, [face], n_cards=1, effects=0.3).image
        empty = synth.table_surface(rng, 1280, 720)
        start = time.process_time()
        capturer.offer(empty, t)
        for _ in range(50):
            t += 0.1
            capturer.offer(image, t)
            if flow.step == CONFIRM:
                break
        if flow.step == CONFIRM:
            spent += time.process_time() - start
            captured += 1
            flow.confirm()
        else:
            flow.skip()
    return spent / max(1, captured), captured


def red_ink_line(deck, profile, size) -> str:
    """The red ink of the deck's clean faces (:func:`vision.votes.red_ink` of each face as enrollment
    crops it), pip cards of the red suits apart from the black, and what the profile makes of it
    (``red_pips``: whether the tracker's ``red_ink`` bar holds for the deck)."""
    rng = np.random.default_rng(0)
    inks: dict[str, list[float]] = {"HD": [], "SC": []}
    for code, face in deck.faces.items():
        if pip_neighbours(code):
            red = red_ink(card_views(portrait(face), 1, size, rng)[0])
            if red is not None:
                inks["HD" if red_pip(code) else "SC"].append(red)

    def spread(values):
        return f"{min(values):.0f} to {max(values):.0f} (median {np.median(values):.1f})" if values else "none measured"

    said = {True: "printed in red", False: "not printed in red", None: "not known"}[profile.red_pips]
    return (f"red ink of its faces: hearts' and diamonds' pip cards {spread(inks['HD'])}, spades' and clubs' "
            f"{spread(inks['SC'])}: {said}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"), help="folder of deck folders")
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"), help="table textures (optional)")
    p.add_argument("--models-dir", "--models", dest="models", default=None, metavar="DIR",
                   help="folder of the classifier (cards.onnx, labels.txt) to enrol with (default: the repository's models/)")
    p.add_argument("--only", nargs="+", metavar="NAME[,NAME]",
                   help="measure only these decks (of --decks, or the stand-ins), comma-separated")
    p.add_argument("--restyle-all", action="store_true", help="also measure a restyled copy of every deck")
    p.add_argument("--views", type=int, default=DEFAULT_VIEWS, help=f"views per card at enrollment (default {DEFAULT_VIEWS})")
    p.add_argument("--strategy", choices=STRATEGIES, default=DEFAULT_STRATEGY)
    p.add_argument("--crops", type=int, default=4, help="test crops per card (default 4)")
    p.add_argument("--unknown", type=int, default=200, help="non-card test crops per deck (default 200)")
    p.add_argument("--scenes", type=int, default=0, help="test scenes per deck (default 0)")
    p.add_argument("--flow", type=int, default=10, help="cards timed through the guided flow per deck (default 10, 0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="fewer views and test crops, for a smoke run")
    args = p.parse_args(argv)
    if args.only:
        args.only = [n.strip() for part in args.only for n in part.split(",") if n.strip()]
    if args.quick:
        args.views, args.crops, args.unknown, args.scenes, args.flow = 4, 1, 40, 0, 3
    backgrounds = args.backgrounds if Path(args.backgrounds).is_dir() else None

    decks = read_decks(args)
    namer = Namer.load(args.models, threads=1)
    size = namer.input_size
    left_out = model_info(namer).get("excluded_decks")
    print(f"model {namer.model_id}" + (f" (trained without {', '.join(left_out)})" if left_out else "") + f", crops {size[0]}x{size[1]}, 1 thread; enrollment: {args.views} views per card, "
          f"strategy {args.strategy}; test: {args.crops} crops per card + {args.unknown} non-card crops per deck"
          + (f", {args.scenes} scenes" if args.scenes else ""))
    header = (f"{'deck':<28} {'cards':>5} {'enrol s':>7} {'CPU s':>7} {'Pi 4 s':>8} {'base %':>6} {'profile %':>9} "
              f"{'wrong %':>7} {'sure %':>6} {'unk rej base/profile %':>22} {'pairs':>5}")
    print(header)
    print("-" * len(header))
    for deck in decks:
        start, cpu_start = time.perf_counter(), time.process_time()
        profile = enroll_faces(deck.name, deck.faces, namer, views=args.views, strategy=args.strategy, seed=args.seed)
        enrol_s, enrol_cpu = time.perf_counter() - start, time.process_time() - cpu_start
        deck_namer = PrototypeNamer(profile, namer)

        rng = np.random.default_rng(10_000 + 97 * deck.index + args.seed)
        crops, truth = test_crops(deck, size, rng, args.crops, backgrounds)
        base, mine, no_veto, faces = name_all(namer, deck_namer, crops)
        others = unknown_crops(deck, size, rng, args.unknown, backgrounds)
        base_u, mine_u, no_veto_u, faces_u = name_all(namer, deck_namer, others) if others else ([], [], [], [])

        pi = f"{enrol_cpu * PI4_FACTOR[0]:.0f}-{enrol_cpu * PI4_FACTOR[1]:.0f}"
        rej = f"{share(n.card is None for n in base_u):.1f} / {share(n.card is None for n in mine_u):.1f}"
        print(f"{deck.name:<28} {len(profile.cards):>5} {enrol_s:>7.1f} {enrol_cpu:>7.1f} {pi:>8} "
              f"{share(n.card == t for n, t in zip(base, truth)):>6.1f} "
              f"{share(n.card == t for n, t in zip(mine, truth)):>9.1f} "
              f"{share(n.card not in (None, t) for n, t in zip(mine, truth)):>7.1f} "
              f"{share(n.card == t and n.confidence >= SURE for n, t in zip(mine, truth)):>6.1f} {rej:>22} "
              f"{len(profile.similar_pairs):>5}", flush=True)
        print(f"    without the model's unknown veto: named right {share(n.card == t for n, t in zip(no_veto, truth)):.1f}%, "
              f"non-card crops rejected {share(n.card is None for n in no_veto_u):.1f}%")
        if profile.keypoints:
            print(f"    with its cards' faces' keypoints: named right {share(n.card == t for n, t in zip(faces, truth)):.1f}%, "
                  f"wrong {share(n.card not in (None, t) for n, t in zip(faces, truth)):.1f}%, right at >= {SURE} "
                  f"{share(n.card == t and n.confidence >= SURE for n, t in zip(faces, truth)):.1f}%, "
                  f"right at >= 0.999 {share(n.card == t and n.confidence >= 0.999 for n, t in zip(faces, truth)):.1f}% "
                  f"(wrong {share(n.card not in (None, t) and n.confidence >= 0.999 for n, t in zip(faces, truth)):.1f}%), "
                  f"non-card crops rejected {share(n.card is None for n in faces_u):.1f}%")
        print("    " + calibration_line(profile, namer, crops, truth))
        print("    " + red_ink_line(deck, profile, size))
        if profile.similar_pairs:
            print("    too alike: " + ", ".join(f"{p.first}~{p.second} {p.similarity:.3f}" for p in profile.similar_pairs[:8]))
        if args.flow:
            per_card, captured = guided_compute(deck, namer, rng, args.flow)
            print(f"    guided flow: {captured}/{args.flow} cards captured from frames; {per_card:.2f} CPU s per card here, "
                  f"{per_card * PI4_FACTOR[0]:.1f}-{per_card * PI4_FACTOR[1]:.1f} s on a Pi 4 "
                  f"({per_card * PI4_FACTOR[1] * len(CODES) / 60:.1f} min for 78 cards at most, handling not included)")
        if args.scenes:
            c = scene_accuracy(deck, namer, deck_namer, rng, args.scenes, backgrounds)
            found = max(1, c["found"])
            print(f"    scenes: {c['cards']} cards in {args.scenes} frames, {100 * c['found'] / max(1, c['cards']):.1f}% localised; "
                  f"of those, named right: base {100 * c['base'] / found:.1f}%, profile {100 * c['profile'] / found:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
