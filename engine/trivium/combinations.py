"""Which Trivium combination a set of cards forms, and why (or why not).

Pure functions over :class:`engine.cards.Card`. Every card given is used:
a set with a card to spare is not a combination.

Values: majors 1-21 are worth their number, pips 1-10 their rank; courts
(sota, caballo, reina, rey = 11..14) never enter a tercia; El Loco (``EX``) is
a wild card standing for exactly one card, or, only inside a Trivium, forms
with XXI (``T21``) the pair that counts as one tercia.

``groups`` of a :class:`Verdict` (the ``check`` command prints them):

* tercia: ``[[a, b, c]]`` (or ``[["T21", "EX"]]`` for the pair);
* trivium: three groups, one per tercia, the pair being a group of two;
* cuadrivium / gran cuadrivium: ``[[sota, caballo, reina, rey]]``, one group;
* gran maestre: ``[[the four courts], [the tercia]]``, courts first;
* not a combination: ``[]``.

Inside a group the cards keep the order they were given in, El Loco taking the
place it was given at; groups of a Trivium are ordered by their first card.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations as subsets
from typing import Iterable, Sequence

from engine.cards import Card, card
from engine.reasons import Reason
from engine.trivium.options import TriviumOptions

TERCIA = "tercia"
TRIVIUM = "trivium"
CUADRIVIUM = "cuadrivium"
GRAN_CUADRIVIUM = "gran_cuadrivium"
GRAN_MAESTRE = "gran_maestre"

POINTS = {TERCIA: 0, TRIVIUM: 63, CUADRIVIUM: 50, GRAN_CUADRIVIUM: 100, GRAN_MAESTRE: 200}
"""What each combination scores; a lone tercia wins nothing."""

DISPLAY = {
    TERCIA: "tercia",
    TRIVIUM: "TRIVIUM",
    CUADRIVIUM: "CUADRIVIUM",
    GRAN_CUADRIVIUM: "GRAN CUADRIVIUM",
    GRAN_MAESTRE: "GRAN MAESTRE",
}

COURT_NAMES = {11: "sota", 12: "caballo", 13: "reina", 14: "rey"}
SUIT_NAMES = {"S": "espadas", "H": "copas", "D": "oros", "C": "bastos"}
TARGET = 21
LOCO = "EX"
MUNDO = "T21"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer about one set of cards.

    ``combination`` is one of the constants above or None; ``points`` is
    ``POINTS[combination]`` or None; ``groups`` holds card codes (see the
    module docstring); ``reason`` says why, in one line; ``loco_value`` is the
    value El Loco stands for in a tercia (None when it is absent, stands for a
    court or forms the pair).
    """

    combination: str | None
    points: int | None
    groups: tuple[tuple[str, ...], ...]
    reason: str
    loco_value: int | None = None
    why: Reason | None = field(default=None, compare=False)
    """The reason as a message id with arguments (engine.reasons), where one is
    given: a screen shows it in its language; ``reason`` is its English text."""

    @property
    def is_combination(self) -> bool:
        return self.combination is not None

    @property
    def is_pair(self) -> bool:
        """The XXI + Loco pair (a tercia inside a Trivium only)."""
        return self.combination == TERCIA and len(self.groups) == 1 and len(self.groups[0]) == 2

    def to_dict(self) -> dict:
        """The JSON object of ``tarotmate trivium check --json``."""
        return {
            "combination": self.combination,
            "points": self.points,
            "groups": [list(g) for g in self.groups],
            "reason": self.reason,
        }


def _no(reason: str | Reason) -> Verdict:
    why = reason if isinstance(reason, Reason) else None
    return Verdict(None, None, (), str(reason), why=why)


def _yes(combination: str, groups: Iterable[Iterable[Card]], reason: str | Reason,
         loco_value: int | None = None) -> Verdict:
    why = reason if isinstance(reason, Reason) else None
    return Verdict(
        combination,
        POINTS[combination],
        tuple(tuple(c.code for c in g) for g in groups),
        str(reason),
        loco_value,
        why,
    )


# --------------------------------------------------------------------------- card facts


def is_loco(c: Card) -> bool:
    return c.is_excuse


def is_mundo(c: Card) -> bool:
    return c.is_trump and c.rank == 21


def tercia_value(c: Card) -> int | None:
    """The value a card brings to a tercia: 1..21, or None (court, El Loco)."""
    if c.is_excuse or c.is_court:
        return None
    return c.rank


