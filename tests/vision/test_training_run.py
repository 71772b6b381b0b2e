"""A training run that survives stops: its schedule, its state, its stop on a signal, and the
crops rendered ahead into shards (``vision.training.run_state``, ``vision.training.shards``)."""

import os
import signal
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vision.training.data import Recipe
from vision.training.run_state import RunState, Schedule, StopRequest
from vision.training.shards import ShardFeed, read_shard, shard_path, write_shard


def test_schedule_warms_up_then_decays_to_its_floor():
    s = Schedule(peak=1e-3, steps=1000, warmup=100, floor=0.05)
    assert s.lr(0) == pytest.approx(1e-5)
    assert s.lr(99) == pytest.approx(1e-3 * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * 0.099))))  # warm, decaying already
    lrs = [s.lr(k) for k in range(100, 1001)]
    assert all(a >= b for a, b in zip(lrs, lrs[1:]))  # no second warm-up
    assert s.lr(1000) == pytest.approx(0.05e-3)
    assert s.lr(5000) == pytest.approx(0.05e-3)  # past the end: the floor


@given(st.integers(0, 200_000), st.integers(1, 200_000))
def test_schedule_is_a_function_of_the_step_alone(step, steps):
    # a run resumed at any step continues the same curve: nothing else enters
    a, b = Schedule(6e-4, steps), Schedule(6e-4, steps)
    assert a.lr(step) == b.lr(step)
    assert 0 < a.lr(step) <= 6e-4


@settings(max_examples=50)
@given(st.integers(0, 10**7), st.integers(0, 10**9), st.floats(0, 1e6, allow_nan=False),
       st.lists(st.fixed_dictionaries({"step": st.integers(0, 10**6), "card_acc": st.floats(0, 1)}), max_size=5))
def test_run_state_round_trips(step, seen, seconds, history):
    run = RunState(Schedule(5e-4, 120_000, 300, 0.05), step, seen, seconds, next_seed=10_000_000 + step, sessions=3,
                   history=history)
    assert RunState.from_dict(run.to_dict()) == run


def test_checkpoint_is_written_atomically_and_read_back(tmp_path):
    torch = pytest.importorskip("torch")
    from vision.training.run_state import load_checkpoint, save_checkpoint

    path = tmp_path / "run" / "cardnet-run.pt"
    run = RunState(Schedule(5e-4, 1000), step=17, crops_seen=544, next_seed=42)
    save_checkpoint(path, {"model": {"w": torch.ones(3)}}, run)
    tensors, back = load_checkpoint(path)
    assert back == run and torch.equal(tensors["model"]["w"], torch.ones(3))
    assert [p.name for p in path.parent.iterdir()] == ["cardnet-run.pt"]  # nothing left beside it
    torch.save({"w": torch.zeros(2)}, tmp_path / "bare.pt")  # an older checkpoint: weights only
    tensors, back = load_checkpoint(tmp_path / "bare.pt")
    assert back is None and torch.equal(tensors["model"]["w"], torch.zeros(2))


def test_a_signal_asks_the_loop_to_stop_instead_of_killing_it():
    before = signal.getsignal(signal.SIGTERM)
    with StopRequest() as stop:
        assert not stop.requested
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)
        assert stop.requested and stop.signal_name == "SIGTERM"
    assert signal.getsignal(signal.SIGTERM) is before  # put back as it was


def test_shard_files_round_trip(tmp_path):
    x = np.random.default_rng(1).integers(0, 255, (4, 3, 6, 5), dtype=np.uint8)
    y = np.array([1, 2, 3, 78])
    path = write_shard(tmp_path, 12, x, y, ["builtin", "builtin", "rws", "unknown"])
    assert path == shard_path(tmp_path, 12) and not list(tmp_path.glob("*.part"))
    x2, y2, src = read_shard(path)
    assert np.array_equal(x, x2) and np.array_equal(y, y2) and src == ["builtin", "builtin", "rws", "unknown"]


def _recipe():
    return Recipe(None, None, (28, 48), unknown_rate=0.2)


@pytest.mark.slow
def test_feed_renders_ahead_and_resumes_after_what_it_used(tmp_path):
    feed = ShardFeed(tmp_path, _recipe(), next_seed=1000, shard_size=8, uses=1.0, pool_shards=2, keep=4, nice=0)
    try:
        deadline = time.time() + 60
        while len(list(tmp_path.glob("shard-*.npz"))) < 4 and time.time() < deadline:
            time.sleep(0.05)  # rendered ahead, up to ``keep`` shards
        labels = []
        for _ in range(6):
            x, y, src = feed.batch(8)
            assert x.shape == (8, 3, 48, 28) and x.dtype == np.uint8 and len(src) == 8
            labels += list(y)
        assert feed.next_seed > 1001  # shards were retired and new ones loaded
        used = feed.next_seed
        assert all(int(p.stem.split("-")[1]) >= used for p in tmp_path.glob("shard-*.npz"))  # loaded shards are gone
    finally:
        feed.close()
    assert len(set(labels)) > 5
    # a resumed feed starts at the first seed not used: shards before it are dropped, later ones kept
    write_shard(tmp_path, used - 1, *_tiny())
    again = ShardFeed(tmp_path, _recipe(), next_seed=used, shard_size=8, workers=0)
    assert not shard_path(tmp_path, used - 1).exists()
    again.close()
    # shards of another recipe are never mixed in
    write_shard(tmp_path, used + 50, *_tiny())
    other = ShardFeed(tmp_path, Recipe(None, None, (28, 48), unknown_rate=0.5), next_seed=used, shard_size=8, workers=0)
    assert not list(tmp_path.glob("shard-*.npz"))
    other.close()


