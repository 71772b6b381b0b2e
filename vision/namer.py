"""Name straightened card crops with the ONNX card model.

``Namer.load()`` opens ``models/cards.onnx`` (79 classes: the 78 cards in
``engine.cards.CODES`` order, then ``unknown``) with onnxruntime, one thread by
default; its probabilities are the softmax of the logits divided by the model's
calibration temperature (metadata ``temperature``, 1 when absent). A model
whose metadata says ``half_turn`` names each crop twice, as it is and turned
half a turn (the model names cards both ways up), from the two views' mean
logits: two looks at one crop whose errors are partly their own
(``benchmarks/bench_half_turn.py``); the embedding stays the crop's own, so
deck profiles and deck memories are unchanged. ``name(crops)`` returns one
:class:`Naming` per crop: the card code, or ``None`` when the crop is rejected
(the model says ``unknown``, or its confidence is under the threshold stored
in the model). ``embed(crops)``
returns the model's L2-normalised embeddings (one row per crop), on which
per-deck prototype heads can be built.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.errors import TarotmateError
from vision.model_files import models_dir

MODEL_FILE = "cards.onnx"
LABELS_FILE = "labels.txt"
UNKNOWN = "unknown"
DEFAULT_DECK = "default"
BUILTIN_ALIASES = ("default", "builtin")  # names of the shipped model's own classes
DEFAULT_THRESHOLD = 0.5
TEMPERATURE_RANGE = (0.1, 10.0)  # a calibration temperature outside it is a damaged model


@dataclass(frozen=True)
class Naming:
    """What the model says about one crop; ``card`` is None for unknown / rejected."""

    card: str | None
    confidence: float
    embedding: np.ndarray | None = None


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def file_id(path: Path | str) -> str:
    """A model file's hash: the identity of the card model an export wrote (``sha256:`` and 16 hex digits)."""
    return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def model_id_of(info: dict, model: Path) -> str:
    """A card model's identity, with which deck profiles are enrolled and deck memories learned:
    the hash of its file as exported (or as it was before the first edit that kept it). Editing
    its metadata (a threshold, the calibration, the tracker's bars: ``vision.training.set_threshold``)
    leaves its embeddings as they were, so the first edit writes that identity into the metadata
    (``model_id``) and every edit keeps it: a club's enrolled decks and its table's learned views
    stay the model's own."""
    kept = info.get("model_id")
    return kept if isinstance(kept, str) and kept.startswith("sha256:") else file_id(model)


def tracker_bars_of(info: dict, model: Path) -> dict:
    """The tracker settings a card model's metadata names for it (``tracker``: ``{"min_margin": 10}``),
    checked against :class:`vision.tracker_settings.TrackerSettings`."""
    from vision.tracker_settings import TrackerSettings, with_bars

    bars = info.get("tracker", {})
    try:
        if not isinstance(bars, dict):
            raise ValueError(f"expected an object of tracker settings, got {bars!r}")
        with_bars(TrackerSettings(), bars)
    except ValueError as exc:
        raise TarotmateError(f"the card model {model} names bad tracker bars: {exc} "
                             "(set them again with vision.training.set_threshold --tracker)") from None
    return dict(bars)


