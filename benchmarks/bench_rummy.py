"""Throughput of the contract-rummy meld solver and of ``cardsim deal loba / continental``.

Run::

    python benchmarks/bench_rummy.py            # ~1 minute

Prints, for every contract of both games, contract checks/s of the numba solver
(:func:`simcore.rummy.melds.contract_ok`, one core) on random dealt hands of the
round's size, and of the pure-Python brute-force reference
(:func:`simcore.rummy.melds.ref_contract_ok`: all valid melds, then disjoint choices)
on a sample of the same hands, with the ratio; then deals/s of the deal tasks (all
rounds of a game per deal, 4 seats, with and without ``draws``) on 1 thread and on all
threads. Speed is measured here, never asserted in tests.
"""
from __future__ import annotations

import argparse
import time

import numba
import numpy as np
from numba import njit

from cardsim.simcore.rummy import melds as M
from cardsim.simcore.rummy.cards import hand_planes, make_deck, planes_cards
from cardsim.simcore.rummy.rules import ContinentalRules
from cardsim.simcore.rummy.deal import deal_counts
from cardsim.simcore.rummy.rules import LobaRules


@njit(cache=True)
def _check_all(a1, a2, jk, k, m, mp, reps):
    hits = 0
    for _ in range(reps):
        for i in range(a1.shape[0]):
            hits += M.contract_ok(a1[i], a2[i], jk[i], k, m, mp)
    return hits


def random_hands(rng, n, size, jokers):
    deck = make_deck(jokers)
    a1 = np.zeros(n, np.uint64)
    a2 = np.zeros(n, np.uint64)
    jk = np.zeros(n, np.int64)
    for i in range(n):
        x, y, z = hand_planes(rng.choice(deck, size, replace=False).tolist())
        a1[i], a2[i], jk[i] = x, y, z
    return a1, a2, jk


def solver_rates(game, rules, n_hands, n_ref, seconds):
    rng = np.random.default_rng(1)
    mp = rules.meld_params()
    rows = []
    for label, k, m, h in rules.rounds():
        a1, a2, jk = random_hands(rng, n_hands, h, rules.deck_jokers())
        _check_all(a1[:10], a2[:10], jk[:10], k, m, mp, 1)
        reps = 1
        while True:
            t = time.perf_counter()
            hits = _check_all(a1, a2, jk, k, m, mp, reps)
            dt = time.perf_counter() - t
            if dt > seconds / 10 or reps > 1000:
                break
            reps *= 4
        fast = reps * n_hands / dt
        t = time.perf_counter()
        ref_hits = 0
        for i in range(n_ref):
            cards = planes_cards(int(a1[i]), int(a2[i]), int(jk[i]))
            ref_hits += M.ref_contract_ok(cards, k, m, mp, exact=(game == "loba"))
        slow = n_ref / (time.perf_counter() - t)
        agree = sum(bool(M.contract_ok(a1[i], a2[i], jk[i], k, m, mp)) for i in range(n_ref)) == ref_hits
        rows.append((game, label, h, hits / (reps * n_hands), fast, slow, agree))
    return rows


def deal_rate(rules, threads, n, draws):
    numba.set_num_threads(threads)
    rounds = [(k, m, h) for _, k, m, h in rules.rounds()]
    deal_counts(1, 0, 1000, rules.players, rounds, draws, rules.deck_jokers(), rules.meld_params())
    t = time.perf_counter()
    deal_counts(2, 0, n, rules.players, rounds, draws, rules.deck_jokers(), rules.meld_params())
    return n / (time.perf_counter() - t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000, help="random hands per contract")
    parser.add_argument("--ref", type=int, default=40, help="hands per contract for the Python reference")
    parser.add_argument("--deals", type=int, default=100_000, help="deals per deal-task measurement")
    args = parser.parse_args()
    print("contract checks/s, one core (numba solver vs pure-Python brute force)")
    print(f"{'game':12s} {'round':10s} {'cards':>5s} {'rate':>7s} {'numba/s':>12s} {'python/s':>10s} "
          f"{'ratio':>9s} agree")
    all_fast = []
    for game, rules in [("loba", LobaRules(contracts=("2T", "1E1T", "2E", "3T", "2T1E", "2E1T", "3E"))),
                        ("continental", ContinentalRules())]:
        for game_, label, h, rate, fast, slow, agree in solver_rates(game, rules, args.hands, args.ref, 1.0):
            all_fast.append(fast)
            print(f"{game_:12s} {label:10s} {h:5d} {rate:7.4f} {fast:12,.0f} {slow:10,.1f} {fast / slow:9,.0f} "
                  f"{agree}")
    print(f"slowest contract: {min(all_fast):,.0f} checks/s")
    print()
    print("deal task: deals/s (every round of the game per deal, 4 seats)")
    limit = numba.config.NUMBA_NUM_THREADS
    for game, rules in [("loba", LobaRules()), ("continental", ContinentalRules())]:
        for draws in (0, 5):
            r1 = deal_rate(rules, 1, args.deals, draws)
            rn = deal_rate(rules, limit, args.deals, draws)
            print(f"{game:12s} draws={draws}: {r1:10,.0f} deals/s on 1 thread, {rn:10,.0f} on {limit} threads "
                  f"({r1 * len(rules.rounds()):,.0f} round-deals/s/thread)")


if __name__ == "__main__":
    main()
