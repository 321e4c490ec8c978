"""One JSON format for deal and play summaries, and one typed seat column (issue 12)."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from cardsim import analysis
from cardsim.analysis.tables import ANY_SEAT
from cardsim.cli.render import json_records
from cardsim.simcore.primitives.intervals import wilson
from cli_helpers import run


def _ok(capsys, *args) -> str:
    code, out, err = run(capsys, *args)
    assert code == 0, err
    return out


def _same_cells(records: list[dict], table: pd.DataFrame) -> None:
    """JSON records carry the table's values exactly: ints as ints, floats unrounded, NaN as null."""
    assert [list(r) for r in records] == [list(table.columns)] * len(table)
    for record, row in zip(records, table.itertuples(index=False)):
        for key, value in zip(table.columns, row):
            got = record[key]
            if isinstance(value, (float, np.floating)):
                assert (got is None) if math.isnan(value) else (type(got) is float and got == float(value)), key
            elif isinstance(value, (int, np.integer)):
                assert type(got) is int and got == int(value), key
            else:
                assert got == value, key


def test_deal_json_seat_is_an_int_and_empty_counts_have_ci_low_zero(tmp_path, capsys):
    out = tmp_path / "d"
    printed = json.loads(_ok(capsys, "deal", "tienlen", "--deals", 1000, "--seed", 1, "--json", "--out", out))
    assert printed == json.loads(_ok(capsys, "summary", out, "--json"))  # the run and its summary agree
    table = analysis.summary(out)
    _same_cells(printed, table)
    assert {r["seat"] for r in printed} == {0, 1, 2, 3, ANY_SEAT}
    empty = [r for r in printed if r["count"] == 0]
    assert empty and all(r["ci_low"] == 0 and r["rate"] == 0 and r["ci_high"] > 0 for r in empty)
    full = [r for r in printed if r["count"] == r["n"]]  # holds_three_spades for the table: every deal
    assert full and all(r["ci_high"] == 1 for r in full)
    exact = json.loads(_ok(capsys, "exact", "tienlen", "--json"))
    assert {r["seat"] for r in exact} == {0, 1, 2, 3, ANY_SEAT}


def test_play_json_has_the_same_number_format(tmp_path, capsys):
    out = tmp_path / "p"
    printed = json.loads(_ok(capsys, "play", "tusac", "--games", 60, "--seed", 2, "--json", "--quiet",
                             "--out", out))
    assert printed == json.loads(_ok(capsys, "summary", out, "--json"))
    _same_cells(printed, analysis.summary(out))
    assert list(printed[0]) == ["metric", "group", "n", "value", "ci_low", "ci_high", "ess_factor"]


def test_rates_have_one_typed_seat_column(tmp_path, capsys):
    out = tmp_path / "d"
    _ok(capsys, "deal", "tusac", "--deals", 2000, "--seed", 3, "--out", out, "--quiet")
    rates = analysis.rates(analysis.load(out))
    assert rates["seat"].dtype == np.int64
    per_seat = rates[rates.seat >= 0]
    table = rates[rates.seat == ANY_SEAT]
    assert len(per_seat) and len(table) == rates["event"].nunique() and len(per_seat) + len(table) == len(rates)
    # seats ascending, the table row last, within each event
    for _, rows in rates.groupby("event", sort=False):
        assert list(rows["seat"]) == sorted(s for s in rows["seat"] if s >= 0) + [ANY_SEAT]
    rates.to_parquet(tmp_path / "rates.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "rates.parquet"), rates)
    summary = analysis.summary(out)  # exact values line up with the typed seats
    assert summary.loc[summary.seat == ANY_SEAT, "exact_low"].notna().any()
    assert summary.loc[summary.seat >= 0, "exact_low"].notna().all()


def test_wilson_bounds_are_exact_at_the_ends():
    low, high = wilson(np.array([0, 0, 5, 7]), np.array([1, 10**9, 5, 9]))
    assert low[0] == low[1] == 0.0 and high[2] == 1.0
    assert 0 < low[3] < 7 / 9 < high[3] < 1
    assert low[2] > 0 and high[0] < 1 and high[1] < 1e-8


def test_json_records_convert_cells():
    frame = pd.DataFrame({"a": np.array([1, 2], np.int8), "b": [0.1 + 0.2, math.nan], "c": ["x", "y"],
                          "d": [True, False]})
    assert json.loads(json_records(frame)) == [{"a": 1, "b": 0.1 + 0.2, "c": "x", "d": True},
                                               {"a": 2, "b": None, "c": "y", "d": False}]


@pytest.mark.parametrize("text_args", [("deal", "tusac", "--deals", 500, "--seed", 4, "--quiet")])
def test_text_summary_says_any_for_the_table_row(text_args, capsys):
    out = _ok(capsys, *text_args)
    rows = [line.split() for line in out.splitlines()[1:]]
    assert {row[1] for row in rows} == {"0", "1", "2", "3", "any"}
