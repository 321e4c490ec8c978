"""``cardsim tune`` against a full grid: the same best with how many games?

    python benchmarks/bench_tune.py [--game tusac] [--switch players=2,3,4 --switch win_threshold=0,2,4,6]
                                    [--objective turns:min] [--budget 60000] [--batch 20] [--seed 1]

Runs the race, then plays the full grid: every candidate on the same deals as the race's
finalists (the deals the best candidate reached: equal precision for the winner), and
picks the grid's best by the same objective. Prints both bests, the games each used and
their ratio, and the command lines that reproduce them. The default grid has a planted
best: with fewer players a Tứ Sắc game takes fewer turns; among the two-player variants a
close runner-up (a threshold that changes few games) keeps the race going.
"""
from __future__ import annotations

import argparse
import time

import cardsim
from cardsim.analysis.tune import candidate_table
from cardsim.simcore.study.tune import CandidateState, Objective, TuneConfig, play_block, tables_per_candidate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tusac")
    parser.add_argument("--switch", action="append", default=[])
    parser.add_argument("--objective", default="turns:min")
    parser.add_argument("--budget", type=int, default=60_000)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    switches = args.switch or ["players=2,3,4", "win_threshold=0,2,4,6"]
    command = (f"cardsim tune {args.game} " + " ".join(f"--switch {s}" for s in switches)
               + f" --objective {args.objective} --budget {args.budget} --batch {args.batch} --seed {args.seed}")
    start = time.perf_counter()
    result = cardsim.tune(args.game, switches=switches, objectives=[args.objective], budget=args.budget,
                          batch=args.batch, seed=args.seed, progress=False)
    race_seconds = time.perf_counter() - start
    table = result.summary()
    best = table.iloc[0]
    deals = int(best["deals"])

    # the full grid at the winner's deals, every candidate on the same games
    objective = Objective.parse(args.objective)
    config = TuneConfig(game=args.game, base_settings={}, switches=tuple(
        (s.partition("=")[0], tuple(s.partition("=")[2].split(","))) for s in switches), objectives=(objective,),
        budget=10 ** 12, seed=args.seed, batch=args.batch)
    start = time.perf_counter()
    states = [CandidateState(v, config.candidate_rules(v)) for v in config.candidates()]
    grid_games = sum(play_block(config, s, 0, deals, deals) for s in states)
    grid_seconds = time.perf_counter() - start
    grid = candidate_table(config, states)
    sign = 1 if objective.sense == "min" else -1
    grid_best = grid.loc[(sign * grid[objective.metric]).idxmin()]
    per = tables_per_candidate(config)
    print(f"command: {command}")
    print(f"candidates: {len(states)}, tables per candidate: {per}")
    print(f"tune best:  {best['candidate']}  {objective.metric} {best[objective.metric]:.4f} "
          f"[{best[objective.metric + '_ci_low']:.4f}, {best[objective.metric + '_ci_high']:.4f}] "
          f"after {deals:,} deals; games played {result.meta['games_played']:,} ({race_seconds:.1f} s)")
    print(f"grid best:  {grid_best['candidate']}  {objective.metric} {grid_best[objective.metric]:.4f} "
          f"[{grid_best[objective.metric + '_ci_low']:.4f}, {grid_best[objective.metric + '_ci_high']:.4f}] "
          f"with every candidate at {deals:,} deals; games played {grid_games:,} ({grid_seconds:.1f} s)")
    print(f"same best: {best['candidate'] == grid_best['candidate']}; tune used "
          f"{result.meta['games_played'] / grid_games:.1%} of the grid's games")


if __name__ == "__main__":
    main()
