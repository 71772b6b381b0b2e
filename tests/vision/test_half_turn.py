"""Half-turn naming: a model whose metadata says ``half_turn`` names each crop as it is and turned
half a turn, from the two views' mean logits; the embedding stays the crop's own."""

import types

import numpy as np
import pytest

from vision.namer import Namer, softmax


class CornerLogits:
    """An onnxruntime session stand-in whose logits say which corner of the crop is bright: a crop
    and its half turn get different logits, and each batch is recorded."""

    def __init__(self):
        self.batches = []

    def get_inputs(self):
        return [types.SimpleNamespace(name="image", shape=[1, 3, 8, 4])]

    def get_outputs(self):
        return [types.SimpleNamespace(name="logits", shape=[1, 3]), types.SimpleNamespace(name="embedding", shape=[1, 2])]

    def run(self, outputs, feeds):
        x = next(iter(feeds.values()))
        self.batches.append(x.copy())
        top, bottom = x[:, :, :4].mean((1, 2, 3)), x[:, :, 4:].mean((1, 2, 3))
        logits = np.stack([4 * top, 4 * bottom, np.zeros(len(x))], 1).astype(np.float32)
        return [logits, np.stack([top, bottom], 1).astype(np.float32)]


def crop_bright_at_top(level=255):
    crop = np.zeros((8, 4, 3), np.uint8)
    crop[:4] = level
    return crop


def test_a_half_turn_namer_names_from_the_mean_logits_of_the_crop_and_its_half_turn():
    session = CornerLogits()
    namer = Namer(session, ["T21", "T20", "unknown"], 0.5, (4, 8))
    crop = crop_bright_at_top()
    plain, emb = namer.run([crop])
    assert np.allclose(plain[0], softmax(np.array([[4.0, 0.0, 0.0]]))[0])  # as it is: bright at the top
    namer.half_turn = True
    both, emb_both = namer.run([crop, crop_bright_at_top(0)])
    assert len(session.batches[-1]) == 4  # two crops, each as it is and turned
    assert np.array_equal(session.batches[-1][2], session.batches[-1][0][:, ::-1, ::-1])
    assert np.allclose(both[0], softmax(np.array([[2.0, 2.0, 0.0]]))[0])  # (4, 0) and (0, 4): the mean
    assert np.allclose(both[1], softmax(np.zeros((1, 3)))[0])
    assert both.shape == (2, 3) and emb_both.shape == (2, 2)
    assert np.allclose(emb_both[0], emb[0])  # the crop's own embedding: profiles and memories unchanged
    namer.temperature = 0.5
    sharp, _ = namer.run([crop])
    assert np.allclose(sharp[0], softmax(np.array([[4.0, 4.0, 0.0]]))[0])  # the mean logits over the temperature
    assert namer.run([])[0].shape == (0, 3)


def test_half_turn_is_written_into_the_model_and_read_back_the_model_unchanged(card_model_copy):
    tmp_path, set_threshold = card_model_copy
    model = tmp_path / "cards.onnx"
    shipped = Namer.load(tmp_path)
    rng = np.random.default_rng(3)
    crops = [rng.integers(0, 255, (192, 112, 3), dtype=np.uint8) for _ in range(2)]
    plain, emb = shipped.run(crops)
    turned, _ = shipped.run([c[::-1, ::-1] for c in crops])
    assert set_threshold([str(model), "--half-turn", "on", "--source", "a test"]) == 0
    namer = Namer.load(tmp_path)
    assert namer.half_turn and namer.model_id == shipped.model_id
    both, emb_both = namer.run(crops)
    # softmax of the mean logits is the renormalised geometric mean of the two views' probabilities
    geo = np.sqrt(plain * turned)
    assert np.allclose(both, geo / geo.sum(1, keepdims=True), atol=1e-4)
    assert np.allclose(emb_both, emb, atol=1e-5)
    with pytest.raises(SystemExit) as refused:
        set_threshold([str(model), "0.5", "--half-turn", "on"])  # no threshold with it
    assert refused.value.code == 2
    assert set_threshold([str(model), "--half-turn", "off"]) == 0
    assert not Namer.load(tmp_path).half_turn


def _bench():
    from tests.benchmark_module import load_benchmark

    return load_benchmark("bench_half_turn")


def test_the_benchmark_counts_crops_named_right_and_wrong_at_each_bar(tmp_path, capsys):
    bench = _bench()
    unknown = bench.UNKNOWN_INDEX
    probs = np.zeros((4, unknown + 1), np.float32)
    probs[0, 3] = 0.95  # right, sure
    probs[1, 5] = 0.7  # wrong (the crop is card 4), at 0.6 but not 0.9
    probs[2, unknown] = 0.99  # not a card, said so: never named
    probs[3, 7] = 0.4  # a crop that is no card named a card, at 0.3 only
    labels = np.array([3, 4, unknown, unknown])
    f = bench.figures(probs, labels)
    assert f["right"] == 0.5
    assert f["0.3"] == {"right": 0.25, "wrong": 0.5} and f["0.6"] == {"right": 0.25, "wrong": 0.25}
    assert f["0.9"] == {"right": 0.25, "wrong": 0.0}
    assert bench.main(["--decks", str(tmp_path / "none")]) == 2
    assert "no decks" in capsys.readouterr().err
