"""Every screen: pixel-exact against its golden image, and nothing cut off."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st
from PIL import Image

from device.i18n import LANGUAGES
from device.screens import RENDERERS, render
from device.screens.draw import (ELLIPSIS, HEIGHT, ROTATE_TICKS, SCROLL_GAP, WIDTH, ellipsize, recording, rotating_slot,
                                 scroll_window, text_width)
from device.screens.examples import DEFAULT_STYLE, examples
from device.screens.golden import differing_pixels, golden_path
from device.screens.views import (
    BiddingView,
    MenuView,
    ScoreTableView,
    TargetView,
    TrickPlay,
    TrickView,
)

CASES = [(lang, name) for lang in LANGUAGES for name in examples(lang)]
REGENERATE = "regenerate with: .venv/bin/python -m device.screens.golden --update (then look at them)"


@pytest.mark.parametrize("lang,name", CASES)
def test_screen_matches_its_golden_image(lang, name):
    image = render(examples(lang)[name], lang, DEFAULT_STYLE[lang])
    assert image.mode == "1" and image.size == (WIDTH, HEIGHT)
    golden = Image.open(golden_path(lang, name))
    assert differing_pixels(image, golden) == 0, f"{lang}/{name} differs from its golden image; {REGENERATE}"


def test_every_view_class_has_an_example():
    shown = {type(view) for view in examples("en").values()}
    assert set(RENDERERS) <= shown


def _check_fits(items):
    assert items, "the screen drew no text"
    for item in items:
        x0, y0, x1, y1 = item.box
        assert 0 <= x0 and 0 <= y0 and x1 <= WIDTH and y1 <= HEIGHT, f"{item.shown!r} leaves the screen: {item.box}"
        if item.fit == "ellipsis":
            assert item.shown.endswith(ELLIPSIS) and item.shown[:-1] == item.wanted[: len(item.shown) - 1]
        elif item.fit == "full":
            assert item.shown == item.wanted
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            overlap = not (a.box[2] <= b.box[0] or b.box[2] <= a.box[0] or a.box[3] <= b.box[1] or b.box[3] <= a.box[1])
            assert not overlap or not a.shown.strip() or not b.shown.strip(), f"{a.shown!r} overlaps {b.shown!r}"


@pytest.mark.parametrize("style", ["french", "tarot"])
@pytest.mark.parametrize("lang,name", CASES)
def test_text_stays_on_screen_and_is_cut_only_with_an_ellipsis(lang, name, style):
    with recording() as items:
        render(examples(lang)[name], lang, style)
    _check_fits(items)


def test_scroll_tick_moves_a_long_name_and_keeps_it_on_screen():
    view = TargetView("garde_contre", "Maximiliano Bartolomé", 3, 36, 12, 14, called_king="SK")
    frames = []
    for tick in range(3):
        with recording() as items:
            frames.append(render(view, "es", "tarot", tick).tobytes())
        _check_fits(items)
        assert any(item.fit == "scroll" for item in items)
    assert len(set(frames)) == 3


def test_ellipsis_and_scroll_window_fit():
    text = "Guarda contra · Maximiliano Bartolomé"
    cut = ellipsize(text, 10, 60)
    assert cut.endswith(ELLIPSIS) and text_width(cut, 10) <= 60 and text.startswith(cut[:-1])
    assert ellipsize("Ana", 10, 60) == "Ana"
    window = scroll_window(text, 10, 60, 5)
    assert text_width(window, 10) <= 60 and window.startswith(text[5:8])


def test_a_long_text_of_a_rotating_line_comes_from_its_start_and_scrolls_through_once():
    """Items that do not fit together are shown in turn; one too long for the line is first
    shown still from its start, then scrolled through once, before the next comes."""
    long = "Marta lays S06 H09 T05 and the Loco, a line far too long for the screen"
    items = ["Loco: wild", long, "Pau lays C03"]
    hold, loop = ROTATE_TICKS // 2, len(long + SCROLL_GAP)
    cycle = 2 * ROTATE_TICKS + hold + loop
    turns = [rotating_slot(items, 10, 100, tick) for tick in range(2 * cycle)]
    assert [text for text, _ in turns[:cycle]] == (["Loco: wild (1/3)"] * ROTATE_TICKS + [long] * (hold + loop)
                                                   + ["Pau lays C03 (3/3)"] * ROTATE_TICKS)
    assert turns[cycle:] == turns[:cycle]
    windows = [scroll_window(long, 10, 100, local) for text, local in turns[:cycle] if text == long]
    assert windows[:hold + 1] == [windows[0]] * (hold + 1) and long.startswith(windows[0])  # still, from its start
    assert any(w.startswith("too long") for w in windows)  # then all of it, in its turn
    assert windows[-1] != windows[0] and scroll_window(long, 10, 100, loop) == windows[0]  # once round
    assert rotating_slot(items, 10, 100, None) == ("Loco: wild (1/3)", None)
    assert rotating_slot(["Loco: wild", "", "Pau lays C03"], 10, 400, 7) == ("Loco: wild · Pau lays C03", 7)


names = st.text(alphabet="AaBÉéñÑçœgjpqyWM ", min_size=1, max_size=30)


@settings(max_examples=25, deadline=None)
@given(players=st.lists(names, min_size=3, max_size=5), lang=st.sampled_from(LANGUAGES))
def test_any_player_names_fit(players, lang):
    n = len(players)
    views = [
        BiddingView(tuple(players), 0, tuple(["garde_contre"] * (n - 1) + [None]), current=n - 1),
        ScoreTableView(tuple(players), tuple([-1234] * n), tuple([-12345] * n), deal_number=99),
        TrickView(18, tuple(TrickPlay(p, "D07") for p in players), winner=0),
        MenuView(players[0], tuple(players), selected=n - 1),
    ]
    for view in views:
        with recording() as items:
            render(view, lang, "tarot")
        _check_fits(items)


def test_winning_card_is_inverted_and_others_are_not():
    view = examples("en")["trick4"]
    image = render(view, "en", "french")
    first_row = [image.getpixel((x, 15)) for x in range(WIDTH)]
    second_row = [image.getpixel((x, 27)) for x in range(WIDTH)]
    assert sum(first_row) > WIDTH * 0.6  # mostly lit: the winner (seat 0) is inverted
    assert sum(second_row) < WIDTH * 0.4


def test_render_refuses_an_unknown_view():
    with pytest.raises(TypeError):
        render(object())


def _variants():
    """Every kind of every keyed view, so that each translated text is drawn once."""
    from device.screens.status import CAMERA_STATES
    from device.screens.tarot import CHELEM_TEXT, VIOLATION_TITLES
    from device.screens.trivium import ANNOUNCEMENT_TITLES, LOCO_TEXT
    from device.screens.views import (
        AnnouncementView,
        CameraStatusView,
        DealEndView,
        SetupView,
        TerciaView,
        TriviumSeatView,
        TriviumView,
        ViolationView,
    )

    long = "Maximiliano"
    for kind in VIOLATION_TITLES:
        yield ViolationView(kind, long, 17, suit="D", card="DN", detail="played the Excuse twice")
        yield ViolationView(kind, long, 3, suit="T", card="T01", detail="x" * 80)
    for kind in list(ANNOUNCEMENT_TITLES) + ["gran_trivium_nuevo"]:
        yield AnnouncementView(kind, long, 200)
        yield AnnouncementView(kind, long, 63, valid=False)
    for state in CAMERA_STATES:
        yield CameraStatusView(state, 29.97, "m" * 40, 78, "T21", 0.5)
    from device.screens.views import CAMERA_PROBLEMS, CameraLostView

    for problem in CAMERA_PROBLEMS:
        for seconds in (0, 86400):
            yield CameraLostView(problem, seconds)
    for loco in LOCO_TEXT:
        seats = tuple(TriviumSeatView(long + str(i), (TerciaView(("T10", "T10", "T01"), True),) * 3) for i in range(4))
        yield TriviumView(seats, "EX", loco, long, current=3)
        laying = tuple(TriviumSeatView(long + str(i), (TerciaView(("T10", "T10", "T01"), True),) * i, 9,
                                       ("T10", "H05")[:i % 3]) for i in range(3))
        yield TriviumView(laying, "EX", loco, long, current=0)
    for chelem in CHELEM_TEXT:
        for contract in ("prise", "garde", "garde_sans", "garde_contre"):
            yield DealEndView(contract, long, False, 30.5, 0, 25.5, long, (("A", "triple"),), chelem, -1234)
    yield SetupView("Trivium", "Standard · 4", ("Maximiliano", "Bartolomé", "Ñu", "Gjøq"), dealer=0)
    yield from _enroll_variants()


def _enroll_variants():
    """Every state of the enrollment screens, with the longest numbers and a long deck name."""
    from device.screens.views import (
        ENROLL_CAPTURE_STATES,
        ENROLL_END_STATES,
        EnrollCardView,
        EnrollConfirmView,
        EnrollDoneView,
        EnrollReviewView,
    )

    for state in ENROLL_CAPTURE_STATES:
        for captures in (0, 2, 3):
            yield EnrollCardView("DN", 78, 78, state, captures, 3)
    yield EnrollCardView("SK", 7, 10, "captured", 5, 12)  # more boxes than usual
    yield EnrollConfirmView("DN", 78, 78)
    yield EnrollReviewView("DN", "HN", 0.9999)
    for state in ENROLL_END_STATES:
        for pairs in (0, 78):
            yield EnrollDoneView("marseille-grimaud-1930-restored", 78, 78, 78, pairs, state)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_kind_of_text_fits_in_every_language(lang):
    count = 0
    for view in _variants():
        for tick in (None, 7):
            with recording() as items:
                image = render(view, lang, "tarot", tick)
            assert image.size == (WIDTH, HEIGHT)
            _check_fits(items)
            count += 1
    assert count > 50


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_card_name_fits_the_enrollment_screens(lang):
    from engine.cards import CODES
    from device.screens.views import EnrollCardView, EnrollConfirmView

    for style in ("french", "tarot"):
        for code in CODES:
            for view in (EnrollCardView(code, 1, 78, "moving"), EnrollConfirmView(code, 1, 78)):
                with recording() as items:
                    render(view, lang, style)
                _check_fits(items)
                assert all(item.fit == "full" for item in items), (lang, style, code)
