"""Loba and Continental search policy: speed (rollouts/s, time per decision, games/s) and strength.

    .venv/bin/python benchmarks/bench_search_rummy.py [--games 48] [--strength-games 40] [--budget 64]
        [--only loba,loba_buys,continental] [--seeds 9000,9040,9080,9120] [--no-bigger | --only-bigger]
        [--repeats 3] [--skip-speed] [--skip-strength] [--parts]

Speed (compile excluded by a warm-up call):

* time per decision at ``--budget``, one thread: ``search:B`` (which races its candidates,
  stopping early) and ``search-full:B`` (every candidate in every world) on the same states,
  the search seat's first decisions in rounds of a few games
  (:func:`cardsim.simcore.rummy.play.search_decision`); how many of their decisions are the
  same, and the full search's rollouts per second per core (best of ``--repeats``
  interleaved passes over the states);
* games (whole matches) per second with one ``search:BUDGET`` seat and three heuristic
  seats, 1 and 2 threads (``play_chunk`` over ``--games`` games, one game per block, best
  of ``--repeats`` interleaved runs: 8 games left a thread idle behind the longest match,
  and jobs of others on shared cores only ever slow a run down).

``--parts``: where a searched decision's time goes, per searched decision state (the same
states): microseconds per sampled world (:func:`.search.sample_world`) and per rollout (a
copy of the world, the candidate applied, the round played to its end with the heuristic),
and per rollout with the shipped learned policy at every seat instead (``learned``, and its
ratio to the heuristic rollout: what learned rollouts would cost the rummy searches).

Strength (paired on common deals: every round's deal is the same whatever the policies):
per round, the seat-0 points of ``search:B`` minus those of the heuristic in the same seat
on the same deal (the other seats heuristic), mean, standard error and z (rounds are
independent deals), pooled over ``--seeds``; also ``search:4B`` against ``search:B``.
Negative = the first policy scores fewer points.

Also per match: how often seat 0 won the match with each policy, and the z of the paired
difference (matches are few, so this z is much weaker than the per-round one).

Measured (2 cores shared with other jobs; strength figures do not depend on load; the strength
lines were measured by earlier versions of the search, before racing):

* ``--only loba,loba_buys --skip-speed --no-bigger --seeds 9000,9040,9080,9120,9160,9200,9240,9280``
  (320 matches, 1,920 rounds each): search:64 minus heuristic, Loba -4.14 points per round,
  se 0.64, z -6.48 (seat 0 won 31.9% of the matches against 26.9%, z 2.2); Loba with buys
  -4.60, se 0.69, z -6.64 (30.3% against 23.1%, z 2.9). On the first four seeds alone
  (the default ``--seeds``): Loba -4.31, z -4.53; Loba with buys -4.25, z -4.24.
* ``--only continental --skip-speed --no-bigger`` (the default 4 seeds, 1,120 rounds):
  -6.36 points per round, se 1.17, z -5.42 (34.4% of the matches against 27.5%).
* ``--only loba --skip-speed --only-bigger`` (960 rounds): search:256 minus search:64
  -0.78 points per round, se 0.88, z -0.89: not significant (matches 35.6% against 37.5%).
* ``--skip-strength --only loba,continental --games 8 --repeats 3 --parts`` (machine idle):
  Loba 1.67 ms per decision (``search-full:64`` 2.65 ms, the same decision in 128 of 128
  states), 6.6 games/s on one thread, 12.2 on two; Continental 1.95 ms (full 3.41 ms, 192 of
  193 the same), 3.9 and 7.1 games/s. A sampled world 20 / 12 µs, a heuristic rollout 30 /
  35 µs, a learned rollout 129 / 156 µs (4.3x / 4.4x). Runs drift by about 10%.
"""
from __future__ import annotations

import argparse
import time

import numba
import numpy as np
from numba import njit

