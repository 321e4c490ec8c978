"""Reports: honest errors (existing file, unknown suffix, folder, no matplotlib), readable tables."""
from __future__ import annotations

import re
import sys

import pytest

from cardsim.analysis.report import _cell, _render_table, ci_decimals, display_table
from cardsim.simcore.framework.config import rule_text
from cli_helpers import run


@pytest.fixture(scope="module")
def deal_run(tmp_path_factory):
    import contextlib
    import io

    from cardsim.cli.main import main

    out = tmp_path_factory.mktemp("r") / "deal"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["deal", "tienlen", "--deals", "20000", "--seed", "1", "--out", str(out), "--quiet"]) == 0
    return out


def test_report_refuses_bad_outputs(deal_run, tmp_path, capsys):
    for target, message in ((tmp_path / "r.pdf", "must end in .html or .md"), (tmp_path, "is a folder"),
                            (tmp_path / "no" / "r.html", "does not exist")):
        code, _, err = run(capsys, "report", deal_run, "--out", target)
        assert code == 2 and message in err, err
    existing = tmp_path / "r.html"
    existing.write_text("keep me")
    code, _, err = run(capsys, "report", deal_run, "--out", existing)
    assert code == 2 and "--overwrite" in err and existing.read_text() == "keep me"
    code, _, err = run(capsys, "report", deal_run, "--out", existing, "--overwrite")
    assert code == 0 and "<img" in existing.read_text()


