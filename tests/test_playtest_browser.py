"""The playtest page in a real browser (headless Chromium driven by Selenium): a whole
Tiến Lên game and a whole Tứ Sắc game played by clicking cards and prompts, the hint used,
the final review checked. Skipped (with the reason) only when no Chromium and chromedriver
can be found; CI installs them (.ci/run)."""
from __future__ import annotations

import os
import random
import shutil
import threading
import time

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from cardsim.playtest.server import build_app, free_port  # noqa: E402
from cardsim.playtest.session import PlaySession, ViewSession  # noqa: E402


def _find(*names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


BROWSER = os.environ.get("CARDSIM_CHROMIUM") or _find("chromium", "chromium-browser", "google-chrome", "chrome")
DRIVER = os.environ.get("CARDSIM_CHROMEDRIVER") or _find("chromedriver")
pytestmark = pytest.mark.skipif(not (BROWSER and DRIVER), reason="no Chromium and chromedriver found "
                                "(apt-get install chromium chromium-driver)")


class LiveServer:
    def __init__(self, factory):
        self.app = build_app(factory)
        self.port = free_port()
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        end = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < end, "the server did not start"
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port}/?token={self.app.state.token}"

    def stop(self):
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = BROWSER
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,800"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=opts)
    drv.set_window_size(1280, 800)
    yield drv
    drv.quit()


def serve(game, **kw):
    def factory(index=0, version=0):
        return PlaySession(game, seat=0, policy="heuristic", seed=21, index=index, coach_budget=0.3,
                           review_budget=0.05, bot_delay=0.02, version=version, **kw)
    return LiveServer(factory)


def body(drv, key):
    return drv.execute_script(f"return document.body.dataset.{key};")


def wait(drv, cond, timeout=60, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if cond():
                return
        except StaleElementReferenceException:
            pass
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def wait_my_turn_or_end(drv):
    wait(drv, lambda: body(drv, "done") == "1" or (body(drv, "turn") == "you" and body(drv, "busy") == "0"),
         what="my turn or the end")


def click_version(drv, element):
    v = body(drv, "version")
    element.click()
    wait(drv, lambda: body(drv, "version") != v, what="the game to move on")


def use_hint(drv):
    drv.find_element(By.ID, "hint-btn").click()
    wait(drv, lambda: drv.find_elements(By.CSS_SELECTOR, "#hint-table tr"), what="the hint")
    note = drv.find_element(By.CSS_SELECTOR, "#coach .small-note").text
    assert "worlds" in note and "chance to win" in note
    assert drv.find_elements(By.CSS_SELECTOR, "#hint-table tr.best")


def check_review(drv):
    wait(drv, lambda: drv.find_elements(By.CSS_SELECTOR, "#review-table[data-pending='0'] tbody tr"), timeout=120,
         what="the review")
    text = drv.find_element(By.ID, "review").text
    assert "Review of your decisions" in text and "worlds" in text and "gap" in text
    assert drv.find_element(By.ID, "result").text


def test_tienlen_by_clicking(browser):
    srv = serve("tienlen")
    rng = random.Random(1)
    try:
        browser.get(srv.url)
        hinted = False
        for _ in range(200):
            wait_my_turn_or_end(browser)
            if body(browser, "done") == "1":
                break
            if not hinted:
                use_hint(browser)
                hinted = True
            passes = browser.find_elements(By.ID, "pass-btn")
            prompt = browser.find_elements(By.CSS_SELECTOR, "#prompt:not([hidden]) .opts button")
            if prompt:
                click_version(browser, prompt[-1])
                continue
            if passes and rng.random() < 0.3:
                click_version(browser, passes[0])
                continue
            play = browser.find_element(By.ID, "play-btn")
            for _ in range(14):  # add the lowest card that still fits a legal play until the play is legal
                if play.is_enabled():
                    break
                cards = [c for c in browser.find_elements(By.CSS_SELECTOR, "#me button.card")
                         if c.is_enabled() and c.get_attribute("aria-pressed") != "true"]
                if not cards:
                    break
                cards[0].click()
                play = browser.find_element(By.ID, "play-btn")
            if play.is_enabled():
                click_version(browser, play)
            else:
                click_version(browser, passes[0])
        assert body(browser, "done") == "1"
        check_review(browser)
        browser.save_screenshot("/tmp/playtest_test_tienlen_end.png")
    finally:
        srv.stop()


def test_tusac_by_clicking(browser):
    srv = serve("tusac")
    try:
        browser.get(srv.url)
        hinted = False
        for _ in range(400):
            wait_my_turn_or_end(browser)
            if body(browser, "done") == "1":
                break
            if not hinted:
                use_hint(browser)
                hinted = True
            prompt = browser.find_elements(By.CSS_SELECTOR, "#prompt:not([hidden]) .opts button")
            if prompt:
                click_version(browser, prompt[0])
                continue
            cards = [c for c in browser.find_elements(By.CSS_SELECTOR, "#me button.ts") if c.is_enabled()]
            assert cards, "a discard decision offers cards to click"
            click_version(browser, cards[-1])
        assert body(browser, "done") == "1"
        check_review(browser)
    finally:
        srv.stop()


def test_viewer_steps(browser, tmp_path):
    import cardsim

    g = cardsim.env("loba", seed=2, policy="heuristic", rules={"contracts": "2T"})
    while not g.done:
        g.step(g.policy_action())
    session = ViewSession(cardsim.env("loba", seed=2, policy="heuristic", rules={"contracts": "2T"}), g.history, "test")
    srv = LiveServer(lambda **kw: session)
    try:
        browser.get(srv.url)
        wait(browser, lambda: "viewer" in browser.title, what="the viewer")
        pos = browser.find_element(By.ID, "v-pos")
        assert pos.text == f"{len(g.history)} / {len(g.history)}"
        browser.find_element(By.ID, "v-first").click()
        wait(browser, lambda: browser.find_element(By.ID, "v-pos").text.startswith("0 /"), what="step 0")
        browser.find_element(By.ID, "v-next").click()
        wait(browser, lambda: browser.find_element(By.ID, "v-pos").text.startswith("1 /"), what="step 1")
        assert browser.find_elements(By.CSS_SELECTOR, "#log li.current")
        # every hand face up: the other seats show cards, not backs
        assert browser.find_elements(By.CSS_SELECTOR, "#opponents .hand .card")
    finally:
        srv.stop()
