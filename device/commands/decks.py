"""``tarotmate decks``: the decks Tarotmate can name, built-in and enrolled."""

from __future__ import annotations

import argparse
import json

HELP = "list the decks Tarotmate knows: the built-in recognition and the enrolled deck profiles"

BUILTIN = "builtin"
BUILTIN_NOTE = "the recognition model's own classes (no profile needed)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--decks-dir", metavar="DIR",
                        help="list only this folder of profiles (default: the user's decks, then the shipped ones)")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")


def current_model() -> str | None:
    """The id of the installed recognition model, or None when there is none."""
    from engine.errors import TarotmateError
    from vision.enroll import default_embedder, model_id

    try:
        return model_id(default_embedder())
    except TarotmateError:
        return None


def deck_rows(decks_dir=None, entries=None) -> list[dict]:
    """One row per deck: the built-in recognition first, then every profile found (``entries``: those
    :func:`vision.deck_profiles.list_profiles` found already).

    ``stale``: the profile was enrolled with another model than the
    installed one (it is refused until the deck is enrolled again).
    """
    from vision.deck_profiles import list_profiles

    model = current_model()
    rows = [{"name": BUILTIN, "kind": "built-in", "cards": 78, "note": BUILTIN_NOTE}]
    for entry in list_profiles(decks_dir) if entries is None else entries:
        m = entry.manifest
        rows.append({
            "name": entry.name,
            "kind": "shipped" if entry.shipped else "enrolled",
            "cards": m.get("cards"),
            "views": m.get("views"),
            "model": m.get("model"),
            "stale": model is not None and m.get("model") != model,
            "similar_pairs": len(m.get("similar_pairs", [])),
            "created": m.get("created"),
            "path": str(entry.path),
        })
    return rows


def keypoint_notes(decks_dir=None, entries=None) -> dict[str, str]:
    """What to say of the profiles whose faces' keypoints are not read (``vision.deck_profiles.keypoints_current``):
    found by an older Tarotmate (read without them, so their cards are not settled by their faces), or a
    damaged note of how they were found (the profile is refused). ``entries``: as :func:`deck_rows`."""
    from vision.deck_profiles import DeckProfileError, keypoints_current, list_profiles

    notes = {}
    for entry in list_profiles(decks_dir) if entries is None else entries:
        try:
            if entry.manifest.get("keypoints") and not keypoints_current(entry.manifest):
                notes[entry.name] = ("its faces' keypoints were found by an older Tarotmate: "
                                     "enrol it again to settle its cards by them")
        except DeckProfileError:
            notes[entry.name] = "its keypoint_finder is damaged: enrol it again"
    return notes


def run(args: argparse.Namespace) -> int:
    from vision.deck_profiles import list_profiles

    entries = list_profiles(args.decks_dir)  # the manifests, read once for the rows and the notes
    rows = deck_rows(entries=entries)
    if args.json:
        print(json.dumps(rows))
        return 0
    width = max(len(r["name"]) for r in rows)
    notes = keypoint_notes(entries=entries)
    for r in rows:
        if r["kind"] == "built-in":
            print(f"{r['name']:<{width}}  built-in  {r['note']}")
            continue
        alike = f", {r['similar_pairs']} pairs too alike" if r["similar_pairs"] else ""
        stale = "  [enrolled with another model: enrol it again]" if r["stale"] else ""
        if not stale and r["name"] in notes:
            stale = f"  [{notes[r['name']]}]"
        print(f"{r['name']:<{width}}  {r['kind']:<8}  {r['cards']} cards, {r['views']} views{alike}, "
              f"{(r['created'] or '')[:10]}  {r['path']}{stale}")
    return 0