def _tiny():
    return np.zeros((8, 3, 48, 28), np.uint8), np.zeros(8, np.int64), ["builtin"] * 8


def test_feed_reports_a_dead_renderer(tmp_path):
    feed = ShardFeed(tmp_path, _recipe(), next_seed=0, shard_size=8, workers=1)
    feed.procs[0].kill()
    feed.procs[0].join()
    for p in tmp_path.glob("shard-*.npz"):
        p.unlink()
    with pytest.raises(RuntimeError, match="renderer stopped"):
        feed.batch(4)
    feed.close()


@pytest.mark.slow
def test_build_models_resumes_the_same_run_where_it_stopped(tmp_path):
    torch = pytest.importorskip("torch")
    from vision.training import build_models
    from vision.training.run_state import load_checkpoint

    common = ["--decks", str(tmp_path / "no-decks"), "--backgrounds", str(tmp_path / "none"), "--work", str(tmp_path / "w"),
              "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "out"), "--val", "80", "--minutes", "0",
              "--batch", "8", "--shard", "16", "--steps", "3", "--campaign-steps", "6", "--session-steps", "3",
              "--threads", "1", "--size", "56x96"]
    assert build_models.main(common) == 0
    tensors, first = load_checkpoint(tmp_path / "w" / "cardnet-run.pt")
    assert (first.step, first.sessions, first.crops_seen) == (3, 1, 24)
    lr_at_3 = first.schedule.lr(3)
    assert build_models.main(common + ["--resume", "--lr", "9"]) == 0  # a resumed run keeps its own schedule
    tensors2, second = load_checkpoint(tmp_path / "w" / "cardnet-run.pt")
    assert (second.step, second.sessions, second.crops_seen) == (6, 2, 48)
    assert second.schedule == first.schedule and second.next_seed > first.next_seed
    assert [h["step"] for h in second.history] == [3, 3, 6, 6]  # a check at each held-out step and at each stop
    assert tensors2["optimiser"]["state"] and not torch.equal(tensors["model"]["project.weight"], tensors2["model"]["project.weight"])
    assert (tmp_path / "out" / "cards.onnx").is_file() and lr_at_3 > second.schedule.lr(6)


@pytest.mark.slow
def test_the_renderer_never_renders_again_what_the_trainer_has_loaded(tmp_path):
    # shards left ahead by an earlier run, then a trainer that loads them faster than they are made
    recipe = _recipe()
    feed = ShardFeed(tmp_path, recipe, next_seed=0, shard_size=8, workers=0)  # writes the recipe's key
    feed.close()
    for seed in range(8):
        write_shard(tmp_path, seed, *_tiny())
    feed = ShardFeed(tmp_path, recipe, next_seed=0, shard_size=8, uses=0.5, pool_shards=4, keep=8, nice=0)
    try:
        deadline = time.time() + 60
        while feed.next_seed < 14 and time.time() < deadline:
            feed.batch(8)
        assert feed.next_seed >= 14
        time.sleep(0.5)
        stale = [p.name for p in tmp_path.glob("shard-*.npz") if int(p.stem.split("-")[1]) < feed.next_seed]
        assert stale == []  # nothing below what was loaded clogs the cache
    finally:
        feed.close()


def test_closing_the_feed_ends_its_renderer_even_under_a_sigterm_handler(tmp_path):
    old = signal.signal(signal.SIGTERM, lambda *a: None)  # a trainer (or a device loop) that catches SIGTERM
    try:
        feed = ShardFeed(tmp_path, _recipe(), next_seed=0, shard_size=8, workers=1)
        proc = feed.procs[0]
        time.sleep(0.3)
        feed.close()
        assert not proc.is_alive()
    finally:
        signal.signal(signal.SIGTERM, old)


@pytest.mark.parametrize("width", [1, 2])
def test_a_locators_width_is_read_back_from_its_weights(width):
    torch = pytest.importorskip("torch", reason="the locator's training needs the [train] extra (torch)")
    from vision.training.build_locator import net_width_of
    from vision.training.locator_model import LocatorNet

    net = LocatorNet(width=width)
    assert net_width_of(net.state_dict()) == width
    wider = LocatorNet(width=width + 1)
    with pytest.raises(RuntimeError):  # a checkpoint loads only into a network of its own width
        wider.load_state_dict(net.state_dict())
    assert torch.is_tensor(net.state_dict()["stem.0.0.weight"])