class Namer:
    """A loaded card model. Build it with :meth:`load`."""

    def __init__(self, session, labels: list[str], threshold: float, input_size: tuple[int, int], deck: str = DEFAULT_DECK):
        self.session = session
        self.labels = labels
        self.threshold = float(threshold)
        self.input_size = input_size  # (width, height)
        self.crop_size = input_size
        self.model_path: Path | None = None
        self.model_id: str | None = None
        self.deck = deck
        self.still_threshold = self.threshold  # the bar for a single still image (tarotmate classify)
        self.temperature = 1.0  # the calibration: logits are divided by it (the model's metadata says)
        self.tracker_bars: dict = {}  # the tracker's bars measured for this model (metadata ``tracker``)
        self.half_turn = False  # each crop also named turned half a turn, the logits averaged (metadata ``half_turn``)
        self._input = session.get_inputs()[0].name
        outputs = [o.name for o in session.get_outputs()]
        self._outputs = ["logits", "embedding"] if {"logits", "embedding"} <= set(outputs) else outputs[:2]

    @classmethod
    def load(
        cls,
        models_dir: str | Path | None = None,
        threads: int = 1,
        threshold: float | None = None,
    ) -> "Namer":
        """Open the card model of ``models_dir`` (default: the repository's ``models/``).

        ``threads``: onnxruntime intra-op threads (1 by default, as on the Pi next
        to the camera loop). ``threshold``: minimum confidence to accept a card
        (default: the model's own). An enrolled deck's namer is
        :func:`vision.decks.load_namer`'s.
        """
        import onnxruntime as ort

        folder = Path(models_dir) if models_dir is not None else globals()["models_dir"]()
        model = folder / MODEL_FILE
        labels_path = folder / LABELS_FILE
        if not model.is_file() or not labels_path.is_file():
            raise TarotmateError(
                f"no card model in {folder} (expected {MODEL_FILE} and {LABELS_FILE}); "
                "rebuild it with: .venv-train/bin/python -m vision.training.build_models"
            )
        labels = [ln.strip() for ln in labels_path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        options = ort.SessionOptions()
        options.intra_op_num_threads = int(threads)
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types
            raise TarotmateError(f"cannot load the card model {model}: {exc}") from exc
        meta = session.get_modelmeta().custom_metadata_map
        info = json.loads(meta.get("tarotmate", "{}"))
        shape = session.get_inputs()[0].shape  # [batch, 3, H, W]
        size = tuple(info.get("input_size", (shape[3], shape[2])))
        n_out = session.get_outputs()[0].shape[-1]
        if isinstance(n_out, int) and n_out != len(labels):
            raise TarotmateError(f"{labels_path} has {len(labels)} labels but the model has {n_out} outputs")
        thr = threshold if threshold is not None else float(info.get("threshold", DEFAULT_THRESHOLD))
        namer = cls(session, labels, thr, (int(size[0]), int(size[1])))
        # a single still image has no second look: its bar (tarotmate classify) is stricter when the model says so
        namer.still_threshold = threshold if threshold is not None else float(info.get("still_threshold", thr))
        temperature = float(info.get("temperature", 1.0))
        low, high = TEMPERATURE_RANGE
        if not low <= temperature <= high:
            raise TarotmateError(f"the card model {model} has a calibration temperature of {temperature} "
                                 f"(expected {low:g} to {high:g}): set it again with vision.training.set_threshold --temperature")
        namer.temperature = temperature
        namer.half_turn = bool(info.get("half_turn", False))
        namer.tracker_bars = tracker_bars_of(info, model)
        namer.model_path = model
        namer.model_id = model_id_of(info, model)
        namer.run([np.zeros((namer.input_size[1], namer.input_size[0], 3), np.uint8)])  # first run allocates: do it now
        return namer

    # ------------------------------------------------------------------
    def _batch(self, crops) -> np.ndarray:
        w, h = self.input_size
        out = np.empty((len(crops), 3, h, w), np.float32)
        for i, crop in enumerate(crops):
            img = np.asarray(crop)
            if img.ndim == 2:
                img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
            if img.shape[1] != w or img.shape[0] != h:
                interp = cv2.INTER_AREA if img.shape[1] > w else cv2.INTER_LINEAR
                img = cv2.resize(img, (w, h), interpolation=interp)
            out[i] = img[..., ::-1].transpose(2, 0, 1) * np.float32(1 / 255)
        return out

    def run(self, crops) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities (n, classes), embeddings (n, d)) for BGR crops."""
        if len(crops) == 0:
            return np.zeros((0, len(self.labels)), np.float32), np.zeros((0, 0), np.float32)
        batch = self._batch(crops)
        n = len(batch)
        if self.half_turn:
            batch = np.concatenate([batch, batch[:, :, ::-1, ::-1]])  # each crop turned half a turn, after them
        logits, emb = self.session.run(self._outputs, {self._input: batch})
        logits = logits.astype(np.float32)
        if self.half_turn:
            logits = (logits[:n] + logits[n:]) / np.float32(2)
        return softmax(logits / np.float32(self.temperature)), emb[:n].astype(np.float32)

    def name(self, crops) -> list[Naming]:
        """One Naming per BGR crop (portrait; any size, resized to the model's input)."""
        return self.namings(*self.run(crops))

    def namings(self, probs: np.ndarray, emb: np.ndarray) -> list[Naming]:
        """One Naming per row of probabilities (``labels`` order): the top card when it is a card
        at ``threshold`` or more, else None."""
        out = []
        for p, e in zip(probs, emb):
            k = int(np.argmax(p))
            label = self.labels[k]
            conf = float(p[k])
            card = label if label != UNKNOWN and conf >= self.threshold else None
            out.append(Naming(card, conf, e))
        return out

    def embed(self, crops) -> np.ndarray:
        """L2-normalised embeddings of BGR crops, shape (n, d)."""
        _, emb = self.run(crops)
        if emb.size:
            emb = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
        return emb
