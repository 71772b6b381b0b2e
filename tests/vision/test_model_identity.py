"""A card model's identity (vision.namer.model_id_of): the hash of its file as exported, kept when
its metadata is edited (vision.training.set_threshold), so that what was learned with it stays its own."""

from __future__ import annotations

import numpy as np

from vision.deck_memory import DeckMemory
from vision.namer import Namer, file_id, model_id_of, models_dir


def test_a_model_without_a_kept_identity_is_its_files_hash(tmp_path):
    model = tmp_path / "cards.onnx"
    model.write_bytes(b"weights")
    assert model_id_of({}, model) == file_id(model) and file_id(model).startswith("sha256:") and len(file_id(model)) == 23
    first = file_id(model)
    model.write_bytes(b"other weights")
    assert model_id_of({}, model) != first  # another export, another model
    assert model_id_of({"model_id": "sha256:0123456789abcdef"}, model) == "sha256:0123456789abcdef"
    for damaged in (None, 7, "", "md5:0123", ["sha256:0123456789abcdef"]):
        assert model_id_of({"model_id": damaged}, model) == file_id(model)


def test_editing_a_models_metadata_keeps_its_identity_and_what_the_table_learned_with_it(card_model_copy):
    tmp_path, set_threshold = card_model_copy
    model = tmp_path / "cards.onnx"
    before = Namer.load(tmp_path)
    shipped = before.model_id
    assert shipped == Namer.load(models_dir()).model_id  # a copy is the same model
    crop = np.full((before.input_size[1], before.input_size[0], 3), 140, np.uint8)
    _, embedding = before.run([crop])
    with DeckMemory(tmp_path / "deck-memory.db", shipped, embedding.shape[1]) as memory:
        memory.learn("H07", embedding[0], "answer", "deal 1")

    hash_before = file_id(model)
    assert set_threshold([str(model), "--tracker", "pip_above_margin=40", "--source", "a test"]) == 0
    assert set_threshold([str(model), "0.9", "--still"]) == 0
    assert file_id(model) != hash_before  # the file changed...
    after = Namer.load(tmp_path)
    assert after.model_id == shipped  # ...the model did not
    assert after.tracker_bars["pip_above_margin"] == 40.0 and after.still_threshold == 0.9
    assert np.allclose(after.run([crop])[1], embedding, atol=1e-6)
    with DeckMemory(tmp_path / "deck-memory.db", after.model_id, embedding.shape[1]) as memory:
        assert memory.views_count() == 1 and memory.known_cards() == ("H07",)
