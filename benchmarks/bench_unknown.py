"""Unknown means unknown: the card model's precision / recall curve over its acceptance threshold.

    .venv/bin/python benchmarks/bench_unknown.py [--scenes N] [--negatives N] [--quick] [--models-dir DIR]

Every detection of the card finder is named as ``tarotmate classify`` names
it: from the outlines nudged around it, the model's probabilities averaged
(:func:`vision.still_views.name_still`; ``--one-view``: from its own crop
only); a detection is *reported* at threshold ``t`` when its top class is a
card with probability >= ``t``. Measured on:

* cards: the real-table scenes of ``bench_recognition.py`` (same seeds), every
  deck; a target card (30 %+ visible) reported with its own code is right,
  with another code wrong; a reported detection over no card is false;
* frames with no card face at all (``vision.synth.negative_frame``): an OLED
  screenshot enlarged to the frame, a printed page, card backs, hands and
  sleeves, coins, an empty table, under real-table light; every report there is
  false;
* the Tarotmate screens themselves (``tests/screens/golden``, 128x64) saved as
  JPEG, at their own size and enlarged to 1280x640 (what ``tarotmate classify``
  got wrong), localised as photos;
* the same kinds of negative crops named whole (``classify --whole``);
* phone photos of one card (``vision.phone_photos``: lying or standing among
  clutter, warm light; ``--photos`` per deck, every deck), given whole as
  ``tarotmate classify`` is: the card reported with its code is right, any
  other report wrong.

Prints, per threshold: cards named right (recall), precision of all reports,
wrong and false reports per card, the share of no-card frames of each kind
with any report, and the phone photos named right and wrong; then the
operating threshold: the smallest at which no-card frames get a report at most
1 % of the time for every kind, at most 1 % of the table's reports are not
right, at least 99 % of all reports are right (the precision), and at most
1 % of the photos get a wrong report.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_recognition as br  # noqa: E402
from vision import synth  # noqa: E402
from vision.still_views import NUDGES, still_probabilities  # noqa: E402

NEG_SEED = 8_300_000
PHOTO_SEED = 8_700_000
THRESHOLDS = [round(t, 2) for t in np.arange(0.2, 0.951, 0.05)]
MAX_FALSE = 0.01
MIN_PRECISION = 0.99
NUDGED = [NUDGES]  # the outlines each detection is named from (--one-view: its own only)


def card_confidence(namer, image, quads) -> tuple[np.ndarray, np.ndarray]:
    """(top card index or -1 when the top class is unknown, its probability) per quad of
    ``image``, the probabilities averaged over the quad's nudged outlines (``NUDGED``)."""
    if not len(quads):
        return np.zeros(0, int), np.zeros(0)
    probs, _ = still_probabilities(image, quads, namer, NUDGED[0])
    top = probs.argmax(1)
    unknown = [i for i, lab in enumerate(namer.labels) if lab == "unknown"]
    card = np.where(np.isin(top, unknown), -1, top)
    return card, probs.max(1)


def score_cards(decks, namer, find_cards, n_scenes, bg, out) -> int:
    """Fill ``out`` with (confidence, verdict) of every detection on the real-table scenes;
    verdict: right / wrong / false. Returns the number of target cards."""
    targets = 0
    for d, (name, faces, size) in enumerate(br.table_decks(decks)):
        for scene in br.table_scenes(d, faces, n_scenes, bg, size):
            quads = find_cards(scene.image)
            card, conf = card_confidence(namer, scene.image, quads)
            tg = [c for c in scene.cards if br.is_target(c)]
            ign = [c for c in scene.cards if not br.is_target(c)]
            targets += len(tg)
            used = set()
            for c in tg:
                scores = [br.iou(q, c.corners) for q in quads]
                j = int(np.argmax(scores)) if scores else -1
                if j >= 0 and scores[j] >= 0.5 and j not in used:
                    used.add(j)
                    if card[j] >= 0:
                        out.append((conf[j], "right" if namer.labels[card[j]] == c.code else "wrong"))
            for j in range(len(quads)):
                if j in used or card[j] < 0 or any(br.iou(quads[j], c.corners) >= 0.3 for c in ign):
                    continue
                out.append((conf[j], "false"))
    return targets


