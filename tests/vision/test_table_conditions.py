"""Real-table effects (vision.table_conditions) and the real-table scenes built on them."""

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vision import synth
from vision import table_conditions as tc

SIZE = (640, 360)


def flat(colour=(90, 120, 60), size=SIZE) -> np.ndarray:
    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = colour
    return img


def one_card(size=SIZE, length=150.0, centre=(320, 180), angle=0.3):
    """A flat frame with one built-in card: (image, quad, cover mask)."""
    img = flat(size=size)
    face = synth.builtin_faces()[5]
    quad = synth.card_quad(np.array(centre, np.float32), length, angle, face.bgr.shape[0] / face.bgr.shape[1])
    cover = synth.paste(img, face, quad)
    return img, quad, cover


def test_severity_zero_is_a_clean_top_down_frame():
    rng = np.random.default_rng(1)
    cond = tc.draw_conditions(rng, 3, severity=0)
    assert cond.light == "normal" and cond.cast == "neutral"
    assert cond.tilt == 0 and cond.defocus == 0 and cond.jpeg == 0 and cond.noise == 0 and cond.exposure == 1
    assert cond.hands == () and all(c == tc.CardConditions() for c in cond.cards)
    img, quad, cover = one_card()
    r = tc.apply_conditions(img, [quad], [cover], tc.draw_conditions(np.random.default_rng(2), 1, severity=0), rng)
    assert np.array_equal(r.image, img)  # nothing drawn, nothing changed
    assert r.labels == [frozenset({"clean"})]
    assert np.allclose(r.quads[0], quad) and r.inside[0] == pytest.approx(1.0) and r.visible[0] > 0.97


def test_same_seed_same_frame_and_record():
    faces = synth.builtin_faces()
    a = synth.make_table_scene(np.random.default_rng(5), faces, size=SIZE)
    b = synth.make_table_scene(np.random.default_rng(5), faces, size=SIZE)
    c = synth.make_table_scene(np.random.default_rng(6), faces, size=SIZE)
    assert np.array_equal(a.image, b.image) and a.conditions == b.conditions
    assert not np.array_equal(a.image, c.image)
    json.dumps(a.conditions)  # the record is JSON-ready


def test_conditions_count_must_match_the_cards():
    img, quad, cover = one_card()
    cond = tc.draw_conditions(np.random.default_rng(0), 2)
    with pytest.raises(ValueError, match="2 cards, 1 given"):
        tc.apply_conditions(img, [quad], [cover], cond, np.random.default_rng(0))


def test_severity_scales_how_often_troubles_come():
    def troubles(sev):
        n = 0
        for s in range(200):
            c = tc.draw_conditions(np.random.default_rng(s), 4, severity=sev)
            n += (c.light == "dim") + len(c.hands) + (c.defocus >= tc.DEFOCUS_SIGMA) + sum(cc.glare > 0 for cc in c.cards)
        return n

    assert troubles(0.3) < troubles(1.0) < troubles(1.5)


def test_tilt_homography_keeps_the_centre_and_makes_a_trapezoid():
    w, h = 1280, 720
    assert np.allclose(tc.tilt_homography((w, h), 0.0, 30.0), np.eye(3))
    hm = tc.tilt_homography((w, h), 18.0, 90.0)  # tilted along the image's y axis
    assert np.allclose(tc.warp_points(hm, np.array([[w / 2, h / 2]])), [[w / 2, h / 2]], atol=1e-3)
    sq = np.array([[540, 260], [740, 260], [740, 460], [540, 460]], np.float32)
    out = tc.warp_points(hm, sq)
    top, bottom = np.linalg.norm(out[1] - out[0]), np.linalg.norm(out[2] - out[3])
    assert abs(top - bottom) > 10  # one side is nearer the camera than the other
    assert abs(out[0, 1] - out[1, 1]) < 1e-3 and abs(out[2, 1] - out[3, 1]) < 1e-3  # still symmetric about x


