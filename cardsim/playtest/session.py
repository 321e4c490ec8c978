"""One game behind the playtest page: a game you play (:class:`PlaySession`) or one you
watch move by move (:class:`ViewSession`). Only the step interface (:func:`cardsim.env`)
plays the game; nothing here knows a rule.

Every change of a played game bumps ``version``; an action or an advance request names
the version it was made on and is refused (:class:`StaleError`) when the game has moved
since, so a second tab or a double click cannot apply a move twice.
"""
from __future__ import annotations

import queue
import random
import threading
import time
from typing import Any, Optional

import numpy as np

from cardsim.simcore.framework.config import ConfigError
from cardsim.playtest import coach

TITLES = {"tienlen": "Tiến Lên", "tusac": "Tứ Sắc", "loba": "Loba", "continental": "Continental", "bigtwo": "Big Two"}


class StaleError(ConfigError):
    """The request was made on an older state of the game (it moved since)."""


class TurnError(ConfigError):
    """The request does not fit whose turn it is."""


def _legal_pairs(env) -> list[list]:
    return [[a, env.action_text(a)] for a in env.legal_actions()] if not env.done else []


def _observation(env, seat: int) -> dict[str, Any]:
    """The seat's observation, its legal actions always as ``[id, text]`` pairs."""
    obs = env.observation(seat)
    obs["legal_actions"] = _legal_pairs(env) if (not env.done and env.to_move == seat) else []
    return obs


def _summary(env) -> dict[str, Any]:
    """The end of a game for a person: each seat's payoff and the winner."""
    res = env.result()
    row = res.get("games") or res.get("matches") or {}
    out = {"returns": env.returns(), "winner": row.get("winner"), "row": row}
    if "hands" in res:
        out["rounds"] = res["hands"]
    return out


def _rules_text(env) -> dict[str, Any]:
    return {k: (v if isinstance(v, (int, float, str, bool)) else ", ".join(map(str, v)) if isinstance(v, (list, tuple))
                else str(v)) for k, v in env.rules.to_dict().items()}


def fast_copy(env):
    """The same game with the heuristic at every seat (the coach's rollout table), always a new object."""
    from cardsim.step_api import replay_record

    rec = env.record()
    rec.pop("result", None)
    rec["policies"] = [coach.ROLLOUT_POLICY] * env.players
    return replay_record(env.game, rec)


