"""ISMCTS's leaf evaluators side by side: seconds per rollout in Loba and Continental.

For each game, the same positions (the first decision of each round of a few random-policy
matches, and positions some decisions later) are evaluated by

* ``python``: OpenSpiel's ``mcts.RandomRolloutEvaluator`` (uniform legal actions, one Python
  step of the step interface at a time), the baseline;
* ``compiled``: :class:`cardsim.openspiel.CompiledRolloutEvaluator` (the kernels' random
  policy, the rest of the match in one compiled call; ``openspiel-ismcts:N:compiled``);
* ``compiled:B``: the same with ``laydown_budget=B`` inside the rollouts
  (``openspiel-ismcts:N:compiled:B``).

Printed: milliseconds per rollout (one thread, warm: every evaluator is run once first) and
the baseline's time over each one's (the speed-up). Then one whole ISMCTS decision at 64
simulations per evaluator.

    NUMBA_NUM_THREADS=1 python benchmarks/bench_ismcts_rollouts.py [--positions 6] [--rollouts 5] [--budget 10000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import cardsim.openspiel as cos


def positions(game: str, count: int, seed: int) -> list:
    """``count`` OpenSpiel states of ``game``: random-policy matches stepped 0, 40, 80, ... decisions."""
    loaded = pyspiel.load_game(cos.GAME_NAMES[game])
    out = []
    for i in range(count):
        state = loaded.new_initial_state()
        state.apply_action(i)  # deal i of the game's seed
        for _ in range(40 * (i % 3)):
            if state.is_terminal():
                break
            state.env.step(state.env.policy_action())
        out.append(state)
    return out


def per_rollout(evaluator, states, rollouts: int) -> float:
    t0 = time.perf_counter()
    for state in states:
        for _ in range(rollouts):
            evaluator.evaluate(state)
    return (time.perf_counter() - t0) / (len(states) * rollouts)


def decision(game: str, evaluator, sims: int) -> float:
    loaded = pyspiel.load_game(cos.GAME_NAMES[game])
    state = loaded.new_initial_state()
    state.apply_action(0)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.env.policy_action())
    bot = ismcts.ISMCTSBot(loaded, evaluator, 2.0, sims, random_state=np.random.RandomState(1))
    t0 = time.perf_counter()
    bot.step(state)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="loba,continental")
    ap.add_argument("--positions", type=int, default=6)
    ap.add_argument("--rollouts", type=int, default=5, help="rollouts per position and evaluator")
    ap.add_argument("--budget", type=int, default=10000, help="B of compiled:B")
    ap.add_argument("--sims", type=int, default=64, help="simulations of the whole decision timed")
    args = ap.parse_args()
    for game in args.games.split(","):
        states = positions(game, args.positions, 1)
        evaluators = {
            "python": mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)),
            "compiled": cos.CompiledRolloutEvaluator(1, np.random.RandomState(1)),
            f"compiled:{args.budget}": cos.CompiledRolloutEvaluator(1, np.random.RandomState(1),
                                                                    laydown_budget=args.budget),
        }
        for evaluator in evaluators.values():  # compile and warm
            evaluator.evaluate(states[0])
        seconds = {name: per_rollout(ev, states, args.rollouts) for name, ev in evaluators.items()}
        base = seconds["python"]
        print(f"{game}: {args.positions} positions x {args.rollouts} rollouts, one thread")
        print(f"  {'evaluator':<16} {'ms / rollout':>12} {'speed-up':>9} {'decision at ' + str(args.sims):>16}")
        for name, ev in evaluators.items():
            print(f"  {name:<16} {1000 * seconds[name]:>12.2f} {base / seconds[name]:>8.1f}x "
                  f"{decision(game, ev, args.sims):>14.2f} s")


if __name__ == "__main__":
    main()