def test_tilted_corners_follow_the_image():
    img = flat(size=(1280, 720))
    quad = synth.card_quad(np.array((500, 300), np.float32), 260, 0.3, 1.8)
    white = synth.Face("T01", np.full((180, 100, 3), 255, np.uint8), np.full((180, 100), 255, np.uint8))
    cover = synth.paste(img, white, quad)
    cond = tc.TableConditions(tilt=18.0, tilt_direction=40.0, noise=0.0, cards=(tc.CardConditions(),))
    r = tc.apply_conditions(img, [quad], [cover], cond, np.random.default_rng(0))
    assert "tilt" in r.labels[0]
    mask = cv2.cvtColor(r.image, cv2.COLOR_BGR2GRAY) > 200  # the white card on the green table
    truth = tc.quad_mask(mask.shape, r.quads[0])
    iou = (mask & truth).sum() / (mask | truth).sum()
    assert iou > 0.95
    assert not np.allclose(r.quads[0], quad, atol=5)


def test_glare_saturates_part_of_the_card_and_can_sit_on_the_index():
    img, quad, cover = one_card()
    before = img.copy()
    sat = tc.add_glare(img, np.random.default_rng(3), quad, 0.35, on_index=True)
    inside = tc.quad_mask(img.shape, quad)
    assert sat.sum() > 0.02 * inside.sum()
    assert (img[sat] >= 250).all()  # saturated
    ys, xs = np.nonzero(sat)
    centre = np.array([xs.mean(), ys.mean()])
    short = np.linalg.norm(quad[1] - quad[0])
    assert min(np.linalg.norm(centre - p) for p in tc.index_points(quad)) < 0.5 * short
    near = cv2.dilate(sat.astype(np.uint8), np.ones((241, 241), np.uint8)).astype(bool)
    assert (img[~near] == before[~near]).all()  # a spot, not a wash over the frame


def test_a_lamps_reflection_clips_the_sensor_in_a_dim_warm_room_when_asked_and_nothing_else_changes():
    img, quad, cover = one_card()
    card = tc.CardConditions(glare=0.35)
    cond = tc.TableConditions(light="dim", cast="warm", exposure=0.45, noise=6.0, tilt=12.0, defocus=1.2,
                              cards=(card,))
    lit = tc.apply_conditions(img, [quad], [cover], cond, np.random.default_rng(4)).image
    clips = tc.apply_conditions(img, [quad], [cover], replace(cond, glare_clips=True), np.random.default_rng(4)).image
    assert lit.min(axis=2).max() < 200  # lit like the paper: a dim, tinted spot
    white = clips.min(axis=2) >= 250
    assert white.sum() > 0.01 * tc.quad_mask(img.shape, quad).sum()  # the core is white, in every channel
    changed = np.any(clips != lit, axis=2)
    near = cv2.dilate(white.astype(np.uint8), np.ones((61, 61), np.uint8)).astype(bool)  # the spot's soft edge
    assert changed.any() and not (changed & ~near).any()  # the same frame everywhere else (no draw consumed)
    assert tc.TableConditions().glare_clips is False and "glare_clips" in cond.to_dict()


def test_hand_enters_from_its_edge_and_casts_a_shadow():
    img = flat(colour=(200, 200, 200))
    hand = tc.HandConditions(edge="left", along=0.5, reach=0.4, target=-1, shadow_dx=0.15, shadow_dy=0.1,
                             shadow_strength=0.5, sleeve=True)
    body, shadow = tc.add_hand(img, np.random.default_rng(4), hand, 100.0)
    assert body[:, 0].any() and not body[:, -1].any()  # from the left edge, not across the frame
    assert shadow.sum() > 500 and not (shadow & body).any()
    assert img[shadow].mean() < 170  # darker than the table (200) under the shadow
    near = cv2.dilate((body | shadow).astype(np.uint8), np.ones((41, 41), np.uint8)).astype(bool)
    assert (np.abs(img[~near].astype(int) - 200) <= 2).all()  # the rest of the table is untouched


