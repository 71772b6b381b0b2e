"""``tarotmate replay RECORD.json [--json]``: audit and score a recorded deal or game.

It reads both record formats of Tarotmate: a French tarot deal
(``tarot-deal/1``: tricks, winners, score, violations; ``--json`` prints the
``tarot-replay/1`` object) and a Trivium game (``trivium-game/1``, as saved by
the demo and ``tarotmate trivium simulate --record``: what happened, the
winner and scores; ``--json`` prints a ``trivium-replay/1`` object).
"""

from __future__ import annotations

import argparse
import json
import sys

HELP = ("replay a French tarot deal record (trick winners, score, every illegal play the cards prove) "
        "or a Trivium game record")
TRIVIUM_REPLAY_FORMAT = "trivium-replay/1"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", metavar="RECORD.json",
                        help="a tarot-deal/1 or trivium-game/1 record ('-' reads stdin)")
    parser.add_argument("--json", action="store_true",
                        help="print exactly the tarot-replay/1 (or trivium-replay/1) object (JSON) on stdout")


def run(args: argparse.Namespace) -> int:
    from engine import bounded_json
    from engine.errors import TarotmateError
    from engine.tarot.record import deal_from_record, load_record, replay_deal

    if args.record == "-":
        record = bounded_json.read_stream(sys.stdin, "stdin")
    else:
        record = load_record(args.record)
    if isinstance(record, dict) and record.get("format") == "trivium-game/1":
        return _replay_trivium(record, args.json)
    if isinstance(record, dict) and record.get("format") not in (None, "tarot-deal/1"):
        raise TarotmateError(f"format: expected 'tarot-deal/1' or 'trivium-game/1', got {record.get('format')!r}")
    deal = deal_from_record(record)
    replay = replay_deal(deal)
    if args.json:
        print(json.dumps(replay, ensure_ascii=False))
    else:
        sys.stdout.write(summary(deal, replay))
    return 0


def trivium_replay(game) -> dict:
    """The ``trivium-replay/1`` object of a replayed Trivium game."""
    result = game.result
    return {
        "format": TRIVIUM_REPLAY_FORMAT,
        "players": list(game.players),
        "phase": game.phase,
        "operations": len(game.operations),
        "winner": game.winner,
        "combination": result.combination if result else None,
        "points": result.points if result else None,
        "scores": list(game.scores),
        "announcements": [a.text for a in game.announcements],
    }


def _replay_trivium(record: dict, as_json: bool) -> int:
    from engine.trivium.record import game_from_record
    from engine.trivium.state import Phase as TriviumPhase

    game = game_from_record(record)
    replay = trivium_replay(game)
    if as_json:
        print(json.dumps(replay, ensure_ascii=False))
        return 0
    lines = [f"Trivium, {len(game.players)} players: {', '.join(game.players)}"]
    lines += [f"  {text}" for text in replay["announcements"]]
    if game.winner is None:
        lines.append("No winner: the pozo ran out." if game.phase == TriviumPhase.FINISHED else f"Game not finished (phase {game.phase}).")
    else:
        lines.append(f"Winner: {game.players[game.winner]} with {replay['combination']}, {replay['points']} points")
    lines.append("Scores: " + ", ".join(f"{name} {score}" for name, score in zip(game.players, game.scores)))
    lines.append(f"The record replays: {replay['operations']} operations, the result it states checked.")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _who(deal, seat: int | None) -> str:
    if seat is None:
        return "-"
    if deal.names:
        return f"{deal.names[seat]} (seat {seat})"
    return f"seat {seat}"


def summary(deal, replay: dict) -> str:
    """A readable account of a replayed deal."""
    from engine.tarot.state import Phase
    from engine.tarot.tables import CONTRACT_LABEL

    lines = [f"French tarot, {deal.players} players, dealer {_who(deal, deal.dealer)}"]
    if deal.phase == Phase.REDEAL:
        lines.append("Everyone passed: the cards are dealt again.")
        return "\n".join(lines) + "\n"
    contract = CONTRACT_LABEL[deal.contract]
    head = f"{contract} by {_who(deal, deal.taker)}"
    if deal.called_card:
        head += f", calling {deal.called_card}"
        head += (f" (partner: {_who(deal, replay['partner'])})" if replay["partner"] is not None
                 else " (plays alone)")
    if deal.chelem_announced:
        head += ", chelem announced"
    lines.append(head)
    for p in deal.poignees:
        lines.append(f"Poignée {p.level} shown by {_who(deal, p.seat)}: {' '.join(p.shown)}")
    lines.append("")
    for i, t in enumerate(replay["tricks"], 1):
        lines.append(f"{i:>3}. {_who(deal, t['leader'])} leads: {' '.join(t['cards'])}"
                     f"  -> {_who(deal, t['winner'])}")
    lines.append("")
    if replay["won"] is None:
        lines.append(f"Deal in progress: attack has {replay['attack_points']:g} points with "
                     f"{replay['attack_oudlers']} oudler(s), needs {replay['target']}")
    else:
        verdict = "made" if replay["won"] else "lost"
        lines.append(f"Attack: {replay['attack_points']:g} points, {replay['attack_oudlers']} "
                     f"oudler(s), target {replay['target']}: {verdict} by {replay['diff']}")
        if replay["petit_au_bout"]:
            lines.append(f"Petit au bout: {replay['petit_au_bout']}")
        if replay["chelem"]:
            lines.append(f"Chelem: {replay['chelem']}")
        lines.append(f"Unit: {replay['unit']:+d}")
        lines.append("Scores: " + ", ".join(f"{_who(deal, s)} {v:+d}"
                                            for s, v in enumerate(replay["scores"])))
    if replay["violations"]:
        lines.append("")
        lines.append(f"Violations ({len(replay['violations'])}):")
        for v in replay["violations"]:
            where = f"trick {v['trick']}" if v["trick"] else "before play"
            lines.append(f"  {where}, {_who(deal, v['seat'])}: {v['rule']}: {v['evidence']}")
    else:
        lines.append("No illegal play.")
    return "\n".join(lines) + "\n"
