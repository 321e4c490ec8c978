"""Our players against OpenSpiel's ISMCTS, duplicate format (issue 49, first anchor).

For each candidate X (default ``heuristic`` and ``search:64``) and each deal of the run
seed, two tables are played on the same cards: X at seats 0 and 2 with
``openspiel-ismcts:N`` at 1 and 3, then the seats swapped (X at 1 and 3). Over the two
tables each player has held every hand once, so the deal's luck cancels from the paired
difference ``d = mean points of X's seats - mean points of ISMCTS's seats`` (and the same
for wins). Printed: per candidate the mean of ``d`` over the deals with a 95% interval
(normal, deals independent), and X's share of the wins.

    .venv/bin/python benchmarks/anchor_ismcts.py --deals 40 --sims 64 --seed 1

Outside seats run at Python speed: an ISMCTS seat makes ~13 decisions a game, each N
random rollouts to the end of the game. ``--evaluator compiled`` seats
``openspiel-ismcts:N:compiled`` instead (Loba and Continental: the rollouts, which play
the rest of the match, run inside the compiled engine with the kernels' random policy;
about 1-3 ms per simulation instead of 0.1-0.25 s), e.g.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/anchor_ismcts.py --game loba --deals 6 --sims 64 \
        --evaluator compiled --seed 11
"""
from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

import cardsim


def table(game: str, seed: int, deals: int, rules: dict, x: str, other: str, x_seats: tuple[int, ...]):
    players = cardsim.api.resolve_rules(game, rules).players
    seats = [x if s in x_seats else other for s in range(players)]
    result = cardsim.play(game, deals, seed=seed, rules=rules, policy=",".join(seats), progress=False)
    # climbing games and Tứ Sắc: a game and its points; rummy: a match and its penalty total (lower is better)
    rummy = "matches" in result.tables
    frame = result.tables["matches" if rummy else "games"].sort_values("game")
    points = np.stack([-frame[f"total_{s}"].to_numpy(float) if rummy else frame[f"points_{s}"].to_numpy(float)
                       for s in range(players)], axis=1)
    wins = np.stack([(frame["winner"].to_numpy() == s).astype(float) for s in range(players)], axis=1)
    mask = np.array([s in x_seats for s in range(players)])
    return points[:, mask].mean(1) - points[:, ~mask].mean(1), wins[:, mask].sum(1), wins.sum(1)


def duplicate(game: str, seed: int, deals: int, rules: dict, x: str, other: str) -> dict:
    t0 = time.perf_counter()
    d_a, w_a, n_a = table(game, seed, deals, rules, x, other, (0, 2))
    d_b, w_b, n_b = table(game, seed, deals, rules, x, other, (1, 3))
    d = (d_a + d_b) / 2
    half = 1.96 * d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    share = (w_a.sum() + w_b.sum()) / max(1.0, n_a.sum() + n_b.sum())
    return {"candidate": x, "opponent": other, "deals": deals, "points_diff": float(d.mean()),
            "ci95": [float(d.mean() - half), float(d.mean() + half)], "win_share": float(share),
            "seconds": round(time.perf_counter() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="tienlen")
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--sims", type=int, default=64, help="ISMCTS simulations per decision")
    ap.add_argument("--evaluator", choices=("python", "compiled"), default="python",
                    help="ISMCTS's leaf evaluator: OpenSpiel's RandomRolloutEvaluator (python) or the compiled "
                         "random rollouts (openspiel-ismcts:N:compiled; Loba and Continental)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--candidates", default="heuristic,search:64")
    ap.add_argument("--set", action="append", default=[], help="a rule switch KEY=VALUE (e.g. rounds=1)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    other = f"openspiel-ismcts:{args.sims}" + (":compiled" if args.evaluator == "compiled" else "")
    rules = dict(item.split("=", 1) for item in args.set)
    rows = [duplicate(args.game, args.seed, args.deals, rules, x.strip(), other) for x in args.candidates.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{args.game}: duplicate (2 v 2, seats swapped, same deals), {args.deals} deals, seed {args.seed}")
    print(f"{'candidate':<12} {'opponent':<28} {'points X - ISMCTS':>18} {'95% CI':>20} {'X win share':>12} {'s':>7}")
    for r in rows:
        ci = f"[{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}]"
        print(f"{r['candidate']:<12} {r['opponent']:<28} {r['points_diff']:>+18.3f} {ci:>20} {r['win_share']:>12.3f} "
              f"{r['seconds']:>7}")


if __name__ == "__main__":
    main()
