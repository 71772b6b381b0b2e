"""The tracker's tuning (:class:`TrackerSettings`), shared by the tracker, its association of quads
to tracks (:mod:`vision.association`) and its naming by votes (:mod:`vision.votes`).

A card model may carry its own naming bars (``tracker`` in its metadata, measured at the table with
``benchmarks/bench_table.py --set`` and written by ``vision.training.set_threshold --tracker``): the
tracker starts from the defaults below with those bars on top (:func:`with_bars`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace


# a quad found across several cards of a pile lies on no one of them more than this much (``across_cards``)
ACROSS_ONE = 0.6
# a row of cards side by side is as tall as a named card is long, within this share of it
ROW_HEIGHT = 0.15
# a quad taller than that, up to this many times as tall as a named card is long, may still be such a row:
# under a tilted camera a Trivium tercia laid at the seat nearest it looks about a fifth larger than the
# cards named elsewhere ...
NEAR_ROW_SCALE = 1.3
# ... when it is at least this many of its own cards long (a row of three or more); a shorter one may be two
# cards overlapping and a hand, not a row
NEAR_ROW_CARDS = 2.5
# a quad under ``strip_area`` of a card lying this much on the cards reported is a strip of one of them
STRIP_PILE = 0.8
# a quad lying this much on the cards reported is buried in the pile: named under ``buried_named``, no card
# (a card laid on a trick lies on at most about 0.8 of the cards below it)
BURIED_PILE = 0.95
# a card named under this mean confidence gives the tracker no size to weigh other quads by (the first
# card named may be a strip of a card still landing, and every whole card would then be cut in three)
SIZE_CONFIDENCE = 0.8
# a reported card followed to a new place (``move_distance``, ``nudge_rename``) and named there as another
# card: that card is a card of its own (laid over it) only when named this surely (mean confidence), or on a
# quad lying mostly off the card's place (``laid_off``); the quad may be the card below, half hidden by the new
# one, misread less surely (bench_table.py traces)
LAID_OVER_CONFIDENCE = 0.9
# a new card kept through localisations that did not find it (``glimpse_frames``) is named only this surely
# (mean confidence); less surely, or unclear, it is no card, as the glimpse it would have been without them:
# the quads the card finder finds only now and then are also strips and quads across the pile (bench_table.py)
PATCHY_CONFIDENCE = 0.85
# with ``sure_rename``: a reported card named under this (mean confidence) may be renamed by a sure later view
RENAMED_BELOW = 0.9
# with ``new_change``: the reported cards a new quad lies on (this share of it or more) date the table it is
# compared with (the latest of them first named at rest) ...
NEW_CHANGE_ON = 0.1
# ... and a quad is judged only when it lies this much on the cards reported (a quad found across cards already
# there lies on them; a card laid mostly beside them is left as it is)
NEW_CHANGE_PILE = 0.6
# ... kept, and compared, this many pixels wide (the whole frame, shrunk: a card is a few dozen pixels wide)
TABLE_VIEW_WIDTH = 320
# with ``restack``: a card named while this much of the table around it had changed (a hand lingering by
# it) keeps its place's look only once that ring is clear again (or after ``hand_wait`` still localisations)
RESTACK_CLEAR = 0.1


@dataclass(frozen=True)
class TrackerSettings:
    """The tracker's tuning; distances are fractions of the frame width."""

    motion_width: int = 160  # width of the grey image used for frame differencing
    motion_threshold: float = 12.0  # grey-level change (after brightness matching) that is motion
    motion_pixels: int = 2  # changed small pixels that make a region "moving"
    quiet_frames: int = 3  # keep localising this many frames after the last motion
    settle_frames: int = 2  # localisations with an unchanged quad before a card is named
    still_tolerance: float = 0.006  # corner drift allowed for a card at rest (~8 px at 1280)
    jitter: float = 2.5  # times ``still_tolerance``: how far a motionless card's quad may wobble and stay still
    follow_tolerance: float = 0.05  # corner drift between two frames for the same track (~64 px)
    move_distance: float = 1.0  # a named card that comes to rest this many card widths away (same size): moved
    nudge_rename: float = 0.0  # ... or this many (under move_distance): named again, another card laid over it
    # and taken for it being a card of its own (appeared), the same card a nudge (no event) (0: off)
    votes: int = 3  # most namings spent on one card
    min_votes: int = 2  # agreeing confident votes that name a card
    min_confidence: float = 0.6  # mean confidence of the winning votes
    sure_rename: float = 0.99  # a reported card named under RENAMED_BELOW and named again (moved, nudged, its
    # place's look changed) as a card its views hesitated with, at this confidence, lying nowhere else: that
    # card (renamed); its first views were a worse look at it (0: off, the first naming stands)
    lost_single: float = 0.95  # a card lost while being named after a single view, named at this confidence
    # there, is named (fewer views than min_votes otherwise make it a question) (0: off)
    commit_bar: float = 0.0  # the named card's mean (rescored) score over all its views, under which it is asked
    min_margin: float = 3.0  # the named card's mean score over the next card's, over the views
    pip_margin: float = 0.0  # a pip card's mean score over its pip neighbours' (C04, C06 for C05), under which it is asked (0: off)
    pip_above_margin: float = 0.0  # a pip card's mean score over the card one pip above's (C05 for C04), under which it is asked (0: off)
    suit_margin: float = 0.0  # a suit card's mean score over its twin's in the other suit of its colour (SQ: CQ), under which it is asked (0: off)
    # with the deck memory: a suit card's mean probability over its colour twin's in the card model's own
    # namings, before the memory weighed them, under which it is asked (0: off; vision.votes.model_suit_margin)
    model_suit_margin: float = 0.0
    # a pip card of hearts or diamonds is committed only when one of its views shows red ink this much
    # (vision.votes.red_ink: Lab red over the paper's; red pips 8-60, black ones about 0), else it is asked (0: off)
    red_ink: float = 6.0
    # under this share of the latest cards decided read surely by the card model (vision.deck_reading), the deck
    # in play is one it cannot read: no card is committed without a question, none renamed (0: off)
    unread_deck: float = 0.2
    # ... and its views are named by the table's deck memory alone (vision.deck_memory.MemoryAlone: the model's
    # probabilities of the cards set aside, its "not a card face" kept): a question's candidates are the memory's
    unread_memory: bool = True
    # ... a card the memory alone names this surely (mean probability), every view, is committed without a question
    # (0: off; with the views' pictures, vision.card_picture: at 0.95 wrong cards, at 0.98 one at full size,
    # docs/tracking.md "A card's picture"; a card its views' keypoints settle is named at 0.999, "A card's keypoints")
    memory_alone: float = 0.99
    # ... or that it names first on every view, at this or more on one of them (its kept views' keypoints settle a view at
    # 0.999: docs/tracking.md, "One view its face settles") (0: off)
    alone_sure_view: float = 0.999
    # before the deck in play is judged (fewer than vision.deck_reading.READ_CARDS cards decided), a card whose
    # best view the card model alone names under this is asked, not committed: a deck never seen is not taken
    # for read before the gauge says so (0: off; docs/tracking.md "A deck not yet judged")
    unjudged_sure: float = 0.8
    # ... nor one the card model alone names under this on average over all its views (a quad across a card and
    # a hand, named surely on one view of three) (0: off)
    unjudged_mean: float = 0.6
    piece_margin: float = 8.0  # the same for a card seen only through a piece cut from a row
    rival: float = 0.3  # a view that puts another card first with this score makes a confident naming a question
    evidence_score: float = 0.5  # without such votes: the mean score of a card every still view puts first...
    evidence_margin: float = 4.0  # ... and how many times the next card's it must be, to name it
    # ... or, instead of evidence_score, one of those views names it at this or more (an enrolled deck's face's keypoints
    # settle a view at 0.999: vision.enroll.TABLE_BARS) (0: off)
    sure_view: float = 0.0
    lost_frames: int = 2  # still, uncovered localisations without a named card before it is lost
    glimpse_frames: int = 2  # localisations a new card's quad, not found, is kept where nothing moves (a card
    # the card finder finds only now and then, in low light) before it is taken for a glimpse (0: at once)
    occlusion: float = 0.05  # a lost card this much covered by cards laid after it is hidden, not lost
    max_wait: int = 45  # frames a zone's removals may wait for the zone to settle
    removal_wait: int = 24  # frames before a card taken alone is ``removed`` (it may be ``moved``)
    unchanged: float = 0.08  # mean relative grey change under which a card's place "looks the same"
    min_support: float = 0.2  # namer probability on possible cards under which a crop is not named
    row_area: float = 1.7  # a quad this many times a named card's area, as tall as a card is long: a row of cards
    inside_pile: float = 0.85  # an unclear quad this much on the cards named is found across them: not a card
    faceless_pile: float = 0.0  # ... or this much, when its views' best candidate is "not a card face" (0: off)
    weak_pile: float = 0.0  # ... or this much, when its views' best candidate scores under weak_best (0: off)
    weak_best: float = 0.2
    across_cards: float = 0.9  # a card named on a quad this much on the cards reported, and no more than
    # ACROSS_ONE on any one of them, is a quad found across several cards: no event (0: off)
    weak_named: float = 0.7  # a card named with a mean confidence under this, on a quad lying inside_pile on the
    # cards reported (no card of that name among them), is a quad found across them too: no event (0: off)
    buried_named: float = 0.9  # ... and under this, on a quad lying BURIED_PILE on them (0: off)
    strip_area: float = 0.6  # a card named on a quad under this many times a named card's area, lying
    # STRIP_PILE on the cards reported, is a strip of one of them found again: no event (0: off)
    landing: int = 5  # frames apart within which two overlapping quads come from one card laid
    from_under: float = 0.0  # a card named on a quad lying this much on one card reported, named as another card,
    # is that card showing from under the new one: it waits for a quad found with it and is dropped once that is
    # reported; with none, it is asked and not learned from (0: off)
    restack: bool = False  # a reported card whose place looks different while still, no card seen on it, is named
    # again: another card there was laid squarely on it (appeared), a card reported below it, the top one taken (removed)
    max_area: float = 1.5  # any other quad this many times a named card's area is several cards: not named
    min_area: float = 0.0  # a quad under this many times a named card's area is a strip of one: not named (0: off)
    outline: bool = False  # crop a new card from its outline from the change (vision.change_outline) when found
    new_change: float = 0.25  # a new quad lying on cards reported, named as a card not lying on the table or unclear,
    # where under this share of it changed since the latest of those cards was first named at rest and since the
    # table lay still before the motion it was found in, is no card: a quad the card finder found across cards
    # already there (vision.change_outline.change_inside; docs/tracking.md "A quad where nothing changed") (0: off)
    patchy_laid: float = 0.5  # a new quad found only now and then (patchy), named under PATCHY_CONFIDENCE, is a
    # card all the same when it lies under NEW_CHANGE_PILE on the cards reported and this share of it or more
    # changed since the table lay still before the motion it was found in (0: off, such a quad is no card)
    laid_off: float = 0.75  # a reported card followed to a new place and named there as another card under
    # LAID_OVER_CONFIDENCE is that card, laid over or beside it, when its quad lies under this share on the place
    # where the card was reported (a misread of the card itself, nudged, lies mostly there) (0: off)
    look_change: float = 0.0  # a new view this different (votes.look_distance) from earlier ones drops them (0: off)
    hand_clear: float = 0.0  # a new card is named once at most this much of the table around it changed (0: off)
    hand_wait: int = 30  # ... or once it has waited this many localisations for it (a nudged neighbour)
    audit: bool = False  # once the table settles, a card-shaped change no event explains is asked (vision.landings)
    audit_frames: int = 6  # ... that many frames after the last motion, with no card being decided
    view_spread: float = 0.0  # each view also named from its quad grown and shrunk by this, probabilities averaged (0: off)


