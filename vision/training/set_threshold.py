"""Set the acceptance threshold stored in an exported card model (``cards.onnx``), weights unchanged.

    .venv-train/bin/python -m vision.training.set_threshold models/cards.onnx 0.8 --still [--source "bench_unknown.py, ..."]
    .venv-train/bin/python -m vision.training.set_threshold models/cards.onnx 0.85 --temperature --source "bench_calibration.py"
    .venv-train/bin/python -m vision.training.set_threshold models/cards.onnx --tracker min_margin=10 --source "bench_table.py ..."
    .venv-train/bin/python -m vision.training.set_threshold models/cards.onnx --half-turn on --source "bench_half_turn.py ..."

The threshold is the softmax a crop's top class must reach to be reported as a
card (:class:`vision.namer.Namer` reads it from the ``tarotmate`` metadata). It
is chosen from the precision / recall curve that ``benchmarks/bench_unknown.py``
prints; this writes it, and where it came from, into the model. ``--tracker NAME=VALUE``
writes the tracker's bars measured for this model at the table
(``benchmarks/bench_table.py --models-dir DIR --set NAME=VALUE``;
:class:`vision.tracker_settings.TrackerSettings` fields), which the tracker then
uses with it; ``--tracker NAME=`` removes one. ``--half-turn on`` makes the
namer name each crop also turned half a turn (:class:`vision.namer.Namer`,
``half_turn``); ``off`` removes it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.namer import TEMPERATURE_RANGE, file_id

KEYS = ("threshold", "still_threshold", "temperature")


def _edit_metadata(path: str | Path, change) -> dict:
    """Apply ``change(meta)`` to the model's ``tarotmate`` metadata and save the model in place
    (atomically). The model keeps its identity (``model_id``, :func:`vision.namer.model_id_of`):
    its weights, and so its embeddings, are unchanged."""
    import onnx

    path = Path(path)
    model = onnx.load(str(path))
    entry = next((p for p in model.metadata_props if p.key == "tarotmate"), None)
    if entry is None:
        entry = model.metadata_props.add()
        entry.key, entry.value = "tarotmate", "{}"
    meta = json.loads(entry.value)
    if "model_id" not in meta:  # the first edit: the file is still as exported, its hash is the identity
        meta["model_id"] = file_id(path)
    change(meta)
    entry.value = json.dumps(meta)
    tmp = path.with_suffix(".tmp.onnx")
    onnx.save(model, str(tmp))
    tmp.replace(path)
    return meta


def set_tracker_bars(path: str | Path, bars: dict, source: str | None = None) -> dict:
    """Write the tracker settings ``bars`` (a value of None removes that setting) into the model's
    metadata (``tracker``, and ``tracker_source``); return the metadata. ``ValueError`` for a setting
    the tracker does not have or a value of the wrong type, before anything is written."""
    from vision.tracker_settings import TrackerSettings, with_bars

    def change(meta: dict) -> None:
        merged = dict(meta.get("tracker") or {})
        for name, value in bars.items():
            if value is None:
                merged.pop(name, None)
            else:
                merged[name] = value
        with_bars(TrackerSettings(), merged)  # checked before it is written
        if merged:
            meta["tracker"] = merged
        else:
            meta.pop("tracker", None)
        if source:
            meta["tracker_source"] = source

    return _edit_metadata(path, change)


def set_threshold(path: str | Path, threshold: float, source: str | None = None, key: str = "threshold") -> dict:
    """Write ``threshold`` under ``key`` (``threshold``: every use; ``still_threshold``: single still
    images, ``tarotmate classify``; ``temperature``: the calibration that divides the logits, from
    ``benchmarks/bench_calibration.py``), and ``KEY_source``, into the model's metadata; return the metadata."""
    if key == "temperature":
        low, high = TEMPERATURE_RANGE
        if not low <= threshold <= high:
            raise ValueError(f"a temperature divides the model's logits: between {low:g} and {high:g}, got {threshold}")
    elif not 0.0 < threshold < 1.0:
        raise ValueError(f"a threshold is a softmax between 0 and 1, got {threshold}")
    if key not in KEYS:
        raise ValueError(f"unknown threshold key {key!r} ({', '.join(KEYS)})")

    def change(meta: dict) -> None:
        meta[key] = round(float(threshold), 4)
        if source:
            meta[f"{key}_source"] = source

    return _edit_metadata(path, change)


def set_half_turn(path: str | Path, on: bool, source: str | None = None) -> dict:
    """Write whether the namer names each crop also turned half a turn (``half_turn``, and
    ``half_turn_source``) into the model's metadata; ``off`` removes both. Return the metadata."""

    def change(meta: dict) -> None:
        if on:
            meta["half_turn"] = True
            if source:
                meta["half_turn_source"] = source
        else:
            meta.pop("half_turn", None)
            meta.pop("half_turn_source", None)

    return _edit_metadata(path, change)


def tracker_pairs(pairs: list[str]) -> dict:
    """``NAME=VALUE`` texts as tracker bars of their settings' types (``NAME=``: remove it);
    ``ValueError`` for a text that is not one."""
    from vision.tracker_settings import parse_settings

    try:
        return parse_settings(pairs, removable=True)
    except ValueError as exc:
        raise ValueError(f"--tracker {exc}") from None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="set_threshold", description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("threshold", type=float, nargs="?", help="the bar (not with --tracker)")
    p.add_argument("--source", default=None, help="where the threshold comes from (recorded in the metadata)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--still", action="store_true", help="set the bar for single still images (tarotmate classify) instead")
    which.add_argument("--temperature", action="store_true",
                       help="set the calibration temperature instead (the thresholds then apply to calibrated "
                            "probabilities: measure them again)")
    which.add_argument("--tracker", action="append", metavar="NAME=VALUE",
                       help="set one of the tracker's bars for this model instead (vision/tracker_settings.py); "
                            "NAME= removes it")
    which.add_argument("--half-turn", choices=("on", "off"),
                       help="name each crop also turned half a turn, the logits averaged (on), or not (off)")
    a = p.parse_args(argv)
    if a.half_turn:
        if a.threshold is not None:
            p.error("--half-turn takes no threshold")
        try:
            meta = set_half_turn(a.model, a.half_turn == "on", a.source)
        except OSError as exc:
            print(f"set_threshold: {exc}", file=sys.stderr)
            return 2
        print(f"{a.model}: half_turn {'on' if meta.get('half_turn') else 'off'}")
        return 0
    if a.tracker:
        if a.threshold is not None:
            p.error("--tracker takes no threshold")
        try:
            meta = set_tracker_bars(a.model, tracker_pairs(a.tracker), a.source)
        except (OSError, ValueError) as exc:
            print(f"set_threshold: {exc}", file=sys.stderr)
            return 2
        print(f"{a.model}: tracker {json.dumps(meta.get('tracker', {}), sort_keys=True)}")
        return 0
    if a.threshold is None:
        p.error("a threshold is needed (or --tracker NAME=VALUE)")
    key = "still_threshold" if a.still else "temperature" if a.temperature else "threshold"
    try:
        meta = set_threshold(a.model, a.threshold, a.source, key)
    except (OSError, ValueError) as exc:
        print(f"set_threshold: {exc}", file=sys.stderr)
        return 2
    print(f"{a.model}: {key} {meta[key]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
