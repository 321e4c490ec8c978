"""How much of a seat's win can any correction of the deal remove? (issue 51)

Plays Tiến Lên games with every seat ``search:64``, then the *same* games (same seed, so
the same deals) with other players in every seat: the heuristic, the learned player,
greedy and ``search:8``. Each of those outcomes is a function of the deal, so the
cross-fitted regression of the search table's outcome on it gives the effective
sample-size factor a control of that kind reaches (``ess = 1 / (1 - R^2)`` out of fold).
Together they bound from below what the deal decides; a factor of 2 would need the deal
to decide half of the variance.

With scikit-learn installed (not a cardsim dependency), also fits a gradient-boosted
model of the four dealt hands (rank counts and the 3♠) on the heuristic table's first
half and measures its factor on the second half.

    python benchmarks/vr_ceiling.py [--games 4000] [--seed 3]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import cardsim
from cardsim.analysis.variance import cross_fitted, variance_reduction


def outcomes(frame: pd.DataFrame) -> np.ndarray:
    """Per game, per seat: won, points, cards left (``(games, 12)``)."""
    cols = []
    for s in range(4):
        cols += [(frame[f"place_{s}"] == 1).to_numpy(float), frame[f"points_{s}"].to_numpy(float),
                 frame[f"cards_left_{s}"].to_numpy(float)]
    return np.stack(cols, axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()

    def play(policy: str) -> pd.DataFrame:
        with variance_reduction(False):
            result = cardsim.play("tienlen", args.games, seed=args.seed, policy=policy, threads=args.threads,
                                  progress=False)
        return result.tables["games"].sort_values("game").reset_index(drop=True)

    started = time.perf_counter()
    table = play("search:64")
    print(f"search:64 x4, {args.games:,} games, seed {args.seed}: {time.perf_counter() - started:.0f} s")
    twins = {name: outcomes(play(name)) for name in ("heuristic", "learned", "greedy", "search:8")}
    folds = table["game"].to_numpy()
    sets = dict(twins)
    sets["heuristic+learned+greedy"] = np.concatenate([twins[n] for n in ("heuristic", "learned", "greedy")], 1)
    print("ess of a search:64 seat's win rate (points) with the twin as control, seats 0-3:")
    for name, x in sets.items():
        x = x - x.mean(axis=0)  # centring by the sample mean is enough to measure R^2 here
        wins = [cross_fitted((table["place_%d" % s] == 1).to_numpy(float), x, folds).ess_factor for s in range(4)]
        points = [cross_fitted(table[f"points_{s}"].to_numpy(float), x, folds).ess_factor for s in range(4)]
        print(f"  {name:26s} win {' '.join(f'{w:.2f}' for w in wins)}   points {' '.join(f'{p:.2f}' for p in points)}")
    try:
        from sklearn.ensemble import HistGradientBoostingRegressor
    except ImportError:
        print("(scikit-learn not installed: no gradient-boosted model of the dealt hands)")
        return
    from cardsim.simcore.tienlen.deal import deal_rows

    n = max(args.games, 200_000)
    heuristic = play_n("heuristic", n, args)
    hands, _, _ = deal_rows(args.seed, 0, n, 4, 13, 0)
    bits = ((hands[:, :, None] >> np.arange(52)) & 1).astype(np.int8)
    x = np.concatenate([bits.reshape(n, 4, 13, 4).sum(axis=3).reshape(n, -1), bits[:, :, 0]], axis=1).astype(float)
    y = (heuristic["place_0"] == 1).to_numpy(float)
    half = n // 2
    model = HistGradientBoostingRegressor(max_iter=300, max_leaf_nodes=63).fit(x[:half], y[:half])
    p = model.predict(x[half:])
    print(f"gradient-boosted model of the dealt hands, heuristic x4, seat 0 win, fitted on {half:,} games, "
          f"measured on {n - half:,}: ess {cross_fitted(y[half:], (p - p.mean())[:, None], np.arange(n - half)).ess_factor:.2f}")


def play_n(policy: str, n: int, args) -> pd.DataFrame:
    with variance_reduction(False):
        result = cardsim.play("tienlen", n, seed=args.seed, policy=policy, threads=args.threads, progress=False)
    return result.tables["games"].sort_values("game").reset_index(drop=True)


if __name__ == "__main__":
    main()
