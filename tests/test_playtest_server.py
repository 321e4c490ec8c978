"""The playtest server through HTTP: whole games of every game by a client that picks
random legal actions; token-less, illegal and stale requests refused with the game unchanged;
the record download replays; the viewer steps; the CLI's one-line errors."""
from __future__ import annotations

import json
import random
import socket

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

import warnings  # noqa: E402

with warnings.catch_warnings():  # recent Starlette warns that its TestClient will move off httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

import cardsim  # noqa: E402
from cardsim.playtest.server import build_app  # noqa: E402
from cardsim.playtest.session import PlaySession, ViewSession  # noqa: E402

GAMES = {
    "tienlen": {},
    "bigtwo": {},
    "tusac": {},
    "loba": {"contracts": "2T", "claims": "on"},
    "continental": {},
}


def make_client(game, rules=None, seat=0, seed=11, **kw):
    kw.setdefault("review", game != "continental")  # a 7-hand match: hundreds of decisions to review
    def factory(index=0, version=0):
        return PlaySession(game, seat=seat, policy="heuristic", rules=rules or {}, seed=seed, index=index,
                           coach_budget=0.05, review_budget=0.02, bot_delay=0, version=version, **kw)
    app = build_app(factory)
    client = TestClient(app)
    client.headers["X-Token"] = app.state.token
    return client, app