def test_hand_over_a_card_is_recorded():
    img, quad, cover = one_card()
    hand = tc.HandConditions(edge="top", along=0.5, reach=0.5, target=0, shadow_dx=0.1, shadow_dy=0.1,
                             shadow_strength=0.5, sleeve=False)
    cond = tc.TableConditions(noise=0.0, hands=(hand,), cards=(tc.CardConditions(),))
    r = tc.apply_conditions(img, [quad], [cover], cond, np.random.default_rng(1))
    assert "hand" in r.labels[0] and "clean" not in r.labels[0]
    assert r.visible[0] < 0.95


def test_dim_light_is_darker_and_noisier():
    img = flat(colour=(150, 150, 150))
    normal = tc.apply_light(img, np.random.default_rng(0), "normal", "neutral", 1.0, 2.0).astype(np.float32)
    dim = tc.apply_light(img, np.random.default_rng(0), "dim", "neutral", 0.45, 10.0).astype(np.float32)
    assert dim.mean() < normal.mean() - 40
    noise = lambda im: (im - im.reshape(-1, 3).mean(0)).std()  # noqa: E731
    assert noise(dim) > 1.5 * noise(normal)


@pytest.mark.parametrize("cast,channel", [("warm", 2), ("cold", 0)])  # BGR: warm raises red, cold blue
def test_colour_cast(cast, channel):
    out = tc.apply_light(flat(colour=(150, 150, 150)), np.random.default_rng(0), "normal", cast, 1.0, 0.0).astype(float)
    means = out.reshape(-1, 3).mean(0)
    assert means.argmax() == channel


def test_defocus_and_motion_blur_soften_edges():
    img, quad, _ = one_card()
    grad = lambda im: np.abs(np.diff(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(float), axis=1)).mean()  # noqa: E731
    assert np.array_equal(tc.defocus(img, 0.0), img)
    assert grad(tc.defocus(img, 2.0)) < 0.8 * grad(img)
    moved = img.copy()
    tc.blur_card_motion(moved, quad, 20.0, 0.0)
    far = ~cv2.dilate(tc.quad_mask(img.shape, quad).astype(np.uint8), np.ones((61, 61), np.uint8)).astype(bool)
    assert np.array_equal(moved[far], img[far])  # the rest of the frame stays sharp
    assert grad(moved) < grad(img)


def test_jpeg_changes_pixels_only_when_asked():
    img, _, _ = one_card()
    assert tc.jpeg(img, 0) is img
    out = tc.jpeg(img, 40)
    assert out.shape == img.shape and not np.array_equal(out, img)


def test_pile_quads_lie_on_one_point():
    rng = np.random.default_rng(0)
    quads = tc.pile_quads(rng, (400, 300), 180.0, 1.8, 5)
    assert len(quads) == 5
    centres = np.array([q.mean(0) for q in quads])
    assert (np.linalg.norm(centres - [400, 300], axis=1) < 0.5 * 180).all()
    lengths = [np.linalg.norm(q[1] - q[2]) for q in quads]
    assert np.allclose(lengths, 180, atol=5)


def test_card_length_as_a_camera_sees_it():
    rng = np.random.default_rng(0)
    lengths = np.array([tc.draw_card_length(rng, 720) for _ in range(500)])
    assert lengths.min() >= 0.12 * 720 and lengths.max() <= 0.27 * 720
    assert 0.05 < (lengths < 0.17 * 720).mean() < 0.3


@pytest.mark.parametrize("seed", range(6))
def test_pile_scene_has_one_whole_top_card(seed):
    faces = synth.builtin_faces()
    s = synth.make_table_scene(np.random.default_rng(seed), faces, size=SIZE, layout="pile")
    tops = [c for c in s.cards if "pile_top" in c.labels]
    under = [c for c in s.cards if "pile_under" in c.labels]
    assert len(tops) == 1 and len(under) == len(s.cards) - 1 >= 2
    assert all(c.in_trick for c in s.cards)
    if "hand" not in tops[0].labels:
        assert tops[0].visible > 0.95  # the top card's whole outline shows
    assert all(c.visible < 1.0 for c in under)  # at least two (above)
    assert s.conditions["layout"] == "pile" and len(s.conditions["cards"]) == len(s.cards)


