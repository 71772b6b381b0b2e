"""Deal records (``tarot-deal/1``) and their replay (``tarot-replay/1``).

The format is specified in ``shared/rules/deal-record.md``:

* :func:`validate_record` refuses a malformed record with a
  :class:`RecordError` naming the field (``tricks[3].cards[1]: unknown card
  code 'H11'``);
* :func:`deal_from_record` rebuilds the :class:`~engine.tarot.state.TarotDeal`
  (hands hidden, as the table saw it; a lead out of turn is a violation);
* :func:`replay_record` returns the ``tarot-replay/1`` object: trick winners,
  partner, points, oudlers, result, scores and the violations the cards prove;
* :func:`deal_to_record` writes a deal back (``TarotDeal.to_record()``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Mapping

from engine.cards import BY_CODE
from engine.errors import TarotmateError
from engine.tarot.operations import (AnnounceChelem, Bid, CallCard, DeclareMisere,
                                     DeclarePoignee, Ecart, Operation, Play, RevealChien)
from engine.tarot.options import OptionError, TarotOptions
from engine.tarot.deal_record import RECORD_FORMAT, deal_to_record
from engine.tarot.state import IllegalOperation, TarotDeal
from engine.tarot.tables import (BID_ALIASES, BID_NAMES, CHIEN_SIZE, CONTRACTS, HAND_SIZE, MISERE_KINDS,
                                 POIGNEE_LEVELS)

REPLAY_FORMAT = "tarot-replay/1"


class RecordError(TarotmateError, ValueError):
    """A malformed deal record; ``field`` is the path of the faulty field."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}" if field else problem)
        self.field = field
        self.problem = problem


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _seat(v: Any, players: int, path: str) -> int:
    if not _is_int(v) or not 0 <= v < players:
        raise RecordError(path, f"seat {v!r} out of range (0..{players - 1})")
    return v


def _code(v: Any, path: str) -> str:
    if not isinstance(v, str) or v not in BY_CODE:
        raise RecordError(path, f"unknown card code {v!r}")
    return v


def _codes(v: Any, path: str, size: int | None = None) -> list[str]:
    if not isinstance(v, list):
        raise RecordError(path, f"expected a list of card codes, got {v!r}")
    out = [_code(c, f"{path}[{i}]") for i, c in enumerate(v)]
    if size is not None and len(out) != size:
        raise RecordError(path, f"expected {size} cards, got {len(out)}")
    seen: dict[str, int] = {}
    for i, c in enumerate(out):
        if c in seen:
            raise RecordError(f"{path}[{i}]", f"card {c} is given twice (also {path}[{seen[c]}])")
        seen[c] = i
    return out


def _require(d: Mapping[str, Any], key: str) -> Any:
    if key not in d:
        raise RecordError(key, "missing field")
    return d[key]


