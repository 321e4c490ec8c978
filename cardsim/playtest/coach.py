"""The coach: what each legal option of a seat is worth now, by a non-peeking Monte Carlo.

>>> import cardsim
>>> from cardsim.playtest.coach import advise
>>> g = cardsim.env("tienlen", seed=3, policy="heuristic")              # doctest: +SKIP
>>> a = advise(g, budget=1.0)                                           # doctest: +SKIP
>>> a.best.text, a.best.value, a.worlds                                 # doctest: +SKIP

Method. For each world ``w = 1..W`` the seat's unseen cards are dealt again by the game's
own world sampler (:meth:`cardsim.step_api.Env.resample`: consistent with everything the
seat has seen, so the coach never looks at hidden cards). In that world every legal option
is applied in turn (the same world for every option: common random numbers, so the
differences between options are sharper than the values) and the game is played on to its
end by the built-in heuristic for every seat. The estimate of an option is the average over
the worlds of

- Tiến Lên and Tứ Sắc: 1 if the seat wins the game, else 0 (the chance to win);
- Loba and Continental: the seat's points of the current round (lower is better: the
  rummy games count points against you), the rollout stopping at the end of the round.

Worlds are added until the time budget is spent (at least ``min_worlds``, at most
``max_worlds``). Limits: the rollouts are played by the heuristic, not by you nor by the
table's real players (a strong search opponent plays better than the rollout assumes), and
the worlds are drawn uniformly (Tiến Lên, Tứ Sắc) or by the search's own sampler (rummy),
without reading the opponents' past choices; with a few dozen worlds an estimate's standard
error is several points of percentage. The ``stderr`` of each option says how close.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Optional, Sequence

import numpy as np

from cardsim.simcore.framework.config import ConfigError

#: Built-in policies cheap enough to play rollouts with (no search inside).
FAST_POLICIES = ("heuristic", "random", "greedy")
#: The policy that plays the rollouts.
ROLLOUT_POLICY = "heuristic"
RUMMY = ("loba", "continental")


@dataclass
class Estimate:
    """One option's estimate: ``value`` is the mean over ``worlds`` worlds, ``stderr`` its standard error."""

    action: int
    text: str
    value: float
    stderr: float
    worlds: int


@dataclass
class Advice:
    """The coach's answer for one decision (see the module docstring)."""

    game: str
    seat: int
    decision: str
    measure: str              # "win" (chance to win) or "round_points" (expected points this round)
    label: str                # what ``value`` is, for a person
    higher_is_better: bool
    worlds: int
    seconds: float
    options: list[Estimate] = field(default_factory=list)  # best first

    @property
    def best(self) -> Estimate:
        return self.options[0]

    def estimate(self, action: int) -> Estimate:
        for e in self.options:
            if e.action == action:
                return e
        raise KeyError(action)

    def gap(self, action: int) -> float:
        """How much worse ``action`` is than the best option, in the measure's units (>= 0)."""
        d = self.best.value - self.estimate(action).value
        return d if self.higher_is_better else -d

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["best"] = self.best.action if self.options else None
        return out


def measure_of(game: str) -> tuple[str, str, bool]:
    """``(measure, label, higher_is_better)`` of the coach for ``game``."""
    if game in RUMMY:
        return "round_points", "expected points this round (lower is better)", False
    return "win", "chance to win", True


def fast_twin(env, policy: str = ROLLOUT_POLICY):
    """The same game (same deal, same moves so far) with ``policy`` at every seat: the table
    the rollouts are played on. ``env`` itself when its policies are already all fast."""
    if all(p.split(":")[0] in FAST_POLICIES for p in env.policies):
        return env
    from cardsim.step_api import replay_record

    rec = env.record()
    rec.pop("result", None)
    rec["policies"] = [policy] * env.players
    twin = replay_record(env.game, rec)
    if not twin.done:
        seat = twin.to_move
        if twin.information_key(seat) != env.information_key(seat):  # pragma: no cover - a step-interface bug
            raise ConfigError("the coach's copy of the game does not match the game (the rollout table diverged)")
    return twin


