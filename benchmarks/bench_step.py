"""Stepping from Python: decisions per second through ``cardsim.env`` and PettingZoo, per game.

    python benchmarks/bench_step.py [--seconds 5] [--only tienlen,tusac]

For each game, one core, warm kernels (one game is played first to load them):

* ``env random``: whole games through :func:`cardsim.env`, each decision a uniform choice
  among ``legal_actions()`` (the issue's target: at least 10,000 steps a second);
* ``env policy``: the built-in heuristic at every seat through ``policy_action()``
  (each decision asks the compiled policy), and the same games played by the ``play``
  kernel in one call, the baseline: the ratio is what stepping from Python costs;
* ``pettingzoo``: the AEC loop (``agent_iter``, ``last``, ``action_space.sample(mask)``,
  ``step``), when PettingZoo is installed.
"""
from __future__ import annotations

import argparse
import random
import time

import numpy as np

import cardsim


def _timed(seconds, play_one):
    play_one(0)  # loads the compiled kernels
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        games += 1
        steps += play_one(games)
    dt = time.perf_counter() - t0
    return steps / dt, games / dt, steps / games


def env_random(game, seconds):
    rng = random.Random(1)

    def play_one(i):
        g = cardsim.env(game, seed=1, index=i, policy="random")
        n = 0
        while not g.done:
            g.step(rng.choice(g.legal_actions()))
            n += 1
        return n

    return _timed(seconds, play_one)


def env_policy(game, seconds):
    def play_one(i):
        g = cardsim.env(game, seed=2, index=i, policy="heuristic")
        n = 0
        while not g.done:
            g.step(g.policy_action())
            n += 1
        return n

    return _timed(seconds, play_one)


def kernel_games_per_second(game, games):
    t0 = time.perf_counter()
    cardsim.play(game, games=games, seed=2, policy="heuristic", threads=1, progress=False)
    return games / (time.perf_counter() - t0)


def pettingzoo_steps(game, seconds):
    try:
        from cardsim import pettingzoo as cz
    except ImportError:
        return None
    e = cz.env(game)
    e.reset(seed=1)
    for agent in e.possible_agents:
        e.action_space(agent).seed(1)
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            e.step(None if term or trunc else e.action_space(agent).sample(obs["action_mask"]))
            steps += 1
        e.reset()
    return steps / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--only", default="tienlen,tusac,loba,continental")
    args = ap.parse_args()
    print(f"$ python benchmarks/bench_step.py --seconds {args.seconds:g} --only {args.only}")
    print(f"{'game':12} {'env random':>16} {'steps/game':>10} {'env policy':>14} {'kernel':>12} {'ratio':>7} "
          f"{'pettingzoo':>14}")
    for game in args.only.split(","):
        r_steps, _, per_game = env_random(game, args.seconds)
        p_steps, p_games, _ = env_policy(game, args.seconds)
        cardsim.play(game, games=10, seed=2, policy="heuristic", threads=1, progress=False)  # load the kernels
        k_games = kernel_games_per_second(game, max(50, int(20 * p_games * args.seconds)))
        pz = pettingzoo_steps(game, args.seconds)
        pz_text = f"{pz:,.0f} steps/s" if pz is not None else "not installed"
        print(f"{game:12} {r_steps:>10,.0f} st/s {per_game:>10.0f} {p_games:>8,.1f} g/s {k_games:>8,.0f} g/s "
              f"{k_games / p_games:>6.0f}x {pz_text:>14}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
