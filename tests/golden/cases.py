"""The golden cases: fixed seeds, every game, deal and play, run through the CLI.

``python tests/golden/make_golden.py`` writes ``tests/golden/data/*.parquet`` and
``replay_*.txt`` from the current code; ``tests/test_golden.py`` requires the same bytes
of data (cell for cell) and the same replay text after any refactor. A change that is
meant to alter results regenerates only the cases it means to change and says so.
"""
from __future__ import annotations

#: name -> cardsim arguments (``--out DIR --quiet`` are added)
CASES: dict[str, list[str]] = {
    "deal_tienlen": ["deal", "tienlen", "--deals", "20000", "--seed", "11"],
    "deal_tienlen_per_deal": ["deal", "tienlen", "--deals", "500", "--seed", "12", "--per-deal"],
    "deal_tusac": ["deal", "tusac", "--deals", "20000", "--seed", "13"],
    "deal_loba": ["deal", "loba", "--deals", "20000", "--seed", "14"],
    "deal_continental": ["deal", "continental", "--deals", "20000", "--seed", "15"],
    "play_tienlen": ["play", "tienlen", "--games", "3000", "--seed", "21"],
    "play_tienlen_mixed": ["play", "tienlen", "--games", "3000", "--seed", "22", "--games-per-match", "3",
                           "--policy", "heuristic,random,greedy,random"],
    # the search before the fitted opponent models and the gate, written by the code before them
    "play_tienlen_search_plain": ["play", "tienlen", "--games", "240", "--seed", "29", "--policy",
                                  "0=search-plain:16,2=search-plain:8"],
    "play_tusac": ["play", "tusac", "--games", "1500", "--seed", "23"],
    "play_tusac_mixed": ["play", "tusac", "--games", "1500", "--seed", "24", "--policy", "0=random"],
    # the Tứ Sắc search before it rolled out with the learned model, written by the code before it (as search:N)
    "play_tusac_search_plain": ["play", "tusac", "--games", "120", "--seed", "32", "--policy",
                                "0=search-plain:8,2=search-plain:16"],
    "play_loba": ["play", "loba", "--games", "150", "--seed", "25"],
    "play_loba_mixed": ["play", "loba", "--games", "150", "--seed", "26", "--policy", "1=random"],
    "play_continental": ["play", "continental", "--games", "150", "--seed", "27"],
    "play_continental_mixed": ["play", "continental", "--games", "150", "--seed", "28", "--policy", "2=random"],
    # the lay-down and its lay-offs before the exact close search (issue 50): the same data as
    # play_continental was before the switch exact_close (on by default) changed it
    "play_continental_exact_close_off": ["play", "continental", "--games", "150", "--seed", "27", "--set",
                                         "exact_close=off"],
    # the rummy search playing for the round's points (before it played for the match), written by the
    # code before the change (as search:8 / search:16)
    "play_loba_search_plain": ["play", "loba", "--games", "16", "--seed", "30", "--policy",
                               "0=search-plain:8,2=search-plain:16"],
    "play_continental_search_plain": ["play", "continental", "--games", "16", "--seed", "31", "--policy",
                                      "1=search-plain:8,3=search-plain:16"],
    # the rummy search without early stopping, written by the code before racing (as search:8 / search:16)
    "play_loba_search_full": ["play", "loba", "--games", "16", "--seed", "33", "--policy",
                              "0=search-full:8,2=search-full:16"],
    "play_continental_search_full": ["play", "continental", "--games", "16", "--seed", "34", "--policy",
                                     "1=search-full:8,3=search-full:16"],
    # the rummy search as it plays now (racing its candidates)
    "play_loba_search": ["play", "loba", "--games", "16", "--seed", "33", "--policy", "0=search:64,2=search:16"],
    "play_continental_search": ["play", "continental", "--games", "16", "--seed", "34", "--policy",
                                "1=search:64,3=search:16"],
    # Big Two, the Tiến Lên engine's profile
    "deal_bigtwo": ["deal", "bigtwo", "--deals", "20000", "--seed", "35"],
    "play_bigtwo": ["play", "bigtwo", "--games", "2000", "--seed", "36"],
    "play_bigtwo_mixed": ["play", "bigtwo", "--games", "1000", "--seed", "37", "--policy",
                          "heuristic,random,greedy,learned", "--set", "straights=wheels", "--set", "flush_order=suit"],
    "play_bigtwo_search": ["play", "bigtwo", "--games", "60", "--seed", "38", "--policy", "0=search:16"],
}

#: name -> (play case, game index) replayed move by move
REPLAYS: dict[str, tuple[str, int]] = {
    "tienlen": ("play_tienlen_mixed", 4),
    "tusac": ("play_tusac_mixed", 7),
    "loba": ("play_loba_mixed", 3),
    "continental": ("play_continental_mixed", 5),
    "bigtwo": ("play_bigtwo_mixed", 4),
}
