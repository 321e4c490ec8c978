"""Reports read on a phone (390 px) as well as on a desktop (issue 50, item 16): a viewport
tag and padding, tables that scroll sideways in their own box, the answers (estimates,
differences, intervals, Elo, exact values, z) as the first columns after the labels, and a
balance comparison's paired differences before anything else."""
from __future__ import annotations

import re

import pandas as pd
import pytest

from cardsim.analysis.report_tables import display_table
from cli_helpers import run


@pytest.fixture(scope="module")
def deal_page(tmp_path_factory):
    import contextlib
    import io

    from cardsim.cli.main import main

    folder = tmp_path_factory.mktemp("layout")
    out = folder / "deal"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["deal", "tienlen", "--deals", "2000", "--seed", "1", "--out", str(out), "--quiet"]) == 0
        assert main(["report", str(out), "--out", str(folder / "r.html")]) == 0
    return (folder / "r.html").read_text()


def test_the_page_has_a_viewport_padding_and_tables_that_scroll_in_their_own_box(deal_page):
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in deal_page
    style = re.search(r"<style>(.*?)</style>", deal_page).group(1)
    assert re.search(r"body\{[^}]*padding:0 12px", style)
    assert re.search(r"div\.scroll\{[^}]*overflow-x:auto", style)
    tables = deal_page.count("<table")
    assert tables >= 2 and deal_page.count("<div class='scroll'><table") == tables  # every table in its box


def test_the_deal_table_shows_rate_interval_exact_and_z_before_the_counts(deal_page):
    first = re.search(r"<thead><tr>(.*?)</tr></thead>", deal_page).group(1)
    assert re.findall(r"<th>(.*?)</th>", first) == ["event", "rate", "95% CI", "exact", "z", "count", "n"]


def test_answer_columns_come_first_in_every_kind_of_table():
    play = pd.DataFrame({"metric": ["win_rate"], "group": ["seat 0"], "n": [2000], "value": [0.2529],
                         "ci_low": [0.2340], "ci_high": [0.2718], "ess_factor": [1.02]})
    assert display_table(play)[0] == ["metric", "group", "value", "95% CI", "n", "ess"]
    ladder = pd.DataFrame({"policy": ["search:64"], "games": [800], "win_rate": [0.335], "win_ci_low": [0.303],
                           "win_ci_high": [0.368], "points": [1.66], "points_ci_low": [1.58],
                           "points_ci_high": [1.74], "elo": [37.4], "elo_ci_low": [18.2], "elo_ci_high": [56.0]})
    assert display_table(ladder)[0] == ["policy", "Elo", "Elo 95% CI", "win rate", "win rate 95% CI", "points",
                                        "points 95% CI", "games"]
    experiment = pd.DataFrame({"metric": ["win_seat_0"], "unit": ["rate"], "arm": ["b"], "n": [300],
                               "baseline": [0.25], "value": [0.27], "difference": [0.02], "ci_low": [0.01],
                               "ci_high": [0.03]})
    assert display_table(experiment)[0] == ["metric", "arm", "difference", "95% CI", "baseline", "value", "unit",
                                            "n"]
    card = pd.DataFrame({"metric": ["elo"], "group": ["1 seat vs heuristic"], "strength": ["random"],
                         "unit": ["elo"], "n": [160], "value": [-951.36], "ci_low": [-2400.0], "ci_high": [-791.09],
                         "note": [""]})
    header, rows, _ = display_table(card)
    assert header == ["metric", "group", "strength", "value", "95% CI", "unit", "n", "note"]
    assert rows[0][3:5] == ["-951.4", "[-2,400.0, -791.1]"]  # a rating: one decimal
    tune = pd.DataFrame({"rank": [1], "candidate": ["w=6"], "w": [6], "status": ["racing"], "round_out": [-1],
                         "deals": [500], "reason": [""], "seat_gap": [0.056], "seat_gap_ci_low": [0.0],
                         "seat_gap_ci_high": [0.138], "pareto": [True]})
    assert display_table(tune)[0][:6] == ["rank", "candidate", "w", "status", "seat gap", "seat gap 95% CI"]


def test_a_balance_comparison_leads_with_its_paired_differences(tmp_path, capsys):
    card = tmp_path / "card"
    code, _, err = run(capsys, "balance", "tienlen", "--games", "40", "--seed", "1", "--policies",
                       "random,heuristic", "--compare-set", "chop_rules=southern", "--out", card, "-q")
    assert code == 0, err
    code, _, err = run(capsys, "report", card, "--out", tmp_path / "r.html")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    differences = page.index("at a glance, the differences")
    assert page.index("<table") < differences < page.index("<img")  # before the figure and every other table
    assert page.index("<table", differences) > page.index("<img")
    head = re.search(r"<thead><tr>(.*?)</tr></thead>", page).group(1)
    assert re.findall(r"<th>(.*?)</th>", head) == ["metric", "group", "strength", "difference", "95% CI", "unit", "n", "ess",
                                                   "note"]