def test_a_new_run_never_overwrites_a_runs_checkpoint(tmp_path):
    from vision.training.run_state import claim_new_run

    path = tmp_path / "locator-run.pt"
    assert claim_new_run(path, fresh=False) is None and not path.exists()  # nothing there: a new run may start
    path.write_bytes(b"hours of training")
    refused = claim_new_run(path, fresh=False)
    assert refused and "--resume" in refused and "--fresh" in refused and str(path) in refused
    assert path.read_bytes() == b"hours of training"  # refused: left exactly as it was
    assert claim_new_run(path, fresh=True, when="20261203-2100") is None
    assert not path.exists()
    assert (tmp_path / "locator-run-before-20261203-2100.pt").read_bytes() == b"hours of training"
    path.write_bytes(b"a second run")
    assert claim_new_run(path, fresh=True, when="20261203-2100") is None  # the same second: kept under another name
    assert (tmp_path / "locator-run-before-20261203-2100-2.pt").read_bytes() == b"a second run"
    assert (tmp_path / "locator-run-before-20261203-2100.pt").read_bytes() == b"hours of training"


def test_the_refusal_names_the_run_it_protects(tmp_path):
    torch = pytest.importorskip("torch", reason="reading a run's checkpoint needs the [train] extra (torch)")
    from vision.training.run_state import claim_new_run, save_checkpoint

    path = tmp_path / "cardnet-run.pt"
    save_checkpoint(path, {"model": {"w": torch.ones(2)}}, RunState(Schedule(5e-4, 26000), step=23444, train_seconds=3600 * 4.4))
    assert "step 23444 of 26000, 4.40 h trained" in claim_new_run(path, fresh=False)


def test_build_locator_refuses_a_new_run_over_a_checkpoint_before_drawing_scenes(tmp_path, capsys):
    pytest.importorskip("torch", reason="the locator's training needs the [train] extra (torch)")
    from vision.training import build_locator

    work = tmp_path / "w"
    work.mkdir()
    (work / "locator-run.pt").write_bytes(b"a long run")
    args = ["--work", str(work), "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "out"),
            "--decks", str(tmp_path / "no-decks"), "--backgrounds", str(tmp_path / "none")]
    assert build_locator.main(args) == 2
    assert "--fresh" in capsys.readouterr().err
    assert (work / "locator-run.pt").read_bytes() == b"a long run" and not (tmp_path / "c").exists()


@pytest.mark.parametrize("scene_set", [0, 2])
def test_build_locator_draws_another_set_of_training_scenes_and_the_same_held_out_ones(tmp_path, monkeypatch, scene_set):
    """``--scene-set N`` draws new training scenes (other seeds, their own cache file) for a run that
    has seen its scenes many times; the held-out scenes stay the same, so the run's figures compare."""
    pytest.importorskip("torch", reason="the locator's training needs the [train] extra (torch)")
    from vision.training import build_locator, locator_scenes

    drawn = []

    class Drawn(Exception):
        pass

    def draw_set(count, seed, *args, **kwargs):
        drawn.append(seed)
        if len(drawn) == 2:
            raise Drawn
        return {"images": np.zeros((count, 4, 4, 3), np.uint8), "quads": np.zeros((0, 4, 2), np.float32),
                "visible": np.zeros(0, np.float32), "first": np.zeros(count + 1, np.int64)}

    monkeypatch.setattr(locator_scenes, "draw_set", draw_set)
    args = ["--resume", "--work", str(tmp_path / "w"), "--cache", str(tmp_path / "c"), "--scenes", "3", "--val", "2",
            "--scene-set", str(scene_set), "--decks", str(tmp_path / "no-decks"), "--backgrounds", str(tmp_path / "none")]
    with pytest.raises(Drawn):
        build_locator.main(args)
    assert drawn == [100_000_000 + 1_000_000 * scene_set, 200_000_000]
    (train,) = (tmp_path / "c" / "locator").iterdir()
    assert train.name.endswith(f"_s{scene_set}.npz") == (scene_set > 0)


def test_build_models_refuses_a_new_run_over_a_checkpoint(tmp_path, capsys):
    pytest.importorskip("torch", reason="the card model's training needs the [train] extra (torch)")
    from vision.training import build_models

    work = tmp_path / "w"
    work.mkdir()
    (work / "cardnet-run.pt").write_bytes(b"a long run")
    args = ["--decks", str(tmp_path / "no-decks"), "--backgrounds", str(tmp_path / "none"), "--work", str(work),
            "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "out"), "--threads", "1"]
    assert build_models.main(args) == 2
    assert "--resume continues it" in capsys.readouterr().err
    assert (work / "cardnet-run.pt").read_bytes() == b"a long run" and not (tmp_path / "out").exists()
