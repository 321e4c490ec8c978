"""Tiến Lên search policy speed: rollouts per second per core, time per decision, games/s.

    .venv/bin/python benchmarks/bench_search_tienlen.py [--positions 300] [--games 400] [--budget 64]

* Decisions: positions at every decision of seat 0 (``search`` at ``--budget``) in games
  against three heuristic seats; each is searched once more and timed alone (1 thread).
  Rollouts/s = rollouts made / time; time per decision over the searched decisions
  (forced ones and plays that go out take no rollouts and are listed apart).
* Games: one ``search`` seat at ``--budget`` against three heuristic seats,
  ``play_chunk`` with 1 thread and with 2 threads (numba.set_num_threads), same games.
Compile time is excluded (a warm-up call first).
"""
from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from cardsim.simcore.tienlen.play import deal_with_state, play_chunk, seat_weights
from cardsim.simcore.tienlen.rules import kernel_params
from cardsim.simcore.tienlen.rules import TienLenRules
from cardsim.simcore.tienlen.probes import decide_kernel, search_position


def positions(rules, budget, wanted, seed=2024):
    policies = [f"search:{budget}"] + ["heuristic"] * (rules.players - 1)
    out = []
    index = 0
    while len(out) < wanted:
        dealt, _ = deal_with_state(seed, index, rules.players, rules.cards_per_player)
        nth = 0
        while len(out) < wanted:
            pos = search_position(dealt, rules, policies, 0, nth, search_state=index)
            if pos is None:
                break
            out.append(pos)
            nth += 1
        index += 1
    return out


def time_decisions(rules, budget, pos):
    prm = kernel_params(rules)
    st, hands, srng, opp_ll = pos[0]
    wts = seat_weights(None, rules.players)
    decide_kernel(st.copy(), hands.copy(), prm, np.int64(budget), np.uint64(srng), opp_ll.copy(), wts)  # compile / load cache
    searched_time = 0.0
    searched_cpu = 0.0
    rollouts = 0
    searched = 0
    free = 0
    for st, hands, srng, opp_ll in pos:
        st, hands, opp_ll = st.copy(), hands.copy(), opp_ll.copy()
        t, c = time.perf_counter(), time.thread_time()
        used = decide_kernel(st, hands, prm, np.int64(budget), np.uint64(srng), opp_ll, wts)[3]
        dt, dc = time.perf_counter() - t, time.thread_time() - c
        if used:
            searched += 1
            rollouts += used
            searched_time += dt
            searched_cpu += dc
        else:
            free += 1
    return rollouts, searched_time, searched_cpu, searched, free


def games_rate(rules, budget, n, threads, seed=7):
    numba.set_num_threads(threads)
    pol = [f"search:{budget}"] + ["heuristic"] * (rules.players - 1)
    play_chunk(seed, 0, 8, rules, pol)
    t, c = time.perf_counter(), time.process_time()
    cols = play_chunk(seed, 0, n, rules, pol)
    return n / (time.perf_counter() - t), n / (time.process_time() - c), cols


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=300, help="decisions of seat 0 to time")
    ap.add_argument("--games", type=int, default=400, help="games for the games/s figures")
    ap.add_argument("--budget", type=int, default=64, help="rollouts per decision")
    ap.add_argument("--repeat", type=int, default=5, help="time the decisions this many times; report the "
                                                          "fastest pass (timeit's rule: slower passes measure "
                                                          "other load on the machine, not the code)")
    args = ap.parse_args()
    rules = TienLenRules()
    numba.set_num_threads(1)
    pos = positions(rules, args.budget, args.positions)
    passes = [time_decisions(rules, args.budget, pos) for _ in range(max(1, args.repeat))]
    rollouts, seconds, cpu, searched, free = min(passes, key=lambda p: p[1])
    median = sorted(p[0] / p[1] for p in passes)[len(passes) // 2]
    print(f"Tiến Lên search, default rules, budget {args.budget}, 1 thread, fastest of {len(passes)} passes "
          f"(wall clock; CPU time of the thread in brackets; median pass {median:,.0f} rollouts/s)")
    print(f"decisions timed: {searched} searched, {free} forced or going out (no rollouts)")
    print(f"rollouts/s per core:            {rollouts / seconds:>12,.0f}  ({rollouts / cpu:,.0f})")
    print(f"time per searched decision:     {1e3 * seconds / searched:>12.3f} ms  ({1e3 * cpu / searched:.3f} ms; "
          f"{rollouts / searched:.1f} rollouts each)")
    one, one_cpu, cols_one = games_rate(rules, args.budget, args.games, 1)
    two, two_cpu, cols_two = games_rate(rules, args.budget, args.games, min(2, numba.config.NUMBA_NUM_THREADS))
    assert all(np.array_equal(cols_one[k], cols_two[k]) for k in cols_one)
    print(f"games/s, 1 search seat, 1 thread: {one:>10,.1f}  ({one_cpu:,.1f} per CPU-second)")
    print(f"games/s, 1 search seat, 2 threads:{two:>10,.1f}  ({two / one:.2f}x; {two_cpu:,.1f} per CPU-second)")


if __name__ == "__main__":
    main()
