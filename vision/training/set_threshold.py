"""Set the acceptance threshold stored in an exported card model (``cards.onnx``), weights unchanged.

    .venv-train/bin/python -m vision.training.set_threshold models/cards.onnx 0.8 --still [--source "bench_unknown.py, ..."]
    .venv-train/bin/python -m vision.training.set_threshold models/cards.onnx 0.85 --temperature --source "bench_calibration.py"

The threshold is the softmax a crop's top class must reach to be reported as a
card (:class:`vision.namer.Namer` reads it from the ``tarotmate`` metadata). It
is chosen from the precision / recall curve that ``benchmarks/bench_unknown.py``
prints; this writes it, and where it came from, into the model.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.namer import TEMPERATURE_RANGE

KEYS = ("threshold", "still_threshold", "temperature")


def set_threshold(path: str | Path, threshold: float, source: str | None = None, key: str = "threshold") -> dict:
    """Write ``threshold`` under ``key`` (``threshold``: every use; ``still_threshold``: single still
    images, ``tarotmate classify``; ``temperature``: the calibration that divides the logits, from
    ``benchmarks/bench_calibration.py``), and ``KEY_source``, into the model's metadata; return the metadata."""
    import onnx

    if key == "temperature":
        low, high = TEMPERATURE_RANGE
        if not low <= threshold <= high:
            raise ValueError(f"a temperature divides the model's logits: between {low:g} and {high:g}, got {threshold}")
    elif not 0.0 < threshold < 1.0:
        raise ValueError(f"a threshold is a softmax between 0 and 1, got {threshold}")
    path = Path(path)
    model = onnx.load(str(path))
    entry = next((p for p in model.metadata_props if p.key == "tarotmate"), None)
    if entry is None:
        entry = model.metadata_props.add()
        entry.key, entry.value = "tarotmate", "{}"
    meta = json.loads(entry.value)
    if key not in KEYS:
        raise ValueError(f"unknown threshold key {key!r} ({', '.join(KEYS)})")
    meta[key] = round(float(threshold), 4)
    if source:
        meta[f"{key}_source"] = source
    entry.value = json.dumps(meta)
    tmp = path.with_suffix(".tmp.onnx")
    onnx.save(model, str(tmp))
    tmp.replace(path)
    return meta


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="set_threshold", description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("threshold", type=float)
    p.add_argument("--source", default=None, help="where the threshold comes from (recorded in the metadata)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--still", action="store_true", help="set the bar for single still images (tarotmate classify) instead")
    which.add_argument("--temperature", action="store_true",
                       help="set the calibration temperature instead (the thresholds then apply to calibrated "
                            "probabilities: measure them again)")
    a = p.parse_args(argv)
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
