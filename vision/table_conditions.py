"""What a real table does to a camera frame: light, glare, hands, tilt, blur, piles.

Pure image functions (numpy + OpenCV, no torch), driven by a
``numpy.random.Generator`` so that a seed gives the same frame again. They
work on a *top-down* frame that already shows the cards (drawn by
:mod:`vision.synth`) and whose true card corners are known:

1. :func:`draw_conditions` draws the conditions of one scene and of each of
   its cards (a frozen :class:`TableConditions`, with one
   :class:`CardConditions` per card), so that they can be recorded
   (:meth:`TableConditions.to_dict`) and scored per condition;
2. :func:`apply_conditions` renders them on the frame, in the order a camera
   sees them: a thrown card's motion blur, hard glare on the cards (saturated,
   sometimes over an index), hands and sleeves entering from the frame edge
   with their shadows, the camera's tilt (a homography: the corners move
   too), defocus, dim / warm / cold light with the sensor noise that comes
   with it, and JPEG. It returns a :class:`TableRender`: the frame, the
   cards' corners in it, how much of each card shows, and each card's
   condition labels (:data:`LABELS`).

:func:`pile_quads` lays out a trick *pile*: cards thrown on top of each other
near one point (the last card's whole outline shows; the cards under it only
in part), as opposed to the neatly fanned trick of :func:`vision.synth.make_scene`.
:func:`draw_card_length` draws a card size as a camera 60-80 cm above a table
sees it.

Labels (a card may carry several; ``clean`` only when it carries none):
``pile_top``, ``pile_under``, ``dim``, ``glare``, ``hand``, ``shadow``,
``defocus``, ``motion``, ``small``, ``tilt``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import cv2
import numpy as np

LABELS = ("clean", "pile_top", "pile_under", "dim", "glare", "hand", "shadow", "defocus", "motion", "small", "tilt")

# When a condition counts for a card (used for the labels, not for drawing).
SMALL_PX = 120  # a card whose long side is shorter than this (frame pixels) is small
TILT_DEG = 14.0  # camera tilt from which cards are labelled tilt
DEFOCUS_SIGMA = 1.5  # defocus (Gaussian-equivalent sigma, frame pixels) from which cards are labelled defocus
MOTION_PX = 4.0  # motion blur length from which a card is labelled motion
HAND_COVER = 0.05  # fraction of a card's area under a hand or sleeve
SHADOW_COVER = 0.15  # fraction of a card's visible area in a hand's shadow
GLARE_COVER = 0.02  # fraction of a card's area saturated by glare

LIGHTS = ("normal", "dim")
CASTS = ("neutral", "warm", "cold")
EDGES = ("top", "bottom", "left", "right")


# ---------------------------------------------------------------- the record
@dataclass(frozen=True)
class CardConditions:
    """What happens to one card: motion blur (a card being thrown) and glare on it."""

    motion: float = 0.0  # blur length in frame pixels (0: still)
    motion_angle: float = 0.0  # degrees
    glare: float = 0.0  # glare spot radius as a fraction of the card's short side (0: none)
    glare_on_index: bool = False  # the spot sits over one of the card's corner indices


@dataclass(frozen=True)
class HandConditions:
    """A hand (and its sleeve) entering from a frame edge, with its shadow."""

    edge: str  # "top" | "bottom" | "left" | "right"
    along: float  # where it enters along the edge, 0..1
    reach: float  # how far the fingertips reach into the frame, fraction of the frame's size across that edge
    target: int  # index of the card it reaches for, -1 for none
    shadow_dx: float  # shadow offset, fraction of the card length
    shadow_dy: float
    shadow_strength: float  # 0..1 darkening inside the shadow
    sleeve: bool  # a sleeve up to the wrist
    forearm: float = 0.0  # a bare forearm this wide (card lengths, a sleeve from halfway to the edge); 0: drawn from the hand's width


@dataclass(frozen=True)
class TableConditions:
    """The conditions of one scene (and of each card, in ``cards``)."""

    light: str = "normal"  # "normal" | "dim"
    cast: str = "neutral"  # "neutral" | "warm" | "cold"
    exposure: float = 1.0  # overall brightness after the camera's own gain
    noise: float = 2.0  # sensor noise, grey levels (sigma) at mid grey
    tilt: float = 0.0  # camera off vertical, degrees
    tilt_direction: float = 0.0  # direction of the tilt in the image, degrees
    defocus: float = 0.0  # Gaussian-equivalent sigma in frame pixels (0: sharp)
    jpeg: int = 0  # JPEG quality (0: none)
    hands: tuple[HandConditions, ...] = ()
    cards: tuple[CardConditions, ...] = field(default_factory=tuple)
    # a lamp's reflection clips the sensor whatever the room's light: its core is white after the
    # exposure and the colour cast (False: it is lit like the paper, the training data's way so far)
    glare_clips: bool = False

    def to_dict(self) -> dict:
        """A JSON-ready record of everything drawn."""
        d = asdict(self)
        d["hands"] = [asdict(h) for h in self.hands]
        d["cards"] = [asdict(c) for c in self.cards]
        return d


@dataclass
class TableRender:
    """A rendered frame: the image, each card's corners in it, how much of it shows, its labels."""

    image: np.ndarray
    quads: list[np.ndarray]
    visible: list[float]  # fraction of the card's area not covered (by cards above, hands, sleeves)
    inside: list[float]  # fraction of the card's outline inside the frame after the tilt
    labels: list[frozenset[str]]
    homography: np.ndarray  # top-down frame -> camera frame (the tilt)
    conditions: TableConditions


