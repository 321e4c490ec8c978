"""Tứ Sắc search policy: speed (rollouts/s per core, time per decision, games/s with one
search seat, 1 vs 2 threads) and strength (search vs heuristic, budget vs budget, paired on
common deals).

    .venv/bin/python benchmarks/bench_search_tusac.py [--decisions 300] [--games 400]
        [--strength-games 2000] [--budgets 16,64,256]

Speed: decisions are taken from real games (seat 0 searching, the others heuristic) and
timed one by one at budget 64 with ``numba.set_num_threads(1)``; a rollout is one
candidate played out to the end of the game on one sampled world. Strength: the same
deals ``0..n-1`` of one seed are played with seat 0 = each policy and the other seats
heuristic; the win-rate gain of seat 0 over the all-heuristic games is a paired
difference, shown with its z-score. Compile time is excluded (warm-up calls).
"""
from __future__ import annotations

import argparse
import math
import time

import numba
import numpy as np

from cardsim.simcore.tusac.claims import MAX_OPTS
from cardsim.simcore.tusac.play import decision_state, play_chunk, search_decision, tables
from cardsim.simcore.tusac.rules import TuSacRules, kernel_params
from cardsim.simcore.tusac.search import MAX_CANDIDATES, candidates


def rollouts_of(rules, state, budget):
    """Rollouts the search runs at this decision: worlds x candidates."""
    tt, st, _, _ = tables(rules)
    cand = np.zeros(MAX_CANDIDATES, np.int64)
    okind, opts, orev = np.zeros(MAX_OPTS, np.int64), np.zeros(MAX_OPTS, np.int64), np.zeros((MAX_OPTS, 3), np.int64)
    _, n = candidates(kernel_params(rules), state["cur"], state["hands"], state["table"], state["discards"],
                      state["locked"], okind, opts, orev, tt, st, None, cand)
    return 0 if n <= 1 else max(1, budget // n) * n


def decision_speed(rules, n_decisions, budget=64):
    policies = [f"search:{budget}", "heuristic", "heuristic", "heuristic"]
    states = []
    index = 0
    while len(states) < n_decisions:
        for nth in range(40):
            s = decision_state(99, index, rules, policies, nth)
            if s is None:
                break
            states.append(s)
        index += 1
    states = states[:n_decisions]
    search_decision(rules, states[0], budget)  # warm-up
    rollouts = sum(rollouts_of(rules, s, budget) for s in states)
    t = time.perf_counter()
    for s in states:
        search_decision(rules, s, budget)
    dt = time.perf_counter() - t
    return dt / len(states), rollouts / dt, rollouts / len(states)


def games_per_second(rules, policies, n, threads, seed=7):
    numba.set_num_threads(threads)
    play_chunk(seed, 10**6, 4, rules, policies)  # warm-up
    t = time.perf_counter()
    play_chunk(seed, 0, n, rules, policies, n_blocks=max(threads * 8, 1))
    return n / (time.perf_counter() - t)


def paired(cols, base, seat=0):
    diff = (cols["winner"] == seat).astype(float) - (base["winner"] == seat).astype(float)
    return diff.mean(), diff.mean() / (diff.std(ddof=1) / math.sqrt(len(diff)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=int, default=300, help="decisions timed at budget 64")
    ap.add_argument("--games", type=int, default=400, help="games per games/s measurement")
    ap.add_argument("--strength-games", type=int, default=2000, help="deals per strength comparison (0: skip)")
    ap.add_argument("--budgets", default="16,64,256", help="search budgets compared for strength")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    rules = TuSacRules()
    numba.set_num_threads(1)
    per_decision, rollouts_per_s, mean_rollouts = decision_speed(rules, args.decisions)
    print("Tứ Sắc search, default rules, 4 players; seat 0 searches, seats 1-3 heuristic")
    print(f"time per decision at budget 64 (1 thread): {per_decision * 1e3:.2f} ms "
          f"({mean_rollouts:.1f} rollouts per decision)")
    print(f"rollouts per second per core:              {rollouts_per_s:,.0f}")
    one = ["search:64", "heuristic", "heuristic", "heuristic"]
    rates = {}
    for threads in sorted({1, args.threads}):
        rates[threads] = games_per_second(rules, one, args.games, threads)
        print(f"games/s, one search:64 seat, {threads} thread(s):  {rates[threads]:,.1f}")
    if len(rates) > 1:
        print(f"speed-up {args.threads} threads vs 1:             {rates[args.threads] / rates[1]:.2f}x")
    heur = games_per_second(rules, "heuristic", args.games * 50, 1)
    print(f"games/s, all heuristic, 1 thread:          {heur:,.0f}")
    if args.strength_games:
        numba.set_num_threads(args.threads)
        n = args.strength_games
        base = play_chunk(41, 0, n, rules, "heuristic")
        print(f"\nstrength on deals 0..{n - 1} of seed 41 (seat 0's win rate; paired with all-heuristic games)")
        print(f"{'seat 0 policy':<16}{'win rate':>9}{'gain':>9}{'z':>7}")
        print(f"{'heuristic':<16}{(base['winner'] == 0).mean():>9.3f}")
        results = {}
        for budget in [int(b) for b in args.budgets.split(",")]:
            policy = f"search:{budget}"
            cols = play_chunk(41, 0, n, rules, [policy, "heuristic", "heuristic", "heuristic"])
            results[budget] = cols
            gain, z = paired(cols, base)
            print(f"{policy:<16}{(cols['winner'] == 0).mean():>9.3f}{gain:>+9.3f}{z:>7.1f}")
        budgets = sorted(results)
        for small, big in zip(budgets, budgets[1:]):
            gain, z = paired(results[big], results[small])
            print(f"search:{big} vs search:{small}: win-rate gain {gain:+.3f}, z {z:.1f}")


if __name__ == "__main__":
    main()
