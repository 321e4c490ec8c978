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

In Continental the rollouts' own time is the engine's exact lay-downs of the random seats'
large hands: ``--rollout-budget 10000`` (``openspiel-ismcts:N:compiled:10000``) gives the
rollouts that ``laydown_budget``. Random matches, one core, 400 of seed 1: 12.7 ms a match
with the default budget, 1.2 ms with 10,000 (mean totals 408.6 / 397.5 against 409.1 /
397.6); an ISMCTS decision at 64 simulations about 0.1 s instead of 0.6 s.

``--record FILE`` appends each deal's result to a JSON-lines file as it ends and never plays
a recorded deal again: a long row can be stopped and resumed, or split between processes
with ``--first-deal`` (the deals are the run's games ``first .. first + deals - 1``, the
same games whatever the split), and the summary is printed over the requested deals.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import time

import numpy as np

import cardsim
from cardsim.simcore.framework.outside import play_stepped


def deal_record(game: str, seed: int, index: int, rules: dict, x: str, other: str) -> dict:
    """Deal ``index`` of run ``seed`` played twice through the step interface (as ``cardsim.play``
    plays games with an outside seat): X at seats 0 and 2, then at 1 and 3. Returns the paired
    difference ``d`` (mean points of X's seats minus ISMCTS's, averaged over the two tables), X's
    wins and all wins."""
    resolved = cardsim.api.resolve_rules(game, rules)
    players = resolved.players
    t0 = time.perf_counter()
    diffs, x_wins, all_wins = [], 0, 0
    for x_seats in ((0, 2), (1, 3)):
        seats = [x if s in x_seats else other for s in range(players)]
        row = play_stepped(game, resolved, seed, index, 1, seats)[0]
        # climbing games and Tứ Sắc: a game and its points; rummy: a match and its penalty total (lower is better)
        rummy = "matches" in row
        table = row["matches" if rummy else "games"]
        points = np.array([-float(table[f"total_{s}"]) if rummy else float(table[f"points_{s}"])
                           for s in range(players)])
        mask = np.array([s in x_seats for s in range(players)])
        diffs.append(points[mask].mean() - points[~mask].mean())
        winner = int(table["winner"])
        all_wins += int(winner >= 0)
        x_wins += int(winner in x_seats)
    return {"game": game, "seed": seed, "rules": rules, "candidate": x, "opponent": other, "deal": index,
            "d": float(np.mean(diffs)), "x_wins": x_wins, "wins": all_wins,
            "seconds": round(time.perf_counter() - t0, 1)}


def _key(record: dict) -> tuple:
    return (record["game"], record["seed"], json.dumps(record["rules"], sort_keys=True), record["candidate"],
            record["opponent"], record["deal"])


def load_records(path: str | None) -> dict[tuple, dict]:
    if not path or not os.path.exists(path):
        return {}
    with open(path) as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    return {_key(r): r for r in records}


def summarise(records: list[dict], x: str, other: str) -> dict:
    d = np.array([r["d"] for r in records])
    half = 1.96 * d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    share = sum(r["x_wins"] for r in records) / max(1, sum(r["wins"] for r in records))
    return {"candidate": x, "opponent": other, "deals": len(records), "points_diff": float(d.mean()),
            "ci95": [float(d.mean() - half), float(d.mean() + half)], "win_share": float(share),
            "seconds": round(sum(r["seconds"] for r in records), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="tienlen")
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--first-deal", type=int, default=0, help="the first deal's index in the run (default 0)")
    ap.add_argument("--sims", type=int, default=64, help="ISMCTS simulations per decision")
    ap.add_argument("--evaluator", choices=("python", "compiled"), default="python",
                    help="ISMCTS's leaf evaluator: OpenSpiel's RandomRolloutEvaluator (python) or the compiled "
                         "random rollouts (openspiel-ismcts:N:compiled; Loba and Continental)")
    ap.add_argument("--rollout-budget", type=int, default=None,
                    help="with --evaluator compiled: the rollouts' laydown_budget (openspiel-ismcts:N:compiled:B)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--candidates", default="heuristic,search:64")
    ap.add_argument("--set", action="append", default=[], help="a rule switch KEY=VALUE (e.g. rounds=1)")
    ap.add_argument("--record", default=None,
                    help="a JSON-lines file: each deal's result is appended as it ends, deals already there are "
                         "not played again (resume; several processes may share deals by --first-deal), and the "
                         "summary covers the requested deals")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    other = f"openspiel-ismcts:{args.sims}" + (":compiled" if args.evaluator == "compiled" else "")
    if args.rollout_budget is not None:
        if args.evaluator != "compiled":
            ap.error("--rollout-budget needs --evaluator compiled")
        other += f":{args.rollout_budget}"
    rules = dict(item.split("=", 1) for item in args.set)
    done = load_records(args.record)
    rows = []
    for x in (c.strip() for c in args.candidates.split(",")):
        records = []
        for index in range(args.first_deal, args.first_deal + args.deals):
            probe = {"game": args.game, "seed": args.seed, "rules": rules, "candidate": x, "opponent": other,
                     "deal": index}
            record = done.get(_key(probe))
            if record is None:
                record = deal_record(args.game, args.seed, index, rules, x, other)
                if args.record:
                    with open(args.record, "a") as fh:
                        fh.write(json.dumps(record) + "\n")
            records.append(record)
        rows.append(summarise(records, x, other))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{args.game}: duplicate (2 v 2, seats swapped, same deals), deals {args.first_deal}.."
          f"{args.first_deal + args.deals - 1}, seed {args.seed}")
    print(f"{'candidate':<14} {'opponent':<36} {'points X - ISMCTS':>18} {'95% CI':>22} {'X win share':>12} {'s':>8}")
    for r in rows:
        ci = f"[{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}]"
        print(f"{r['candidate']:<14} {r['opponent']:<36} {r['points_diff']:>+18.3f} {ci:>22} {r['win_share']:>12.3f} "
              f"{r['seconds']:>8}")


if __name__ == "__main__":
    main()