# ---------------------------------------------------------------- drawing the conditions
def draw_conditions(
    rng: np.random.Generator,
    n_cards: int,
    *,
    severity: float = 1.0,
    tilt_range: tuple[float, float] = (5.0, 20.0),
    jpeg_range: tuple[int, int] = (45, 85),
    targets: list[int] | None = None,
) -> TableConditions:
    """The conditions of one scene of ``n_cards`` cards.

    ``severity`` (0..1.5) scales how often each trouble occurs (0: a clean,
    evenly lit, sharp, top-down frame). ``targets`` are the card indices a
    hand may reach for (default: any card).
    """
    s = float(max(0.0, severity))
    p = lambda base: min(1.0, base * s)  # noqa: E731 - the chance of a trouble at this severity
    light = "dim" if rng.random() < p(0.3) else "normal"
    cast = CASTS[int(rng.integers(3))] if rng.random() < p(0.6) else "neutral"
    if light == "dim":
        exposure = float(rng.uniform(0.35, 0.7))
        noise = float(rng.uniform(5.0, 14.0))
    else:
        exposure = float(rng.uniform(0.8, 1.15)) if s > 0 else 1.0
        noise = float(rng.uniform(1.0, 4.0)) if s > 0 else 0.0
    tilt = float(rng.uniform(*tilt_range)) if rng.random() < p(0.9) else 0.0
    tilt_direction = float(rng.uniform(0, 360))
    r = rng.random()
    defocus = float(rng.uniform(1.0, 3.0)) if r < p(0.25) else float(rng.uniform(0.0, 0.8)) if s > 0 else 0.0
    jpeg = int(rng.integers(jpeg_range[0], jpeg_range[1] + 1)) if rng.random() < p(0.8) else 0
    pool = list(range(n_cards)) if targets is None else list(targets)
    hands = []
    for _ in range(int(rng.random() < p(0.45)) + int(rng.random() < p(0.12))):
        target = int(rng.choice(pool)) if pool and rng.random() < 0.7 else -1
        ang = rng.uniform(0, 2 * np.pi)
        dist = rng.uniform(0.05, 0.25)
        hands.append(HandConditions(
            edge=EDGES[int(rng.integers(4))], along=float(rng.uniform(0.1, 0.9)), reach=float(rng.uniform(0.2, 0.55)),
            target=target, shadow_dx=float(dist * np.cos(ang)), shadow_dy=float(dist * np.sin(ang)),
            shadow_strength=float(rng.uniform(0.3, 0.65)), sleeve=bool(rng.random() < 0.8),
        ))
    cards = []
    for _ in range(n_cards):
        motion = float(rng.uniform(5, 28)) if rng.random() < p(0.12) else 0.0
        glare = float(rng.uniform(0.15, 0.45)) if rng.random() < p(0.18) else 0.0
        cards.append(CardConditions(
            motion=motion, motion_angle=float(rng.uniform(0, 180)) if motion else 0.0,
            glare=glare, glare_on_index=bool(glare and rng.random() < 0.5),
        ))
    return TableConditions(light, cast, exposure, noise, tilt, tilt_direction, defocus, jpeg, tuple(hands), tuple(cards))