def test_scene_labels_are_known_and_clean_is_alone():
    faces = synth.builtin_faces()
    seen = set()
    for seed in range(12):
        s = synth.make_table_scene(np.random.default_rng(100 + seed), faces, size=SIZE)
        for c in s.cards:
            assert c.labels <= set(tc.LABELS) and c.labels
            assert "clean" not in c.labels or c.labels == {"clean"}
            seen |= c.labels
    assert {"pile_top", "pile_under", "tilt"} <= seen


def test_low_resolution_frame():
    s = synth.make_table_scene(np.random.default_rng(3), synth.builtin_faces(), size=(640, 480), layout="scattered")
    assert s.image.shape == (480, 640, 3)
    assert all("small" in c.labels for c in s.cards)  # 12-27 % of 480 rows is under 120 px


# ---------------------------------------------------------------- training synthesis at a real table
def test_table_crop_is_a_card_crop_with_its_labels():
    faces = synth.builtin_faces()
    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(12):
        crop, labels = synth.make_table_crop(rng, faces[3], (112, 192), faces)
        assert crop.shape == (192, 112, 3) and crop.dtype == np.uint8
        assert labels <= set(tc.LABELS) and labels
        seen |= labels
    assert {"pile_top", "pile_under"} <= seen
    a, _ = synth.make_table_crop(np.random.default_rng(1), faces[3], (112, 192), faces)
    b, _ = synth.make_table_crop(np.random.default_rng(1), faces[3], (112, 192), faces)
    assert np.array_equal(a, b)


def test_table_crop_shows_the_card():
    """With the conditions off, the crop of a lone card is that card (close to a clean crop of it)."""
    faces = synth.builtin_faces()
    crop, labels = synth.make_table_crop(np.random.default_rng(3), faces[40], (112, 192), (), severity=0, jitter=0)
    assert labels <= {"clean", "small"}  # a lone card, nothing on it (it may be drawn small)
    grey = lambda im: cv2.cvtColor(im, cv2.COLOR_BGR2GRAY)[12:-12, 8:-8].astype(float).ravel()  # noqa: E731 - inside the edge
    face = cv2.resize(faces[40].bgr, (112, 192), interpolation=cv2.INTER_AREA)
    corr = max(np.corrcoef(grey(crop), grey(f))[0, 1] for f in (face, face[::-1, ::-1]))
    other = max(np.corrcoef(grey(crop), grey(cv2.resize(faces[k].bgr, (112, 192))))[0, 1] for k in (10, 60))
    assert corr > 0.85 and corr > other + 0.1


@pytest.mark.parametrize("kind", synth.NEGATIVE_KINDS)
def test_negative_frames_and_crops(kind):
    rng = np.random.default_rng(11)
    frame = synth.negative_frame(rng, kind, (640, 360))
    assert frame.shape == (360, 640, 3)
    crop, got = synth.make_negative_crop(rng, (112, 192), kind)
    assert got == kind and crop.shape == (192, 112, 3)


def test_screen_is_mostly_dark_with_bright_text():
    img = synth.screen_image(np.random.default_rng(0))
    assert img.shape == (64, 128, 3)
    bright = (img.max(axis=2) > 128).mean()
    assert 0.02 < bright < 0.5 or 0.5 < bright < 0.98  # text on a dark screen, or an inverted screen


def test_training_recipe_draws_table_crops_and_negatives():
    from vision.training.data import UNKNOWN_INDEX, Recipe, make_sample, training_decks

    decks = training_decks(None)
    rng = np.random.default_rng(0)
    recipe = Recipe(None, None, (56, 96), unknown_rate=1.0, negative_rate=1.0)
    kinds = {make_sample(rng, recipe, decks)[2] for _ in range(30)}
    assert kinds <= set(synth.NEGATIVE_KINDS) and len(kinds) >= 4
    recipe = Recipe(None, None, (56, 96), unknown_rate=0.0, table_rate=1.0)
    crop, label, src = make_sample(rng, recipe, decks)
    assert crop.shape == (96, 56, 3) and label != UNKNOWN_INDEX and src == "builtin"


