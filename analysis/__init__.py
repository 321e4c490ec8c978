"""Pandas side of cardsim: load run datasets and turn them into tables with intervals.

>>> import analysis
>>> df = analysis.load("runs/tl")            # doctest: +SKIP
>>> analysis.rates(df)                       # doctest: +SKIP
>>> analysis.run_info("runs/tl")["rules"]    # doctest: +SKIP
>>> analysis.summary("runs/games")           # doctest: +SKIP  (play runs: metric, group, n, value, CI)
>>> analysis.load_comparison("runs/exp")     # doctest: +SKIP  (experiments: paired differences)
"""
from analysis.compare import compare, load_comparison
from analysis.intervals import wilson
from analysis.stats import PairedMoments, mean_interval, means_table, paired_difference, unpaired_difference
from analysis.tables import load, rates, run_info, summary

__all__ = ["load", "rates", "run_info", "summary", "wilson", "mean_interval", "means_table",
           "paired_difference", "unpaired_difference", "PairedMoments", "compare", "load_comparison"]
