"""French tarot screens: setup, bidding, target, trick, violation, end of deal, scores."""

from __future__ import annotations

from PIL import Image

from device.i18n import N_, number, translator
from device.screens.draw import (
    BAND_HEIGHT,
    HEIGHT,
    ROW5_PITCH,
    TINY,
    HUGE,
    LARGE,
    MEDIUM,
    SMALL,
    WIDTH,
    Canvas,
    largest_size,
    rotating_slot,
    text_width,
    wrap,
)
from device.screens.labels import (
    POIGNEE_NAMES,
    bid_name,
    card_label,
    card_name,
    card_text,
    contract_name,
    suit_name,
)
from device.screens.reasons import reason_text
from device.screens.views import (
    BiddingView,
    DealEndView,
    ScoreTableView,
    SetupView,
    TargetView,
    TrickView,
    ViolationView,
)

ROWS = (14, 26, 38, 50)  # tops of the four SMALL lines under the header
PITCH = 12
SEAT_MAX_W = 48
TARGET_SPLIT = 54  # the "needs" column is narrower: at most two digits  # a seat name longer than this is cut to leave room for the card


def points(value: float, lang: str = "en") -> str:
    """``41``, ``27.5`` (``27,5`` in French and Spanish): halves shown, whole numbers without ``.0``."""
    return number(value, lang)


MINUS = "\u2212"  # the minus sign: wider than the hyphen, it does not read as a dot


def signed(value: float, lang: str = "en") -> str:
    """``+150``, ``−75``: the sign always shown, with a true minus sign."""
    return ("+" if value > 0 else MINUS if value < 0 else "") + points(abs(value), lang)


def oudlers_text(n: int, lang: str) -> str:
    tr = translator(lang)
    return (tr(N_("{n} oudler")) if n == 1 else tr(N_("{n} oudlers"))).format(n=n)