def test_report_without_matplotlib_is_a_user_error(deal_run, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = run(capsys, "report", deal_run, "--out", tmp_path / "r.html")
    assert code == 2 and "cardsim[plot]" in err
    assert not (tmp_path / "r.html").exists()


def test_tables_are_readable_without_optional_dependencies():
    import pandas as pd

    frame = pd.DataFrame({"event": ["a"], "count": [1234567], "rate": [0.000123456], "se_ratio": [0.5]})
    md = _render_table(frame, "md")
    assert "1,234,567" in md and "0.000123" in md and "se_ratio" not in md
    assert _cell(12345.0) == "12,345" and _cell(0.25) == "0.25" and _cell(float("nan")) == ""


def test_values_print_to_the_precision_of_their_interval():
    import pandas as pd

    assert ci_decimals(0.2786, 0.2832) == 4 and ci_decimals(2.841, 2.865) == 3 and ci_decimals(1, 1) is None
    assert ci_decimals(0.99997, 1.0) == 6  # a rate near 1 is not rounded up to "1"
    frame = pd.DataFrame({"metric": ["win", "points"], "baseline": [0.24689, 0.57248], "value": [0.280965, 1.52889],
                          "difference": [0.034075, 0.95641], "ci_low": [0.031692, 0.866143],
                          "ci_high": [0.036458, 1.046677], "se_ratio": [0.87, 0.87]})
    header, rows, right = display_table(frame)
    # the answer (the difference, signed, bounds too) first; decimals from the interval's half-width
    assert header == ["metric", "difference", "95% CI", "baseline", "value"]
    assert rows[0] == ["win", "+0.0341", "[+0.0317, +0.0365]", "0.2469", "0.2810"]
    assert rows[1] == ["points", "+0.956", "[+0.866, +1.047]", "0.572", "1.529"]
    assert right == [False, True, True, True, True]
    deal = pd.DataFrame({"event": ["a", "b", "c"], "count": [1831, 0, 9841], "rate": [0.009155, 0.0, 0.049205],
                         "ci_low": [0.008747, 0.0, 0.048266], "ci_high": [0.009582, 1.9e-5, 0.050162],
                         "exact_low": [0.009336, float("nan"), 0.048782],
                         "exact_high": [0.009336, float("nan"), 0.049134], "z": [-0.8401, float("nan"), 0.001]})
    header, rows, _ = display_table(deal)
    assert header == ["event", "rate", "95% CI", "exact", "z", "count"]  # the answers before the counts
    assert rows[0] == ["a", "0.00915", "[0.00875, 0.00958]", "0.009336", "-0.84", "1,831"]
    assert rows[1][3:5] == ["", ""] and rows[2][3:5] == ["[0.048782, 0.049134]", "0.00"]


def test_rules_print_as_set_takes_them():
    assert rule_text(True) == "on" and rule_text(False) == "off"
    assert rule_text(["0", "1"]) == "0,1" and rule_text(3) == "3"


def test_every_interval_formats_its_own_value_and_edge_values_print():
    import pandas as pd

    ladder = pd.DataFrame({"policy": ["search:16"], "win_rate": [0.123456], "win_ci_low": [0.1001],
                           "win_ci_high": [0.1502], "elo": [35.2], "elo_ci_low": [12.0], "elo_ci_high": [58.9]})
    header, rows, _ = display_table(ladder)
    assert header == ["policy", "Elo", "Elo 95% CI", "win rate", "win rate 95% CI"]  # the rating first, in words
    assert rows[0] == ["search:16", "+35.2", "[+12.0, +58.9]", "0.123", "[0.100, 0.150]"]
    tiny = pd.DataFrame({"difference": [-0.00004, float("inf")], "ci_low": [-0.002, 0.0], "ci_high": [0.002, 1.0]})
    assert [r[0] for r in display_table(tiny)[1]] == ["0.0000", "+inf"]  # no "-0.0000", no crash
    lone = pd.DataFrame({"exact_high": [0.5]})  # without exact_low: shown as it is, not dropped
    assert display_table(lone)[0] == ["exact high"]


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_a_planted_temporary_symlink_is_neither_written_through_nor_renamed_onto_the_report(
        deal_run, tmp_path, capsys, suffix):
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    out = tmp_path / f"report{suffix}"
    (tmp_path / f".{out.name}.tmp").symlink_to(victim)
    (tmp_path / ".report-fig1.png.tmp").symlink_to(victim)
    code, _, err = run(capsys, "report", deal_run, "--out", out)
    assert code == 0, err
    assert victim.read_text() == "keep me"
    assert out.is_file() and not out.is_symlink()
    for png in tmp_path.glob("report-fig*.png"):
        assert not png.is_symlink()


def test_the_balance_card_page(tmp_path, capsys):
    card = tmp_path / "card"
    code, _, err = run(capsys, "balance", "tienlen", "--games", "40", "--seed", "1", "--policies",
                       "random,heuristic", "--compare-set", "chop_rules=southern", "--out", card, "-q")
    assert code == 0, err
    out = tmp_path / "r.md"
    code, _, err = run(capsys, "report", card, "--out", out)
    assert code == 0, err
    text = out.read_text()
    assert "balance card" in text and "Compared with: `chop_rules = southern`" in text
    first_table = text.index("| metric |")
    # a comparison's answer first: the paired differences, then the card at a glance
    assert first_table < text.index("_at a glance, the differences: compared rules") \
        < text.index("![the balance card at a glance]") < text.index("| metric |", first_table + 1)
    assert (tmp_path / "r-fig1.png").is_file()
    # the differences print as differences: signed, under that name (as an experiment's do), before the counts
    assert "| metric | group | strength | difference | 95% CI | unit | n | ess | note |" in text


def test_the_deal_report_leads_with_the_table_rates_and_groups_events(deal_run, tmp_path, capsys):
    from cardsim.analysis.report import event_groups, pack_groups

    out = tmp_path / "d.md"
    code, _, err = run(capsys, "report", deal_run, "--out", out)
    assert code == 0, err
    text = out.read_text()
    first_table = text[text.index("| event |"):text.index("_the table (any seat)")]
    assert "| seat |" not in first_table and "| dragon |" in first_table  # the headline rows, no seat column
    assert text.index("_the table (any seat)") < text.index("![") < text.index("every event and seat")
    groups = event_groups(["dragon", "twos_0", "twos_1", "instant_win", "instant_win_dragon", "generals_8plus",
                           "generals_0"])
    assert groups == [["dragon"], ["twos_0", "twos_1"], ["instant_win", "instant_win_dragon"],
                      ["generals_8plus", "generals_0"]]
    assert pack_groups(groups, 3) == [["dragon", "twos_0", "twos_1"], ["instant_win", "instant_win_dragon"],
                                      ["generals_8plus", "generals_0"]]
    assert pack_groups([list("abcde")], 2) == [["a", "b"], ["c", "d"], ["e"]]


def test_the_play_report_counts_instant_wins_apart_from_the_length_histogram(tmp_path, capsys):
    run_dir = tmp_path / "p"
    code, _, err = run(capsys, "play", "tienlen", "--games", "2000", "--seed", "1", "--out", run_dir, "-q")
    assert code == 0, err
    code, _, err = run(capsys, "report", run_dir, "--out", tmp_path / "p.md")
    assert code == 0, err
    assert re.search(r"game length distribution \(\d+ instant wins not drawn\)", (tmp_path / "p.md").read_text())
    code, _, err = run(capsys, "report", run_dir, "--out", tmp_path / "p.html")
    assert code == 0, err
    page = (tmp_path / "p.html").read_text()
    # each figure's own title says what it shows: no caption under it repeating that in other words
    assert page.count("<img") == 2 and "<figcaption>" not in page


class _KeptFigures:
    """Stands in for the report's figure collector: keeps each figure to look at."""

    def __init__(self):
        self.figures = []

    def add(self, fig, title, caption=True):
        self.figures.append(fig)
        return f"[figure {title}]"


def test_deal_figures_keep_red_for_the_exact_values():
    import pandas as pd

    from cardsim.analysis.report import _rate_dots

    rows = [{"event": "dragon", "seat": s, "rate": 0.0006, "ci_low": 0.0005, "ci_high": 0.0007,
             "exact_low": 0.00058, "exact_high": 0.00058} for s in range(6)]
    fig = _rate_dots(pd.DataFrame(rows), ["dragon"], "dragon")
    labels, handles = fig.axes[0].get_legend_handles_labels()[::-1]
    colours = {label: handle[0].get_color() for label, handle in zip(labels, handles) if label.startswith("seat")}
    assert len(colours) == 6 and "tab:red" not in colours.values() and "C3" not in colours.values()


def test_a_lone_difference_is_drawn_clear_of_the_frame():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from cardsim.analysis.report import _difference_figure

    kept = _KeptFigures()
    row = pd.DataFrame({"metric": ["tricks"], "arm": ["b"], "difference": [0.1], "ci_low": [0.05], "ci_high": [0.15],
                        "unpaired_ci_low": [0.0], "unpaired_ci_high": [0.2]})
    _difference_figure(plt, kept, row, "differences (tricks)")
    assert kept.figures[0].axes[0].get_ylim() == (0.5, -0.5)  # both intervals inside, the row at the centre
    plt.close("all")


def test_the_tune_page_leads_with_the_best_and_prints_no_sentinels(tmp_path):
    import json

    import pandas as pd

    from cardsim.analysis.report import _tune_section

    folder = tmp_path / "tune"
    folder.mkdir()
    (folder / "tune.json").write_text(json.dumps({
        "game": "tusac", "objectives": ["seat_gap:min"], "constraints": [], "candidates": 2, "games_played": 4000,
        "grid_games_at_final_deals": 4000, "budget": 4000, "seed": 1}))
    pd.DataFrame({"rank": [1, 2], "candidate": ["win_threshold=6", "win_threshold=0"], "win_threshold": ["6", "0"],
                  "status": ["racing", "racing"], "round_out": [-1, -1], "deals": [2000, 2000], "reason": ["", ""],
                  "seat_gap": [0.0615, 0.0655], "seat_gap_ci_low": [0.0205, 0.0255],
                  "seat_gap_ci_high": [0.1025, 0.1055], "pareto": [True, False]}).to_parquet(
        folder / "candidates.parquet")
    kept = _KeptFigures()
    parts = _tune_section(folder, kept, "md")
    assert parts[0].startswith("Best estimate: win_threshold=6; 2 of 2 candidates not ruled out.")
    table = next(p for p in parts if p.startswith("| rank |"))
    assert "| -1 |" not in table  # still racing: no round it left in
    ax = kept.figures[0].axes[0]
    assert ax.get_legend_handles_labels()[1] == ["not ruled out"]  # no legend entry for nobody
    assert ax.get_ylim() == (1.5, -0.5)


def test_a_sweep_leads_with_the_metric_against_the_swept_value(tmp_path, capsys):
    spec = tmp_path / "sweep.toml"
    spec.write_text('name = "sw"\ngame = "tienlen"\ntask = "play"\nn = 300\nseed = 3\nmetrics = ["tricks"]\n'
                    '[sweep]\nswitch = "players"\nvalues = [3, 4]\n')
    code, _, err = run(capsys, "experiment", spec, "--out", tmp_path / "exp", "--quiet")
    assert code == 0, err
    code, _, err = run(capsys, "report", tmp_path / "exp", "--out", tmp_path / "r.md")
    assert code == 0, err
    text = (tmp_path / "r.md").read_text()
    assert text.index("![each metric against the swept value") < text.index("| players | metric |") \
        < text.index("| metric | arm | difference |")