def validate_record(d: Any) -> dict[str, Any]:
    """Check a ``tarot-deal/1`` record; return it normalised (defaults filled in).

    Raises :class:`RecordError` naming the field and the problem.
    """
    if not isinstance(d, Mapping):
        raise RecordError("", f"a deal record is a JSON object, got {type(d).__name__}")
    d = copy.deepcopy(dict(d))
    fmt = _require(d, "format")
    if fmt != RECORD_FORMAT:
        raise RecordError("format", f"expected {RECORD_FORMAT!r}, got {fmt!r}")
    if d.get("game", "french-tarot") != "french-tarot":
        raise RecordError("game", f"expected 'french-tarot', got {d.get('game')!r}")
    n = _require(d, "players")
    if not _is_int(n) or n not in HAND_SIZE:
        raise RecordError("players", f"expected 3, 4 or 5, got {n!r}")
    out: dict[str, Any] = {"format": RECORD_FORMAT, "game": "french-tarot", "players": n}

    names = d.get("names")
    if names is not None:
        if not isinstance(names, list) or len(names) != n or not all(isinstance(x, str) for x in names):
            raise RecordError("names", f"expected {n} names (strings), got {names!r}")
    out["names"] = names
    try:
        options = TarotOptions.from_dict(_require(d, "options") or {})
    except OptionError as exc:
        raise RecordError("options", str(exc).removeprefix("options: ")) from None
    out["options"] = options.to_dict()

    dealer = _require(d, "dealer")
    if dealer is not None:
        _seat(dealer, n, "dealer")
    out["dealer"] = dealer

    bids = d.get("bids")
    if bids is not None:
        if not isinstance(bids, list):
            raise RecordError("bids", f"expected a list of [seat, bid], got {bids!r}")
        for i, b in enumerate(bids):
            if not isinstance(b, list) or len(b) != 2:
                raise RecordError(f"bids[{i}]", f"expected [seat, bid], got {b!r}")
            _seat(b[0], n, f"bids[{i}][0]")
            if isinstance(b[1], str) and b[1] in BID_ALIASES:
                b = [b[0], BID_ALIASES[b[1]]]
                bids[i] = b
            if b[1] not in BID_NAMES:
                raise RecordError(f"bids[{i}][1]", f"{b[1]!r} is not one of {', '.join(BID_NAMES)}")
        if len(bids) > n:
            raise RecordError("bids", f"each player speaks once: {len(bids)} bids at {n} players")
    out["bids"] = bids

    taker = _require(d, "taker")
    contract = _require(d, "contract")
    contract = BID_ALIASES.get(contract, contract) if isinstance(contract, str) else contract
    if taker is None or contract is None:
        if taker is not None or contract is not None:
            raise RecordError("contract" if contract is None else "taker",
                              "taker and contract are both set, or both null (everyone passed)")
    else:
        _seat(taker, n, "taker")
        if contract not in CONTRACTS:
            raise RecordError("contract", f"{contract!r} is not one of {', '.join(CONTRACTS)}")
    if bids is not None:
        takers = [(s, b) for s, b in bids if b != "pass"]
        last = takers[-1] if takers else (None, None)
        if (last[0], last[1]) != (taker, contract):
            ends = f"{last[1]} by seat {last[0]}" if takers else "everyone passing"
            raise RecordError("bids", f"the bidding ends with {ends}, but taker/contract say "
                                      f"{contract} by seat {taker}")
    out["taker"], out["contract"] = taker, contract

    called = _require(d, "called_card") if n == 5 else d.get("called_card")
    if n == 5 and taker is not None:
        if called is None:
            raise RecordError("called_card", "missing: at 5 players the taker calls a card")
        _code(called, "called_card")
    elif called is not None:
        raise RecordError("called_card", "only at 5 players")
    out["called_card"] = called

    size = CHIEN_SIZE[n]
    chien = _require(d, "chien") or None  # [] is read as null
    if chien is not None:
        chien = _codes(chien, "chien", size)
    ecart = _require(d, "ecart") or None
    if ecart is not None:
        ecart = _codes(ecart, "ecart", size)
        if contract not in ("prise", "garde"):
            raise RecordError("ecart", f"there is no écart in a {contract}")
    out["chien"], out["ecart"] = chien, ecart

    poignees = _require(d, "poignees")
    if poignees is None:
        poignees = []
    if not isinstance(poignees, list):
        raise RecordError("poignees", f"expected a list, got {poignees!r}")
    for i, p in enumerate(poignees):
        path = f"poignees[{i}]"
        if not isinstance(p, Mapping):
            raise RecordError(path, f"expected an object with seat, level, shown, got {p!r}")
        for key in ("seat", "level", "shown"):
            if key not in p:
                raise RecordError(f"{path}.{key}", "missing field")
        _seat(p["seat"], n, f"{path}.seat")
        if any(q["seat"] == p["seat"] for q in poignees[:i]):
            raise RecordError(f"{path}.seat", f"seat {p['seat']} shows a second poignée")
        if p["level"] not in POIGNEE_LEVELS:
            raise RecordError(f"{path}.level", f"{p['level']!r} is not one of {', '.join(POIGNEE_LEVELS)}")
        _codes(p["shown"], f"{path}.shown")
    out["poignees"] = [dict(p) for p in poignees]

    misere = d.get("misere") or []
    if not isinstance(misere, list):
        raise RecordError("misere", f"expected a list, got {misere!r}")
    for i, m in enumerate(misere):
        if not isinstance(m, Mapping) or "seat" not in m or m.get("kind") not in MISERE_KINDS:
            raise RecordError(f"misere[{i}]", f"expected {{'seat': s, 'kind': 'atout'|'tete'}}, got {m!r}")
        _seat(m["seat"], n, f"misere[{i}].seat")
    if misere:
        out["misere"] = [dict(m) for m in misere]

    chelem = _require(d, "chelem_announced")
    if not isinstance(chelem, bool):
        raise RecordError("chelem_announced", f"expected true or false, got {chelem!r}")
    out["chelem_announced"] = chelem

    tricks = _require(d, "tricks")
    if not isinstance(tricks, list):
        raise RecordError("tricks", f"expected a list of tricks, got {tricks!r}")
    if taker is None and tricks:
        raise RecordError("tricks", "no tricks are played when everyone passed")
    if len(tricks) > HAND_SIZE[n]:
        raise RecordError("tricks", f"{len(tricks)} tricks: a deal at {n} players has {HAND_SIZE[n]}")
    seen: dict[str, str] = {}
    chien_set = set(chien or ())
    ecart_set = set(ecart or ())
    for c in ecart_set - chien_set:
        seen[c] = "ecart"
    clean = []
    for i, t in enumerate(tricks):
        path = f"tricks[{i}]"
        if not isinstance(t, Mapping):
            raise RecordError(path, f"expected an object with leader and cards, got {t!r}")
        if "leader" not in t:
            raise RecordError(f"{path}.leader", "missing field")
        if "cards" not in t:
            raise RecordError(f"{path}.cards", "missing field")
        leader = _seat(t["leader"], n, f"{path}.leader")
        cards = t["cards"]
        if not isinstance(cards, list):
            raise RecordError(f"{path}.cards", f"expected a list of card codes, got {cards!r}")
        if len(cards) != n:
            raise RecordError(f"{path}.cards", f"a trick has {n} cards at {n} players, got {len(cards)}")
        for j, c in enumerate(cards):
            cpath = f"{path}.cards[{j}]"
            _code(c, cpath)
            seat = (leader + j) % n
            if c in seen:
                raise RecordError(cpath, f"card {c} is seen twice (also {seen[c]})")
            if c in ecart_set:
                raise RecordError(cpath, f"card {c} is in the écart")
            if c in chien_set and contract in ("prise", "garde") and seat != taker:
                raise RecordError(cpath, f"card {c} was in the chien, which went to the taker "
                                         f"(seat {taker}), but seat {seat} plays it")
            if c in chien_set and contract in ("garde_sans", "garde_contre"):
                raise RecordError(cpath, f"card {c} is in the chien")
            seen[c] = cpath
        clean.append({"leader": leader, "cards": list(cards)})
    for i, p in enumerate(out["poignees"]):
        for j, c in enumerate(p["shown"]):
            where = seen.get(c)
            if where and where.startswith("tricks"):
                ti, cj = _trick_pos(where)
                seat = (clean[ti]["leader"] + cj) % n
                if seat != p["seat"]:
                    raise RecordError(f"poignees[{i}].shown[{j}]",
                                      f"{c} is shown by seat {p['seat']} but played by seat {seat} ({where})")
    out["tricks"] = clean
    return out