def play_out(client, rng, max_requests=20000):
    s = client.get("/api/state").json()
    decisions = 0
    for _ in range(max_requests):
        if s["done"]:
            return s, decisions
        if s["your_turn"]:
            ids = [a for a, _ in s["obs"]["legal_actions"]]
            assert ids, "the seat to move has legal actions"
            r = client.post("/api/act", json={"version": s["version"], "action": rng.choice(ids)})
            decisions += 1
        else:
            r = client.post("/api/advance", json={"version": s["version"]})
        assert r.status_code == 200, r.text
        s = r.json()
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", list(GAMES))
def test_whole_game_through_http(game):
    client, app = make_client(game, GAMES[game], seat=1)
    rng = random.Random(5)
    s, decisions = play_out(client, rng)
    assert decisions > 0
    assert s["result"]["returns"] and len(s["result"]["returns"]) == s["players"]
    # the review covers every real choice of the human seat once the worker is done
    session = app.state.holder["session"]
    review = session.wait_review(timeout=120)
    assert review["pending"] == 0
    for e in review["entries"]:
        assert "error" not in e, e
        assert e["gap"] >= -1e-9
    assert client.get("/api/review").json()["pending"] == 0
    # the record download is the step interface's record and replays to the same end
    r = client.get("/api/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    rec = r.json()
    g = cardsim.env(game, record=rec)
    assert g.done and g.returns() == s["result"]["returns"]


def test_refusals_leave_the_game_unchanged():
    client, app = make_client("tienlen", seat=0)
    before = client.get("/api/state").json()
    # no token: 403 on the page, the scripts and the API
    bare = TestClient(app)
    for path in ("/", "/static/app.js", "/api/state", "/api/record"):
        assert bare.get(path).status_code == 403
    assert bare.post("/api/act", json={"version": 0, "action": 0}).status_code == 403
    assert bare.get("/api/state", params={"token": "wrong"}).status_code == 403
    assert bare.get("/", params={"token": app.state.token}).status_code == 200
    # play until it is the human's turn
    s = before
    while not s["your_turn"]:
        s = client.post("/api/advance", json={"version": s["version"]}).json()
    legal = {a for a, _ in s["obs"]["legal_actions"]}
    illegal = next(a for a in range(1, 1 << 13) if a not in legal)
    r = client.post("/api/act", json={"version": s["version"], "action": illegal})
    assert r.status_code == 400 and "not legal" in r.json()["error"]
    for bad in ({"version": s["version"], "action": "x"}, {"version": s["version"]}, {"action": min(legal)},
                [1, 2], {"version": "1", "action": min(legal)}):
        assert 400 <= client.post("/api/act", json=bad).status_code < 500
    assert client.post("/api/act", content=b"{nope", headers={"Content-Type": "application/json"}).status_code == 400
    # the built-in players may not move for the human
    assert client.post("/api/advance", json={"version": s["version"]}).status_code == 409
    assert client.get("/api/state").json() == s
    # a stale action (a second tab on an older version) is refused, the game unchanged
    a = min(legal)
    r1 = client.post("/api/act", json={"version": s["version"], "action": a})
    assert r1.status_code == 200
    after = r1.json()
    r2 = client.post("/api/act", json={"version": s["version"], "action": a})
    assert r2.status_code == 409 and "stale" in r2.json()["error"]
    assert client.get("/api/state").json() == after
    assert client.post("/api/advance", json={"version": s["version"]}).status_code == 409
    # files are served by name only
    assert client.get("/static/..%2Fserver.py").status_code == 404
    assert client.get("/static/nothing.js").status_code == 404


def test_hint_and_new_game():
    client, app = make_client("tusac", seat=0)
    s = client.get("/api/state").json()
    while not s["your_turn"]:
        s = client.post("/api/advance", json={"version": s["version"]}).json()
    r = client.post("/api/hint", json={"version": s["version"]})
    assert r.status_code == 200, r.text
    h = r.json()
    assert h["worlds"] >= 1 and h["measure"] == "win"
    assert {e["action"] for e in h["options"]} == {a for a, _ in s["obs"]["legal_actions"]}
    assert client.get("/api/state").json()["hint"]["version"] == s["version"]
    assert client.post("/api/hint", json={"version": s["version"] - 1}).status_code == 409
    n = client.post("/api/new", json={}).json()
    assert n["index"] == 1 and n["version"] > s["version"] and n["moves"] == 0


def test_viewer_steps_and_refuses_play(tmp_path):
    g = cardsim.env("tienlen", seed=3, index=2, policy="heuristic")
    while not g.done:
        g.step(g.policy_action())
    path = tmp_path / "game.json"
    path.write_text(json.dumps(g.record()), encoding="utf-8")
    session = ViewSession.from_record(path)
    app = build_app(lambda **kw: session)
    client = TestClient(app)
    client.headers["X-Token"] = app.state.token
    end = client.get("/api/state").json()
    assert end["mode"] == "view" and end["done"] and end["step"] == end["steps"] == len(g.history)
    start = client.get("/api/state", params={"step": 0}).json()
    assert start["step"] == 0 and all(len(o["hand"]) == 13 for o in start["obs_all"])
    mid = client.get("/api/state", params={"step": 30}).json()
    assert mid["step"] == 30 and len(mid["moves"]) == end["steps"]
    assert client.get("/api/state", params={"step": 10**6}).status_code == 400
    assert client.get("/api/state", params={"step": "x"}).status_code == 400
    assert client.post("/api/act", json={"version": 0, "action": 0}).status_code == 400
    assert client.get("/api/record").json()["actions"] == g.record()["actions"]


def test_cli_errors(tmp_path):
    from cardsim.cli.main import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["playtest", "tienlen", "--port", str(port), "--no-browser"]) == 2
    assert main(["playtest", "nogame", "--no-browser"]) == 2
    assert main(["playtest", "tienlen", "--seat", "7", "--no-browser", "--policy", "heuristic"]) == 2
    assert main(["playtest", "tienlen", "--set", "players=9", "--no-browser"]) == 2
    assert main(["playtest", "tienlen", "--policy", "bogus", "--no-browser"]) == 2
    assert main(["view", "--no-browser"]) == 2
    assert main(["view", "--record", str(tmp_path / "missing.json"), "--no-browser"]) == 2


def test_cli_serves_and_stops(tmp_path):
    """The real command in a subprocess: one `playtest:` line, the page behind the token, Ctrl-C stops it."""
    import os
    import signal
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "cardsim", "playtest", "tienlen", "--no-browser", "--seed", "4",
                             "--policy", "heuristic"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = proc.stdout.readline()
        assert line.startswith("playtest: http://127.0.0.1:") and "?token=" in line, line
        url = line.split(" ", 1)[1].strip()
        with urllib.request.urlopen(url, timeout=30) as r:
            assert r.status == 200 and b"app.js" in r.read()
        base = url.split("?")[0]
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(base + "api/state", timeout=30)
        assert err.value.code == 403
    finally:
        proc.send_signal(signal.SIGINT)
        out, errs = proc.communicate(timeout=60)
    assert proc.returncode == 0, errs
    assert out == "" and "Traceback" not in errs