def render_setup(view: SetupView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """Game, variant and the players (the dealer shown inverted), up to 6 players."""
    tr = translator(lang)
    c = Canvas()
    c.header(tr(view.game), view.variant)
    for i, player in enumerate(view.players[:6]):
        x = 0 if i % 2 == 0 else WIDTH // 2
        y = ROWS[i // 2]
        if i == view.dealer:
            c.draw.rectangle((x, y, x + WIDTH // 2 - 2, y + PITCH - 1), fill=1)
        c.text((x + 2, y), player, SMALL, max_width=WIDTH // 2 - 5, fill=0 if i == view.dealer else 1)
    has_dealer = view.dealer is not None and 0 <= view.dealer < len(view.players)
    hint = tr(N_("Dealer: {name}")).format(name=view.players[view.dealer]) if has_dealer else ""
    c.footer(hint or tr(N_("OK: start")))
    return c.image


def render_bidding(view: BiddingView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """One row per seat: dealer mark, name, bid (or "?" for the seat to speak)."""
    tr = translator(lang)
    c = Canvas()
    n = len(view.players)
    if n <= 4:
        c.header(tr(N_("Bidding")))
        top, pitch, size = 14, PITCH, SMALL
    else:  # five players: a thin title band and smaller rows, so that every seat shows
        c.band(tr(N_("Bidding")))
        top, pitch, size = BAND_HEIGHT, ROW5_PITCH, TINY
    taker = _best_bidder(view.bids)
    for seat, player in enumerate(view.players[:5]):
        y = top + seat * pitch
        ink = 1
        if seat == view.current:
            c.inverted_row(y, pitch)
            ink = 0
        if seat == view.dealer:
            c.text((1, y), tr(N_("D")), size, max_width=9, fill=ink)
        bid = view.bids[seat] if seat < len(view.bids) else None
        if seat == view.current:
            said = "?"
        elif bid is None:
            said = "·"
        else:
            said = bid_name(bid, lang)
            if seat == taker and view.called_king:
                said += " " + card_label(view.called_king, lang, style)
        said_w = c.text((WIDTH - 2, y), said, size, align="right", max_width=84, fill=ink)
        c.text((11, y), player, size, max_width=WIDTH - 11 - said_w - 6, fill=ink)
    return c.image


def _best_bidder(bids: tuple[str | None, ...]) -> int | None:
    order = ("prise", "garde", "garde_sans", "garde_contre")
    best, seat = -1, None
    for i, bid in enumerate(bids):
        rank = order.index(bid) if bid in order else (0 if bid == "petite" else -1)
        if rank > best:
            best, seat = rank, i
    return seat


def render_target(view: TargetView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """The taker's target: what the side needs and has, in large figures."""
    tr = translator(lang)
    c = Canvas()
    if view.partner:
        partner = "+" + view.partner
    elif view.called_king:
        partner = "+" + card_label(view.called_king, lang, style) + "?"
    else:
        partner = ""
    c.header(contract_name(view.contract, lang), view.taker, scroll=tick)
    split = TARGET_SPLIT
    c.draw.line((split, 15, split, 47), fill=1)
    c.text((2, 14), tr(N_("needs")), SMALL, max_width=split - 4)
    has_w = c.text((split + 4, 14), tr(N_("has")), SMALL, max_width=WIDTH - split - 6)
    if partner:  # the taker's side: the called King, or the partner once known
        c.text((WIDTH - 2, 14), partner, SMALL, align="right", max_width=WIDTH - 2 - (split + 4 + has_w + 4),
               scroll=tick)
    for x, value, room in ((2, view.needs, split - 6), (split + 4, view.has, WIDTH - split - 6)):
        text = points(value, lang)
        size = largest_size(text, (HUGE, LARGE), room)
        c.text((x, 24 if size == HUGE else 28), text, size, max_width=room)
    right_w = c.text((WIDTH - 2, 51), oudlers_text(view.oudlers, lang), SMALL, align="right", max_width=56)
    if view.tricks_left == 1:
        left = tr(N_("last trick"))
    else:
        left = tr(N_("{n} tricks left")).format(n=view.tricks_left)
    c.text((2, 51), left, SMALL, max_width=WIDTH - 8 - right_w)
    return c.image


def render_trick(view: TrickView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """The cards of the trick with their seats; the winning card inverted."""
    tr = translator(lang)
    c = Canvas()
    plays = view.plays[:5]
    title = tr(N_("Trick {n}/{total}")).format(n=view.number, total=view.total)
    if len(plays) <= 4:
        c.header(title)
        top, pitch, size = ROWS[0], PITCH, SMALL
    else:  # five cards: a thin title band and smaller rows
        c.band(title)
        top, pitch, size = BAND_HEIGHT, ROW5_PITCH, TINY
    # Each card keeps the form it is first shown in, whatever arrives after it:
    # its full name where that fits beside the widest seat name allowed, else its
    # compact label ("K♥" rather than "Cavalier de C…").
    room = WIDTH - 8 - SEAT_MAX_W
    for i, play in enumerate(plays):
        y = top + i * pitch
        name = card_text(play.card, lang, style, room, size)
        ink = _mark_winner(c, i == view.winner, 0, y, WIDTH, pitch)
        name_w = c.text((WIDTH - 2, y), name, size, align="right", max_width=room, fill=ink)
        c.text((2, y), play.seat, size, max_width=WIDTH - 8 - name_w, fill=ink)
    return c.image


def _mark_winner(c: Canvas, winner: bool, x: int, y: int, width: int, pitch: int = PITCH) -> int:
    if winner:
        c.draw.rectangle((x, y, x + width - 1, y + pitch - 1), fill=1)
        return 0
    return 1


VIOLATION_TITLES = {
    "revoke": N_("REVOKE!"),
    "must_trump": N_("MUST TRUMP!"),
    "undertrump": N_("MUST OVERTRUMP!"),
    "out_of_turn": N_("OUT OF TURN!"),
    "excuse": N_("EXCUSE!"),
    "refused": N_("NOT ACCEPTED"),
    "other": N_("FOUL!"),
}
VIOLATION_MESSAGES = {
    "revoke": N_("{seat} did not follow {suit}"),
    "must_trump": N_("{seat} did not trump on {suit}"),
    "undertrump": N_("{seat} played under the best trump"),
    "out_of_turn": N_("{seat} played out of turn"),
    "excuse": N_("{seat} misplayed the Excuse"),
    "other": N_("{seat}: {detail}"),
}


def render_violation(view: ViolationView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """A big inverted alert, who did what, at which trick."""
    tr = translator(lang)
    c = Canvas()
    title = tr(VIOLATION_TITLES.get(view.kind, VIOLATION_TITLES["other"]))
    c.banner(title)
    suit = suit_name(view.suit, lang, style) if view.suit else "?"
    template = tr(VIOLATION_MESSAGES.get(view.kind, VIOLATION_MESSAGES["other"]))
    detail = reason_text(view.why, lang, style, view.names) if view.why is not None else view.detail
    message = template.format(seat=view.seat, suit=suit, detail=detail)
    for y, line in zip((23, 35), wrap(message, SMALL, WIDTH - 4, 2)):
        c.text((2, y), line, SMALL, max_width=WIDTH - 4)
    c.draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), outline=1)
    where = tr(N_("Trick {n}")).format(n=view.trick)
    if view.card:
        room = WIDTH - 4 - text_width(where + " · ", SMALL)
        where += " · " + card_text(view.card, lang, style, room, SMALL)
    c.text((WIDTH // 2, 50), where, SMALL, align="center", max_width=WIDTH - 4, scroll=tick)
    return c.image


CHELEM_TEXT = {
    "announced_made": N_("Chelem announced and made"),
    "made": N_("Chelem made"),
    "announced_failed": N_("Chelem announced, failed"),
}


def render_deal_end(view: DealEndView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """Made or failed and by how much, the taker's score, then the bonuses."""
    tr = translator(lang)
    c = Canvas()
    c.header(f"{contract_name(view.contract, lang)} · {view.taker}")
    verdict = (tr(N_("MADE by {n}")) if view.made else tr(N_("FAILED by {n}"))).format(n=points(abs(view.margin), lang))
    size = largest_size(verdict, (LARGE, MEDIUM, SMALL), WIDTH - 4)
    c.text((WIDTH // 2, 14 if size == LARGE else 16), verdict, size, align="center", max_width=WIDTH - 4)
    score_w = c.text((WIDTH - 2, 36), signed(view.score, lang), SMALL, align="right", max_width=40)
    got = tr(N_("{n} pts")).format(n=points(view.points, lang)) + " · " + oudlers_text(view.oudlers, lang)
    c.text((2, 36), got, SMALL, max_width=WIDTH - 8 - score_w)
    extras = []
    if view.petit_au_bout:
        extras.append(tr(N_("Petit au bout: {seat}")).format(seat=view.petit_au_bout))
    for seat, level in view.poignees:
        extras.append(f"{tr(POIGNEE_NAMES.get(level, level))}: {seat}")
    if view.chelem:
        extras.append(tr(CHELEM_TEXT.get(view.chelem, view.chelem)))
    c.draw.line((0, 49, WIDTH - 1, 49), fill=1)
    line, line_tick = rotating_slot(extras, SMALL, WIDTH - 4, tick)
    c.text((2, 51), line or tr(N_("No bonus")), SMALL, max_width=WIDTH - 4, scroll=line_tick)
    return c.image


def render_score_table(view: ScoreTableView, lang: str = "en", style: str = "french", tick: int | None = None) -> Image.Image:
    """Name, score of the last deal, running total; the leader inverted."""
    tr = translator(lang)
    c = Canvas()
    n = len(view.players)
    deal, total = tr(N_("Deal {n}")).format(n=view.deal_number), tr(N_("Total"))
    if n <= 4:
        c.header(deal, total)
        size, pitch, top, rows = SMALL, PITCH, 14, 4
    else:  # five or more: a thin band and smaller rows, so that every player shows
        c.band(deal, total, right_max=40)
        size, pitch, top, rows = TINY, ROW5_PITCH, BAND_HEIGHT, 5
    leader = max(range(n), key=lambda i: view.totals[i]) if n else None
    first = max(0, min(view.first_row, n - rows))
    for row, i in enumerate(range(first, min(n, first + rows))):
        y = top + row * pitch
        ink = 1
        if i == leader:
            c.draw.rectangle((0, y, WIDTH - 1, y + pitch - 1), fill=1)
            ink = 0
        c.text((WIDTH - 2, y), signed(view.totals[i], lang) if view.totals[i] else "0", size, align="right", max_width=36, fill=ink)
        c.text((86, y), signed(view.deal_scores[i], lang) if view.deal_scores[i] else "0", size, align="right", max_width=38, fill=ink)
        c.text((2, y), view.players[i], size, max_width=46, fill=ink)
    return c.image
