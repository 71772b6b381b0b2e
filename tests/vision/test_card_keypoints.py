"""A card's keypoints (``vision.card_keypoints``): two views of one print match in many places, under
another light, a little off and either way up; another print, or a quad off the card, in a few; the
block kept on disk comes back; any crop gives a well-formed block."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from vision.card_keypoints import (KEY_SIZE, KEYPOINTS, KEYPOINTS_DIM, MIN_MATCHES, RADIUS, ROW, SHIFT,
                                   card_keypoint_blocks, card_keypoints, keypoints_of, kept_keypoints, matches_in_place,
                                   matches_in_place_many, packed)


def engraving(seed: int, h: int = 192, w: int = 112) -> np.ndarray:
    """A random print: strokes, boxes and rings in a few inks on paper."""
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), 235, np.uint8)
    for _ in range(45):
        ink = tuple(int(c) for c in rng.integers(0, 200, 3))
        kind = rng.integers(3)
        x, y = int(rng.integers(4, w - 4)), int(rng.integers(4, h - 4))
        if kind == 0:
            cv2.line(img, (x, y), (int(rng.integers(0, w)), int(rng.integers(0, h))), ink, int(rng.integers(1, 3)))
        elif kind == 1:
            cv2.rectangle(img, (x, y), (x + int(rng.integers(4, 20)), y + int(rng.integers(4, 20))), ink, -1)
        else:
            cv2.circle(img, (x, y), int(rng.integers(3, 12)), ink, int(rng.integers(1, 3)))
    return img


def seen_again(crop: np.ndarray, seed: int = 0, dx: int = 3, dy: int = -2, gain: float = 0.7) -> np.ndarray:
    """Another view of the same card: its outline found a few pixels off, dimmer, a little blurred and noisy."""
    moved = cv2.warpAffine(crop, np.float32([[1, 0, dx], [0, 1, dy]]), crop.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
    noise = np.random.default_rng(seed).normal(0, 6, crop.shape)
    out = cv2.GaussianBlur(moved, (3, 3), 0.8).astype(np.float32) * gain + 20 + noise
    return np.clip(out, 0, 255).astype(np.uint8)


def matches(a, b) -> int:
    return matches_in_place(keypoints_of(card_keypoints(a)), keypoints_of(card_keypoints(b)))


def test_two_views_of_one_print_match_in_many_places_and_two_prints_in_few():
    a, b = engraving(1), engraving(2)
    again = seen_again(a)
    assert matches(again, a) >= 40
    assert matches(again, b) <= 8 and matches(a, b) <= 8
    # either way up: a card lies turned half a turn for half the table
    assert matches(np.ascontiguousarray(again[::-1, ::-1]), a) >= 40


def test_a_quad_found_off_the_card_matches_few_places():
    a = engraving(3)
    table = np.full((400, 300, 3), 60, np.uint8)
    table[100:292, 90:202] = a
    on = table[100:292, 90:202]
    off = table[100 + 45:292 + 45, 90 + 30:202 + 30]  # the same card, its quad 45 pixels down and 30 right
    assert matches(seen_again(on), a) >= 40
    assert matches(off, a) <= 8


def test_crops_of_any_size_and_landscape_ones_are_read_at_the_namers_size():
    a = engraving(4)
    big = cv2.resize(a, (224, 384), interpolation=cv2.INTER_CUBIC)
    places, _ = keypoints_of(card_keypoints(big))
    assert len(places) > 50 and places[:, 0].max() < KEY_SIZE[0] and places[:, 1].max() < KEY_SIZE[1]
    assert matches(big, a) >= 40
    assert matches(np.ascontiguousarray(np.rot90(a)), a) >= 40  # a landscape crop is turned portrait first


def test_the_block_kept_on_disk_comes_back():
    block = card_keypoints(engraving(5))
    blob = packed(block)
    assert len(blob) % ROW == 0 and 0 < len(blob) <= KEYPOINTS * ROW
    places, desc = keypoints_of(block)
    back_places, back_desc = kept_keypoints(blob)
    assert np.array_equal(back_desc, desc) and np.abs(back_places.astype(np.float32) - places).max() <= 0.5
    # itself in every place, but where two keypoints found at one place (on both scales) read alike: one of them
    assert matches_in_place((places, desc), (back_places, back_desc)) >= len(places) - 2
    for bad in (None, b"", b"\x01" * (ROW + 1), b"\x01" * (ROW * (KEYPOINTS + 1))):
        assert len(kept_keypoints(bad)[0]) == 0


def test_what_shows_no_print_has_no_keypoints():
    for crop in (None, np.zeros((0, 0, 3), np.uint8), np.full((192, 112, 3), 128, np.uint8), np.zeros((5,), np.uint8),
                 np.zeros((40, 30, 4), np.uint8), np.zeros((6, 6, 3), np.uint8)):
        block = card_keypoints(crop)
        assert block.shape == (KEYPOINTS_DIM,) and len(keypoints_of(block)[0]) < MIN_MATCHES
    assert card_keypoint_blocks([]).shape == (0, KEYPOINTS_DIM)
    blank = keypoints_of(card_keypoints(None))
    assert matches_in_place(blank, keypoints_of(card_keypoints(engraving(6)))) == 0
    assert len(keypoints_of(np.full(7, 3.0))[0]) == 0  # a malformed block: none


@settings(max_examples=40, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(1, 80), st.integers(1, 80), st.just(3))))
def test_any_crop_gives_a_well_formed_block(crop):
    block = card_keypoints(crop)
    assert block.shape == (KEYPOINTS_DIM,) and np.all(np.isfinite(block))
    places, desc = keypoints_of(block)
    assert len(places) == len(desc) <= KEYPOINTS
    assert np.all(places >= 0) and np.all(places[:, 0] < KEY_SIZE[0]) and np.all(places[:, 1] < KEY_SIZE[1])
    assert kept_keypoints(packed(block))[1].shape == desc.shape
    assert 0 <= matches_in_place((places, desc), (places, desc)) <= len(places)


def brute_force_matches(a, b) -> int:
    """matches_in_place as OpenCV's brute-force matcher with its cross-check finds the keypoints that are each
    other's nearest: what the batched products must give, to the place."""
    (pa, da), (pb, db) = a, b
    if len(da) < MIN_MATCHES or len(db) < MIN_MATCHES:
        return 0
    found = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(np.ascontiguousarray(da), np.ascontiguousarray(db))
    if len(found) < MIN_MATCHES:
        return 0
    qa = np.float32([pa[m.queryIdx] for m in found])
    qb = np.float32([pb[m.trainIdx] for m in found])
    best = 0
    for other in (qb, np.array(KEY_SIZE, np.float32) - 1.0 - qb):
        moved = qa - other
        shift = np.median(moved, axis=0)
        if np.abs(shift).max() <= SHIFT:
            best = max(best, int((np.linalg.norm(moved - shift, axis=1) <= RADIUS).sum()))
    return best