def draw_card_length(rng: np.random.Generator, frame_height: int, small: float = 0.15) -> float:
    """A card's long side in pixels for a camera 60-80 cm above the table: 17-27 % of the
    frame height, or with chance ``small`` a smaller card (down to 12 %, a far or wide camera)."""
    frac = rng.uniform(0.12, 0.17) if rng.random() < small else rng.uniform(0.17, 0.27)
    return float(frac * frame_height)


def pile_quads(rng: np.random.Generator, centre, length: float, aspect: float, n: int) -> list[np.ndarray]:
    """Corners (TL, TR, BR, BL) of ``n`` cards thrown onto one pile near ``centre``, in the
    order they land (the last lies on top): each lands within a third of a card length of
    the centre, turned anyhow; the cards under it show only in part."""
    from vision.card_geometry import card_quad

    centre = np.asarray(centre, np.float32)
    quads = []
    for _ in range(n):
        off = rng.normal(0, 0.16, 2).clip(-0.35, 0.35) * length
        angle = rng.uniform(0, 2 * np.pi)
        quads.append(card_quad(centre + off, length, angle, aspect, 0.01, rng))
    return quads


FAN_PIVOT = 0.12  # of a card's length: where the holding hand pinches a fan, from the cards' bottom end


def edge_frame(edge: str, along: float, inside: float, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(point, inward unit vector) for a point ``along`` (0..1) a frame ``edge`` and ``inside``
    pixels into the frame (negative: outside it); ``size`` is (w, h)."""
    w, h = size
    if edge == "top":
        return np.array([along * w, inside], np.float64), np.array([0.0, 1.0])
    if edge == "bottom":
        return np.array([along * w, h - inside], np.float64), np.array([0.0, -1.0])
    if edge == "left":
        return np.array([inside, along * h], np.float64), np.array([1.0, 0.0])
    if edge == "right":
        return np.array([w - inside, along * h], np.float64), np.array([-1.0, 0.0])
    raise ValueError(f"no frame edge {edge!r} (one of {', '.join(EDGES)})")


def fan_quads(pivot, direction: float, length: float, aspect: float, n: int, step: float) -> list[np.ndarray]:
    """Corners (TL, TR, BR, BL) of ``n`` cards held fanned in one hand, in the order they lie
    (the last on top): every card's long axis leaves ``pivot`` (``FAN_PIVOT`` of the card's
    length from its bottom end) towards its top, at ``direction`` + (k − (n − 1)/2)·``step``
    radians (image coordinates, y downwards); each card shows a strip beside the next."""
    from vision.card_geometry import card_quad

    pivot = np.asarray(pivot, np.float64)
    quads = []
    for k in range(n):
        phi = direction + (k - (n - 1) / 2) * step
        top = np.array([np.cos(phi), np.sin(phi)])  # from the card's bottom end to its top
        centre = pivot + top * (0.5 - FAN_PIVOT) * length
        # card_quad's face top points along (sin a, -cos a): a = phi + pi/2 puts it along ``top``
        quads.append(card_quad(centre, length, phi + np.pi / 2, aspect))
    return quads


def holding_hand(rng: np.random.Generator, edge: str, along: float, reach: float) -> HandConditions:
    """The hand holding a fan: from ``edge`` at ``along``, its fingertips ``reach`` (of the frame
    across that edge) in, on the fan's pivot, with a soft shadow and mostly a sleeve."""
    ang, dist = rng.uniform(0, 2 * np.pi), rng.uniform(0.03, 0.15)
    return HandConditions(edge=edge, along=float(along), reach=float(reach), target=-1,
                          shadow_dx=float(dist * np.cos(ang)), shadow_dy=float(dist * np.sin(ang)),
                          shadow_strength=float(rng.uniform(0.2, 0.5)), sleeve=bool(rng.random() < 0.7))


