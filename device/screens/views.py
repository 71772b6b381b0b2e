"""What each screen shows: small frozen view models, filled by the app.

The screens never look into the engines. The app builds one of these from the
game state (or from a menu) and passes it to the matching ``render_*``
function. Cards are card codes (``"HK"``, ``"T21"``, ``"EX"``); players are
display names; numbers are points as the engine counts them.

Keys used by several views:

* ``contract``: ``"prise"``, ``"garde"``, ``"garde_sans"``, ``"garde_contre"``
  (``"petite"`` is accepted as a synonym of ``"prise"``).
* ``bid``: a contract key or ``"pass"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")
BIDS = ("pass",) + CONTRACTS
VIOLATIONS = ("revoke", "must_trump", "undertrump", "out_of_turn", "excuse", "refused", "other")
POIGNEE_LEVELS = ("simple", "double", "triple")


@dataclass(frozen=True)
class SetupView:
    """Game and players before the first deal."""

    game: str  # the game's name as a message id (its Game.title: "French tarot", "Trivium")
    variant: str  # a display name of the variant, e.g. "FFT" or "5 players"
    players: tuple[str, ...]
    dealer: int | None = None  # index in players


@dataclass(frozen=True)
class BiddingView:
    """The auction: who deals, what each seat said, who speaks now."""

    players: tuple[str, ...]
    dealer: int
    bids: tuple[str | None, ...]  # per seat: a bid key, or None if not spoken yet
    current: int | None = None  # seat whose turn it is
    called_king: str | None = None  # card code, at 5 players


@dataclass(frozen=True)
class TargetView:
    """The taker's live target during the play."""

    contract: str
    taker: str
    oudlers: int
    needs: float  # points needed with that many oudlers (56, 51, 41, 36)
    has: float  # points won so far by the taker's side
    tricks_left: int
    partner: str | None = None  # once the called King has shown
    called_king: str | None = None


@dataclass(frozen=True)
class TrickPlay:
    seat: str
    card: str  # card code


@dataclass(frozen=True)
class TrickView:
    """The trick on the table; ``winner`` indexes ``plays``."""

    number: int
    plays: tuple[TrickPlay, ...]
    winner: int | None = None
    total: int = 18  # tricks in the deal


@dataclass(frozen=True)
class ViolationView:
    """A rule broken at the table (shown with the buzzer)."""

    kind: str  # one of VIOLATIONS
    seat: str
    trick: int
    suit: str | None = None  # suit letter S/H/D/C involved (revoke, must_trump)
    card: str | None = None  # the card played
    detail: str = ""  # free text for kind "other" (English), when there is no ``why``
    why: Any = None  # the engine's reason (engine.reasons.Reason): translated on the screen
    names: tuple[str, ...] = ()  # the players, for the seats named in ``why``


@dataclass(frozen=True)
class DealEndView:
    """The end of a deal: made or failed, by how much, and the bonuses."""

    contract: str
    taker: str
    made: bool
    margin: float  # points above (made) or below (failed) the target
    oudlers: int
    points: float  # card points of the taker's side
    petit_au_bout: str | None = None  # seat name whose Petit won the last trick
    poignees: tuple[tuple[str, str], ...] = ()  # (seat, level)
    chelem: str | None = None  # "announced_made", "made", "announced_failed"
    score: int = 0  # the taker's score for the deal (may be negative)


@dataclass(frozen=True)
class ScoreTableView:
    """Every player's score for the last deal and the running totals."""

    players: tuple[str, ...]
    deal_scores: tuple[int, ...]
    totals: tuple[int, ...]
    deal_number: int
    first_row: int = 0  # for scrolling through 6+ players


@dataclass(frozen=True)
class GameOverView:
    """The end of a game of several deals (a Trivium match): the winner and every total."""

    players: tuple[str, ...]
    totals: tuple[int, ...]
    winner: int | None  # the winner's seat; None: a tie at the top
    deals: int  # how many were played
    unit: str = "deal"  # what was played: "deal" (French tarot) or "game" (Trivium)


@dataclass(frozen=True)
class TerciaView:
    cards: tuple[str, ...]  # card codes (a Loco/Mundo pair has two)
    valid: bool


