"""Set the acceptance threshold stored in an exported card model (``cards.onnx``), weights unchanged.

    .venv-train/bin/python -m vision.training.set_threshold models/cards.onnx 0.8 --still [--source "bench_unknown.py, ..."]

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


def set_threshold(path: str | Path, threshold: float, source: str | None = None, key: str = "threshold") -> dict:
    """Write ``threshold`` under ``key`` (``threshold``: every use; ``still_threshold``: single still
    images, ``tarotmate classify``), and ``KEY_source``, into the model's metadata; return the metadata."""
    import onnx

    if not 0.0 < threshold < 1.0:
        raise ValueError(f"a threshold is a softmax between 0 and 1, got {threshold}")
    path = Path(path)
    model = onnx.load(str(path))
    entry = next((p for p in model.metadata_props if p.key == "tarotmate"), None)
    if entry is None:
        entry = model.metadata_props.add()
        entry.key, entry.value = "tarotmate", "{}"
    meta = json.loads(entry.value)
    if key not in ("threshold", "still_threshold"):
        raise ValueError(f"unknown threshold key {key!r} (threshold or still_threshold)")
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
    p.add_argument("--still", action="store_true", help="set the bar for single still images (tarotmate classify) instead")
    a = p.parse_args(argv)
    try:
        meta = set_threshold(a.model, a.threshold, a.source, "still_threshold" if a.still else "threshold")
    except (OSError, ValueError) as exc:
        print(f"set_threshold: {exc}", file=sys.stderr)
        return 2
    key = "still_threshold" if a.still else "threshold"
    print(f"{a.model}: {key} {meta[key]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