# ---------------------------------------------------------------- geometry helpers
def quad_mask(shape: tuple[int, int], quad: np.ndarray) -> np.ndarray:
    """A boolean mask of the pixels inside ``quad`` for an image of ``shape`` (h, w)."""
    m = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(quad)).astype(np.int32)], 255)
    return m > 0


def tilt_homography(size: tuple[int, int], tilt: float, direction: float, fov: float = 66.0) -> np.ndarray:
    """The homography from a top-down frame of ``size`` (w, h) to the frame of the same camera
    turned ``tilt`` degrees off vertical towards ``direction`` (degrees in the image), its
    horizontal field of view ``fov``; the frame centre stays where it is."""
    w, h = size
    f = (w / 2) / np.tan(np.deg2rad(fov) / 2)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], np.float64)
    d = np.deg2rad(direction)
    axis = np.array([-np.sin(d), np.cos(d), 0.0]) * np.deg2rad(tilt)  # rotation axis in the image plane
    rot, _ = cv2.Rodrigues(axis)
    hm = k @ rot @ np.linalg.inv(k)
    c = hm @ np.array([w / 2, h / 2, 1.0])
    c = c[:2] / c[2]
    shift = np.array([[1, 0, w / 2 - c[0]], [0, 1, h / 2 - c[1]], [0, 0, 1]], np.float64)
    return shift @ hm


