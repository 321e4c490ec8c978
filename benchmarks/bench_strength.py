"""Player strength in duplicate format: every figure of the strength targets, with the command.

    .venv/bin/python benchmarks/bench_strength.py [--games tienlen,tusac,loba,continental] [-n 1000] [--seed 5]

For each game, ``cardsim ladder`` plays each candidate in every seat of the same deals
against a field (seats rotated, common deals), and the figures are **paired**
differences of the candidate's win indicator per (deal, seat), with a 95% interval and z:

* ``search`` (the default ``search:64``) minus ``heuristic`` against each field: random,
  greedy (Tiến Lên), heuristic, and all-``search`` (``-n // 2`` deals there: every seat searches);
* the budget ladder ``search:16 -> search:64 -> search:256`` in a heuristic field;
* where the game has one (Tiến Lên, Tứ Sắc) also ``learned`` (the shipped self-play model), and in Tiến Lên, Loba and
  Continental ``search-plain:64`` (Tiến Lên: the search before its fitted opponent models;
  rummy: the search playing for the round's points, not the match), and in Loba and
  Continental ``search-full:64`` (the search without racing: every candidate in every world)
  against each field;
* relative skill against the peeking ``oracle`` (heuristic field):
  ``(W - W_random) / (W_oracle - W_random)`` for ``heuristic`` and ``search``.

Rummy games score the match win (the ladder's ``win``); in the random field, where every
policy that goes out wins every match, also the penalty points per match. The markdown table at the end
goes to docs/performance.md. Wall time per ladder is printed; run it alone on the machine.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

import cardsim
from cardsim.simcore.framework import registry

FIELDS = {"tienlen": ("random", "greedy", "heuristic", "search:64")}
#: games whose search has a plain mode: Tiến Lên's search before its opponent models, the rummy
#: search playing for the round's points instead of the match
PLAIN_GAMES = ("tienlen", "loba", "continental")
DEFAULT_FIELDS = ("random", "heuristic", "search:64")
#: Against random players every rummy policy that goes out wins every match (Loba: heuristic,
#: search:64 and search-plain:64 1.000 [0.995, 1.000] on 800 pairs), so the random field also
#: pairs the penalty points per match (lower is better).
RUMMY = ("loba", "continental")


def ladder(game: str, policies: list[str], field: str, n: int, seed: int):
    t = time.perf_counter()
    res = cardsim.ladder(game, policies=policies, field=field, games=n, seed=seed, progress=False)
    games = res.tables["games"]
    wins = {p: g.sort_values(["seat", "game"])["win"].to_numpy(float) for p, g in games.groupby("policy")}
    points = {p: g.sort_values(["seat", "game"])["points"].to_numpy(float) for p, g in games.groupby("policy")}
    return wins, time.perf_counter() - t, points


def paired(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, float]:
    """Mean of ``a - b`` with its 95% interval and z."""
    d = a - b
    se = d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    z = d.mean() / se if se > 0 else 0.0
    return d.mean(), d.mean() - 1.96 * se, d.mean() + 1.96 * se, z


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="tienlen", help="comma-separated games (default tienlen)")
    ap.add_argument("-n", type=int, default=1000, help="deals per candidate and seat")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rows = []
    for game in args.games.split(","):
        n, seed = args.n, args.seed
        fields = FIELDS.get(game, DEFAULT_FIELDS)
        plain = ["search-plain:64"] if game in PLAIN_GAMES else []
        if game in RUMMY:
            plain.append("search-full:64")  # the rummy search without racing
        learned = ["learned"] if registry.get_spec(game).trainer else []
        for field in fields:
            m = n // 2 if field.startswith("search") else n
            cands = ["search:64", *learned, *plain]
            wins, secs, points = ladder(game, ["heuristic", *cands], field, m, seed)
            cmd = (f"cardsim ladder {game} --policies heuristic,{','.join(cands)} --field {field} --games {m} "
                   f"--seed {seed}")
            print(f"{cmd}   ({secs:.0f} s)")
            for cand in cands:
                d, lo, hi, z = paired(wins[cand], wins["heuristic"])
                rows.append((game, f"{cand} - heuristic, {field} field", d, lo, hi, z, cmd))
                if game in RUMMY and field == "random":  # every policy that goes out wins every match here
                    d, lo, hi, z = paired(points[cand], points["heuristic"])
                    rows.append((game, f"{cand} - heuristic, {field} field, penalty points per match", d, lo, hi, z,
                                 cmd))
        budgets = ["random", "heuristic", *learned, "search:16", "search:64", "search:256", "oracle:64"]
        wins, secs, _ = ladder(game, budgets, "heuristic", n, seed)
        cmd = f"cardsim ladder {game} --policies {','.join(budgets)} --field heuristic --games {n} --seed {seed}"
        print(f"{cmd}   ({secs:.0f} s)")
        for lo_b, hi_b in (("search:16", "search:64"), ("search:64", "search:256")):
            d, lo, hi, z = paired(wins[hi_b], wins[lo_b])
            rows.append((game, f"{hi_b} - {lo_b}, heuristic field", d, lo, hi, z, cmd))
        span = wins["oracle:64"].mean() - wins["random"].mean()
        for p in ("heuristic", *learned, "search:64"):
            rel = (wins[p].mean() - wins["random"].mean()) / span if span else float("nan")
            rows.append((game, f"relative skill of {p} (oracle = 1, random = 0)", rel, math.nan, math.nan, math.nan,
                         cmd))
    print()
    print("| game | figure | value | 95% interval | z |")
    print("|---|---|---:|---|---:|")
    for game, what, v, lo, hi, z, _ in rows:
        ci = "" if math.isnan(lo) else f"[{lo:+.3f}, {hi:+.3f}]"
        zs = "" if math.isnan(z) else f"{z:+.1f}"
        print(f"| {game} | {what} | {v:+.3f} | {ci} | {zs} |")


if __name__ == "__main__":
    main()
