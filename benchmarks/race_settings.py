"""How the rummy search's racing settings trade rollouts for changed decisions.

    .venv/bin/python benchmarks/race_settings.py [--games 24] [--only loba,continental]

For every searched decision of seat 0 (``search:64`` against three heuristic seats, the
states of ``bench_search_rummy.decision_states``, run seed 1) it plays the full search's
rollouts once and keeps the table of losses (worlds x candidates, minus the chance to win
the match: exactly what ``search-full:64`` computes). Then, on those tables, each setting of
the race (checks at fractions of the worlds, the fewest worlds at a check, the drop
threshold in standard errors) is replayed: the share of rollouts and worlds it needs, and
how many decisions come out different from the full search's (and how many of the full
search's switches away from the heuristic's choice it loses). The shipped setting
(:data:`cardsim.simcore.rummy.search.RACE_CHECKS`, ``RACE_MIN_WORLDS``, ``RACE_DROP_Z``) is
marked with ``*``.
"""
from __future__ import annotations

import argparse

import numpy as np
from numba import njit

from bench_search_rummy import decision_states
from cardsim.simcore.primitives.rng import next_u64
from cardsim.simcore.rummy import search as SR
from cardsim.simcore.rummy.luck import N_LUCK
from cardsim.simcore.rummy.engine import apply_decision
from cardsim.simcore.rummy.play import _Setup
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules
from cardsim.simcore.rummy.state import P_PLAYERS, copy_state, new_state

NO_LUCK = np.zeros((0, N_LUCK))  # the draws' luck is not recorded here


@njit
def loss_table(st, me, prm, mp, cseat, reach, cand, nc, W, sstate):
    """float64[W, nc]: minus the match chance after candidate i in world w (the full search's loop)."""
    P = prm[P_PLAYERS]
    D = st[10].shape[0]
    world = new_state(P, D)
    work = new_state(P, D)
    log = np.zeros((1, 6), np.int64)
    out = np.zeros((W, nc))
    for w in range(W):
        sstate = SR.sample_world(st, me, prm, mp, world, sstate)
        sstate, rstate = next_u64(sstate)
        for i in range(nc):
            copy_state(work, world)
            rs, nl = apply_decision(work, cand[i], prm, mp, cseat, reach, rstate, log, np.int64(0), np.bool_(False),
                                NO_LUCK)
            SR.refresh_distance(work, me, mp)
            rs = SR.rollout(work, prm, mp, cseat, reach, rs, log, NO_LUCK)
            out[w, i] = -SR.match_win_chance(work, prm, me)
    return out


def paired(table, w):
    """Mean and standard error of each alternative's paired difference over the first ``w`` worlds."""
    d = table[:w, 1:] - table[:w, :1]
    mean = d.mean(0)
    var = (np.mean(d * d, 0) - mean ** 2) * w / max(w - 1, 1)
    return mean, np.sqrt(np.maximum(var, 0.0) / w)


def decide(table, alive, w):
    """The search's rule: the best alternative better by SWITCH_Z standard errors, else 0."""
    mean, se = paired(table, w)
    best, best_mean = 0, 0.0
    for i in range(1, table.shape[1]):
        m, s = mean[i - 1], se[i - 1]
        if alive[i] and m < best_mean and (m < -SR.SWITCH_Z * s or (s == 0.0 and w > 1)):
            best, best_mean = i, m
    return best


def race(table, checks, min_worlds, drop_z):
    """(decision, rollouts, worlds) of a race with these settings on one loss table."""
    W, nc = table.shape
    alive = np.ones(nc, bool)
    points = sorted(c for c in {max(min_worlds, W // f) for f in checks} if c < W)
    used, prev = 0, 0
    for c in points:
        used += (c - prev) * alive.sum()
        prev = c
        mean, se = paired(table, c)
        for i in range(1, nc):
            if alive[i] and mean[i - 1] >= drop_z * se[i - 1] and not (se[i - 1] == 0.0 and mean[i - 1] < 0.0):
                alive[i] = False
        if alive.sum() == 1:
            return 0, used, c
    used += (W - prev) * alive.sum()
    return decide(table, alive, W), used, W


SETTINGS = [((4, 2), 8, 0.0), ((4, 2), 8, 0.5), ((4, 2), 4, 0.0), ((8, 4, 2), 4, 0.0), ((8, 4, 2), 4, 0.5),
            ((8, 4, 2), 8, 0.0)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=24)
    ap.add_argument("--only", default="loba,continental")
    args = ap.parse_args()
    shipped = (tuple(SR.RACE_CHECKS), SR.RACE_MIN_WORLDS, SR.RACE_DROP_Z)
    for name, rules in (("loba", LobaRules()), ("continental", ContinentalRules())):
        if name not in args.only.split(","):
            continue
        s = _Setup(rules, "heuristic", None, 10_000)
        tables = []
        for ds in decision_states(rules, 64, args.games):
            st, me = tuple(a.copy() for a in ds["st"]), np.int64(ds["seat"])
            cand = np.zeros(SR.MAX_CANDIDATES, np.int64)
            nc = int(SR.candidates(st, me, s.prm, s.mp, cand))
            if nc >= 2:
                tables.append(loss_table(st, me, s.prm, s.mp, s.cseat, s.reach, cand, nc, max(1, 64 // nc),
                                         np.uint64(ds["search_state"])))
        full = [decide(t, np.ones(t.shape[1], bool), t.shape[0]) for t in tables]
        rollouts = sum(t.size for t in tables)
        worlds = sum(t.shape[0] for t in tables)
        print(f"{name}: {len(tables)} searched decisions, the full search switches in {sum(f != 0 for f in full)}")
        print(f"  {'checks at W/f':<14}{'min worlds':>11}{'drop z':>8}{'rollouts':>10}{'worlds':>8}"
              f"{'changed':>9}{'switches lost':>15}")
        for checks, min_worlds, drop_z in SETTINGS:
            used = seen = changed = lost = 0
            for t, f in zip(tables, full):
                d, u, w = race(t, checks, min_worlds, drop_z)
                used, seen = used + u, seen + w
                changed += d != f
                lost += d != f and d == 0
            mark = "*" if (checks, min_worlds, drop_z) == shipped else " "
            print(f" {mark}{str(checks):<14}{min_worlds:>11}{drop_z:>8.1f}{used / rollouts:>10.2f}"
                  f"{seen / worlds:>8.2f}{changed:>9}{lost:>15}")


if __name__ == "__main__":
    main()