from cardsim.simcore.rummy.play import decision_state, play_chunk, search_decision
from cardsim.simcore.rummy.luck import N_LUCK
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules
from cardsim.simcore.rummy import search as SR
from cardsim.simcore.primitives.rng import next_u64
from cardsim.simcore.rummy.engine import advance, apply_decision
from cardsim.simcore.rummy.learned import read_weights, weights_file
from cardsim.simcore.rummy.policies import learned_choose
from cardsim.simcore.rummy.play import _Setup
from cardsim.simcore.rummy.state import P_PLAYERS, copy_state, kernel_params, new_state
from cardsim.simcore.framework.tasks import FULL_FLAG

NO_LUCK = np.zeros((0, N_LUCK))  # the draws' luck is not recorded here


def decision_states(rules, budget, games=3):
    """The states of every second decision of seat 0 (``search:budget``, the others heuristic)
    in the first decisions of every round of ``games`` games (run seed 1)."""
    pol = [f"search:{budget}"] + ["heuristic"] * (rules.players - 1)
    states = []
    for index in range(games):
        for r in range(len(rules.rounds())):
            for nth in range(0, 24, 2):
                ds = decision_state(1, index, r, rules, pol, nth)
                if ds is None:
                    break
                states.append(ds)
    return states


def decision_timing(rules, budget, games=3, repeats=1):
    """Per searched decision (decisions with one candidate skipped): mean seconds of
    ``search:budget`` (racing) and of ``search-full:budget`` on the same states (best of
    ``repeats`` interleaved passes over the states), the full search's rollouts per second,
    how many decisions agree, and how many were searched."""
    states = decision_states(rules, budget, games)
    prm = kernel_params(rules)
    mp = tuple(int(x) for x in rules.meld_params())
    searched = []
    rollouts = 0
    for ds in states:
        cand = np.zeros(SR.MAX_CANDIDATES, np.int64)
        st = tuple(a.copy() for a in ds["st"])
        nc = int(SR.candidates(st, np.int64(ds["seat"]), prm, mp, cand))
        if nc >= 2:
            searched.append(ds)
            rollouts += max(1, budget // nc) * nc
    spent = {}
    chosen = {}
    for word in (budget, budget | FULL_FLAG):
        search_decision(rules, searched[0], word)  # compile
    for _ in range(repeats):  # interleaved, best of: other jobs on shared cores only slow a pass down
        for word in (budget, budget | FULL_FLAG):
            t = time.perf_counter()
            chosen[word] = [search_decision(rules, ds, word)[0] for ds in searched]
            spent[word] = min(spent.get(word, np.inf), time.perf_counter() - t)
    same = sum(a == b for a, b in zip(chosen[budget], chosen[budget | FULL_FLAG]))
    n = len(searched)
    return spent[budget] / n, spent[budget | FULL_FLAG] / n, rollouts / spent[budget | FULL_FLAG], same, n


@njit
def _sample_worlds(st, me, prm, mp, reps, sstate):
    world = new_state(prm[P_PLAYERS], st[10].shape[0])
    for _ in range(reps):
        sstate = SR.sample_world(st, me, prm, mp, world, sstate)
    return sstate


@njit
def _rollouts(st, me, prm, mp, cseat, reach, reps, sstate, decision, wts, learned):
    """``reps`` rollouts from one sampled world: the heuristic at every seat, or with ``learned``
    the learned policy (weights ``wts``) at every seat."""
    world = new_state(prm[P_PLAYERS], st[10].shape[0])
    work = new_state(prm[P_PLAYERS], st[10].shape[0])
    log = np.zeros((1, 6), np.int64)
    sstate = SR.sample_world(st, me, prm, mp, world, sstate)
    for _ in range(reps):
        sstate, rs = next_u64(sstate)
        copy_state(work, world)
        rs, nl = apply_decision(work, decision, prm, mp, cseat, reach, rs, log, np.int64(0), np.bool_(False), NO_LUCK)
        if not learned:
            SR.rollout(work, prm, mp, cseat, reach, rs, log, NO_LUCK)
            continue
        while True:
            rs, nl, q = advance(work, prm, mp, cseat, rs, log, nl, np.bool_(False), NO_LUCK)
            if q < 0:
                break
            d = learned_choose(work, q, prm, mp, wts)
            rs, nl = apply_decision(work, d, prm, mp, cseat, reach, rs, log, nl, np.bool_(False), NO_LUCK)
    return sstate


def decision_parts(rules, games=3, reps=50):
    """Mean microseconds per sampled world, per rollout and per rollout with the shipped learned
    policy at every seat, over the searched decision states."""
    s = _Setup(rules, "heuristic", None, 10_000)
    wts = np.tile(read_weights(weights_file(rules.GAME)), (rules.players, 1))
    cand = np.zeros(SR.MAX_CANDIDATES, np.int64)
    sample = roll = lroll = 0.0
    n = 0
    for ds in decision_states(rules, 64, games):
        st, me = tuple(a.copy() for a in ds["st"]), np.int64(ds["seat"])
        if SR.candidates(st, me, s.prm, s.mp, cand) < 2:
            continue
        if n == 0:  # compile
            _sample_worlds(st, me, s.prm, s.mp, 1, np.uint64(5))
            for learned in (False, True):
                _rollouts(st, me, s.prm, s.mp, s.cseat, s.reach, 1, np.uint64(5), cand[0], wts, learned)
        t = time.perf_counter()
        _sample_worlds(st, me, s.prm, s.mp, reps, np.uint64(5))
        sample += (time.perf_counter() - t) / reps
        for learned in (False, True):
            t = time.perf_counter()
            _rollouts(st, me, s.prm, s.mp, s.cseat, s.reach, reps, np.uint64(5), cand[0], wts, learned)
            if learned:
                lroll += (time.perf_counter() - t) / reps
            else:
                roll += (time.perf_counter() - t) / reps
        n += 1
    return sample / n * 1e6, roll / n * 1e6, lroll / n * 1e6, n


def games_per_second(rules, budget, games, threads):
    pol = [f"search:{budget}"] + ["heuristic"] * (rules.players - 1)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        play_chunk(3, 0, 1, rules, pol)
        t = time.perf_counter()
        play_chunk(3, 0, games, rules, pol, n_blocks=games)
        return games / (time.perf_counter() - t)
    finally:
        numba.set_num_threads(old)


def paired_diffs(rules, first, second, games, seed=2024):
    """Per-round seat-0 points of policy ``first`` minus ``second`` (others heuristic), same deals,
    per-round "seat 0 went out" differences, and per match "seat 0 won the match" of each policy
    (``float[games, 2]``)."""
    rest = ["heuristic"] * (rules.players - 1)
    a = play_chunk(seed, 0, games, rules, [first] + rest)
    b = play_chunk(seed, 0, games, rules, [second] + rest)
    d = np.asarray(a["hands"]["points_0"], float) - np.asarray(b["hands"]["points_0"], float)
    won = ((np.asarray(a["hands"]["went_out"]) == 0).astype(float)
           - (np.asarray(b["hands"]["went_out"]) == 0).astype(float))
    match_won = np.stack([np.asarray(a["matches"]["winner"]) == 0, np.asarray(b["matches"]["winner"]) == 0], 1)
    return d, won, match_won.astype(float)


def pooled(rules, first, second, games, seeds):
    """:func:`paired_diffs` over several run seeds (``games`` matches each), pooled: ``(mean, standard
    error, z, rounds, rounds-won difference, match win rate of first, of second, z of the paired
    match-win difference)``."""
    parts = [paired_diffs(rules, first, second, games, seed) for seed in seeds]
    d = np.concatenate([p[0] for p in parts])
    won = np.concatenate([p[1] for p in parts])
    mw = np.concatenate([p[2] for p in parts])
    se = d.std(ddof=1) / np.sqrt(len(d))
    md = mw[:, 0] - mw[:, 1]
    mse = md.std(ddof=1) / np.sqrt(len(md))
    mz = md.mean() / mse if mse > 0 else 0.0
    return d.mean(), se, d.mean() / se, len(d), won.mean(), mw[:, 0].mean(), mw[:, 1].mean(), mz


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=48, help="games for the games/s figures")
    ap.add_argument("--strength-games", type=int, default=40, help="games (matches) per strength comparison and seed")
    ap.add_argument("--budget", type=int, default=64)
    ap.add_argument("--skip-strength", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--repeats", type=int, default=3,
                    help="best of this many interleaved runs: decision times, and 1- and 2-thread games/s")
    ap.add_argument("--parts", action="store_true", help="also time a sampled world and a rollout")
    ap.add_argument("--only-bigger", action="store_true", help="only the search:4B vs search:B comparison")
    ap.add_argument("--only", default="", help="comma list of loba, loba_buys, continental (default: all)")
    ap.add_argument("--no-bigger", action="store_true", help="skip the search:4B vs search:B comparison")
    ap.add_argument("--seeds", default="9000,9040,9080,9120",
                    help="comma list of run seeds for the strength runs (pooled)")
    args = ap.parse_args()
    B = args.budget
    games = (("loba", LobaRules()), ("loba_buys", LobaRules(claims=True)), ("continental", ContinentalRules()))
    if args.only:
        games = tuple(g for g in games if g[0] in args.only.split(","))
    if not args.skip_speed:
        print(f"search:{B} (racing) and search-full:{B} decisions on the same states; one search seat + "
              f"heuristics, 4 players, {args.games} games")
        print(f"{'game':<14}{'ms/decision':>12}{'full ms':>9}{'same':>10}{'rollouts/s':>12}{'games/s 1t':>12}"
              f"{'games/s 2t':>12}{'2t/1t':>7}")
        for name, rules in games:
            per_dec, per_full, rps, same, n = decision_timing(rules, B, repeats=args.repeats)
            g1 = g2 = 0.0
            for _ in range(args.repeats):  # interleaved, best of: other jobs on shared cores only slow a run down
                g1 = max(g1, games_per_second(rules, B, args.games, 1))
                g2 = max(g2, games_per_second(rules, B, args.games, 2))
            print(f"{name:<14}{per_dec * 1e3:>12.2f}{per_full * 1e3:>9.2f}{f'{same}/{n}':>10}{rps:>12,.0f}"
                  f"{g1:>12.3f}{g2:>12.3f}{g2 / g1:>7.2f}")
    if args.parts:
        print(f"\n{'game':<14}{'states':>7}{'us/world':>10}{'us/rollout':>11}{'learned':>9}{'ratio':>7}")
        for name, rules in games:
            us_world, us_roll, us_lroll, n = decision_parts(rules)
            print(f"{name:<14}{n:>7}{us_world:>10.1f}{us_roll:>11.1f}{us_lroll:>9.1f}{us_lroll / us_roll:>7.2f}")
    if args.skip_strength:
        return
    print(f"\nstrength: seat-0 round points, first minus second policy, {args.strength_games} matches, same deals")
    print(f"{'game':<14}{'first':<12}{'second':<12}{'rounds':>7}{'mean diff':>10}{'se':>7}{'z':>7}"
          f"{'rounds won diff':>16}{'matches':>8}{'won 1st':>8}{'won 2nd':>8}{'z':>7}")
    seeds = [int(x) for x in args.seeds.split(",")]
    for name, rules in games:
        pairs = ((f"search:{B}", "heuristic"), (f"search:{4 * B}", f"search:{B}"))
        pairs = pairs[:1] if args.no_bigger else pairs[1:] if args.only_bigger else pairs
        for first, second in pairs:
            mean, se, z, n, won, w1, w2, mz = pooled(rules, first, second, args.strength_games, seeds)
            print(f"{name:<14}{first:<12}{second:<12}{n:>7}{mean:>10.2f}{se:>7.2f}{z:>7.2f}{won:>16.3f}"
                  f"{args.strength_games * len(seeds):>8}{w1:>8.3f}{w2:>8.3f}{mz:>7.2f}")


if __name__ == "__main__":
    main()