def setting_types() -> dict[str, type]:
    """Each setting's name and type (``bool``, ``int`` or ``float``)."""
    return {f.name: type(f.default) for f in fields(TrackerSettings)}


def changed(settings: TrackerSettings) -> dict[str, object]:
    """The settings of ``settings`` that are not the defaults, by name: what :func:`with_bars`
    puts back on the defaults (a trace says so what it was played with)."""
    default = TrackerSettings()
    return {f.name: getattr(settings, f.name) for f in fields(TrackerSettings)
            if getattr(settings, f.name) != getattr(default, f.name)}


def with_bars(base: TrackerSettings, bars: Mapping[str, object]) -> TrackerSettings:
    """``base`` with the settings ``bars`` names (a card model's own bars, from its metadata, or a
    measurement's overrides). ``ValueError`` for an unknown name or a value of the wrong type (an
    int is accepted for a float setting, nothing else is converted)."""
    types = setting_types()
    changes = {}
    for name, value in bars.items():
        if name not in types:
            raise ValueError(f"unknown tracker setting {name!r}")
        kind = types[name]
        ok = isinstance(value, bool) if kind is bool else (
            isinstance(value, int) and not isinstance(value, bool) if kind is int else
            isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value))
        if not ok:
            raise ValueError(f"tracker setting {name!r} must be a {kind.__name__}, got {value!r}")
        changes[name] = float(value) if kind is float else value
    return replace(base, **changes)


TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")


def parse_settings(pairs: list[str], removable: bool = False) -> dict:
    """``NAME=VALUE`` texts as settings, each value of its setting's type (``on``/``off`` and the
    like for a switch). With ``removable``, ``NAME=`` gives None (the setting taken away).
    ``ValueError`` (one line, naming the text) for an unknown name or a bad value."""
    types = setting_types()
    out: dict = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in types:
            raise ValueError(f"{pair!r}: expected NAME=VALUE with NAME one of {', '.join(types)}")
        if removable and value == "":
            out[name] = None
            continue
        kind = types[name]
        try:
            if kind is bool:
                if value.lower() not in TRUE_WORDS + FALSE_WORDS:
                    raise ValueError(value)
                out[name] = value.lower() in TRUE_WORDS
            else:
                out[name] = kind(value)
        except ValueError:
            raise ValueError(f"{pair!r}: {value!r} is not a {kind.__name__}") from None
    return out