class _Scorer:
    """Plays a world on to the end (of the game, or of the round for rummy) and scores it for ``seat``."""

    def __init__(self, env, seat: int):
        self.game = env.game
        self.seat = seat
        self.rummy = env.game in RUMMY
        if self.rummy:
            off = 0
            for name, n in env.observation_layout():
                if name == "totals":
                    self.tot = (off, n)
                elif name == "round":
                    self.rnd = (off, n)
                off += n

    def _round_and_total(self, g):
        v = g.observation_vector(self.seat)
        o, n = self.rnd
        t0, _ = self.tot
        return int(np.argmax(v[o:o + n])), float(v[t0 + self.seat])

    def start(self, g):
        return self._round_and_total(g) if self.rummy else None

    def play_out(self, g, mark) -> float:
        if not self.rummy:
            while not g.done:
                g.step(g.policy_action())
            row = g.result()["games"]
            return 1.0 if int(row.get("winner", -1)) == self.seat else 0.0
        r0, t0 = mark
        inner = g._g
        if isinstance(getattr(inner, "r", None), int):
            # the step game's round number: cheap to read (Env has no public round number, and
            # observation_vector costs more than a whole step)
            while not g.done and inner.r == r0:
                g.step(g.policy_action())
        else:  # pragma: no cover
            while not g.done and self._round_and_total(g)[0] == r0:
                g.step(g.policy_action())
        if g.done:
            return -float(g.returns()[self.seat]) - t0
        return self._round_and_total(g)[1] - t0


def advise(env, seat: Optional[int] = None, *, budget: float = 2.0, min_worlds: int = 4,
           max_worlds: Optional[int] = None, rng: Optional[np.random.Generator] = None,
           actions: Optional[Sequence[int]] = None, twin=None) -> Advice:
    """The coach's estimate of every legal option of ``seat`` (the seat to move) in ``env``.

    ``budget``: seconds to spend (worlds are added while time is left; at least
    ``min_worlds``, at most ``max_worlds``, default 400, rummy 120). ``actions``: only these
    options (default: every legal one). ``twin``: the same game with fast built-in policies,
    if the caller keeps one (default: :func:`fast_twin`). ``env`` is not changed."""
    if env.done:
        raise ConfigError("the game is over: no decision to advise on")
    seat = env.to_move if seat is None else int(seat)
    if seat != env.to_move:
        raise ConfigError(f"seat {seat} is not the seat to move (seat {env.to_move} must decide now)")
    rng = np.random.default_rng() if rng is None else rng
    measure, label, higher = measure_of(env.game)
    if max_worlds is None:
        max_worlds = 120 if env.game in RUMMY else 400
    t_start = time.perf_counter()
    base = fast_twin(env) if twin is None else twin
    legal = env.legal_actions()
    options = list(legal) if actions is None else [int(a) for a in actions]
    for a in options:
        if a not in legal:
            raise ConfigError(f"action {a} is not legal for seat {seat} now")
    texts = {a: env.action_text(a) for a in options}
    scorer = _Scorer(base, seat)
    sums = np.zeros(len(options))
    sq = np.zeros(len(options))
    worlds = 0
    while worlds < max_worlds and (worlds < min_worlds or time.perf_counter() - t_start < budget):
        world = base.resample(seat, rng)
        mark = scorer.start(world)
        for i, a in enumerate(options):
            g = world.clone() if i < len(options) - 1 else world
            g.step(a)
            x = scorer.play_out(g, mark)
            sums[i] += x
            sq[i] += x * x
        worlds += 1
    out = []
    for i, a in enumerate(options):
        mean = sums[i] / worlds
        var = max(sq[i] / worlds - mean * mean, 0.0)
        se = math.sqrt(var / max(worlds - 1, 1))
        out.append(Estimate(int(a), texts[a], float(mean), float(se), worlds))
    out.sort(key=lambda e: (-e.value if higher else e.value, e.action))
    return Advice(env.game, seat, env.decision_kind(), measure, label, higher, worlds,
                  round(time.perf_counter() - t_start, 3), out)


def review_entry(advice: Advice, played: int, *, step: int) -> dict[str, Any]:
    """One line of the end-of-game review: the move played, its estimate, the best move's, the gap."""
    mine = advice.estimate(played)
    return {"step": step, "decision": advice.decision, "played": mine.text, "played_value": mine.value,
            "best": advice.best.text, "best_value": advice.best.value, "gap": advice.gap(played),
            "options": len(advice.options), "worlds": advice.worlds, "measure": advice.measure,
            "label": advice.label, "higher_is_better": advice.higher_is_better}