def label(c: Card) -> str:
    """How a card appears in a reason: its value, ``Loco``, or ``sota (HJ)``."""
    if c.is_excuse:
        return "Loco"
    if c.is_court:
        return f"{COURT_NAMES[c.rank]} ({c.code})"
    return str(c.rank)


def _sum_text(cs: Sequence[Card], loco_value: int | None = None) -> str:
    parts = []
    for c in cs:
        if c.is_excuse and loco_value is not None:
            parts.append(f"Loco({loco_value})")
        else:
            parts.append(label(c))
    return " + ".join(parts)


def _courts_text(cs: Sequence[Card]) -> str:
    return " + ".join(label(c) for c in cs)


def _as_cards(cs: Iterable[Card | str]) -> list[Card]:
    return [card(c) for c in cs]


# --------------------------------------------------------------------------- tercia


def check_tercia(cards: Iterable[Card | str], allow_pair: bool = True) -> Verdict:
    """Is this group a tercia (three cards summing to 21, El Loco wild)?

    With ``allow_pair`` the two cards XXI + Loco count as the pair that stands
    for a tercia (inside a Trivium only: the reason says so).
    """
    cs = _as_cards(cards)
    n = len(cs)
    if n == 2 and {c.code for c in cs} == {MUNDO, LOCO}:
        if allow_pair:
            return _yes(
                TERCIA, [cs], Reason("XXI + Loco: the pair that sums to 21 (counts as a tercia in a Trivium only)")
            )
        return _no(Reason("XXI + Loco is the pair of the Trivium only: here the tercia must be three cards"))
    if n != 3:
        if n == 2:
            return _no(Reason("{n} cards: a tercia has three cards (only XXI + Loco make a pair)", {"n": n}))
        return _no(Reason("{n} card: a tercia has three cards" if n == 1 else "{n} cards: a tercia has three cards",
                          {"n": n}))
    for c in cs:
        if c.is_court:
            return _no(Reason("{label} cannot be in a tercia: courts never are", {"label": label(c)}))
    if any(is_mundo(c) for c in cs):
        return _no(Reason("{sum}: three cards with XXI cannot reach 21 "
                          "(XXI counts only in the pair XXI + Loco of a Trivium)", {"sum": _sum_text(cs)}))
    numbered = [c for c in cs if not c.is_excuse]
    total = sum(c.rank for c in numbered)
    if len(numbered) == 3:
        if total == TARGET:
            return _yes(TERCIA, [cs], Reason("{sum} = 21", {"sum": _sum_text(cs)}))
        return _no(Reason("{sum} = {total}, not 21", {"sum": _sum_text(cs), "total": total}))
    missing = TARGET - total
    if 1 <= missing <= 20:
        return _yes(TERCIA, [cs], Reason("{sum} = 21 (El Loco stands for {n})",
                                         {"sum": _sum_text(cs, missing), "n": missing}), missing)
    return _no(Reason("{sum}: El Loco would stand for {n}, and a card is worth 1 to 20",
                      {"sum": _sum_text(cs), "n": missing}))


def completions(group: Iterable[Card | str], cards: Iterable[Card | str], allow_pair: bool = True) -> tuple[str, ...]:
    """The codes of ``cards`` (in their order) that, added to ``group``, make it a tercia (or,
    with ``allow_pair``, the pair XXI + Loco): the card a tercia laid short still misses. Empty
    when one card cannot complete it (``group`` has fewer than two cards, but XXI or Loco alone)."""
    given = _as_cards(group)
    codes = {c.code for c in given}
    return tuple(c.code for c in _as_cards(cards)
                 if c.code not in codes and check_tercia([*given, c], allow_pair).is_combination)


def _is_real_tercia(cs: Sequence[Card]) -> bool:
    return len(cs) == 3 and check_tercia(cs, allow_pair=False).is_combination


