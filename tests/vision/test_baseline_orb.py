"""The classic baseline of benchmarks/baseline_orb.py names an easy card of the built-in deck."""

import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from vision import synth

from .scenes import place, table

BASELINE = Path(__file__).resolve().parents[2] / "benchmarks" / "baseline_orb.py"


@pytest.fixture(scope="module")
def baseline():
    if not BASELINE.is_file():
        pytest.skip("benchmarks/baseline_orb.py is absent")
    cv2 = pytest.importorskip("cv2")
    if not hasattr(cv2, "ORB_create"):
        pytest.skip("this OpenCV build has no ORB")
    spec = importlib.util.spec_from_file_location("baseline_orb", BASELINE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def namer(baseline):
    return baseline.OrbNamer(baseline.build_reference(synth.builtin_faces()))


def test_names_a_clean_closeup_in_both_orientations(baseline, namer):
    faces = {f.code: f for f in synth.builtin_faces()}
    t0 = time.perf_counter()
    crop = synth.make_crop(np.random.default_rng(0), faces["T21"], baseline.CARD_SIZE, jitter=0.01, effects=0.0, colour=0.0)
    grey = crop.mean(axis=2).astype(np.uint8)
    for turns in (0, 2):
        code, inliers = namer.name(np.ascontiguousarray(np.rot90(grey, turns)))
        assert code == "T21", (turns, code, inliers)
    assert time.perf_counter() - t0 < 5


def test_finds_and_names_a_card_on_a_plain_table(baseline, namer):
    canvas = table((40, 110, 30))
    truth = place(canvas, "CK", (640, 360), 20)
    found = baseline.recognise(canvas, namer)
    assert len(found) == 1
    quad, code = found[0]
    assert baseline.iou(quad, truth) > 0.9
    assert code == "CK"
