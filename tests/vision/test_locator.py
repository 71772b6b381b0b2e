"""The network card locator: its input, its output maps' meaning, and the choice of card finder."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import TarotmateError
from vision import localise
from vision.locator import CHANNELS, LOCATOR_FILE, STRIDE, decode, input_shape, models_dir, prepare, rotated_box, suppress_duplicates
from vision.training.locator_targets import card_geometry, encode, flip_quads


def same_card(a, b, tolerance):
    """The same four corners (either winding, any starting corner) within ``tolerance`` pixels."""
    a, b = np.asarray(a), np.asarray(b)
    turns = [np.roll(a, k, axis=0) for k in range(4)] + [np.roll(a[::-1], k, axis=0) for k in range(4)]
    return min(float(np.abs(x - b).max()) for x in turns) < tolerance


def perfect_maps(quads, shape=(48, 80)):
    """The output a perfect network would give for these cards (what training aims at)."""
    heat, reg, _, _ = encode(np.asarray(quads, np.float32), np.ones(len(quads)), shape)
    maps = np.zeros((CHANNELS,) + shape, np.float32)
    maps[0] = np.where(heat >= 0.999, 8.0, np.log(np.maximum(heat, 1e-6) / (1 - np.minimum(heat, 0.9))) - 3)
    maps[1:] = reg
    return maps


def face_quad(cx, cy, long, short, angle):
    """TL, TR, BR, BL of a card face whose long axis (top -> bottom) makes ``angle`` with x."""
    b = rotated_box(cx, cy, long, short, angle)  # corners: -u-v, +u-v, +u+v, -u+v (u: long axis)
    return b[[3, 0, 1, 2]]  # -u+v, -u-v: the short top edge, then down the long side


@settings(max_examples=40, deadline=None)
@given(st.floats(40, 280), st.floats(30, 160), st.floats(30, 90), st.floats(1.4, 2.0), st.floats(-np.pi, np.pi))
def test_decoding_the_targets_gives_back_the_card(cx, cy, long, aspect, angle):
    quad = face_quad(cx, cy, long, long / aspect, angle)
    assert card_geometry(quad)[2] == pytest.approx(long, rel=1e-4)
    found = decode(perfect_maps([quad]))
    assert len(found) == 1
    assert same_card(found[0][0], quad, 0.5)


def test_a_half_turned_card_has_the_same_targets():
    q = face_quad(150, 90, 70, 40, 0.7)
    turned = q[[2, 3, 0, 1]]  # the same card upside down: its face's top is the other end
    a, b = perfect_maps([q]), perfect_maps([turned])
    assert np.allclose(a, b, atol=1e-5)


def test_overlapping_cards_of_a_trick_are_each_found():
    quads = [face_quad(160 + 30 * np.cos(t), 96 + 30 * np.sin(t), 80, 45, t + np.pi / 2) for t in np.linspace(0, 2 * np.pi, 5)[:-1]]
    found = [q for q, _ in suppress_duplicates(decode(perfect_maps(quads)))]
    assert len(found) == 4
    for q in quads:
        assert any(same_card(f, q, 1.0) for f in found)


def test_flipping_a_scene_flips_its_cards():
    q = face_quad(100, 50, 70, 40, 0.3)[None]
    f = flip_quads(q, 320, 180, True, True)
    assert np.allclose(f[0].mean(0), [220, 130])
    assert card_geometry(f[0])[2:4] == pytest.approx(card_geometry(q[0])[2:4])


def test_half_covered_cards_are_neither_targets_nor_misses():
    q = face_quad(160, 96, 80, 45, 0.0)
    heat, reg, rw, hw = encode(q[None], np.array([0.15]), (48, 80))
    assert heat.max() == 0 and rw.max() == 0
    assert hw.min() == 0  # no penalty for a peak there either


@pytest.mark.parametrize("size, expected", [((1280, 720), (320, 192)), ((640, 480), (320, 240)), ((1920, 1080), (320, 192))])
def test_input_keeps_the_frame_proportions_padded_to_16(size, expected):
    assert input_shape(*size) == expected
    x, f = prepare(np.full((size[1], size[0], 3), 200, np.uint8))
    assert x.shape == (1, 3, expected[1], expected[0]) and x.dtype == np.float32
    assert f == pytest.approx(320 / size[0])
    assert x[0, :, : round(size[1] * f)].min() == pytest.approx(200 / 255)
    assert not x[0, :, round(size[1] * f):].any()  # the padding, when there is some


def test_an_unknown_localiser_is_a_clear_error(monkeypatch):
    with pytest.raises(TarotmateError, match="classic"):
        localise.localiser("magic")
    monkeypatch.setenv("TAROTMATE_LOCALISER", "classic")
    assert localise.localiser() is localise._CLASSIC


@pytest.mark.skipif(not (models_dir() / LOCATOR_FILE).is_file(), reason="models/locator.onnx not built")
def test_the_shipped_locator_runs_with_its_metadata():
    from vision.locator import CardLocator

    loc = CardLocator.load()
    assert 0 < loc.threshold < 1
    assert loc.meta["stride"] == STRIDE
    maps, f = loc.maps(np.zeros((720, 1280, 3), np.uint8))
    assert maps.shape == (CHANNELS, 48, 80)
    assert loc(np.zeros((720, 1280, 3), np.uint8)) == []


@pytest.mark.skipif(not (models_dir() / LOCATOR_FILE).is_file(), reason="models/locator.onnx not built")
def test_the_further_looks_network_beside_the_locator_takes_every_look_but_the_first(tmp_path):
    import shutil

    from vision import synth
    from vision.locator import LOOKS_FILE, CardLocator

    shutil.copy(models_dir() / LOCATOR_FILE, tmp_path / LOCATOR_FILE)
    alone = CardLocator.load(tmp_path / LOCATOR_FILE)
    assert alone.looks is None
    shutil.copy(models_dir() / LOCATOR_FILE, tmp_path / LOOKS_FILE)
    loc = CardLocator.load(tmp_path / LOCATOR_FILE, threshold=0.5)
    assert loc.looks is not None and loc.looks.looks is None
    assert loc.threshold == 0.5 and loc.looks.threshold == alone.threshold  # each network its own threshold
    assert CardLocator.load(tmp_path / LOCATOR_FILE, looks=False).looks is None
    assert CardLocator.load(tmp_path / LOOKS_FILE).looks is None
    first, further = [], []
    main_run, looks_run = loc.run, loc.looks.run
    loc.run = lambda img: first.append(img.shape) or main_run(img)
    loc.looks.run = lambda img: further.append(img.shape) or looks_run(img)
    scene = synth.make_scene(np.random.default_rng(4), synth.builtin_faces(), n_cards=5)
    loc(scene.image)
    assert len(first) == 1 and first[0][1] == 320
    assert further  # at least the smaller look at the whole frame