def partition_into_tercias(cards: Sequence[Card], allow_pair: bool = False) -> list[list[Card]] | None:
    """Split ``cards`` into groups that are all tercias, or None if impossible.

    Each group has three cards (El Loco as a wild card in at most one, there
    being one Loco), or, with ``allow_pair``, two for the XXI + Loco pair.
    The groups are ordered by their first card in ``cards``.
    """
    cs = list(cards)
    if not cs:
        return []
    first, rest = cs[0], cs[1:]
    sizes = (2, 1) if allow_pair else (2,)
    for size in sizes:
        for others in subsets(range(len(rest)), size):
            group = [first] + [rest[i] for i in others]
            ok = (
                _is_real_tercia(group)
                if size == 2
                else {c.code for c in group} == {MUNDO, LOCO}
            )
            if not ok:
                continue
            remaining = [c for i, c in enumerate(rest) if i not in others]
            tail = partition_into_tercias(remaining, allow_pair)
            if tail is not None:
                group.sort(key=cs.index)
                return [group] + tail
    return None


# --------------------------------------------------------------------------- trivium


def check_trivium(cards: Iterable[Card | str]) -> Verdict:
    """Three tercias (9 cards), or two tercias and the XXI + Loco pair (8)."""
    cs = _as_cards(cards)
    n = len(cs)
    for c in cs:
        if c.is_court:
            return _no(f"{label(c)} cannot be in a Trivium: courts are never part of a tercia")
    has_loco = any(c.is_excuse for c in cs)
    has_mundo = any(is_mundo(c) for c in cs)
    if n == 8:
        if not (has_loco and has_mundo):
            return _no("8 cards: a Trivium has nine cards, or eight with the pair XXI + Loco")
    elif n == 9:
        if has_mundo:
            if has_loco:
                return _no("XXI counts only in the pair XXI + Loco, which leaves 7 cards for two tercias")
            return _no("three cards with XXI cannot reach 21: XXI counts only with El Loco, as the pair")
        numbered_total = sum(c.rank for c in cs if not c.is_excuse)
        if not has_loco and numbered_total != 3 * TARGET:
            return _no(f"the nine cards sum to {numbered_total}; three tercias sum to 63")
        if has_loco and not 1 <= 3 * TARGET - numbered_total <= 20:
            return _no(
                f"the eight numbered cards sum to {numbered_total}: "
                f"El Loco would stand for {3 * TARGET - numbered_total}"
            )
    else:
        return _no(f"{n} cards: a Trivium has nine cards, or eight with the pair XXI + Loco")
    if n == 8:
        rest_total = sum(c.rank for c in cs if not (c.is_excuse or is_mundo(c)))
        if rest_total != 2 * TARGET:
            return _no(f"besides the pair XXI + Loco the six cards sum to {rest_total}; two tercias sum to 42")
    groups = partition_into_tercias(cs, allow_pair=True)
    if groups is None:
        return _no("these cards cannot be grouped into three tercias of 21")
    texts = []
    loco_value = None
    for g in groups:
        v = check_tercia(g)
        if v.loco_value is not None:
            loco_value = v.loco_value
        texts.append("XXI + Loco (the pair)" if v.is_pair else v.reason.split(" (El Loco")[0])
    return _yes(TRIVIUM, groups, "three tercias: " + "; ".join(texts), loco_value)


# --------------------------------------------------------------------------- courts


def _court_problem(courts: Sequence[Card], with_loco: bool) -> str | None:
    """Why these courts (plus El Loco if given) are not sota, caballo, reina, rey."""
    ranks = [c.rank for c in courts]
    for r in set(ranks):
        if ranks.count(r) > 1:
            twice = [c for c in courts if c.rank == r]
            return f"{_courts_text(twice)}: a {COURT_NAMES[r]} twice; a Cuadrivium has one of each court"
    need = 3 if with_loco else 4
    if len(courts) != need:
        return f"{len(courts)} courts{' and El Loco' if with_loco else ''}: a Cuadrivium is sota, caballo, reina and rey"
    return None


