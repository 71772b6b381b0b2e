"""benchmarks/demo_card.py: one card of a demo scene named by the model alone and with the memory as it
stood before the deal (its views of that deal and later ones left out, the evening's file untouched)."""

import numpy as np
import pytest

from tests.benchmark_module import load_benchmark
from vision.deck_memory import DeckMemory

demo_card = load_benchmark("demo_card")


def test_a_views_deal_is_read_from_its_ref():
    assert [demo_card.deal_of(r) for r in ("1/5/22", "2/10/3", "op 1", "1/x/2")] == [5, 10, None, None]


def test_the_memory_before_a_deal_keeps_only_the_views_learned_earlier(tmp_path):
    source = tmp_path / "deck-memory.db"
    memory = DeckMemory(source, "model-a", 4)
    for k, (card, ref) in enumerate([("S01", "1/1/3"), ("S02", "1/4/9"), ("S03", "1/5/1"), ("S04", "1/7/2"),
                                     ("S05", "answer 3")]):
        memory.learn(card, np.eye(4, dtype=np.float32)[k % 4] + 0.1 * k, "confirmed", ref)
    memory.close()
    kept = demo_card.memory_before(source, 5, tmp_path / "copy.db")
    assert kept == 3
    copy = DeckMemory(tmp_path / "copy.db", "model-a", 4)
    assert copy.known_cards() == ("S01", "S02", "S05")
    copy.close()
    original = DeckMemory(source, "model-a", 4)
    assert original.views_count() == 5  # only read
    original.close()


def test_it_names_the_card_of_the_scene_both_ways(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    from engine.tarot import random_deal
    from vision.namer import Namer

    base = Namer.load(None)
    DeckMemory(tmp_path / "deck-memory.db", str(base.model_id), 128).close()
    led = random_deal(4, 1, poignee_rate=0.5).tricks[0].cards[0]
    args = ["--memory", str(tmp_path / "deck-memory.db"), "--deal", "1", "--trick", "1", "--fast"]
    assert demo_card.main([*args, "--card", led, "--frames", "40"]) == 0
    out = capsys.readouterr().out
    assert "the memory before it: 0 views" in out
    line = next(x for x in out.splitlines() if x.startswith("frame   40"))
    assert "model " in line and "| with the memory " in line
    model, memory = line.split("model ", 1)[1].split(" | with the memory ")
    assert model == memory  # an empty memory weighs nothing
    with pytest.raises(SystemExit):
        demo_card.main([*args, "--card", "ZZ"])
    assert "no ZZ" in capsys.readouterr().err


def test_a_memory_that_is_not_there_or_not_a_memory_is_a_clear_error(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    args = ["--deal", "1", "--trick", "1", "--card", "S06"]
    with pytest.raises(SystemExit):
        demo_card.main(["--memory", str(tmp_path / "none.db"), *args])
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(SystemExit):
        demo_card.main(["--memory", str(tmp_path / "junk.db"), *args])
    assert "not a deck memory" in capsys.readouterr().err