def warp_points(hm: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (n, 2) mapped by homography ``hm``."""
    pts = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, hm).reshape(-1, 2).astype(np.float32)


# ---------------------------------------------------------------- the effects
def motion_blur(img: np.ndarray, length: float, angle: float) -> np.ndarray:
    """``img`` smeared along a line of ``length`` pixels at ``angle`` degrees."""
    k = max(3, int(round(length)) | 1)
    kern = np.zeros((k, k), np.float32)
    kern[k // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D(((k - 1) / 2, (k - 1) / 2), float(angle), 1.0)
    kern = cv2.warpAffine(kern, rot, (k, k), flags=cv2.INTER_LINEAR)
    return cv2.filter2D(img, -1, kern / max(float(kern.sum()), 1e-6), borderType=cv2.BORDER_REFLECT)


def blur_card_motion(img: np.ndarray, quad: np.ndarray, length: float, angle: float) -> None:
    """Motion blur on one card (a card being thrown), in place: the card and the table it
    sweeps over are smeared; the rest of the frame stays sharp."""
    if length <= 0:
        return
    h, w = img.shape[:2]
    pad = int(length) + 4
    x0, y0 = np.floor(quad.min(0)).astype(int) - pad
    x1, y1 = np.ceil(quad.max(0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    roi = img[y0:y1, x0:x1]
    smeared = motion_blur(roi, length, angle)
    m = quad_mask(roi.shape, quad - [x0, y0]).astype(np.float32)
    m = motion_blur(m, length, angle)
    m = cv2.GaussianBlur(np.minimum(m * 2.0, 1.0), (0, 0), 1.5)[..., None]
    img[y0:y1, x0:x1] = np.clip(roi * (1 - m) + smeared * m, 0, 255).astype(np.uint8)


def index_points(quad: np.ndarray) -> list[np.ndarray]:
    """Where a card's two corner indices lie (near its top-left and bottom-right corners)."""
    q = np.asarray(quad, np.float32)
    u, v = q[1] - q[0], q[3] - q[0]
    return [q[0] + 0.11 * u + 0.09 * v, q[2] - 0.11 * u - 0.09 * v]


def add_glare(img: np.ndarray, rng: np.random.Generator, quad: np.ndarray, radius: float, on_index: bool,
              core_out: np.ndarray | None = None) -> np.ndarray:
    """A hard specular glare on the card ``quad``, in place: a saturated (255) core with a soft
    halo, washed towards white; ``radius`` is the spot's size as a fraction of the card's short
    side. Returns the mask of the saturated pixels. ``core_out`` (float32, the frame's size), when
    given, keeps the greatest core weight of the spots drawn into it (how much each pixel is the lamp)."""
    h, w = img.shape[:2]
    q = np.asarray(quad, np.float32)
    short = float(np.linalg.norm(q[1] - q[0]))
    if on_index:
        centre = index_points(q)[int(rng.integers(2))]
    else:
        a, b = rng.uniform(0.15, 0.85, 2)
        centre = q[0] + a * (q[1] - q[0]) + b * (q[3] - q[0])
    rx = max(2.0, radius * short * rng.uniform(0.7, 1.3))
    ry = max(2.0, rx * rng.uniform(0.35, 1.0))
    spot = np.zeros((h, w), np.float32)
    cv2.ellipse(spot, (int(centre[0]), int(centre[1])), (int(rx), int(ry)), float(rng.uniform(0, 180)), 0, 360, 1.0, -1, cv2.LINE_AA)
    core = cv2.GaussianBlur(spot, (0, 0), max(1.0, rx * 0.15))
    halo = cv2.GaussianBlur(spot, (0, 0), max(2.0, rx * 0.8))
    out = img.astype(np.float32)
    white = np.float32(255.0)
    out = out + (white - out) * np.minimum(1.0, 0.9 * halo)[..., None] * 0.7
    out = out + 400.0 * core[..., None]
    if core_out is not None:
        np.maximum(core_out, core, out=core_out)
    np.clip(out, 0, 255, out=out)
    img[:] = out.astype(np.uint8)
    return (core > 0.35) & (img.min(axis=2) >= 250)


def _hand_masks(shape, rng: np.random.Generator, hand: HandConditions, card_length: float, aim) -> tuple[np.ndarray, np.ndarray]:
    """(sleeve mask, hand mask) as float32 0..1 for one hand entering from its edge."""
    h, w = shape[:2]
    edge = hand.edge
    if edge in ("top", "bottom"):
        start = np.array([hand.along * w, -0.3 * card_length if edge == "top" else h + 0.3 * card_length])
        depth = hand.reach * h
        inward = np.array([0.0, 1.0 if edge == "top" else -1.0])
    else:
        start = np.array([-0.3 * card_length if edge == "left" else w + 0.3 * card_length, hand.along * h])
        depth = hand.reach * w
        inward = np.array([1.0 if edge == "left" else -1.0, 0.0])
    tip = start + inward * (depth + 0.3 * card_length)
    if aim is not None:  # towards a card: the fingertips stop on it
        tip = np.asarray(aim, np.float64) + rng.normal(0, 0.15, 2) * card_length
    d = tip - start
    dist = max(float(np.linalg.norm(d)), 1.0)
    d = d / dist
    n = np.array([-d[1], d[0]])
    hand_len = card_length * rng.uniform(1.2, 1.6)
    palm_w = card_length * rng.uniform(0.55, 0.75)
    wrist = tip - d * hand_len
    sleeve = np.zeros((h, w), np.uint8)
    hand_m = np.zeros((h, w), np.uint8)
    far = start - d * card_length * 2  # beyond the frame edge
    sw = palm_w * rng.uniform(1.1, 1.5)
    if hand.forearm > 0:  # a bare forearm as wide as a card or narrower (sleeve rolled up to the elbow)
        aw = hand.forearm * card_length
        elbow = (wrist + start) / 2 if hand.sleeve else far  # the skin (the palm's colour) ends there
        poly = np.array([elbow + n * aw * 0.55, wrist + n * aw / 2, wrist - n * aw / 2, elbow - n * aw * 0.55], np.int32)
        cv2.fillPoly(hand_m, [poly], 255, cv2.LINE_AA)
        if hand.sleeve:
            poly = np.array([far + n * aw * 0.75, elbow + n * aw * 0.6, elbow - n * aw * 0.6, far - n * aw * 0.75], np.int32)
            cv2.fillPoly(sleeve, [poly], 255, cv2.LINE_AA)
    elif hand.sleeve:
        poly = np.array([far + n * sw / 2, wrist + n * sw / 2 * 0.9, wrist - n * sw / 2 * 0.9, far - n * sw / 2], np.int32)
        cv2.fillPoly(sleeve, [poly], 255, cv2.LINE_AA)
    else:  # a bare forearm
        poly = np.array([far + n * sw / 2 * 0.7, wrist + n * palm_w / 2 * 0.8, wrist - n * palm_w / 2 * 0.8, far - n * sw / 2 * 0.7], np.int32)
        cv2.fillPoly(hand_m, [poly], 255, cv2.LINE_AA)
    palm_c = wrist + d * hand_len * 0.35
    ang = float(np.degrees(np.arctan2(d[1], d[0])))
    fw = wrist - d * hand_len * 0.25  # the wrist joins the palm to the sleeve (or the forearm)
    cv2.line(hand_m, (int(fw[0]), int(fw[1])), (int(palm_c[0]), int(palm_c[1])), 255, max(3, int(palm_w * 0.7)), cv2.LINE_AA)
    cv2.ellipse(hand_m, (int(palm_c[0]), int(palm_c[1])), (int(hand_len * 0.3), int(palm_w / 2)), ang, 0, 360, 255, -1, cv2.LINE_AA)
    fingers = int(rng.integers(3, 5))
    curl = rng.uniform(0.55, 1.0)  # curled fingers reach less far
    for k in range(fingers):
        off = (k - (fingers - 1) / 2) / max(1, fingers - 1) * palm_w * 0.75
        base = palm_c + d * hand_len * 0.2 + n * off
        end = base + d * hand_len * 0.45 * curl * rng.uniform(0.8, 1.1) + n * off * 0.2
        cv2.line(hand_m, (int(base[0]), int(base[1])), (int(end[0]), int(end[1])), 255, max(2, int(palm_w * 0.2)), cv2.LINE_AA)
    side = 1 if rng.random() < 0.5 else -1  # the thumb
    tb = palm_c + n * side * palm_w * 0.4
    te = tb + (n * side * 0.6 + d * 0.6) * hand_len * 0.3
    cv2.line(hand_m, (int(tb[0]), int(tb[1])), (int(te[0]), int(te[1])), 255, max(2, int(palm_w * 0.22)), cv2.LINE_AA)
    return sleeve.astype(np.float32) / 255, hand_m.astype(np.float32) / 255


def add_hand(img: np.ndarray, rng: np.random.Generator, hand: HandConditions, card_length: float, aim=None) -> tuple[np.ndarray, np.ndarray]:
    """A hand (and sleeve) from the frame edge with its soft shadow, in place.
    Returns (mask of hand + sleeve, mask of the shadow where it is not under the hand), bool."""
    h, w = img.shape[:2]
    sleeve, skin_m = _hand_masks(img.shape, rng, hand, card_length, aim)
    body = np.maximum(sleeve, skin_m)
    shift = np.float32([[1, 0, hand.shadow_dx * card_length], [0, 1, hand.shadow_dy * card_length]])
    shadow = cv2.warpAffine(body, shift, (w, h))
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.5, card_length * rng.uniform(0.02, 0.08)))
    out = img.astype(np.float32) * (1 - hand.shadow_strength * shadow)[..., None]
    # skin: a base colour, lit from one side across the arm, slight texture
    skin = np.array([rng.uniform(60, 170), rng.uniform(90, 190), rng.uniform(140, 240)], np.float32)
    cloth = rng.integers(0, 256, 3).astype(np.float32) * rng.uniform(0.3, 1.0)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    ramp = 0.85 + 0.3 * ((xx / w) * np.cos(a) + (yy / h) * np.sin(a))
    tex = cv2.resize(rng.normal(0, 1, (h // 8 + 1, w // 8 + 1)).astype(np.float32), (w, h))
    skin_img = skin * (ramp + 0.03 * tex)[..., None]
    cloth_img = cloth * (ramp + 0.08 * tex)[..., None]
    soft = lambda m: cv2.GaussianBlur(m, (0, 0), 1.0)[..., None]  # noqa: E731
    s_m, k_m = soft(sleeve), soft(skin_m)
    out = out * (1 - s_m) + cloth_img * s_m
    out = out * (1 - k_m) + skin_img * k_m
    img[:] = np.clip(out, 0, 255).astype(np.uint8)
    covered = body > 0.5
    return covered, (shadow > 0.35) & ~covered


def defocus(img: np.ndarray, sigma: float) -> np.ndarray:
    """A defocused frame: a disc (pillbox) blur of radius ``2 sigma`` (the disc's own sigma)."""
    if sigma <= 0.3:
        return img
    r = 2.0 * sigma
    k = int(np.ceil(r)) * 2 + 1
    disc = np.zeros((k * 4, k * 4), np.float32)  # drawn 4x larger then reduced: a smooth edge
    cv2.circle(disc, (k * 2, k * 2), int(round(r * 4)), 1.0, -1, cv2.LINE_AA)
    disc = cv2.resize(disc, (k, k), interpolation=cv2.INTER_AREA)
    return cv2.filter2D(img, -1, disc / disc.sum(), borderType=cv2.BORDER_REFLECT)


CAST_GAINS = {  # BGR channel gains of a white balance gone wrong
    "neutral": (1.0, 1.0, 1.0),
    "warm": (0.72, 0.9, 1.08),  # tungsten, candle-like room light
    "cold": (1.12, 1.0, 0.82),  # daylight through a window, cold LEDs
}


def apply_light(img: np.ndarray, rng: np.random.Generator, light: str, cast: str, exposure: float, noise: float) -> np.ndarray:
    """Light and sensor: a colour cast, the exposure after the camera's gain, and the noise that
    gain brings (signal-dependent shot noise, read noise, coarse colour blotches when dim)."""
    out = img.astype(np.float32)
    g = np.array(CAST_GAINS[cast], np.float32)
    if cast != "neutral":  # no two lamps alike
        g = g * rng.uniform(0.95, 1.05, 3).astype(np.float32)
    out *= g * np.float32(exposure)
    if light == "dim":  # a dim room: crushed blacks, a gamma lift from the camera's tone curve
        out = 255.0 * np.power(np.clip(out / 255.0, 0, 1), rng.uniform(0.85, 1.05)) - rng.uniform(0, 8)
    if noise > 0:
        h, w = out.shape[:2]
        shot = np.sqrt(np.clip(out, 1, 255) / 128.0)
        out += rng.normal(0, 1, out.shape).astype(np.float32) * np.float32(noise) * shot
        if light == "dim":
            blotch = cv2.resize(rng.normal(0, noise * 0.5, (h // 6 + 1, w // 6 + 1, 3)).astype(np.float32), (w, h))
            out += blotch
    return np.clip(out, 0, 255).astype(np.uint8)


def clip_glare(img: np.ndarray, lamp: np.ndarray, homography: np.ndarray | None, sigma: float) -> np.ndarray:
    """The lamp's reflection as a sensor records it: where ``lamp`` (the glare cores' weight, drawn
    on the top-down frame) is strong the pixel is white (255 in every channel, without noise),
    through the same tilt and defocus as the rest of the frame."""
    h, w = img.shape[:2]
    if homography is not None:
        lamp = cv2.warpPerspective(lamp, homography, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    lamp = defocus(lamp, sigma)
    white = np.clip(400.0 * lamp, 0, 255)[..., None]
    return np.maximum(img.astype(np.float32), white).astype(np.uint8)


def jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    """``img`` through a JPEG encoder at ``quality`` (0: unchanged)."""
    if quality <= 0:
        return img
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img


# ---------------------------------------------------------------- the whole render
def apply_conditions(
    image: np.ndarray,
    quads,
    covers,
    conditions: TableConditions,
    rng: np.random.Generator,
    piles: list[str | None] | None = None,
) -> TableRender:
    """Render ``conditions`` on a top-down frame (not changed) whose cards lie at ``quads``.

    ``covers`` holds, per card, the boolean mask of its visible pixels (what the
    cards laid after it leave uncovered; ``vision.synth.paste`` returns each card's
    coverage); ``piles`` gives each card's place in a pile: ``"top"``, ``"under"`` or
    ``None``. Returns the camera frame, the cards' corners in it and their labels.
    """
    img = np.ascontiguousarray(image).copy()
    h, w = img.shape[:2]
    quads = [np.asarray(q, np.float32) for q in quads]
    n = len(quads)
    if len(conditions.cards) != n:
        raise ValueError(f"conditions drawn for {len(conditions.cards)} cards, {n} given")
    covers = [np.asarray(c, bool) for c in covers]
    piles = list(piles) if piles is not None else [None] * n
    areas = [max(1.0, abs(cv2.contourArea(q))) for q in quads]
    lengths = [max(float(np.linalg.norm(q[1] - q[2])), float(np.linalg.norm(q[0] - q[1]))) for q in quads]
    card_length = float(np.median(lengths)) if lengths else 0.25 * h
    # a card being thrown, then glare on the card surfaces
    glare_px = np.zeros((h, w), bool)
    lamp = np.zeros((h, w), np.float32) if conditions.glare_clips else None
    for q, cc in zip(quads, conditions.cards):
        if cc.motion > 0:
            blur_card_motion(img, q, cc.motion, cc.motion_angle)
    for q, cc in zip(quads, conditions.cards):
        if cc.glare > 0:
            glare_px |= add_glare(img, rng, q, cc.glare, cc.glare_on_index, lamp)
    # hands and sleeves with their shadows
    hand_px = np.zeros((h, w), bool)
    shadow_px = np.zeros((h, w), bool)
    for hand in conditions.hands:
        aim = quads[hand.target].mean(0) if 0 <= hand.target < n else None
        body, shadow = add_hand(img, rng, hand, card_length, aim)
        shadow_px = (shadow_px | shadow) & ~body
        hand_px |= body
    if lamp is not None:
        lamp[hand_px] = 0.0  # a hand over the spot hides the lamp's reflection
    labels, visible = [], []
    for i, (q, cover, cc) in enumerate(zip(quads, covers, conditions.cards)):
        mask = quad_mask((h, w), q)
        shows = cover & ~hand_px
        visible.append(float(shows.sum()) / areas[i])
        lab = set()
        if piles[i] == "top":
            lab.add("pile_top")
        elif piles[i] == "under":
            lab.add("pile_under")
        if conditions.light == "dim":
            lab.add("dim")
        if (glare_px & cover).sum() >= GLARE_COVER * areas[i]:
            lab.add("glare")
        if (hand_px & mask).sum() >= HAND_COVER * areas[i]:
            lab.add("hand")
        if (shadow_px & shows).sum() >= SHADOW_COVER * max(1.0, float(shows.sum())):
            lab.add("shadow")
        if conditions.defocus >= DEFOCUS_SIGMA:
            lab.add("defocus")
        if cc.motion >= MOTION_PX:
            lab.add("motion")
        if conditions.tilt >= TILT_DEG:
            lab.add("tilt")
        labels.append(lab)
    # the camera: tilt, focus, light and sensor, compression
    hm = tilt_homography((w, h), conditions.tilt, conditions.tilt_direction) if conditions.tilt > 0 else np.eye(3)
    if conditions.tilt > 0:
        img = cv2.warpPerspective(img, hm, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    out_quads = [warp_points(hm, q) for q in quads]
    inside = []
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    for i, q in enumerate(out_quads):
        inter, _ = cv2.intersectConvexConvex(q, frame)
        inside.append(float(inter / max(1.0, abs(cv2.contourArea(q)))))
        long_side = max(float(np.linalg.norm(q[1] - q[2])), float(np.linalg.norm(q[0] - q[3])),
                        float(np.linalg.norm(q[0] - q[1])), float(np.linalg.norm(q[2] - q[3])))
        if long_side < SMALL_PX:
            labels[i].add("small")
    img = defocus(img, conditions.defocus)
    img = apply_light(img, rng, conditions.light, conditions.cast, conditions.exposure, conditions.noise)
    if lamp is not None and lamp.any():
        img = clip_glare(img, lamp, hm if conditions.tilt > 0 else None, conditions.defocus)
    img = jpeg(img, conditions.jpeg)
    frozen = [frozenset(lab) if lab else frozenset({"clean"}) for lab in labels]
    return TableRender(img, out_quads, visible, inside, frozen, hm, conditions)