class PlaySession:
    """A game where ``seat`` is played from the page and the others by built-in policies."""

    def __init__(self, game: str, *, seat: int = 0, policy: str = "search:64", rules: Optional[dict] = None,
                 seed: Optional[int] = None, index: int = 0, coach_budget: float = 2.0,
                 review_budget: Optional[float] = None, bot_delay: float = 0.6, version: int = 0,
                 review: bool = True):
        import cardsim

        self.game = game
        self.policy = policy
        self.rules_in = dict(rules or {})
        self.seed = random.randrange(2**32) if seed is None else seed
        self.index = index
        self.coach_budget = coach_budget
        self.review_budget = review_budget if review_budget is not None else \
            (0.5 if game in coach.RUMMY else 1.0) * min(1.0, coach_budget)
        self.bot_delay = bot_delay
        self.review_on = review
        self.lock = threading.RLock()
        self.version = version
        self.env = cardsim.env(game, seed=self.seed, index=index, rules=self.rules_in, policy=policy)
        self.players = self.env.players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise ConfigError(f"--seat must be 0..{self.players - 1} for {game} with these rules, got {seat}")
        self.seat = seat
        self.twin = fast_copy(self.env)
        self.hint: Optional[dict] = None
        self._reviews: list[dict] = []
        self._pending = 0
        self._queue: "queue.Queue" = queue.Queue()
        self._worker = threading.Thread(target=self._review_loop, name="playtest-review", daemon=True)
        self._worker.start()

    # ------------------------------------------------------------------ state for the page
    def state(self) -> dict[str, Any]:
        with self.lock:
            env = self.env
            out = {"mode": "play", "game": self.game, "title": TITLES.get(self.game, self.game),
                   "players": self.players, "seat": self.seat, "version": self.version, "done": env.done,
                   "to_move": env.to_move, "decision": None if env.done else env.decision_kind(),
                   "your_turn": (not env.done) and env.to_move == self.seat,
                   "obs": _observation(env, self.seat), "rules": _rules_text(env), "policies": env.policies,
                   "seed": self.seed, "index": self.index, "moves": len(env.history), "bot_delay": self.bot_delay,
                   "hint": self.hint if self.hint and self.hint.get("version") == self.version else None,
                   "coach": {"budget": self.coach_budget, "measure": coach.measure_of(self.game)[1]}}
            if env.done:
                out["result"] = _summary(env)
                out["review"] = self.review()
            return out

    def _check_version(self, version) -> None:
        if isinstance(version, bool) or not isinstance(version, int):
            raise ConfigError("the request must name the game's version (an integer)")
        if version != self.version:
            raise StaleError(f"stale request: the game is at move {self.version}, the request was made at {version} "
                             f"(reload the page)")

    # ------------------------------------------------------------------ moves
    def act(self, action, version) -> dict[str, Any]:
        """The human seat's decision ``action`` (an id) on state ``version``."""
        with self.lock:
            self._check_version(version)
            env = self.env
            if env.done:
                raise TurnError("the game is over")
            if env.to_move != self.seat:
                raise TurnError(f"it is seat {env.to_move}'s turn, not yours (seat {self.seat})")
            if isinstance(action, bool) or not isinstance(action, int):
                raise ConfigError(f"an action is an integer id, got {action!r}")
            legal = env.legal_actions()
            if action not in legal:
                raise ConfigError(f"action {action} is not legal now")
            if len(legal) > 1 and self.review_on:  # a real choice: the review will look at it
                snapshot = self.twin.clone()
                hint = self.hint if self.hint and self.hint.get("version") == self.version else None
                self._pending += 1
                self._queue.put((len(env.history), snapshot, int(action), hint))
            self._step(int(action))
            return self.state()

    def advance(self, version) -> dict[str, Any]:
        """One move of the built-in seat to move (the page asks after its short delay)."""
        with self.lock:
            self._check_version(version)
            env = self.env
            if env.done:
                raise TurnError("the game is over")
            if env.to_move == self.seat:
                raise TurnError("it is your turn: the built-in players wait for you")
            self._step(env.policy_action())
            return self.state()

    def _step(self, action: int) -> None:
        self.env.step(action)
        self.twin.step(action)
        self.version += 1
        self.hint = None

    # ------------------------------------------------------------------ the coach
    def advise(self, version, budget: Optional[float] = None) -> dict[str, Any]:
        """The coach's estimates of the human seat's options now."""
        with self.lock:
            self._check_version(version)
            if self.env.done or self.env.to_move != self.seat:
                raise TurnError("a hint is for your own decision: wait for your turn")
            if self.hint and self.hint.get("version") == version:
                return self.hint
            table = self.twin.clone()
        advice = coach.advise(table, self.seat, budget=self.coach_budget if budget is None else budget, twin=table,
                              min_worlds=2)
        out = advice.to_dict()
        out["version"] = version
        with self.lock:
            if self.version == version:
                self.hint = out
        return out

    def _review_loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            step, table, action, hint = item
            try:
                if hint is not None:
                    adv = coach.Advice(**{k: v for k, v in hint.items() if k not in ("best", "version", "options")},
                                       options=[coach.Estimate(**e) for e in hint["options"]])
                else:
                    adv = coach.advise(table, self.seat, budget=self.review_budget, twin=table,
                                       min_worlds=1)
                entry = coach.review_entry(adv, action, step=step)
            except Exception as exc:  # pragma: no cover - shown on the page, never fatal
                entry = {"step": step, "error": f"{type(exc).__name__}: {exc}"}
            with self.lock:
                self._reviews.append(entry)
                self._pending -= 1

    def review(self) -> dict[str, Any]:
        with self.lock:
            rows = sorted(self._reviews, key=lambda r: r["step"])
            return {"entries": rows, "pending": self._pending, "measure": coach.measure_of(self.game)[1],
                    "higher_is_better": coach.measure_of(self.game)[2]}

    def wait_review(self, timeout: float = 60.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while self._pending and time.monotonic() < end:
            time.sleep(0.05)
        return self.review()

    def close(self) -> None:
        self._queue.put(None)

    # ------------------------------------------------------------------ records
    def record(self) -> dict[str, Any]:
        with self.lock:
            rec = self.env.record()
            rec["playtest"] = {"human_seat": self.seat}
            return rec

    def record_name(self) -> str:
        return f"{self.game}-seed{self.seed}-game{self.index}.json"


class ViewSession:
    """A finished (or stopped) game watched move by move, every hand face up."""

    CHECK_EVERY = 25

    def __init__(self, start_env, actions: list[tuple[int, int]], label: str):
        self.game = start_env.game
        self.players = start_env.players
        self.label = label
        self.actions = [(int(s), int(a)) for s, a in actions]
        self.lock = threading.RLock()
        self._checkpoints = {0: start_env.clone()}
        self._texts: list[str] = []
        g = start_env.clone()
        for i, (s, a) in enumerate(self.actions):
            if g.done or g.to_move != s:
                raise ConfigError(f"move {i}: seat {s} acts, but the game expects seat {g.to_move}")
            self._texts.append(g.action_text(a))
            g.step(a)
            if (i + 1) % self.CHECK_EVERY == 0:
                self._checkpoints[i + 1] = g.clone()
        self.final = g
        self.version = 0

    @classmethod
    def from_record(cls, source) -> "ViewSession":
        from cardsim.step_api import read_record, replay_record

        data = read_record(source)
        final = replay_record(None, data)
        start = dict(data)
        start["actions"] = []
        start.pop("result", None)
        first = replay_record(None, start)
        name = getattr(source, "name", None) or "record"
        return cls(first, final.history, f"record {name}: {final.game}, seed {final.seed}, game {final.index}")

    @classmethod
    def from_game(cls, game: str, *, seed: int, index: int, rules: dict, policies, games_per_match: int = 1,
                  label: str = "") -> "ViewSession":
        """Game ``index`` of run ``seed`` played again by its built-in policies (as ``replay --run``)."""
        import cardsim

        kwargs = {"games_per_match": games_per_match} if game in ("tienlen", "bigtwo") else {}
        g = cardsim.env(game, seed=seed, index=index, rules=rules, policy=policies, **kwargs)
        start = g.clone()
        while not g.done:
            g.step(g.policy_action())
        return cls(start, g.history, label or f"{game}, seed {seed}, game {index}")

    def _at(self, step: int):
        base = max(k for k in self._checkpoints if k <= step)
        g = self._checkpoints[base].clone()
        for s, a in self.actions[base:step]:
            g.step(a)
        return g

    def state(self, step: Optional[int] = None) -> dict[str, Any]:
        n = len(self.actions)
        step = n if step is None else step
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= n:
            raise ConfigError(f"step must be 0..{n}")
        with self.lock:
            g = self._at(step)
            out = {"mode": "view", "game": self.game, "title": TITLES.get(self.game, self.game),
                   "players": self.players, "label": self.label, "step": step, "steps": n, "done": g.done,
                   "to_move": g.to_move, "decision": None if g.done else g.decision_kind(),
                   "obs_all": [_observation(g, s) for s in range(self.players)],
                   "moves": [[s, t] for (s, _), t in zip(self.actions, self._texts)],
                   "rules": _rules_text(g), "policies": g.policies, "seed": g.seed, "index": g.index,
                   "seat": 0, "version": self.version}
            out["obs"] = out["obs_all"][0]
            if g.done:
                out["result"] = _summary(g)
            return out

    def record(self) -> dict[str, Any]:
        return self.final.record()

    def record_name(self) -> str:
        return f"{self.game}-seed{self.final.seed}-game{self.final.index}.json"


def warm_up(game: str) -> None:
    """Load the game's compiled kernels (stepping, resampling, the coach) once, so the first
    hint does not wait for them."""
    import cardsim

    g = cardsim.env(game, seed=1, index=0, policy="heuristic")
    seat = g.to_move
    coach.advise(g, seat, budget=0.0, min_worlds=1, max_worlds=1, rng=np.random.default_rng(0), twin=g)
