"""Play summaries: a count's interval never goes below zero; other means are not clipped."""
from cardsim.simcore.framework.summarize import SummaryAccumulator


def test_count_interval_clipped_at_its_smallest_value():
    acc = SummaryAccumulator()
    values = [0, 0, 3]  # mean 1, normal interval about [-0.96, 2.96]
    acc.mean("rounds_won", "seat 0", values, low=0)
    acc.mean("points", "seat 0", values)  # no smallest value given: the plain normal interval
    table = acc.table().set_index("metric")
    assert table.loc["rounds_won", "ci_low"] == 0.0
    assert table.loc["points", "ci_low"] < 0
    assert table.loc["rounds_won", "ci_high"] == table.loc["points", "ci_high"]
    assert table.loc["rounds_won", "value"] == 1.0
