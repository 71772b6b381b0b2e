"""Classic baseline for card recognition: contours + ORB matching against the deck's scans.

    .venv/bin/python benchmarks/baseline_orb.py [--scenes N] [--tricks N] [--closeups N] [--quick]

The textbook OpenCV pipeline that Tarotmate's recognition is compared with,
written here from scratch (it shares nothing with ``vision.localise`` or the
card model):

1. **Contours**: the frame is halved (640x360), blurred, and binarised three
   ways (Otsu, inverted Otsu, dilated Canny edges); every contour
   (``findContours``) simplified by ``approxPolyDP`` to a convex 4-point
   polygon with a card's proportions (long/short 1.35-2.3), a card's size
   (0.4-40 % of the frame) and a solid outline (the contour fills >= 85 % of
   the polygon) is a card candidate; duplicates and quads nested in a larger
   one are dropped.
2. **Warp**: each quad is warped from the full frame to an upright 220x400
   grey card (which short edge is the top is not known).
3. **Naming**: ORB features of the warped card (rotation invariant, so both
   orientations match) are matched with a brute-force Hamming matcher and
   Lowe's ratio test against the ORB descriptors of each of the deck's 78
   scans (computed once per deck at the same 220x400 size); the 6 cards with
   the most good matches are verified by a RANSAC homography, which must also
   map the card onto the scan (upright or turned: centre and area roughly
   kept); the card with the most inliers is the answer when it has at least
   ``MIN_INLIERS`` (10), otherwise the card is unknown. The few settings (ORB
   at 500 features, CLAHE before it, ratio 0.75, 6 candidates, 10 inliers)
   were chosen on close-ups drawn with other seeds than the benchmark's.

It is evaluated on exactly the scenes of ``benchmarks/bench_recognition.py``
(same seeds, same deck order, same synthesis calls: the seed loop is
duplicated here) with the same scoring (a card is *found* by a quad with IoU
>= 0.5, *named* when that quad carries its code; a *false* detection is a
named quad matching no card), and on the same close-ups (straightened crops
named whole, as ``tarotmate classify --whole`` does), at the model's crop size
112x192 and again at 220x400 (a sharper close-up photo). One OpenCV thread;
times are wall clock and the CPU time of the thread.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_recognition import SEED_BASE, bench_scenes, iou  # noqa: E402  (the same scenes and scoring)
from engine.cards import CODES  # noqa: E402
from vision import synth  # noqa: E402
CARD_SIZE = (220, 400)  # (w, h) of the canonical upright card
CLOSEUP_SIZE = (112, 192)  # the close-ups of bench_recognition.py (the model's crop size)
WORK_SCALE = 0.5  # contours are found on the frame halved
MIN_ASPECT, MAX_ASPECT = 1.35, 2.3
MIN_AREA, MAX_AREA = 0.004, 0.4  # of the frame
MIN_FILL = 0.85
RATIO = 0.75  # Lowe's ratio test
CANDIDATES = 6  # cards verified by a homography
MIN_INLIERS = 10
RANSAC_PX = 6.0


# ---------------------------------------------------------------- localisation
def order_corners(q: np.ndarray) -> np.ndarray:
    """Four points clockwise on screen, corner0 -> corner1 a short edge (the upper one)."""
    q = np.asarray(q, np.float32).reshape(4, 2)
    c = q.mean(0)
    q = q[np.argsort(np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0]))]
    e = np.linalg.norm(q - q[[1, 2, 3, 0]], axis=1)
    start = 0 if e[0] + e[2] <= e[1] + e[3] else 1
    if q[start, 1] + q[(start + 1) % 4, 1] > q[(start + 2) % 4, 1] + q[(start + 3) % 4, 1]:
        start += 2
    return np.ascontiguousarray(q[[(start + k) % 4 for k in range(4)]])


def _overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """(intersection, area a, area b) of two convex quads."""
    inter, _ = cv2.intersectConvexConvex(a, b)
    return float(inter), abs(cv2.contourArea(a)), abs(cv2.contourArea(b))


def find_quads(frame: np.ndarray) -> list[np.ndarray]:
    """Card-shaped convex quads of ``frame`` (BGR), in full-frame pixels."""
    small = cv2.resize(frame, None, fx=WORK_SCALE, fy=WORK_SCALE, interpolation=cv2.INTER_AREA)
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    _, otsu = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    edges = cv2.dilate(cv2.Canny(grey, 40, 120), np.ones((3, 3), np.uint8))
    total = grey.shape[0] * grey.shape[1]
    found: list[tuple[float, np.ndarray]] = []
    for mask, mode in ((otsu, cv2.RETR_EXTERNAL), (255 - otsu, cv2.RETR_EXTERNAL), (edges, cv2.RETR_LIST)):
        contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            area = cv2.contourArea(c)
            if not MIN_AREA * total <= area <= MAX_AREA * total:
                continue
            peri = cv2.arcLength(c, True)
            for eps in (0.02, 0.04):
                poly = cv2.approxPolyDP(c, eps * peri, True)
                if len(poly) == 4:
                    break
            if len(poly) != 4 or not cv2.isContourConvex(poly):
                continue
            q = order_corners(poly)
            short = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])) / 2
            long = (np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[0] - q[3])) / 2
            qa = abs(cv2.contourArea(q))
            if short < 1 or not MIN_ASPECT <= long / short <= MAX_ASPECT or area < MIN_FILL * qa:
                continue
            found.append((qa, q))
    found.sort(key=lambda t: -t[0])
    kept: list[np.ndarray] = []
    for _, q in found:  # largest first: drop duplicates and quads nested in a kept one
        if all(_overlap(q, k)[0] < 0.6 * abs(cv2.contourArea(q)) for k in kept):
            kept.append(q)
    return [np.ascontiguousarray(q / WORK_SCALE, dtype=np.float32) for q in kept]


def warp_upright(frame: np.ndarray, quad: np.ndarray, size=CARD_SIZE) -> np.ndarray:
    """The card inside ``quad`` as an upright grey image of ``size`` (w, h)."""
    w, h = size
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    img = cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img


# ---------------------------------------------------------------- naming
@dataclass
class Reference:
    """ORB descriptors of a deck's 78 scans at the canonical card size."""

    codes: list[str]
    keypoints: list[np.ndarray]  # (n, 2) float32 per card
    descriptors: list[np.ndarray | None]