def test_locator_table_scene_targets():
    from vision.training.locator_data import make_table_locator_scene

    decks = [synth.builtin_faces()]
    for seed in range(4):
        s = make_table_locator_scene(np.random.default_rng(seed), decks)
        assert s.image.shape == (180, 320, 3)
        assert len(s.quads) == len(s.visible) >= 2
        assert ((s.visible >= 0) & (s.visible <= 1)).all()
        centres = s.quads.mean(1)
        assert ((centres > -40) & (centres < [360, 220])).all()  # in the reduced frame's pixels


def test_locator_table_scene_at_a_whole_camera_frame():
    """A real-table scene drawn at the camera's whole frame is reduced like one: the same input
    size, its cards' corners in the reduced frame's pixels, and the same scene's cards in the
    same places (as fractions of the frame) as when it is drawn at half size."""
    from vision.training.locator_data import CAMERA_FRAME, RENDER, make_table_locator_scene

    decks = [synth.builtin_faces()]
    full = make_table_locator_scene(np.random.default_rng(5), decks, size=CAMERA_FRAME, forearm_rate=0.0, fan_rate=0.0)
    half = make_table_locator_scene(np.random.default_rng(5), decks, size=RENDER, forearm_rate=0.0, fan_rate=0.0)
    assert full.image.shape == half.image.shape == (180, 320, 3)
    assert len(full.quads) == len(half.quads)
    assert np.abs(full.quads - half.quads).max() < 3.0  # reduced pixels; the draw scales with the frame


def test_locator_scenes_mix_camera_frames(monkeypatch):
    from vision.training import locator_data

    drawn, fans = [], []
    monkeypatch.setattr(locator_data, "make_table_locator_scene",
                        lambda rng, decks, bg, size, fan_rate: drawn.append(size) or fans.append(fan_rate))
    for seed in range(40):
        locator_data.make_locator_scene(np.random.default_rng(seed), [], table_rate=1.0, camera_frame_rate=0.5)
    assert 10 <= drawn.count(locator_data.CAMERA_FRAME) <= 30 and drawn.count(locator_data.RENDER) == 40 - drawn.count(locator_data.CAMERA_FRAME)
    drawn.clear()
    for seed in range(10):
        locator_data.make_locator_scene(np.random.default_rng(seed), [], table_rate=1.0, camera_frame_rate=0.0)
    assert drawn == [locator_data.RENDER] * 10
    assert set(fans) == {locator_data.FAN_RATE}  # the held fans' rate by default...
    fans.clear()
    locator_data.make_locator_scene(np.random.default_rng(0), [], table_rate=1.0, fan_rate=0.0)
    assert fans == [0.0]  # ... or the one asked for (the held-out scenes: none)