@dataclass(frozen=True)
class TriviumSeatView:
    name: str
    tercias: tuple[TerciaView, ...] = ()
    hand_size: int = 0
    laying: tuple[str, ...] = ()  # the cards the camera has seen of a tercia being laid


@dataclass(frozen=True)
class TriviumView:
    """Trivium: each seat's tercias, the olla's top card and where the Loco is."""

    seats: tuple[TriviumSeatView, ...]
    olla_top: str | None
    loco: str = "unseen"  # "unseen", "in_olla", "wild" or "stolen"
    loco_seat: str | None = None  # who holds it as a wild card / stole it
    current: int | None = None  # seat whose turn it is


@dataclass(frozen=True)
class AnnouncementView:
    """A big announcement: "TRIVIUM! 63", "CUADRIVIUM! 50", "CHELEM!"."""

    kind: str  # "trivium", "cuadrivium", "gran_cuadrivium", "gran_maestre", "chelem", "poignee"
    seat: str
    points: int | None = None
    valid: bool = True


@dataclass(frozen=True)
class CameraStatusView:
    """Camera and recognition health."""

    camera: str  # "ok", "starting", "no_camera", "no_frames"
    fps: float = 0.0
    model: str = ""
    cards_seen: int = 0
    last_card: str | None = None
    confidence: float | None = None  # of the last card, 0..1


CAMERA_PROBLEMS = ("no_camera", "no_frames", "failed", "ended")


@dataclass(frozen=True)
class CameraLostView:
    """The camera is lost and retried; meanwhile the cards are entered with the buttons."""

    problem: str  # one of CAMERA_PROBLEMS: cannot be opened, no frames (stalled or stopped), an error, the video ended
    seconds: int = 0  # without frames so far


@dataclass(frozen=True)
class ConfirmCardView:
    """An uncertain card: confirm it or pick an alternative."""

    card: str
    confidence: float
    alternatives: tuple[str, ...] = ()
    selected: int = 0  # 0 = the card itself, 1.. = alternatives, last = "other card"
    seat: str | None = None  # who played it
    trick: int | None = None  # the trick it was played to (place "trick")
    place: str = "trick"  # where it lies: "trick", "chien", "ecart" or "olla"
    unread: bool = False  # asked because the card model cannot read the deck in play


@dataclass(frozen=True)
class MenuView:
    """A list to choose from with up/down/OK; ``selected`` indexes ``items``."""

    title: str
    items: tuple[str, ...]
    selected: int = 0
    hint: str = ""
    scroll: int | None = None  # marquee tick for the selected item
    marks: tuple[int, ...] = field(default_factory=tuple)  # items shown ticked


# ---------------------------------------------------------------------- deck enrollment

ENROLL_CAPTURE_STATES = ("waiting", "moving", "captured", "remove")
ENROLL_END_STATES = ("building", "saved", "stopped")


@dataclass(frozen=True)
class EnrollCardView:
    """Guided enrollment: the card to lay under the camera and how its captures go.

    ``state``: ``"waiting"`` (for the card alone on the table), ``"moving"``
    (hold it still), ``"captured"`` (``captures`` of ``captures_needed``
    taken), ``"remove"`` (the previous card is still there).
    """

    card: str  # card code
    number: int  # 1-based position of the card in the enrollment
    total: int
    state: str = "waiting"
    captures: int = 0
    captures_needed: int = 3


@dataclass(frozen=True)
class EnrollConfirmView:
    """Enough captures of ``card``: keep it (OK), redo it (back) or skip it (long OK)."""

    card: str
    number: int
    total: int


@dataclass(frozen=True)
class EnrollReviewView:
    """Two enrolled cards the model can hardly tell apart: show both again, or keep them."""

    first: str
    second: str
    similarity: float  # cosine of their prototypes, 0..1


@dataclass(frozen=True)
class EnrollDoneView:
    """The end of an enrollment: the profile being built, saved, or the enrollment stopped."""

    deck: str
    enrolled: int
    skipped: int
    total: int
    pairs: int = 0  # pairs of cards too alike, kept in the profile
    state: str = "saved"  # one of ENROLL_END_STATES