def _trick_pos(path: str) -> tuple[int, int]:
    # "tricks[3].cards[1]" -> (3, 1)
    a = path.index("[") + 1
    b = path.index("]")
    c = path.rindex("[") + 1
    return int(path[a:b]), int(path[c:-1])


def _dealer_of(rec: Mapping[str, Any]) -> int:
    """The recorded dealer; when it is null, ``tricks[0].leader`` is authoritative
    (deal-record.md), unless a chelem was announced (the taker leads) or the
    recorded bids cannot be read in that speaking order: then the first bid's seat."""
    n = rec["players"]
    if rec["dealer"] is not None:
        return rec["dealer"]
    bids = rec["bids"]
    if rec["tricks"] and not rec["chelem_announced"]:
        dealer = (rec["tricks"][0]["leader"] - 1) % n
        if not bids or _bids_before(bids, dealer, n) is not None:
            return dealer
    if bids:
        return (bids[0][0] - 1) % n
    return 0


def _bids_before(bids: list, dealer: int, n: int) -> int | None:
    """How many players spoke (and passed) before the first recorded bid, when the
    recorded bids follow the speaking order after ``dealer``; None when they cannot."""
    gap = (bids[0][0] - dealer - 1) % n
    if gap + len(bids) > n:
        return None
    if any(seat != (dealer + 1 + gap + i) % n for i, (seat, _) in enumerate(bids)):
        return None
    return gap