def score_photos(decks, namer, find_cards, n_photos, bg) -> list[tuple[float, float]]:
    """Per phone photo: (confidence of its card's report with its own code, or 0; the highest
    confidence of any other report, or 0)."""
    from vision import phone_photos

    out = []
    for d, (name, faces) in enumerate(decks.items()):
        for i in range(n_photos):
            rng = np.random.default_rng(PHOTO_SEED + 1000 * d + i)
            face = faces[int(rng.integers(len(faces)))]
            photo = phone_photos.make_phone_photo(rng, face, backgrounds_dir=bg)
            quads = find_cards(photo.image)
            card, conf = card_confidence(namer, photo.image, quads)
            right = other = 0.0
            for q, c, cf in zip(quads, card, conf):
                if c < 0:
                    continue
                if namer.labels[c] == face.code and br.iou(q, photo.quad) >= 0.5:
                    right = max(right, float(cf))
                else:
                    other = max(other, float(cf))
            out.append((right, other))
    return out


def golden_screens() -> list[Path]:
    return sorted((ROOT / "tests" / "screens" / "golden").rglob("*.png"))


def screen_photos(paths):
    """(kind, BGR image) of each golden screen JPEG'd at its size and enlarged to 1280x640."""
    for p in paths:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            continue
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        small = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        yield "oled 128x64", small
        big = cv2.resize(img, (1280, 640), interpolation=cv2.INTER_NEAREST)
        ok, buf = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])
        yield "oled 1280x640", cv2.imdecode(buf, cv2.IMREAD_COLOR)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--scenes", type=int, default=30, help="real-table scenes per deck")
    p.add_argument("--negatives", type=int, default=40, help="no-card frames per kind")
    p.add_argument("--crops", type=int, default=100, help="no-card crops per kind, named whole")
    p.add_argument("--photos", type=int, default=10, help="phone photos of one card per deck, given whole")
    p.add_argument("--models-dir", default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--one-view", action="store_true", help="name each detection from its own crop only (not nudged)")
    a = p.parse_args(argv)
    NUDGED[0] = NUDGES[:1] if a.one_view else NUDGES
    if a.quick:
        a.scenes, a.negatives, a.crops, a.photos = 6, 8, 20, 3
    cv2.setNumThreads(1)
    from vision.namer import Namer

    namer = Namer.load(a.models_dir, threads=1)
    find_cards = br._localiser_in(a.models_dir, None)
    bg = a.backgrounds if Path(a.backgrounds).is_dir() else None
    decks = {"builtin": synth.builtin_faces()}
    if Path(a.decks).is_dir():
        for folder in synth.deck_folders(a.decks):
            decks[folder.name] = synth.load_deck(str(folder))
    cards: list = []
    n_targets = score_cards(decks, namer, find_cards, a.scenes, bg, cards)
    conf = np.array([c for c, _ in cards])
    verdict = np.array([v for _, v in cards])
    # frames with no card: the largest card confidence of each frame, per kind
    frame_max = defaultdict(list)
    for k, kind in enumerate(synth.NEGATIVE_KINDS):
        for i in range(a.negatives):
            rng = np.random.default_rng(NEG_SEED + 1000 * k + i)
            frame = synth.negative_frame(rng, kind, (1280, 720), bg)
            quads = find_cards(frame)
            card, cf = card_confidence(namer, frame, quads)
            frame_max[kind].append(max([c for c, t in zip(cf, card) if t >= 0], default=0.0))
    for kind, img in screen_photos(golden_screens()):
        quads = find_cards(img)
        card, cf = card_confidence(namer, img, quads)
        frame_max[kind].append(max([c for c, t in zip(cf, card) if t >= 0], default=0.0))
    crop_max = defaultdict(list)
    for k, kind in enumerate(synth.NEGATIVE_KINDS):
        rng = np.random.default_rng(NEG_SEED + 500_000 + k)
        w, h = namer.input_size
        whole = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)  # named whole, as classify --whole does
        crop_max[kind] = []
        for _ in range(a.crops):
            card, cf = card_confidence(namer, synth.make_negative_crop(rng, namer.input_size, kind, bg)[0], [whole])
            crop_max[kind].append(float(cf[0]) if card[0] >= 0 else 0.0)

    photos = np.array(score_photos(decks, namer, find_cards, a.photos, bg)).reshape(-1, 2)

    print(f"model: {namer.model_path} (threshold in the model: {namer.threshold}); "
          f"each detection named from {len(NUDGED[0])} outline{'s' if len(NUDGED[0]) > 1 else ''}")
    print(f"cards: {n_targets} target cards in {a.scenes} real-table scenes per deck ({len(br.table_decks(decks))} decks); "
          f"no-card frames: {a.negatives} per kind + {len(golden_screens())} Tarotmate screens (x2); no-card crops: {a.crops} per kind; "
          f"phone photos: {len(photos)} ({a.photos} per deck, {len(decks)} decks)")
    kinds = list(frame_max)
    head = f"{'thresh':>6s} {'right%':>7s} {'precision%':>10s} {'wrong%':>7s} {'false%':>7s} | " + " ".join(f"{k[:12]:>12s}" for k in kinds) + " | crops% | photos right% wrong%"
    print("per threshold: cards named right and reports on no-card frames (share of frames with any card reported)")
    print(head)
    rows = []
    for t in THRESHOLDS:
        acc = conf >= t
        right = int(((verdict == "right") & acc).sum())
        wrong = int(((verdict == "wrong") & acc).sum())
        false = int(((verdict == "false") & acc).sum())
        neg = {k: float(np.mean(np.array(v) >= t)) for k, v in frame_max.items()}
        crops = float(np.mean([np.mean(np.array(v) >= t) for v in crop_max.values()]))
        neg_reports = sum(int((np.array(v) >= t).sum()) for v in frame_max.values())
        precision = right / max(1, right + wrong + false + neg_reports)
        photo_right = float(np.mean(photos[:, 0] >= t)) if len(photos) else 0.0
        photo_wrong = float(np.mean(photos[:, 1] >= t)) if len(photos) else 0.0
        rows.append((t, right / max(1, n_targets), precision, wrong / max(1, n_targets), false / max(1, n_targets), neg, crops,
                     photo_right, photo_wrong))
        print(f"{t:6.2f} {100 * right / max(1, n_targets):7.1f} {100 * precision:10.1f} {100 * wrong / max(1, n_targets):7.1f} "
              f"{100 * false / max(1, n_targets):7.1f} | " + " ".join(f"{100 * neg[k]:12.1f}" for k in kinds) + f" | {100 * crops:6.1f}"
              f" | {100 * photo_right:13.1f} {100 * photo_wrong:6.1f}")
    ok = [r for r in rows if max(r[5].values()) <= MAX_FALSE and r[3] + r[4] <= MAX_FALSE and r[6] <= MAX_FALSE
          and r[8] <= MAX_FALSE and r[2] >= MIN_PRECISION]
    if ok:
        t = ok[0]
        print(f"operating threshold: {t[0]:.2f} (the smallest with at most {100 * MAX_FALSE:.0f} % of no-card frames of any kind "
              f"and of no-card crops reported, wrong + false reports at most {100 * MAX_FALSE:.0f} % of cards, "
              f"and at least {100 * MIN_PRECISION:.0f} % of the reports right): "
              f"cards named right {100 * t[1]:.1f} %, precision {100 * t[2]:.1f} %, phone photos named right {100 * t[7]:.1f} %")
    else:
        best = min(rows, key=lambda r: max(r[5].values()) + r[3] + r[4] + r[6])
        print(f"no threshold meets the bar; the fewest false reports at {best[0]:.2f}: cards named right {100 * best[1]:.1f} %, "
              f"worst no-card kind {100 * max(best[5].values()):.1f} %, wrong + false {100 * (best[3] + best[4]):.1f} % of cards")
    return 0


if __name__ == "__main__":
    sys.exit(main())