def crop_and_views(seed: int, views: int, ties: float):
    """A crop's keypoints and views of them: each view some of the crop's keypoints, shifted together (turned
    half a turn or not), each a little off and a few far off, their descriptors a bit or two changed, among
    keypoints of other places; a share ``ties`` of all descriptors copies of others (equally near: the first
    of equals must be picked as OpenCV picks it); a view in three is of another print."""
    rng = np.random.default_rng(seed)
    size = np.array(KEY_SIZE, np.float32) - 1

    def described(n):
        desc = rng.integers(0, 256, (n, 32), dtype=np.uint8)
        copies = np.flatnonzero(rng.random(n) < ties)
        desc[copies] = desc[rng.integers(0, n, len(copies))]
        return desc

    n = int(rng.integers(0, 60))
    crop = (rng.uniform(0, size, (n, 2)).astype(np.float32), described(n))
    out = []
    for _ in range(views):
        extra = int(rng.integers(0, 40))
        places, desc = rng.uniform(0, size, (extra, 2)).astype(np.float32), described(extra)
        if n and rng.random() > 1 / 3:
            seen = rng.permutation(n)[: int(rng.integers(1, n + 1))]
            moved = crop[0][seen] + rng.integers(-SHIFT, SHIFT + 1, 2) + rng.normal(0, 3, (len(seen), 2))
            far = rng.random(len(seen)) < 0.2
            moved[far] += rng.uniform(-40, 40, (int(far.sum()), 2))
            if rng.random() < 0.5:
                moved = size - moved
            changed = crop[1][seen].copy()
            changed[np.arange(len(seen)), rng.integers(0, 32, len(seen))] ^= np.uint8(1 << int(rng.integers(0, 8)))
            places, desc = np.vstack([places, moved.astype(np.float32)]), np.vstack([desc, changed])
        order = rng.permutation(len(desc))
        out.append((np.clip(np.rint(places[order]), 0, 255).astype(np.uint8), desc[order]))
    return crop, out


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 6), st.sampled_from([0.0, 0.2, 0.5]))
def test_matching_many_views_at_once_counts_what_opencvs_matcher_counts_view_by_view(seed, views, ties):
    crop, kept = crop_and_views(seed, views, ties)
    counts = matches_in_place_many(crop, kept)
    assert counts == [brute_force_matches(crop, v) for v in kept]
    assert counts == [matches_in_place(crop, v) for v in kept]


def test_real_views_match_at_once_as_one_by_one():
    blocks = card_keypoint_blocks([engraving(s) for s in range(4)] + [seen_again(engraving(0), seed=2)])
    views = [kept_keypoints(packed(b)) for b in blocks]
    crop = keypoints_of(blocks[-1])
    counts = matches_in_place_many(crop, views)
    assert counts == [brute_force_matches(crop, v) for v in views]
    assert counts[0] >= 40 and max(counts[1:4]) <= 8 and counts[4] == matches_in_place(crop, views[4])


def test_the_keypoint_benchmark_matches_a_decks_scans_one_by_one_and_at_once_alike(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_keypoints.py"
    spec = importlib.util.spec_from_file_location("bench_keypoints", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    deck = tmp_path / "engravings"
    deck.mkdir()
    for k, code in enumerate(("S01", "S02", "S03", "S04")):
        cv2.imwrite(str(deck / f"{code}.png"), engraving(30 + k))
    cv2.imwrite(str(deck / "S05.png"), seen_again(engraving(30), seed=1))  # S01's print again: many places
    assert bench.main([str(deck), "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "one by one / at once" in out and "differ" not in out and "most alike: S01/S05" in out


def test_more_keypoints_than_can_be_told_apart_are_a_clear_error():
    rng = np.random.default_rng(0)
    many = (rng.uniform(0, 100, (300, 2)).astype(np.float32), rng.integers(0, 256, (300, 32), dtype=np.uint8))
    with pytest.raises(ValueError, match="300 keypoints"):
        matches_in_place(many, many)
    assert matches_in_place((many[0][:KEYPOINTS], many[1][:KEYPOINTS]), (many[0][:KEYPOINTS], many[1][:KEYPOINTS])) == KEYPOINTS
