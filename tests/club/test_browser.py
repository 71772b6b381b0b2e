"""The pages in a real headless Chromium (Debian's chromium + chromedriver, driven by Selenium).

The table's page must show a committed card within 1 s; the club's live board
follows new deals; the director pairs a table by typing its code. With
TAROTMATE_DOC_SCREENSHOTS=1 the screenshots are written to docs/img.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from device.app.registry import game_for
from device.app.session import GameSession
from device.games.french_tarot.page import deal_view, sheet_row
from device.storage.deal_log import DealLog
from device.web.server import TablePage
from device.web.table_state import table_page_state
from device.web.views import page_state, sheet_view
from engine.tarot.operations import Play
from engine.tarot.simulate import random_deal
from engine.tarot.state import TarotDeal

from .helpers import PASSWORD, paired_token, publication

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
NAMES = ["Ana", "Luis", "Marta", "Pau"]

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1100,900", "--disable-extensions", "--no-first-run"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def screenshot(driver, name: str) -> None:
    if os.environ.get("TAROTMATE_DOC_SCREENSHOTS") == "1":
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(DOCS_IMG / name))


def wait_until(driver, script: str, timeout: float = 15.0):  # a page to arrive on a loaded machine; latencies are asserted apart
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for: {script}")


def test_the_table_page_shows_each_committed_card_within_a_second(browser):
    source = random_deal(4, seed=11)
    page = TablePage("127.0.0.1", 0).start()
    try:
        deal = TarotDeal(4, source.dealer, source.options)
        finished = [{"scores": [40, -120, 40, 40], **sheet_row({"contract": "prise", "taker": 1}, NAMES)},
                    {"scores": [-60, 20, 20, 20], **sheet_row({"contract": "garde", "taker": 0}, NAMES)}]
        state = lambda: page_state("Table by the window", NAMES, deal_view(deal, NAMES),  # noqa: E731
                                   sheet_view(NAMES, finished),
                                   [{"label": "Game 1", "names": NAMES, "totals": [120, -40, -40, -40]}])
        page.update(state())
        browser.get(page.url)
        wait_until(browser, "return document.getElementById('status').textContent === 'Live'")
        delays = []
        for op in source.operations:
            deal.apply(op)
            committed = time.monotonic()
            page.update(state())
            if isinstance(op, Play) and len(delays) < 12:
                if deal.current_trick.cards:  # the card lies on the table
                    shown = f"return !!document.querySelector('#trick span[data-code=\"{op.card}\"]')"
                else:  # it closed the trick: the trick joins the tricks played
                    shown = (f"return document.getElementById('tricks-count').textContent === '{len(deal.tricks)}'"
                             f" && document.querySelectorAll('#trick span').length === 0")
                wait_until(browser, shown, 2.0)
                delays.append(time.monotonic() - committed)
            if len(deal.tricks) == 3 and not deal.current_trick.cards:
                break
        assert len(delays) == 12
        assert max(delays) < 1.0, delays
        assert "Ana" in browser.find_element("id", "sheet").text
        assert browser.find_element("css selector", "#chart canvas")  # uPlot drew the totals
        assert browser.find_element("id", "tricks-count").text == "3"
        screenshot(browser, "table-page.png")
    finally:
        page.stop()


def test_a_finished_trivium_game_shows_its_winner_combination_and_points(browser, tmp_path):
    from engine.trivium.bot import random_game

    names = NAMES[:3]
    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("trivium"), names, label="t")
        for n, seed in enumerate([2, 4]):  # Ana: CUADRIVIUM 50, then Luis: GRAN MAESTRE 200
            if n:
                session.next_deal()
            for op in random_game(names, seed=seed).operations:
                assert session.apply(op).ok
            session.finish_deal()
        page = TablePage("127.0.0.1", 0).start()
        try:
            page.update(table_page_state(log, session.game, session.state, "Trivium table"))
            browser.get(page.url)
            wait_until(browser, "return document.getElementById('status').textContent === 'Live'")
            assert browser.find_element("id", "deal-title").text == "Trivium · Luis"
            assert browser.find_element("id", "deal-line").text == "Game over"
            assert browser.find_element("id", "target").text == "Luis wins · GRAN MAESTRE · 200 points"
            assert "made by" not in browser.find_element("id", "deal").text
            cells = [c.text for c in browser.find_elements("css selector", "#sheet-body td.result")]
            assert cells == ["CUADRIVIUM (Ana)", "GRAN MAESTRE (Luis)"]  # not "passed"
            assert [c.text for c in browser.find_elements("css selector", "#sheet-head th")][:2] == ["Deal",
                                                                                                   "Combination"]
            assert [c.text for c in browser.find_elements("css selector", "#sheet-totals th")][2:] == ["50", "200", "0"]
            assert not browser.find_element("id", "tricks-box").is_displayed()  # no tricks in Trivium
            screenshot(browser, "table-page-trivium.png")

            page.update(table_page_state(log, session.game, session.state, "Trivium table", lang="fr"))
            wait_until(browser, "return document.getElementById('status').textContent === 'En direct'")
            assert browser.find_element("id", "target").text == "Luis gagne · GRAN MAESTRE · 200 points"
            assert browser.find_element("css selector", "[data-label='sheet']").text == "Feuille de marque"
            assert [c.text for c in browser.find_elements("css selector", "#sheet-head th")][:2] == ["Donne",
                                                                                                   "Combinaison"]
            assert browser.execute_script("return document.documentElement.lang") == "fr"
        finally:
            page.stop()


def test_the_live_board_follows_new_deals(browser, live_club, store):
    _, token = paired_token(store, "Window")
    table = store.table_for_token(token)
    from device.club.records import check_publication

    store.publish(table, check_publication(publication(1)))
    browser.get(live_club.url + "/")
    wait_until(browser, "return document.getElementById('status').textContent === 'Live'")
    wait_until(browser, "return document.querySelector(\"[data-table='1'] small\").textContent === '1 deal'")
    store.publish(table, check_publication(publication(2)))
    t0 = time.monotonic()  # the deal is committed
    live_club.club.feed.bump()  # as the publish endpoint does
    wait_until(browser, "return document.querySelector(\"[data-table='1'] small\").textContent === '2 deals'", 3)
    assert time.monotonic() - t0 < 1.0
    assert browser.execute_script("return document.querySelectorAll('#standings tbody tr').length") == 4
    screenshot(browser, "club-board.png")
    browser.get(live_club.url + "/big")
    screenshot(browser, "club-big-screen.png")
    browser.get(live_club.url + "/players/Ana")
    assert browser.find_element("id", "stat-deals").text == "2"
    assert browser.find_element("css selector", "#chart canvas")
    screenshot(browser, "club-player.png")


def test_the_director_pairs_a_table_in_the_browser(browser, live_club, store):
    code, request = store.start_pairing("Terrace")
    browser.delete_all_cookies()
    browser.get(live_club.url + "/director")
    assert browser.current_url.endswith("/director/login")
    browser.find_element("id", "password").send_keys("wrong password")
    browser.find_element("css selector", "form button").click()
    wait_until(browser, "return !!document.getElementById('error')")  # the refused form's page has arrived
    assert "Wrong password" in browser.find_element("id", "error").text
    browser.find_element("id", "password").send_keys(PASSWORD)
    browser.find_element("css selector", "form button").click()
    wait_until(browser, "return location.pathname === '/director'")
    browser.find_element("id", "pair-code").send_keys(code)
    browser.find_element("id", "pair-code").submit()
    wait_until(browser, "const m = document.getElementById('message'); return !!m && m.textContent.includes('Paired')")
    assert "Paired Terrace as table 1" in browser.find_element("id", "message").text
    assert store.collect_pairing(request)["status"] == "paired"
    browser.find_element("id", "player-name").send_keys("Jeanne")
    browser.find_element("id", "player-name").submit()
    # the page before had a message too (the pairing's): wait for the new page's
    wait_until(browser, "const m = document.getElementById('message'); return !!m && m.textContent.includes('Jeanne')")
    assert [p["name"] for p in store.players()] == ["Jeanne"]
    screenshot(browser, "club-director.png")
