"""The camera check on the device: the OLED's screen as a menu, and the table page's live view."""

from __future__ import annotations

import json
import shutil
import time
import urllib.request

import cv2
import numpy as np
import pytest

from device.app.camera_check import CHECK_EVERY_S, CameraCheckFlow, DeviceCameraCheck
from device.screens import render
from device.web.server import TablePage
from vision import camera_scenes as cs
from vision.zones import default_zones


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_oled_screen_shows_the_worst_problem_and_the_others_by_a_key():
    flow = CameraCheckFlow(("dim", "glare", "tilted"), "fr")
    assert flow.view().shown == 0
    flow.handle(("down", "press"))
    assert flow.view().shown == 1
    flow.handle(("up", "press"))
    flow.handle(("up", "press"))
    assert flow.view().shown == 2  # round the end
    first = render(CameraCheckFlow(("dim", "glare"), "fr").view(), "fr")
    second = render(flow.view(), "fr")
    assert first.tobytes() != second.tobytes()
    assert flow.handle(("ok", "press")) == [("cancel",)] and flow.done


@pytest.fixture(scope="module")
def table_frame():
    return cs.trouble_scene(9100, {"glare": True}).image


def test_nothing_is_done_for_a_live_view_nobody_watches(table_frame):
    clock = Clock()
    calls = []
    check = DeviceCameraCheck(zones=default_zones(), clock=clock, localiser=lambda img: calls.append(1) or [])
    for _ in range(30):
        check.on_frame(table_frame, lambda: pytest.fail("the tracker's cards are not asked for"))
        clock.now += 0.1
    assert calls == [] and check.jpeg() is None  # asking for the picture makes it watched from now on
    check.on_frame(table_frame, [{"card": "H07", "zone": "middle", "corners": [[10, 10], [60, 10], [60, 100], [10, 100]]}])
    state = check.live_state()
    assert state["version"] == 1 and state["cards"][0]["card"] == "H07"
    assert state["cards"][0]["corners"][1] == [round(60 / 1280, 4), round(10 / 720, 4)]
    assert state["zones"][0]["name"] == "middle" and state["advice"]
    image = cv2.imdecode(np.frombuffer(check.jpeg(), np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (360, 640, 3)
    # a snapshot a second, a check every CHECK_EVERY_S
    for _ in range(25):  # 2.5 s of frames at 10 a second
        clock.now += 0.1
        check.on_frame(table_frame, [])
    assert check.live_state()["version"] == 3 and len(calls) == 1
    clock.now += CHECK_EVERY_S
    check.on_frame(table_frame, [])
    assert len(calls) == 1  # nobody asked for the live view for longer than WATCHED_FOR_S
    check.live_state()
    check.on_frame(table_frame, [])
    assert len(calls) == 2


@pytest.fixture
def page(table_frame):
    check = DeviceCameraCheck(zones=default_zones())
    page = TablePage("127.0.0.1", 0, camera=check).start()
    yield page, check
    page.stop()


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers.get("Content-Type"), r.read()


def test_the_table_page_serves_the_live_view(page, table_frame):
    page, check = page
    status, kind, body = get(page.url + "live")
    assert status == 200 and b"/static/live.js" in body
    assert b'href="/live"' in get(page.url)[2]
    with pytest.raises(urllib.error.HTTPError):
        get(page.url + "api/live.jpg")  # no snapshot yet
    check.on_frame(table_frame, [])  # watched since the request
    state = json.loads(get(page.url + "api/live")[2])
    assert state["version"] == 1 and {a["code"] for a in state["advice"]} <= {"glare", "dim", "blur", "cut", "small_cards",
                                                                             "tilted", "noisy", "no_card", "ok"}
    status, kind, body = get(page.url + "api/live.jpg")
    assert kind == "image/jpeg" and body[:2] == b"\xff\xd8"


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


@pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="needs Debian's chromium and chromium-driver")
def test_the_live_view_follows_the_camera_in_a_browser(page, table_frame):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    page, check = page
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,800"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)
    try:
        driver.get(page.url + "live")
        cards = [{"card": "H07", "zone": "middle", "corners": [[300, 200], [380, 200], [380, 340], [300, 340]]}]
        feed_until = time.monotonic() + 30
        while time.monotonic() < feed_until and not driver.execute_script("return window.tarotmateLive.frames"):
            check.on_frame(table_frame, cards)
            time.sleep(0.1)
        assert driver.execute_script("return window.tarotmateLive.frames") >= 1
        codes = driver.execute_script("return Array.from(document.querySelectorAll('#advice li')).map(l => l.dataset.code)")
        assert codes and set(codes) <= {"glare", "dim", "blur", "cut", "small_cards", "tilted", "noisy", "no_card", "ok"}
        # a new frame reaches the page within 2 s
        before = driver.execute_script("return window.tarotmateLive.frames")
        dark = (table_frame // 4).astype(np.uint8)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 10 and driver.execute_script("return window.tarotmateLive.frames") == before:
            check.on_frame(dark, cards)
            time.sleep(0.05)
        assert time.monotonic() - t0 <= 2.0 + 0.5  # one second's snapshot, one second's poll (and a loaded machine)
        # the card's outline drawn in green over the picture: its right side, x = 380 / 1280 * 640
        strip = driver.execute_script(
            "const c = document.getElementById('live'); return Array.from(c.getContext('2d').getImageData(186, 135, 9, 1).data)")
        pixels = [strip[i:i + 4] for i in range(0, len(strip), 4)]
        assert any(g > 180 and r < 80 for r, g, b, a in pixels), pixels
    finally:
        driver.quit()


def test_a_long_press_of_up_shows_the_camera_check_over_the_game_and_ok_goes_back(tmp_path, table_frame):
    from device.app.menu_driver import MenuDriver
    from device.app.registry import game_for
    from device.app.session import GameSession
    from device.app.table import TableApp
    from device.screens.camera_check import CameraCheckView
    from device.storage.deal_log import DealLog

    with DealLog.open(tmp_path / "log.db") as log:
        session = GameSession.resume_or_start(log, game_for("french-tarot"), ["Ana", "Luis", "Marta", "Pau"],
                                              label="m", first_setup={"dealer": 0})
        app = TableApp(session)
        driver = MenuDriver(app)
        app.hooks.append(driver.sync)
        before = type(app.current_view())
        check = DeviceCameraCheck(localiser=lambda image: [])
        driver.camera_check = check
        check.on_frame(table_frame)  # the latest frame (nobody watches the live view)
        driver.on_button(("up", "long"))
        view = app.current_view()
        assert isinstance(view, CameraCheckView) and view.advice[-1] == "no_card"
        driver.on_button(("down", "press"))
        assert app.current_view().shown == (1 if len(view.advice) > 1 else 0)
        driver.on_button(("ok", "press"))
        assert type(app.current_view()) is before