def _four_courts(cs: Sequence[Card], options: TriviumOptions) -> Verdict:
    """Sota, caballo, reina and rey (El Loco standing for one of them)."""
    loco = [c for c in cs if c.is_excuse]
    courts = [c for c in cs if c.is_court]
    for c in cs:
        if not (c.is_court or c.is_excuse):
            return _no(f"{label(c)} is not a court: a Cuadrivium is sota, caballo, reina and rey")
    problem = _court_problem(courts, bool(loco))
    if problem:
        return _no(problem)
    same_suit = len({c.suit for c in courts}) == 1
    if loco:
        missing = ({11, 12, 13, 14} - {c.rank for c in courts}).pop()
        stands = f"El Loco stands for the {COURT_NAMES[missing]}"
        if same_suit and options.loco_in_gran_cuadrivium:
            return _yes(
                GRAN_CUADRIVIUM, [cs],
                f"{_courts_text(cs)}: the court of {SUIT_NAMES[courts[0].suit]}, {stands}",
            )
        if same_suit:
            return _yes(
                CUADRIVIUM, [cs],
                f"{_courts_text(cs)}: {stands}; a Gran Cuadrivium needs four real courts of one suit "
                "(loco_in_gran_cuadrivium is off)",
            )
        return _yes(CUADRIVIUM, [cs], f"{_courts_text(cs)}: {stands}")
    if same_suit:
        return _yes(GRAN_CUADRIVIUM, [cs], f"{_courts_text(cs)}: the whole court of {SUIT_NAMES[courts[0].suit]}")
    return _yes(CUADRIVIUM, [cs], f"{_courts_text(cs)}: sota, caballo, reina and rey")


def check_cuadrivium(cards: Iterable[Card | str], options: TriviumOptions = TriviumOptions()) -> Verdict:
    """A Cuadrivium (50) or a Gran Cuadrivium (100): four cards."""
    cs = _as_cards(cards)
    if len(cs) != 4:
        return _no(f"{len(cs)} cards: a Cuadrivium has four (sota, caballo, reina, rey)")
    return _four_courts(cs, options)


def check_gran_maestre(cards: Iterable[Card | str], options: TriviumOptions = TriviumOptions()) -> Verdict:
    """The four courts and a real three-card tercia: seven cards.

    El Loco may stand for one court or one card of the tercia, never form the
    XXI + Loco pair here.
    """
    cs = _as_cards(cards)
    courts = [c for c in cs if c.is_court]
    numbered = [c for c in cs if tercia_value(c) is not None]
    loco = [c for c in cs if c.is_excuse]
    codes = {c.code for c in cs}
    if len(courts) == 4 and len(numbered) == 1 and MUNDO in codes and loco:
        return _no("the pair XXI + Loco counts in a Trivium only: a Gran Maestre needs a three-card tercia")
    if len(cs) != 7:
        return _no(f"{len(cs)} cards: a Gran Maestre has seven (the four courts and a tercia)")
    if len(courts) not in (3, 4) or len(courts) + len(loco) < 4:
        return _no(f"{len(courts)} courts: a Gran Maestre has the four courts and a tercia")
    if len(courts) == 3:
        court_group = [c for c in cs if c.is_court or c.is_excuse]
        tercia_group = numbered
    else:
        court_group = courts
        tercia_group = [c for c in cs if not c.is_court]
    problem = _court_problem(courts, len(courts) == 3)
    if problem:
        return _no(problem)
    tercia = check_tercia(tercia_group, allow_pair=False)
    if not tercia.is_combination:
        return _no(f"the tercia fails: {tercia.reason}")
    loco_text = " (El Loco stands for the " + COURT_NAMES[
        ({11, 12, 13, 14} - {c.rank for c in courts}).pop()
    ] + ")" if len(courts) == 3 else ""
    return _yes(
        GRAN_MAESTRE,
        [court_group, tercia_group],
        f"{_courts_text(court_group)}{loco_text} and the tercia {tercia.reason}",
        tercia.loco_value,
    )


# --------------------------------------------------------------------------- any set


def classify(cards: Iterable[Card | str], options: TriviumOptions = TriviumOptions()) -> Verdict:
    """The combination formed by all of ``cards`` (codes or cards), or why none.

    Raises :class:`engine.errors.UnknownCardError` for an unknown code; the
    caller refuses a card given twice (see :func:`engine.cards.parse_distinct`).
    """
    cs = _as_cards(cards)
    n = len(cs)
    if n in (2, 3):
        return check_tercia(cs)
    if n == 4:
        return check_cuadrivium(cs, options)
    if n == 7 or (n == 6 and any(c.is_court for c in cs)):
        return check_gran_maestre(cs, options)
    if n in (8, 9):
        return check_trivium(cs)
    if n in (5, 6) and partition_into_tercias(cs, allow_pair=True) is not None:
        return _no("two tercias win nothing: a Trivium needs three")
    if n == 0:
        return _no("no cards")
    return _no(
        f"{n} card{'s form' if n != 1 else ' forms'} no combination: a tercia has three cards, "
        "a Cuadrivium four, a Gran Maestre seven, a Trivium nine (eight with the pair XXI + Loco)"
    )
