"""Continental's switch ``exact_close`` (issue 50): CPU seconds of the same matches with the
switch on (the default) and off, in one process after a warm-up, alternating.

    python benchmarks/bench_exact_close.py                 # heuristic seats, 3,000 matches
    python benchmarks/bench_exact_close.py 0=search:16 40  # a search seat, 40 matches
"""
import sys
import time

import cardsim


def main() -> None:
    policy = sys.argv[1] if len(sys.argv) > 1 else "heuristic"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    cardsim.play("continental", games=2, seed=1, policy=policy, rules={"exact_close": True}, progress=False)
    for on in (True, False, True, False):
        t = time.process_time()
        cardsim.play("continental", games=n, seed=1, policy=policy, rules={"exact_close": on}, progress=False)
        print(f"exact_close={'on' if on else 'off':3s} {policy}, {n} matches: {time.process_time() - t:6.2f} CPU-s",
              flush=True)


if __name__ == "__main__":
    main()
