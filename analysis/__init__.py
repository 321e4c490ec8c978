"""Pandas side of cardsim: load run datasets and turn them into tables with intervals.

>>> import analysis
>>> df = analysis.load("runs/tl")            # doctest: +SKIP
>>> analysis.rates(df)                       # doctest: +SKIP
>>> analysis.run_info("runs/tl")["rules"]    # doctest: +SKIP
"""
from analysis.intervals import wilson
from analysis.tables import load, rates, run_info, summary

__all__ = ["load", "rates", "run_info", "summary", "wilson"]