def record_operations(rec: Mapping[str, Any]) -> tuple[int, list[tuple[str, Operation]]]:
    """(dealer, [(field path, operation)]) that replay a validated record."""
    n = rec["players"]
    dealer = _dealer_of(rec)
    ops: list[tuple[str, Operation]] = []
    bids = rec["bids"]
    gap = 0
    if bids is None:
        bids = [[(dealer + 1 + k) % n,
                 rec["contract"] if (dealer + 1 + k) % n == rec["taker"] else "pass"]
                for k in range(n)]
        path = "taker"
    else:
        path = "bids"
        # players before the first and after the last recorded bid could only pass
        if bids:
            gap = _bids_before(bids, dealer, n) or 0
        bids = [[(dealer + 1 + k) % n, "pass"] for k in range(gap)] + list(bids)
        first = bids[0][0] if bids else (dealer + 1) % n
        while len(bids) < n:
            bids.append([(first + len(bids)) % n, "pass"])
    for i, (seat, bid) in enumerate(bids):
        label = "taker" if path == "taker" else f"bids[{i - gap}]" if i >= gap else "bids"
        ops.append((label, Bid(seat, bid)))
    if rec["taker"] is None:
        return dealer, ops
    if n == 5:
        ops.append(("called_card", CallCard(rec["called_card"])))
    if rec["contract"] in ("prise", "garde"):
        ops.append(("chien", RevealChien(None if rec["chien"] is None else tuple(rec["chien"]))))
        ops.append(("ecart", Ecart(None if rec["ecart"] is None else tuple(rec["ecart"]))))
    if rec["chelem_announced"]:
        ops.append(("chelem_announced", AnnounceChelem()))
    pending = {p["seat"]: (i, p) for i, p in enumerate(rec["poignees"])}
    miseres = {m["seat"]: (i, m) for i, m in enumerate(rec.get("misere", []))}
    for ti, t in enumerate(rec["tricks"]):
        for j, c in enumerate(t["cards"]):
            seat = (t["leader"] + j) % n
            if seat in pending:
                i, p = pending.pop(seat)
                ops.append((f"poignees[{i}]", DeclarePoignee(seat, p["level"], tuple(p["shown"]))))
            if seat in miseres:
                i, m = miseres.pop(seat)
                ops.append((f"misere[{i}]", DeclareMisere(seat, m["kind"])))
            ops.append((f"tricks[{ti}].cards[{j}]", Play(seat, c)))
    return dealer, ops


def deal_from_record(record: Mapping[str, Any]) -> TarotDeal:
    """The deal a record describes, replayed with the hands hidden."""
    rec = validate_record(record)
    dealer, ops = record_operations(rec)
    n = rec["players"]
    chien = rec["chien"] if rec["contract"] in ("garde_sans", "garde_contre") else None
    deal = TarotDeal(n, dealer, TarotOptions.from_dict(rec["options"]), names=rec["names"],
                     chien=chien, audit=True)
    for path, op in ops:
        try:
            deal.apply(op)
        except IllegalOperation as exc:
            raise RecordError(path, str(exc)) from None
    return deal


def replay_deal(deal: TarotDeal) -> dict[str, Any]:
    """The ``tarot-replay/1`` object of a deal (finished or not)."""
    out: dict[str, Any] = {
        "format": REPLAY_FORMAT,
        "tricks": [t.to_dict() for t in deal.tricks],
        "partner": deal.partner,
        "attack_points": None, "attack_oudlers": None, "target": None,
        "petit_au_bout": None, "chelem": None, "won": None, "diff": None, "unit": None,
        "scores": [0] * deal.players if deal.phase == "redeal" else None,
        "violations": [v.to_dict() for v in deal.violations],
    }
    if deal.phase == "done":
        r = deal.result()
        out.update({
            "attack_points": r.attack_points, "attack_oudlers": r.attack_oudlers,
            "target": r.target, "petit_au_bout": r.petit_au_bout, "chelem": r.chelem,
            "won": r.won, "diff": r.diff, "unit": r.unit, "scores": list(r.scores),
        })
    else:
        live = deal.live_target()
        if live is not None:
            out.update({"attack_points": live.has, "attack_oudlers": live.oudlers,
                        "target": live.needed})
    return out


def replay_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """Replay a ``tarot-deal/1`` record: the ``tarot-replay/1`` object."""
    return replay_deal(deal_from_record(record))


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file (JSON); clear errors for a missing file or bad JSON."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TarotmateError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise TarotmateError(f"{p}: is a directory, not a deal record") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TarotmateError(f"{p}: cannot read: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TarotmateError(f"{p}: invalid JSON at line {exc.lineno}, column {exc.colno}: "
                             f"{exc.msg}") from None


def write_record(deal: TarotDeal, path: str | Path) -> None:
    Path(path).write_text(json.dumps(deal_to_record(deal), indent=2, ensure_ascii=False) + "\n",
                          encoding="utf-8")


__all__ = ["RecordError", "validate_record", "deal_from_record", "replay_record", "replay_deal",
           "deal_to_record", "load_record", "write_record", "record_operations",
           "RECORD_FORMAT", "REPLAY_FORMAT"]