def _orb() -> cv2.ORB:
    return cv2.ORB_create(nfeatures=500, scaleFactor=1.2, nlevels=8, edgeThreshold=15, patchSize=31, fastThreshold=12)


_CLAHE = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(4, 4))


def features(grey: np.ndarray, orb: cv2.ORB | None = None):
    """Keypoint positions (n, 2) and ORB descriptors of a canonical grey card (contrast equalised)."""
    kps, des = (orb or _orb()).detectAndCompute(_CLAHE.apply(grey), None)
    pts = np.float32([k.pt for k in kps]).reshape(-1, 2)
    return pts, des


def build_reference(faces) -> Reference:
    """The ORB reference of a deck (a sequence of ``synth.Face``), built once per deck."""
    orb = _orb()
    codes, kps, descs = [], [], []
    for f in faces:
        grey = cv2.cvtColor(cv2.resize(f.bgr, CARD_SIZE, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        pts, des = features(grey, orb)
        codes.append(f.code)
        kps.append(pts)
        descs.append(des)
    return Reference(codes, kps, descs)


_W, _H = CARD_SIZE
_CORNERS = np.float32([[0, 0], [_W, 0], [_W, _H], [0, _H]]).reshape(-1, 1, 2)
_TURNED = _CORNERS[[2, 3, 0, 1]]


_CENTRE = np.float32([[[_W / 2, _H / 2]]])


def plausible(h: np.ndarray) -> bool:
    """Whether homography ``h`` (crop -> scan) maps the card onto the scan, upright or turned: its
    centre within a quarter of the card's width of the scan's centre, its area within 0.5-2x (the
    homography is fitted to the matched features only, so it is not trusted out at the corners)."""
    centre = cv2.perspectiveTransform(_CENTRE, h)
    if np.abs(centre - _CENTRE).max() > 0.25 * _W:
        return False
    area = abs(cv2.contourArea(cv2.perspectiveTransform(_CORNERS, h).reshape(4, 2)))
    return 0.5 <= area / (_W * _H) <= 2.0


class OrbNamer:
    """Names a canonical grey card by ORB matching against a Reference."""

    def __init__(self, ref: Reference):
        self.ref = ref
        self.orb = _orb()
        self.matcher = cv2.BFMatcher(cv2.NORM_HAMMING)

    def name(self, grey: np.ndarray) -> tuple[str | None, int]:
        """(code or None, homography inliers of the best card)."""
        if grey.shape[:2] != (_H, _W):
            grey = cv2.resize(grey, CARD_SIZE, interpolation=cv2.INTER_LINEAR if grey.shape[0] < _H else cv2.INTER_AREA)
        pts, des = features(grey, self.orb)
        if des is None or len(des) < MIN_INLIERS:
            return None, 0
        good: list[list[cv2.DMatch]] = []
        for rdes in self.ref.descriptors:
            if rdes is None or len(rdes) < 2:
                good.append([])
                continue
            pairs = self.matcher.knnMatch(des, rdes, k=2)
            good.append([p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO * p[1].distance])
        order = np.argsort([-len(g) for g in good])[:CANDIDATES]
        best, best_inliers = None, 0
        for i in order:
            g = good[i]
            if len(g) < max(4, MIN_INLIERS):
                continue
            src = pts[[m.queryIdx for m in g]].reshape(-1, 1, 2)
            dst = self.ref.keypoints[i][[m.trainIdx for m in g]].reshape(-1, 1, 2)
            h, inl = cv2.findHomography(src, dst, cv2.RANSAC, RANSAC_PX)
            if h is None:
                continue
            if not plausible(h):
                continue
            n = int(inl.sum())
            if n > best_inliers:
                best, best_inliers = self.ref.codes[i], n
        return (best, best_inliers) if best_inliers >= MIN_INLIERS else (None, best_inliers)


def recognise(frame: np.ndarray, namer: OrbNamer) -> list[tuple[np.ndarray, str | None]]:
    """(quad, code or None) for every card-shaped quad of ``frame``."""
    return [(q, namer.name(warp_upright(frame, q))[0]) for q in find_quads(frame)]


# ---------------------------------------------------------------- evaluation
def evaluate_scene(scene, namer: OrbNamer, stats) -> None:
    t0, c0 = time.perf_counter(), time.thread_time()
    quads = find_quads(scene.image)
    t1, c1 = time.perf_counter(), time.thread_time()
    names = [namer.name(warp_upright(scene.image, q))[0] for q in quads]
    t2, c2 = time.perf_counter(), time.thread_time()
    stats["loc_ms"].append((t1 - t0) * 1000)
    stats["name_ms"].append((t2 - t1) * 1000)
    stats["frame_ms"].append((t2 - t0) * 1000)
    stats["frame_cpu"].append((c2 - c0) * 1000)
    stats["quads"].append(len(quads))
    used = set()
    for pc in scene.cards:
        k = "trick" if pc.in_trick else "s"
        stats[k + "_cards"] += 1
        scores = [iou(q, pc.corners) for q in quads]
        j = int(np.argmax(scores)) if scores else -1
        if j >= 0 and scores[j] >= 0.5:
            used.add(j)
            stats[k + "_found"] += 1
            stats[k + "_named"] += int(names[j] == pc.code)
    stats["false"] += sum(1 for j, n in enumerate(names) if j not in used and n is not None)


def closeups(d: int, faces, namer: OrbNamer, n: int, size) -> tuple[int, list[float]]:
    """Close-ups of bench_recognition.py (same seed; at ``size``) named whole: (right, CPU ms per crop)."""
    rng = np.random.default_rng(SEED_BASE + 10_000 * d + 9_999)
    picks = rng.choice(len(faces), n)
    right, times = 0, []
    for i in picks:
        crop = synth.make_crop(rng, faces[i], size, jitter=0.03, effects=0.8, colour=0.5)
        c0 = time.thread_time()
        code, _ = namer.name(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY))
        times.append((time.thread_time() - c0) * 1000)
        right += code == faces[i].code
    return right, times


def pct(a, b) -> float:
    return 100.0 * a / max(1, b)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--decks", default=str(ROOT.parent / "shared" / "decks"))
    p.add_argument("--backgrounds", default=str(ROOT.parent / "shared" / "backgrounds"))
    p.add_argument("--scenes", type=int, default=30, help="scattered scenes per deck")
    p.add_argument("--tricks", type=int, default=15, help="trick scenes per deck")
    p.add_argument("--closeups", type=int, default=156, help="close-up crops per deck (each at two sizes)")
    p.add_argument("--quick", action="store_true", help="6 scenes, 3 tricks, 40 close-ups per deck")
    a = p.parse_args(argv)
    if a.quick:
        a.scenes, a.tricks, a.closeups = 6, 3, 40
    cv2.setNumThreads(1)
    bg = a.backgrounds if Path(a.backgrounds).is_dir() else None
    decks = {"builtin": synth.builtin_faces}
    if Path(a.decks).is_dir():
        for folder in synth.deck_folders(a.decks):
            decks[folder.name] = lambda f=str(folder): synth.load_deck(f)
    else:
        print(f"({a.decks} absent: built-in deck only)")
    rows, all_frame, all_cpu, all_loc, all_close = [], [], [], [], []
    for d, (name, load) in enumerate(decks.items()):
        faces = load()
        assert [f.code for f in faces] == list(CODES)
        t0 = time.perf_counter()
        namer = OrbNamer(build_reference(faces))
        ref_ms = (time.perf_counter() - t0) * 1000
        stats = defaultdict(int)
        for k in ("loc_ms", "name_ms", "frame_ms", "frame_cpu", "quads"):
            stats[k] = []
        for scene in bench_scenes(d, faces, a.scenes, a.tricks, bg):
            evaluate_scene(scene, namer, stats)
        small_right, t_small = closeups(d, faces, namer, a.closeups, CLOSEUP_SIZE)
        big_right, t_big = closeups(d, faces, namer, a.closeups, CARD_SIZE)
        cards = stats["s_cards"] + stats["trick_cards"]
        rows.append((
            name, stats["s_cards"], pct(stats["s_found"], stats["s_cards"]), pct(stats["s_named"], stats["s_cards"]),
            stats["trick_cards"], pct(stats["trick_found"], stats["trick_cards"]), pct(stats["trick_named"], stats["trick_cards"]),
            pct(stats["false"], cards), pct(small_right, a.closeups), pct(big_right, a.closeups),
            float(np.median(stats["frame_ms"])), float(np.median(stats["frame_cpu"])), ref_ms,
        ))
        all_frame += stats["frame_ms"]
        all_cpu += stats["frame_cpu"]
        all_loc += stats["loc_ms"]
        all_close += t_small + t_big
        print(f"  {name}: done ({len(stats['frame_ms'])} frames, {np.mean(stats['quads']):.1f} quads per frame)", flush=True)
    print(f"classic baseline (contours + ORB, {a.scenes} scattered + {a.tricks} trick scenes, {a.closeups} close-ups per deck)")
    print(f"{'deck':28s} {'cards':>5s} {'found%':>7s} {'named%':>7s} | {'trick':>5s} {'found%':>7s} {'named%':>7s} | {'false%':>6s} | "
          f"{'close-up%':>9s} {'@220x400':>8s} | {'ms/frame':>8s} {'cpu ms':>7s} {'ref ms':>7s}")
    for r in rows:
        print(f"{r[0]:28s} {r[1]:5d} {r[2]:7.1f} {r[3]:7.1f} | {r[4]:5d} {r[5]:7.1f} {r[6]:7.1f} | {r[7]:6.1f} | "
              f"{r[8]:9.1f} {r[9]:8.1f} | {r[10]:8.0f} {r[11]:7.0f} {r[12]:7.0f}")
    f, c, lo = np.array(all_frame), np.array(all_cpu), np.array(all_loc)
    print(f"per 1280x720 frame, 1 thread: median {np.median(f):.0f} ms wall (p90 {np.percentile(f, 90):.0f}), "
          f"{np.median(c):.0f} ms CPU of the thread (p90 {np.percentile(c, 90):.0f}); contours alone median {np.median(lo):.1f} ms; "
          f"naming one close-up median {np.median(all_close):.0f} ms CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
