"""Pandas side of cardsim: load run datasets and turn them into tables with intervals.

>>> from cardsim import analysis
>>> df = analysis.load("runs/tl")            # doctest: +SKIP
>>> analysis.rates(df)                       # doctest: +SKIP  (seat -1 = analysis.ANY_SEAT: the table)
>>> analysis.run_info("runs/tl")["rules"]    # doctest: +SKIP
>>> analysis.summary("runs/games")           # doctest: +SKIP  (play runs: metric, group, n, value, CI)
>>> analysis.load_comparison("runs/exp")     # doctest: +SKIP  (experiments: paired differences)
"""
from cardsim.analysis.compare import compare, load_comparison, robustness, sweep_table
from cardsim.analysis.hands import card_counts, hand_cards, rank_counts, suit_counts
from cardsim.analysis.ladder import ratings
from cardsim.analysis.intervals import wilson
from cardsim.analysis.stats import PairedMoments, mean_interval, means_table, paired_difference, unpaired_difference
from cardsim.analysis.tables import ANY_SEAT, load, rates, run_info, summary

__all__ = ["ANY_SEAT", "load", "rates", "run_info", "summary", "wilson", "mean_interval", "means_table",
           "paired_difference", "unpaired_difference", "PairedMoments", "compare", "load_comparison",
           "robustness", "sweep_table", "card_counts", "hand_cards", "rank_counts", "suit_counts", "ratings"]
