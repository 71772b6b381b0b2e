"""The card model's calibration: its probabilities are the softmax of the logits over a temperature
stored in the model (vision.training.set_threshold --temperature), 1 when the model has none."""

import types

import numpy as np
import pytest

from vision.namer import Namer, softmax


class FixedLogits:
    """An onnxruntime session stand-in that returns the same logits for every crop."""

    def __init__(self, logits):
        self.logits = np.asarray(logits, np.float32)

    def get_inputs(self):
        return [types.SimpleNamespace(name="image", shape=[1, 3, 8, 4])]

    def get_outputs(self):
        return [types.SimpleNamespace(name="logits", shape=[1, len(self.logits)]),
                types.SimpleNamespace(name="embedding", shape=[1, 2])]

    def run(self, outputs, feeds):
        n = len(next(iter(feeds.values())))
        return [np.tile(self.logits, (n, 1)), np.ones((n, 2), np.float32)]


def test_probabilities_are_the_softmax_of_the_logits_over_the_temperature():
    namer = Namer(FixedLogits([2.0, 1.0, 0.0]), ["T21", "T20", "unknown"], 0.5, (4, 8))
    crop = np.zeros((8, 4, 3), np.uint8)
    plain, _ = namer.run([crop])
    assert namer.temperature == 1.0 and np.allclose(plain[0], softmax(np.array([[2.0, 1.0, 0.0]]))[0])
    namer.temperature = 0.5  # sharper: the model was underconfident
    sharp, _ = namer.run([crop])
    assert np.allclose(sharp[0], softmax(np.array([[4.0, 2.0, 0.0]]))[0]) and sharp[0, 0] > plain[0, 0]
    assert namer.name([crop])[0].card == "T21" and namer.name([crop])[0].confidence == pytest.approx(sharp[0, 0])


def test_a_temperature_written_into_the_model_is_read_back(card_model_copy):
    tmp_path, set_threshold = card_model_copy
    crop = np.full((192, 112, 3), 128, np.uint8)
    before, _ = Namer.load(tmp_path).run([crop])
    assert set_threshold([str(tmp_path / "cards.onnx"), "0.5", "--temperature", "--source", "a test"]) == 0
    namer = Namer.load(tmp_path)
    after, _ = namer.run([crop])
    assert namer.temperature == 0.5 and after.max() > before.max()
    assert np.allclose(after[0], softmax(np.log(before) * 2)[0], atol=1e-4)
    assert set_threshold([str(tmp_path / "cards.onnx"), "50", "--temperature"]) == 2  # out of range: refused
    assert Namer.load(tmp_path).temperature == 0.5


def test_the_calibration_error_is_the_gap_between_confidence_and_accuracy_bin_by_bin():
    from vision.calibration import ece, reliability

    conf = np.array([0.95] * 10 + [0.55] * 10)
    right = np.array([True] * 9 + [False] + [True] * 3 + [False] * 7)  # 90 % right at 0.95, 30 % at 0.55
    assert ece(conf, right) == pytest.approx((10 * 0.05 + 10 * 0.25) / 20)
    assert ece(np.array([0.8] * 5), np.array([True] * 4 + [False])) == pytest.approx(0.0)  # says what it means
    assert np.isnan(ece(np.array([]), np.array([], bool)))
    assert reliability(conf, right) == [(pytest.approx(0.55), pytest.approx(0.3), 10), (pytest.approx(0.95), pytest.approx(0.9), 10)]


def _bench_calibration():
    from tests.benchmark_module import load_benchmark

    return load_benchmark("bench_calibration")


def test_the_bars_say_what_a_commit_bar_costs_and_buys():
    bench = _bench_calibration()
    unknown = bench.UNKNOWN_INDEX
    probs = np.full((4, unknown + 1), 0.0)
    probs[0, 3] = 0.995  # right and sure
    probs[1, 5] = 0.95  # wrong (truly card 6), fairly sure
    probs[2, unknown] = 0.99  # "not a card", truly card 7: never named
    probs[3, 9] = 0.7  # a crop that is no card, named card 9: wrong
    labels = np.array([3, 6, 7, unknown])
    rows = {r["bar"]: r for r in bench.bars(probs, labels, bars=(0.6, 0.9, 0.99))}
    assert rows[0.6]["named_crops"] == 3 and rows[0.6]["wrong_crops"] == 2 and rows[0.6]["named"] == pytest.approx(1 / 3)
    assert rows[0.9]["named_crops"] == 2 and rows[0.9]["precision"] == pytest.approx(0.5)
    assert rows[0.99]["wrong_crops"] == 0 and rows[0.99]["precision"] == 1.0
    # fitting a temperature to underconfident but right probabilities sharpens them
    soft = np.full((50, 3), 0.25)
    soft[:, 0] = 0.5
    t = bench.fit_temperature(soft, np.zeros(50, int))
    assert t < 1 and bench.scaled(soft, t)[0, 0] > 0.5
