"""The card model's learning curve: one point per measured checkpoint, drawn to ``models/curve.png``.

    .venv/bin/python benchmarks/learning_curve.py add FIGURES.json --label TEXT --hours H --crops N [--step S] [--command TEXT]
    .venv/bin/python benchmarks/learning_curve.py draw            # models/curve.png and the table for the model card

``FIGURES.json`` is what ``benchmarks/bench_recognition.py --json FILE`` wrote
for the checkpoint (its ``--models-dir``). A point keeps, besides when it was
trained (hours and crops seen over the whole run, all sessions): the
real-table set named right from the locator's quads and from the true
corners, each as the mean over the trained-on decks (new scenes) and over the
held-out decks never trained on; the easy set (scattered cards, mean over the
decks); unknown crops rejected. The points live in ``models/curve.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # chart.py

CURVE = ROOT / "models" / "curve.json"
PNG = ROOT / "models" / "curve.png"
SERIES = (  # key, legend, colour
    ("table_named_trained", "real table, from the locator's quads (trained-on decks)", (31, 119, 180)),
    ("table_oracle_trained", "real table, from the true corners (trained-on decks)", (31, 119, 180)),
    ("table_named_held_out", "real table, from the locator's quads (held-out decks)", (214, 39, 40)),
    ("table_oracle_held_out", "real table, from the true corners (held-out decks)", (214, 39, 40)),
    ("easy_named", "easy set, scattered cards (all decks)", (44, 160, 44)),
    ("unknown_rejected", "unknown crops rejected", (127, 127, 127)),
)


def summarise(figures: dict) -> dict:
    """The curve's figures of one ``bench_recognition.py --json`` file."""
    held = set(figures.get("held_out_decks", []))

    def mean(rows, key, pick):
        vals = [r[key] for r in rows if pick(r["deck"])]
        return round(sum(vals) / len(vals), 2) if vals else None

    table = figures.get("table", [])
    easy = figures.get("easy", [])
    return {
        "table_named_trained": mean(table, "named", lambda d: d not in held),
        "table_oracle_trained": mean(table, "oracle", lambda d: d not in held),
        "table_named_held_out": mean(table, "named", lambda d: d in held),
        "table_oracle_held_out": mean(table, "oracle", lambda d: d in held),
        "table_false": mean(table, "false", lambda d: True),
        "easy_named": mean(easy, "named", lambda d: True),
        "unknown_rejected": round(figures["unknown_rejected"], 2) if "unknown_rejected" in figures else None,
    }


def load() -> list[dict]:
    return json.loads(CURVE.read_text(encoding="utf-8")) if CURVE.is_file() else []


def add(args) -> int:
    figures = json.loads(Path(args.figures).read_text(encoding="utf-8"))
    point = {"label": args.label, "date": time.strftime("%Y-%m-%d"), "hours": args.hours, "crops_seen": args.crops,
             "step": args.step, **summarise(figures), "command": args.command or ""}
    points = [p for p in load() if p["label"] != args.label] + [point]
    points.sort(key=lambda p: (p["hours"], p["label"]))
    CURVE.write_text(json.dumps(points, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(point, indent=1))
    return 0


def table(points: list[dict]) -> str:
    def f(v):
        return "–" if v is None else f"{v:.1f}"

    lines = ["| checkpoint | hours | crops seen | real table, quads (trained / held-out) | real table, true corners (trained / held-out) | false % | easy % | unknown rejected % |",
             "|---|---:|---:|---|---|---:|---:|---:|"]
    for p in points:
        lines.append(f"| {p['label']} | {p['hours']:.2f} | {p['crops_seen']:,} | {f(p['table_named_trained'])} / {f(p['table_named_held_out'])} "
                     f"| {f(p['table_oracle_trained'])} / {f(p['table_oracle_held_out'])} | {f(p.get('table_false'))} "
                     f"| {f(p['easy_named'])} | {f(p['unknown_rejected'])} |")
    return "\n".join(lines)


def draw(points: list[dict], path: Path) -> None:
    from chart import canvas

    W, H, L, R, T, B = 960, 600, 70, 20, 40, 190
    img, d, font = canvas(W, H)
    hours = [p["hours"] for p in points] or [0.0]
    x0, x1 = 0.0, max(1.0, max(hours) * 1.1)
    y0, y1 = 0.0, 100.0

    def xy(h, v):
        return L + (W - L - R) * (h - x0) / (x1 - x0), T + (H - T - B) * (1 - (v - y0) / (y1 - y0))

    d.text((L, 10), "Tarotmate card model: learning curve (% named right / rejected, by hours trained)", fill="black", font=font)
    for v in range(0, 101, 10):
        _, y = xy(0, v)
        d.line([(L, y), (W - R, y)], fill=(225, 225, 225))
        d.text((L - 30, y - 7), f"{v}", fill="black", font=font)
    step = max(0.5, round(x1 / 8 * 2) / 2)
    h = 0.0
    while h <= x1:
        x, _ = xy(h, 0)
        d.line([(x, T), (x, H - B)], fill=(235, 235, 235))
        d.text((x - 8, H - B + 6), f"{h:g}", fill="black", font=font)
        h += step
    d.text(((W - L) // 2, H - B + 24), "hours trained (all sessions)", fill="black", font=font)
    d.rectangle([L, T, W - R, H - B], outline="black")
    for k, (key, legend, colour) in enumerate(SERIES):
        pts = [xy(p["hours"], p[key]) for p in points if p.get(key) is not None]
        dashed = "oracle" in key
        for a, b in zip(pts, pts[1:]):
            if dashed:
                n = 12
                for i in range(0, n, 2):
                    pa = (a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n)
                    pb = (a[0] + (b[0] - a[0]) * (i + 1) / n, a[1] + (b[1] - a[1]) * (i + 1) / n)
                    d.line([pa, pb], fill=colour, width=2)
            else:
                d.line([a, b], fill=colour, width=2)
        for x, y in pts:
            d.ellipse([x - 3, y - 3, x + 3, y + 3], fill=colour if not dashed else "white", outline=colour)
        ly = H - B + 48 + 20 * k
        d.line([(L, ly + 7), (L + 30, ly + 7)], fill=colour, width=2)
        d.text((L + 40, ly), legend + (" (dashed)" if dashed else ""), fill="black", font=font)
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("add", help="add (or replace) the point of one measured checkpoint")
    a.add_argument("figures", help="the file bench_recognition.py --json wrote")
    a.add_argument("--label", required=True)
    a.add_argument("--hours", type=float, required=True, help="hours trained over the whole run")
    a.add_argument("--crops", type=int, required=True, help="crops seen over the whole run")
    a.add_argument("--step", type=int, default=None)
    a.add_argument("--command", default=None, help="how the checkpoint was trained")
    dr = sub.add_parser("draw", help="draw models/curve.png and print the model card's table")
    dr.add_argument("--out", default=str(PNG))
    args = p.parse_args(argv)
    if args.cmd == "add":
        return add(args)
    points = load()
    draw(points, Path(args.out))
    print(table(points))
    print(f"\n(drawn to {args.out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