def test_a_bare_forearm_is_a_band_of_its_width_with_the_sleeve_beyond_the_elbow():
    for sleeve in (False, True):
        img = flat(colour=(200, 200, 200))
        hand = tc.HandConditions(edge="left", along=0.5, reach=0.6, target=-1, shadow_dx=0.0, shadow_dy=0.0,
                                 shadow_strength=0.0, sleeve=sleeve, forearm=0.4)
        sleeve_m, skin_m = tc._hand_masks(img.shape, np.random.default_rng(2), hand, 100.0, None)
        h, w = img.shape[:2]
        wrist_x = int(np.nonzero(skin_m[h // 2] > 0.5)[0].max()) - 160  # well before the palm
        skin_rows = np.count_nonzero(skin_m[:, 40] > 0.5)  # across the arm near the frame edge
        mid_rows = np.count_nonzero(skin_m[:, max(41, wrist_x)] > 0.5)
        if sleeve:
            assert skin_rows == 0 and np.count_nonzero(sleeve_m[:, 40] > 0.5) > 40  # the sleeve reaches the edge
        else:
            assert 35 <= skin_rows <= 70 and not sleeve_m.any()  # about 0.4 of a 100-pixel card length
        assert 30 <= mid_rows <= 65
    # the old hands are drawn as before: a forearm of 0 takes the sleeve's or the hand's width
    assert tc.HandConditions("top", 0.5, 0.5, -1, 0.1, 0.1, 0.5, True).forearm == 0.0


def test_locator_table_scenes_with_a_forearm_add_one_hand():
    from vision.training.locator_data import with_forearm

    cond = tc.TableConditions(hands=(), cards=(tc.CardConditions(), tc.CardConditions()))
    added = with_forearm(np.random.default_rng(0))(cond)
    assert len(added.hands) == 1 and 0.3 <= added.hands[0].forearm <= 0.5
    assert added.hands[0].target in (-1, 0, 1) and added.cards == cond.cards


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(tc.EDGES), st.floats(0.1, 0.9), st.floats(-30, 40), st.floats(-0.4, 0.4),
       st.integers(2, 10), st.floats(0.08, 0.2), st.floats(80, 200))
def test_a_held_fan_turns_about_its_pivot(edge, along, inside, turn, n, step, length):
    """Every card of a fan is the same card shape, its long axis passes through the pivot at
    FAN_PIVOT of its length from its bottom end, and each card turns ``step`` from the one under it."""
    pivot, inward = tc.edge_frame(edge, along, inside, (1280, 720))
    assert np.isclose(np.linalg.norm(inward), 1)
    direction = float(np.arctan2(inward[1], inward[0]) + turn)
    quads = tc.fan_quads(pivot, direction, length, 1.8, n, step)
    assert len(quads) == n
    angles = []
    for q in quads:
        bottom, top = (q[2] + q[3]) / 2, (q[0] + q[1]) / 2  # TL, TR, BR, BL of the face
        assert np.isclose(np.linalg.norm(top - bottom), length, rtol=1e-3)
        assert np.isclose(np.linalg.norm(q[1] - q[0]), length / 1.8, rtol=1e-3)
        assert np.allclose(bottom + (top - bottom) * tc.FAN_PIVOT, pivot, atol=1e-2 * length)
        angles.append(np.arctan2(*(top - bottom)[::-1]))
    turns = np.angle(np.exp(1j * np.diff(angles)))
    assert np.allclose(turns, step, atol=1e-4)
    spread = np.angle(np.exp(1j * (np.array(angles) - direction)))  # each card's turn from ``direction``
    assert np.allclose(spread, -spread[::-1], atol=1e-3)  # the fan opens around ``direction``
    # it opens into the frame: the cards' tops lie further in than the pivot when it turns little
    if abs(turn) < 0.3 and n * step < 1.0:
        tops = np.array([(q[0] + q[1]) / 2 for q in quads])
        assert ((tops - pivot) @ inward > 0).all()


def test_a_scene_with_a_held_fan_shows_its_top_card_and_strips_of_the_others():
    faces = synth.builtin_faces()
    fans = 0
    for seed in range(8):
        plain = synth.make_table_scene(np.random.default_rng(seed), faces)
        scene = synth.make_table_scene(np.random.default_rng(seed), faces, fan=True)
        assert "fan" not in plain.conditions  # scenes without a fan are drawn as before
        if not scene.conditions["fan"]:
            continue
        fans += 1
        held = scene.cards[len(plain.cards):]
        assert 5 <= len(held) <= 9
        assert len({c.code for c in scene.cards}) == len(scene.cards)  # the hand holds other cards than the table's
        assert all(c.visible < 0.3 for c in held[:-1])  # a strip each: not a card to find
        assert held[-1].visible > 0.3  # the top card shows
        holding = scene.conditions["hands"][-1]
        assert holding["target"] == -1 and holding["shadow_strength"] <= 0.5
    assert fans >= 6


def test_locator_table_scenes_hold_a_fan_at_their_rate(monkeypatch):
    from vision.training import locator_data

    asked = []

    def fake_scene(rng, faces, **kw):
        asked.append(kw["fan"])
        return synth.Scene(flat(), [], [], {}, [])

    monkeypatch.setattr(locator_data.synth, "make_table_scene", fake_scene)
    decks = [synth.builtin_faces()[:2]]
    for rate, low, high in ((locator_data.FAN_RATE, 0.15, 0.35), (0.0, 0, 0), (1.0, 1, 1)):
        asked.clear()
        for seed in range(200):
            locator_data.make_table_locator_scene(np.random.default_rng(seed), decks, fan_rate=rate)
        assert low <= sum(asked) / len(asked) <= high
