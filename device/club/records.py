"""What a table publishes, checked by replaying it with the engine.

A publication is ``{"id": UID, "record": RECORD, "scores": [...], "round": N}``:

* ``id`` — the table's unique id of the deal (1 to 64 characters of
  ``[A-Za-z0-9._:-]``); a resend with the same id is the same deal;
* ``record`` — a ``tarot-deal/1`` record (French tarot) or a
  ``trivium-game/1`` record (Trivium), with the players' names;
* ``scores`` — the scores by seat the table showed; they must be the scores
  the engine replays (optional for Trivium, whose record carries its result);
* ``round`` — optional, the round of the evening (else the session's current).

:func:`check_publication` returns a :class:`CheckedDeal` or raises
:class:`Refused` with a one-line reason naming the field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

from engine.errors import TarotmateError
from engine.tarot.record import RecordError, deal_from_record, replay_deal
from engine.tarot.state import Phase as TarotPhase
from engine.tarot.tables import CONTRACT_LABEL
from engine.trivium.combinations import DISPLAY as COMBINATION_LABEL
from engine.trivium.record import RecordError as TriviumRecordError, game_from_record, game_to_record
from engine.trivium.state import Phase as TriviumPhase

UID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
MAX_NAME = 40
MAX_BODY = 256 * 1024  # bytes: a full 5-player record is about 3 kB


class Refused(TarotmateError):
    """A publication the server will not store, with the reason (and field)."""

    def __init__(self, reason: str, field: str = "") -> None:
        super().__init__(f"{field}: {reason}" if field else reason)
        self.reason = reason
        self.field = field


@dataclass(frozen=True)
class SeatResult:
    """A seat of a stored deal: ``taker`` and ``partner`` are French tarot's sides, ``winner`` the seat
    that won a Trivium game."""

    seat: int
    name: str
    score: int
    taker: bool
    partner: bool
    winner: bool = False


@dataclass(frozen=True)
class Replayed:
    """What the engine's replay of a record says: the game's kind, the record as kept, the seats, and
    the game's own result: French tarot's ``contract`` and ``won``, Trivium's ``combination``."""

    game: str  # "french-tarot" | "trivium"
    record: dict[str, Any]
    seats: tuple[SeatResult, ...]
    contract: str | None = None
    won: bool | None = None
    combination: str | None = None


@dataclass(frozen=True)
class CheckedDeal:
    """A replayed record: what the store keeps of it (``contract`` and ``won`` for French tarot,
    ``combination`` for Trivium)."""

    uid: str
    game: str  # "french-tarot" | "trivium"
    record: dict[str, Any]
    seats: tuple[SeatResult, ...]
    contract: str | None
    won: bool | None
    round: int | None
    combination: str | None = None

    @classmethod
    def of(cls, uid: str, replayed: Replayed, round_: int | None) -> "CheckedDeal":
        return cls(uid, replayed.game, replayed.record, replayed.seats, replayed.contract, replayed.won, round_,
                   replayed.combination)

    @property
    def scores(self) -> list[int]:
        return [s.score for s in self.seats]

    def record_json(self) -> str:
        return canonical_json(self.record)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _names(names: Any, count: int, field: str) -> list[str]:
    if not isinstance(names, list) or len(names) != count:
        raise Refused(f"a club deal needs the {count} players' names", field)
    for i, n in enumerate(names):
        if not isinstance(n, str) or not n.strip():
            raise Refused(f"expected a name, got {n!r}", f"{field}[{i}]")
        if n != " ".join(n.split()):
            raise Refused(f"{n!r}: a name has no leading, trailing or doubled spaces", f"{field}[{i}]")
        if len(n) > MAX_NAME:
            raise Refused(f"a name has at most {MAX_NAME} characters", f"{field}[{i}]")
    if len(set(n.casefold() for n in names)) != len(names):
        raise Refused("the same player sits twice at the table", field)
    return list(names)


def _claimed_scores(value: Any, count: int) -> list[int] | None:
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) != count
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise Refused(f"expected {count} integer scores by seat, got {value!r}", "scores")
    return value


