"""One way to print numbers and words for people (issue 50, item 17): estimate and bounds
share the decimals their interval's half-width gives, differences are signed (bounds
too) on the command line and in reports alike, Elo has one decimal; headers are words;
seeds read ``1e3`` as counts do; messages name the part that is wrong and no Python
names; ``cardsim games`` lists ``tune``; a ``learned:FILE`` seat is labelled by the file's
name; Loba without claims prints no claim rows; a Tứ Sắc replay says what its codes mean."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from cardsim.analysis.report_tables import display_table
from cardsim.cli import render
from cardsim.simcore.framework.config import ConfigError
from cli_helpers import run


def test_estimate_and_bounds_share_the_decimals_of_the_half_width():
    from cardsim.analysis import numbers

    assert numbers.estimate(0.2336, 0.2302, 0.2370) == ("0.2336", "[0.2302, 0.2370]")
    assert numbers.estimate(0.299, 0.2929, 0.3056) == ("0.2990", "[0.2929, 0.3056]")  # not "0.299" beside it
    assert numbers.with_interval(0.006484, 0.002614, 0.01036, signed=True) == "+0.0065 [+0.0026, +0.0104]"
    assert numbers.with_interval(9.3251, 5.5298, 13.06, elo=True) == "+9.3 [+5.5, +13.1]"
    assert numbers.with_interval(-0.00004, -0.002, 0.002, signed=True) == "0.0000 [-0.0020, +0.0020]"
    assert numbers.estimate(1507.2, 1442.0, 1573.0) == ("1,507", "[1,442, 1,573]")
    assert numbers.estimate(float("nan"), float("nan"), float("nan"), missing="n/a") == ("n/a", "n/a")


def test_the_command_line_and_the_report_print_a_difference_alike(capsys):
    table = pd.DataFrame({"metric": ["win_seat_0"], "arm": ["b"], "n": [300], "baseline": [0.2451],
                          "value": [0.251584], "difference": [0.006484], "ci_low": [0.002614], "ci_high": [0.01036],
                          "unpaired_ci_low": [-0.03], "unpaired_ci_high": [0.04], "se_ratio": [0.5],
                          "ess_factor": [1.0]})
    render.print_comparison(table, as_json=False)
    line = capsys.readouterr().out.splitlines()[1].split()
    assert line[2:7] == ["0.2451", "0.2516", "+0.0065", "[+0.0026,", "+0.0104]"]
    header, rows, _ = display_table(table)
    assert rows[0][header.index("difference")] == "+0.0065"
    assert rows[0][header.index("95% CI")] == "[+0.0026, +0.0104]"


def test_ladder_ratings_print_elo_to_one_decimal_and_the_file_name_of_a_model(capsys):
    ratings = pd.DataFrame({"policy": ["learned:/some/where/deep/my-model.txt"], "games": [800],
                            "win_rate": [0.3354], "win_ci_low": [0.3031], "win_ci_high": [0.3681],
                            "points": [1.6612], "points_ci_low": [1.5801], "points_ci_high": [1.7402],
                            "score": [0.552], "score_ci_low": [0.526], "score_ci_high": [0.579],
                            "elo": [37.43], "elo_ci_low": [18.21], "elo_ci_high": [56.02]})
    render.print_ladder(ratings, as_json=False)
    out = capsys.readouterr().out
    assert "learned:my-model.txt" in out and "/some/where" not in out
    assert "+37.4 [+18.2, +56.0]" in out and "0.335 [0.303, 0.368]" in out


def test_report_headers_are_words():
    frame = pd.DataFrame({"policy": ["a"], "win_rate": [0.5], "win_ci_low": [0.4], "win_ci_high": [0.6],
                          "elo": [0.0], "elo_ci_low": [-10.0], "elo_ci_high": [10.0], "ess_factor": [1.0]})
    header = display_table(frame)[0]
    assert "win rate" in header and "Elo" in header and "ess" in header
    assert not [h for h in header if "_" in h]


def test_a_seed_reads_1e3_as_a_count_does(capsys):
    from cardsim.api import parse_seed

    assert parse_seed("1e3") == 1000 and parse_seed("2.5e3") == 2500 and parse_seed("0x10") == 16
    for bad in ("1.5", "1e-3", "2.25e1", "seed"):
        with pytest.raises(ConfigError, match="must be an integer"):
            parse_seed(bad)
    args = ("deal", "tusac", "--deals", "500", "--quiet", "--json", "--seed")
    code, exponent, err = run(capsys, *args, "1e3")
    assert code == 0, err
    assert json.loads(exponent) == json.loads(run(capsys, *args, "1000")[1])


def test_a_bad_objective_direction_is_named_not_called_an_unknown_metric(capsys):
    code, _, err = run(capsys, "tune", "tusac", "--switch", "win_threshold=0,6", "--objective", "seat_gap:smallest")
    assert code == 2 and "unknown metric" not in err
    assert "'smallest'" in err and "min or max" in err


def test_messages_name_flags_not_python_names():
    from cardsim.simcore.framework import registry
    from cardsim.simcore.framework.spec import option_flag

    assert option_flag("events") == "--event" and option_flag("games_per_match") == "--games-per-match"
    task = registry.get_task("tienlen", "deal")
    with pytest.raises(ConfigError) as info:
        task.check_options(registry.rules_class("tienlen")(), {"events": 3})
    assert "--event" in str(info.value) and not str(info.value).startswith("events")
    play = registry.get_task("tienlen", "play")
    with pytest.raises(ConfigError, match="takes no --event "):
        play.check_options(registry.rules_class("tienlen")(), {"policies": ["heuristic"] * 4, "events": ["x"]})


def test_games_lists_tune_beside_balance(capsys):
    code, out, _ = run(capsys, "games")
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert code == 0 and all("balance, tune" in rows[g] for g in ("tienlen", "tusac", "loba", "continental"))


def test_a_learned_file_seat_is_labelled_by_its_file_name(tmp_path, capsys):
    import shutil

    from cardsim.simcore.tienlen.learned import WEIGHTS_FILE

    model = tmp_path / "deep" / "folder" / "mine.txt"
    model.parent.mkdir(parents=True)
    shutil.copy(WEIGHTS_FILE, model)
    code, out, err = run(capsys, "play", "tienlen", "--games", "40", "--seed", "1", "--quiet",
                         "--policy", f"0=learned:{model}")
    assert code == 0, err
    assert "seat 0 (learned:mine.txt)" in out and "policy learned:mine.txt" in out and str(tmp_path) not in out
    from cardsim.simcore.framework.spec import policy_label

    assert policy_label("learned:/a/b/m.txt") == "learned:m.txt" and policy_label("search:64") == "search:64"
    # seats read from files are labelled by the file's name; a module path stays as written
    assert policy_label("python:/tmp/x/seat.py:lowest") == "python:seat.py:lowest"
    assert policy_label("python:mypkg.seats:lowest") == "python:mypkg.seats:lowest"
    assert policy_label("bigtwo-ppo:/w/modelParameters136500") == "bigtwo-ppo:modelParameters136500"


def test_loba_without_claims_prints_no_claim_rows(capsys):
    code, out, err = run(capsys, "play", "loba", "--games", "4", "--seed", "1", "--quiet")  # claims off by default
    assert code == 0, err
    assert "claims_per_match" not in out and "match_win_rate" in out


def test_a_tusac_replay_says_what_its_codes_mean(capsys):
    code, out, err = run(capsys, "replay", "tusac", "--seed", "1", "--index", "0")
    assert code == 0, err
    legend = [line for line in err.splitlines() if line.startswith("cards: ")]
    assert len(legend) == 1 and "R red" in legend[0] and "N cannon" in legend[0] and "2YH" in legend[0]
    assert out.startswith("game 0, seed 1")  # the replay itself (stdout) is the game alone


def test_deal_shows_the_exact_values_that_exact_printed(tmp_path):
    # issue 50 item 17: `exact` printed exact table values that `deal`/`summary` showed only as brackets
    import os
    import subprocess
    import sys

    env = {**os.environ, "CARDSIM_CACHE_DIR": str(tmp_path / "cache")}

    def cardsim(*args):
        done = subprocess.run([sys.executable, "-m", "cardsim", *args], env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def dragon_any(text):
        return next(line for line in text.splitlines() if line.split()[:2] == ["dragon", "any"])

    deal = ("deal", "tienlen", "--deals", "20000", "--seed", "1")
    assert "[" in dragon_any(cardsim(*deal)).split("]")[-2]  # before: the quick table's bracket
    exact = dragon_any(cardsim("exact", "tienlen")).split()[2]
    after = dragon_any(cardsim(*deal))
    assert exact in after.split() and after.count("[") == 1, after  # the interval's bracket only
