"""The guided enrollment on the device: next card, views, confirm/redo/skip/back, review, resume."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from device.enroll.flow import CONFIRM, DONE, REVIEW, SHOW, EnrollFlow, EnrollFlowError, ProgressFile
from engine.cards import CODES
from vision.card_keypoints import FINDER
from vision.enroll import embed_card

from .conftest import MILD

ORDER = ("T01", "T02", "EX", "HK")


def views_of(code: str, n: int = 2, dim: int = 16) -> np.ndarray:
    """n unit embeddings near a direction that belongs to ``code`` alone."""
    rng = np.random.default_rng(CODES.index(code))
    centre = rng.normal(size=dim)
    rows = centre + 0.05 * np.random.default_rng(n).normal(size=(n, dim))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def show(flow: EnrollFlow, code: str | None = None) -> None:
    """Capture enough views of the current card (or of ``code``) and confirm."""
    flow.add_views(views_of(code or flow.current, flow.views_needed))
    flow.confirm()


def test_cards_are_named_in_order_and_need_enough_views():
    flow = EnrollFlow("deck", "m", views_needed=3, order=ORDER)
    p = flow.prompt()
    assert (p.step, p.card, p.views, p.views_needed, p.enrolled, p.total) == (SHOW, "T01", 0, 3, 0, 4)
    assert flow.add_views(views_of("T01", 2)).step == SHOW
    p = flow.add_views(views_of("T01", 1))
    assert (p.step, p.card, p.views) == (CONFIRM, "T01", 3)
    p = flow.confirm()
    assert (p.step, p.card, p.views, p.enrolled) == (SHOW, "T02", 0, 1)
    assert flow.enrolled["T01"].embeddings.shape == (3, 16)


def test_the_default_order_is_the_whole_deck():
    flow = EnrollFlow("deck", "m")
    assert flow.prompt().card == "T01" and flow.prompt().total == 78


def test_redo_forgets_the_views_of_the_current_card():
    flow = EnrollFlow("deck", "m", views_needed=2, order=ORDER)
    flow.add_views(views_of("T02", 2))  # the wrong card was under the camera
    assert flow.step == CONFIRM
    p = flow.redo()
    assert (p.step, p.card, p.views) == (SHOW, "T01", 0)
    show(flow)
    assert flow.enrolled["T01"].embeddings.shape == (2, 16)
    np.testing.assert_allclose(flow.enrolled["T01"].embeddings, views_of("T01", 2), atol=1e-6)


def test_skip_leaves_a_card_out_and_back_shows_the_previous_card_again():
    flow = EnrollFlow("deck", "m", views_needed=1, order=ORDER)
    show(flow)  # T01
    p = flow.skip()  # T02 is missing from this deck
    assert (p.card, p.skipped, p.enrolled) == ("EX", 1, 1)
    p = flow.back()  # the player found T02 after all
    assert (p.card, p.skipped) == ("T02", 0)
    show(flow)
    assert flow.prompt().card == "EX"
    assert set(flow.enrolled) == {"T01", "T02"}


def test_buttons_that_make_no_sense_now_are_refused():
    flow = EnrollFlow("deck", "m", views_needed=2, order=ORDER)
    with pytest.raises(EnrollFlowError, match="step 'show'"):
        flow.confirm()
    with pytest.raises(EnrollFlowError, match="no previous card"):
        flow.back()
    flow.add_views(views_of("T01", 2))
    with pytest.raises(EnrollFlowError, match="step 'confirm'"):
        flow.add_views(views_of("T01", 1))
    with pytest.raises(EnrollFlowError, match="orientations"):
        EnrollFlow("deck", "m", order=ORDER).add_views(views_of("T01", 2), np.array([True]))


def test_the_end_reports_two_cards_too_alike_and_can_show_them_again():
    flow = EnrollFlow("deck", "m", views_needed=2, order=ORDER)
    show(flow, "T01")
    show(flow, "T01")  # asked for T02, the player showed T01 again
    show(flow, "EX")
    p = flow.add_views(views_of("HK", 2))
    flow.confirm()
    p = flow.prompt()
    assert p.step == REVIEW and {p.pair.first, p.pair.second} == {"T01", "T02"} and p.pair.similarity > 0.95
    p = flow.show_again()
    assert (p.step, p.card) == (SHOW, "T01")
    show(flow, "T01")
    assert flow.prompt().card == "T02"
    show(flow, "T02")
    assert flow.prompt().step == DONE


def test_an_accepted_pair_is_not_asked_again():
    flow = EnrollFlow("deck", "m", views_needed=2, order=ORDER[:3])
    show(flow, "T01")
    show(flow, "T01")
    show(flow, "EX")
    assert flow.step == REVIEW
    assert flow.accept().step == DONE


def test_progress_is_saved_after_every_card_and_an_interrupted_enrollment_resumes(tmp_path):
    progress = ProgressFile.for_deck("deck", tmp_path)
    assert progress.path == tmp_path / ".progress" / "deck.npz"
    flow = progress.resume_or_start("deck", "m", views_needed=2)
    show(flow)  # T01
    flow.skip()  # T02
    flow.add_views(views_of("T03", 1))  # interrupted halfway through T03
    del flow

    resumed = progress.resume_or_start("deck", "m", views_needed=2)
    p = resumed.prompt()
    assert (p.step, p.card, p.views, p.enrolled, p.skipped) == (SHOW, "T03", 0, 1, 1)
    np.testing.assert_allclose(resumed.enrolled["T01"].embeddings, views_of("T01", 2), atol=1e-3)
    show(resumed)
    assert progress.resume_or_start("deck", "m").prompt().card == "T04"


def test_progress_of_another_model_or_deck_is_not_resumed(tmp_path):
    progress = ProgressFile.for_deck("deck", tmp_path)
    flow = progress.resume_or_start("deck", "old-model")
    show(flow)
    assert progress.resume_or_start("deck", "new-model").prompt().enrolled == 0


def test_unreadable_progress_is_a_clear_error(tmp_path):
    progress = ProgressFile.for_deck("deck", tmp_path)
    progress.path.parent.mkdir(parents=True)
    progress.path.write_bytes(b"not an npz")
    with pytest.raises(EnrollFlowError, match="cannot read enrollment progress"):
        progress.load()


def test_a_finished_enrollment_builds_a_profile_that_names_the_deck(embedder, faces):
    order = ("T01", "T07", "EX", "S03", "H10", "HK")  # canonical order
    flow = EnrollFlow("table-deck", embedder.model_id, views_needed=4, order=order, strategy="orientation")
    rng = np.random.default_rng(3)
    while flow.step != DONE:
        code = flow.current
        while flow.step == SHOW:  # two captures of two views each (upright and turned)
            views = embed_card(embedder, code, faces[code], 2, rng, MILD)
            flow.add_views(views.embeddings, views.turned)
        flow.confirm()
    profile = flow.build_profile(embedder)
    assert profile.cards == order and profile.source == "device" and profile.views == 4
    from vision.enroll import PrototypeNamer, card_views

    crops = [card_views(faces[c], 3, embedder.crop_size, rng, MILD)[2] for c in order]
    assert [n.card for n in PrototypeNamer(profile, embedder).name(crops)] == list(order)


def test_all_remaining_pairs_can_be_kept_at_once():
    flow = EnrollFlow("deck", "m", views_needed=2, order=ORDER)
    for _ in ORDER:
        show(flow, "T01")  # the same card four times: six pairs
    assert flow.step == REVIEW
    assert flow.accept_all().step == DONE


def test_each_cards_face_keypoints_are_kept_through_a_resume_and_into_the_profile(tmp_path, embedder, faces):
    progress = ProgressFile.for_deck("deck", tmp_path)
    flow = progress.resume_or_start("deck", embedder.model_id, views_needed=2, order=("T01", "T07"))
    rng = np.random.default_rng(5)
    first = embed_card(embedder, "T01", faces["T01"], 2, rng, MILD)
    assert len(first.keypoints) >= 34 * 20
    flow.add_views(first.embeddings, first.turned, first.keypoints)
    flow.confirm()
    del flow
    resumed = progress.resume_or_start("deck", embedder.model_id, views_needed=2, order=("T01", "T07"))
    assert resumed.enrolled["T01"].keypoints == first.keypoints
    later = embed_card(embedder, "T07", faces["T07"], 2, rng, MILD)
    resumed.add_views(later.embeddings[:1], later.turned[:1])  # a capture without keypoints, then one with
    resumed.add_views(later.embeddings[1:], later.turned[1:], later.keypoints)
    resumed.confirm()
    while resumed.step == REVIEW:
        resumed.accept()
    assert resumed.build_profile(embedder).keypoints == {"T01": first.keypoints, "T07": later.keypoints}
    # progress saved by an older Tarotmate, whose keypoints another finder found: resumed without them
    with np.load(progress.path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    assert meta.pop("finder") == FINDER
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(progress.path, **arrays)
    older = progress.resume_or_start("deck", embedder.model_id, views_needed=2, order=("T01", "T07"))
    assert older.enrolled["T01"].keypoints == b"" and len(older.enrolled["T01"].embeddings) == 2


def test_each_cards_face_red_ink_is_kept_through_a_resume_and_says_whether_the_deck_prints_red_pips(tmp_path, embedder, faces):
    progress = ProgressFile.for_deck("deck", tmp_path)
    order = ("H03", "D08", "S05")
    flow = progress.resume_or_start("deck", embedder.model_id, views_needed=2, order=order)
    rng = np.random.default_rng(6)
    first = embed_card(embedder, "H03", faces["H03"], 2, rng, MILD)
    assert first.red is not None and first.red > 20
    flow.add_views(first.embeddings, first.turned, first.keypoints, first.red)
    flow.confirm()
    del flow
    resumed = progress.resume_or_start("deck", embedder.model_id, views_needed=2, order=order)
    assert resumed.enrolled["H03"].red == first.red
    grey = cv2.cvtColor(cv2.cvtColor(faces["D08"], cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)  # printed black
    later = embed_card(embedder, "D08", grey, 2, rng, MILD)
    resumed.add_views(later.embeddings[:1], later.turned[:1])  # a capture that measured none, then one that did
    resumed.add_views(later.embeddings[1:], later.turned[1:], later.keypoints, later.red)
    resumed.confirm()
    spade = embed_card(embedder, "S05", faces["S05"], 2, rng, MILD)
    resumed.add_views(spade.embeddings, spade.turned, spade.keypoints, spade.red)
    resumed.confirm()
    while resumed.step == REVIEW:
        resumed.accept()
    assert resumed.enrolled["D08"].red == later.red < 20
    assert resumed.build_profile(embedder).red_pips is False
    # a progress file whose red inks were damaged is a clear error
    with np.load(progress.path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    meta["red"] = ["H03"]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(progress.path, **arrays)
    with pytest.raises(EnrollFlowError, match="cannot read enrollment progress"):
        progress.load()