def check_tarot(record: Any, claimed: Any) -> Replayed:
    """Replay a ``tarot-deal/1`` record (validated once, by the engine); the record is kept as sent."""
    try:
        deal = deal_from_record(record)
    except RecordError as exc:
        raise Refused(exc.problem, f"record.{exc.field}" if exc.field else "record") from None
    n = deal.players
    names = _names(record.get("names"), n, "record.names")
    if deal.phase not in (TarotPhase.DONE, TarotPhase.REDEAL):
        raise Refused(f"the deal is not finished ({len(deal.tricks)} tricks)", "record.tricks")
    replay = replay_deal(deal)
    scores = replay["scores"]
    claim = _claimed_scores(claimed, n)
    if claim is None:
        raise Refused("the scores the table showed are missing", "scores")
    if claim != scores:
        raise Refused(f"the table's scores {claim} do not replay: the engine scores {scores}", "scores")
    partner = replay.get("partner")
    seats = tuple(SeatResult(s, names[s], scores[s], s == deal.taker,
                             partner is not None and s == partner and s != deal.taker)
                  for s in range(n))
    return Replayed("french-tarot", dict(record), seats, contract=deal.contract, won=replay["won"])


def check_trivium(record: Any, claimed: Any) -> Replayed:
    try:
        game = game_from_record(record)
    except TriviumRecordError as exc:
        raise Refused(str(exc), "record") from None
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise Refused(f"the record does not replay: {exc}", "record") from None
    rec = game_to_record(game)
    names = _names(rec["players"], len(rec["players"]), "record.players")
    if game.phase is not TriviumPhase.FINISHED:
        raise Refused("the game is not finished", "record.operations")
    scores = rec["result"]["scores"]
    claim = _claimed_scores(claimed, len(names))
    if claim is not None and claim != scores:
        raise Refused(f"the table's scores {claim} do not replay: the engine scores {scores}", "scores")
    winner = rec["result"]["winner"]
    seats = tuple(SeatResult(s, names[s], scores[s], False, False, winner=s == winner) for s in range(len(names)))
    return Replayed("trivium", rec, seats, combination=rec["result"]["combination"])


def check_record(record: Any, claimed: Any = None) -> Replayed:
    """Replay a record of either game."""
    if not isinstance(record, Mapping):
        raise Refused("expected a deal record (a JSON object)", "record")
    fmt = record.get("format")
    if fmt == "tarot-deal/1":
        return check_tarot(record, claimed)
    if fmt == "trivium-game/1":
        return check_trivium(dict(record), claimed)
    raise Refused(f"expected 'tarot-deal/1' or 'trivium-game/1', got {fmt!r}", "record.format")


def check_publication(body: Any) -> CheckedDeal:
    """Check a publication (the parsed JSON body); :class:`Refused` says why not."""
    if not isinstance(body, Mapping):
        raise Refused("expected a JSON object with id and record")
    uid = body.get("id")
    if not isinstance(uid, str) or not UID_RE.match(uid):
        raise Refused(f"expected 1 to 64 letters, digits or . _ : -, got {uid!r}", "id")
    rnd = body.get("round")
    if rnd is not None and (not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= 999):
        raise Refused(f"expected a round number 1..999, got {rnd!r}", "round")
    if "record" not in body:
        raise Refused("missing field", "record")
    return CheckedDeal.of(uid, check_record(body["record"], body.get("scores")), rnd)


def result_label(deal: Mapping[str, Any]) -> str:
    """What a stored deal was, in English as the engines name it (the club's pages): French tarot's
    contract (``Garde sans``; ``Passed`` when nobody took), Trivium's combination (``GRAN MAESTRE``;
    ``No winner``). The club reads them from the engines it replays with, not from the device's games,
    so that the server loads no screen, camera or menu code."""
    if deal.get("game") == "trivium":
        combination = deal.get("combination")
        return COMBINATION_LABEL.get(combination, combination) if combination else "No winner"
    contract = deal.get("contract")
    return CONTRACT_LABEL.get(contract, contract) if contract else "Passed"


def parse_body(raw: bytes) -> Any:
    if len(raw) > MAX_BODY:
        raise Refused(f"the request is over {MAX_BODY // 1024} kB")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Refused(f"not JSON: {exc}") from None


__all__ = ["Refused", "CheckedDeal", "Replayed", "SeatResult", "check_publication", "check_record", "parse_body",
           "canonical_json", "result_label"]
