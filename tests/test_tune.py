"""``cardsim tune``: racing rule variants on the same deals.

The race must find the full grid's best with fewer games (a planted best: fewer Tứ Sắc
players, fewer turns), drop candidates only by a paired test or a constraint, give the
same answer whatever the threads, and refuse bad grids, metrics and budgets in one line.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import cardsim
from cardsim.analysis.tune import candidate_table
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.study.tune import (CandidateState, Constraint, Objective, TuneConfig, play_block, block_ends)
from cli_helpers import run

GRID = ["players=2,3,4", "win_threshold=0,6"]


def test_objectives_constraints_and_blocks_parse():
    assert Objective.parse("seat_gap") == Objective("seat_gap", "min")
    assert Objective.parse("win_rate@dealer:max") == Objective("win_rate@dealer", "max")
    assert Constraint.parse("length<20") == Constraint("length", "<", 20.0)
    assert Constraint.parse("draw > 0.1") == Constraint("draw", ">", 0.1)
    with pytest.raises(ConfigError, match="METRIC<NUMBER"):
        Constraint.parse("length=20")
    assert block_ends(100, 1000) == [100, 200, 400, 800, 1000]
    assert block_ends(100, 100) == [100]


def test_the_race_finds_the_full_grids_best_with_fewer_games():
    result = cardsim.tune("tusac", switches=GRID, objectives=["turns:min"], budget=6000, batch=20, seed=1,
                          progress=False)
    table = result.summary()
    best = table.iloc[0]
    assert best["status"] == "racing" and best["candidate"].startswith("players=2")
    deals = int(best["deals"])
    config = TuneConfig(game="tusac", base_settings={}, switches=(("players", ("2", "3", "4")),
                                                                  ("win_threshold", ("0", "6"))),
                        objectives=(Objective("turns"),), budget=10 ** 9, seed=1, batch=20)
    states = [CandidateState(v, config.candidate_rules(v)) for v in config.candidates()]
    grid_games = sum(play_block(config, s, 0, deals, deals) for s in states)
    grid = candidate_table(config, states)
    assert grid.loc[grid["turns"].idxmin(), "candidate"] == best["candidate"]
    assert result.meta["games_played"] < grid_games
    # every candidate that left was beaten by a paired test, and says by whom and when
    for r in table[table["status"] == "eliminated"].itertuples(index=False):
        assert r.reason.startswith("beaten by ") and f"after {r.deals:,} deals" in r.reason
    rounds = result.tables["rounds"]
    assert rounds["round"].is_monotonic_increasing and set(rounds["candidate"]) == set(table["candidate"])


def test_a_constraint_makes_candidates_infeasible():
    result = cardsim.tune("tusac", switches=GRID, objectives=["turns:min"], constraints=["turns>19"], budget=4000,
                          batch=40, seed=2, progress=False)
    table = result.summary().set_index("candidate")
    for candidate, row in table.iterrows():
        if candidate.startswith("players=2"):  # about 17 turns: the constraint's interval lies below 19
            assert row["status"] == "infeasible" and "turns>19 fails" in row["reason"]
    assert table.iloc[0]["status"] == "racing" and not table.index[0].startswith("players=2")


def test_same_seed_same_race_whatever_the_threads(capsys):
    args = ["tune", "tusac", "--switch", "win_threshold=0,6,12", "--objective", "seat_gap", "--budget", "1500",
            "--batch", "100", "--seed", "3", "--json"]
    code1, out1, _ = run(capsys, *args, "--threads", "1")
    code2, out2, _ = run(capsys, *args, "--threads", "2")
    assert code1 == code2 == 0 and out1 == out2
    records = json.loads(out1)
    assert {"rank", "candidate", "status", "deals", "seat_gap", "seat_gap_ci_low", "seat_gap_ci_high",
            "win_threshold", "pareto"} <= set(records[0])


def test_two_objectives_give_a_pareto_set_and_out_reads_back(tmp_path, capsys):
    out = tmp_path / "t"
    code, text, err = run(capsys, "tune", "tusac", "--switch", "players=2,4", "--objective", "turns:min",
                          "--objective", "win_rate@dealer:min", "--budget", "2000", "--batch", "100", "--seed", "1",
                          "--out", out)
    assert code == 0, err
    assert "Pareto" in text and "games played" in err
    loaded = cardsim.load(out)
    assert loaded.meta["kind"] == "tune" and loaded.meta["objectives"] == ["turns:min", "win_rate@dealer:min"]
    table = loaded.summary()
    assert table["pareto"].any() and not table.loc[table["status"] != "racing", "pareto"].any()
    code, _, err = run(capsys, "report", out, "--out", tmp_path / "r.md")
    assert code == 0, err
    assert "tune" in (tmp_path / "r.md").read_text()


def test_an_identical_variant_is_not_raced_forever():
    # win_threshold 0 and 1 play the same games (no win scores fewer than 1 point)
    result = cardsim.tune("tusac", switches=["win_threshold=0,1"], objectives=["turns"], budget=8000, batch=500,
                          seed=1, progress=False)
    table = result.summary().set_index("candidate")
    assert table.loc["win_threshold=1", "status"] == "identical"
    assert "exactly as win_threshold=0" in table.loc["win_threshold=1", "reason"]
    assert table.loc["win_threshold=1", "deals"] >= 1000


@pytest.mark.parametrize("args, message", [
    (("--switch", "nosuch=1,2", "--objective", "turns"), "unknown switch 'nosuch'"),
    (("--switch", "win_threshold=3", "--objective", "turns"), "single candidate"),
    (("--switch", "win_threshold=0,6"), "--objective"),
    (("--switch", "win_threshold=0,6", "--objective", "win_rate"), "several groups"),
    (("--switch", "win_threshold=0,6", "--objective", "nothing"), "unknown metric 'nothing'"),
    (("--switch", "win_threshold=0,6", "--objective", "turns", "--budget", "100"), "--budget 100 cannot"),
    (("--switch", "win_threshold=0,x", "--objective", "turns"), "win_threshold"),
    (("--switch", "win_threshold", "--objective", "turns"), "expected NAME=V1,V2"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    code, out, err = run(capsys, "tune", "tusac", "--seed", "1", "--budget", "400", "--batch", "100", *args)
    assert code == 2 and message in err and "Traceback" not in err, err
    assert out == "" and len(err.strip().splitlines()) == 1


def test_a_two_candidate_race_ranks_both():
    result = cardsim.tune("tusac", switches=["players=2,4"], objectives=["turns"], budget=400, batch=100, seed=1,
                          progress=False)
    table = result.summary()
    assert list(table["rank"]) == [1, 2] and np.isfinite(table["turns"]).all()
    assert isinstance(table, pd.DataFrame)


def test_an_interrupted_race_resumes_to_the_same_result(tmp_path):
    from cardsim.simcore.framework.config import Interrupted

    args = dict(switches=["players=2,3", "win_threshold=0,6"], objectives=["turns"], budget=4000, batch=20, seed=5,
                progress=False)
    whole = cardsim.tune("tusac", out=tmp_path / "whole", **args).summary()

    def stop(round_no, spent, budget):
        if round_no == 2:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted, match="--resume"):
        cardsim.tune("tusac", out=tmp_path / "r", on_round=stop, **args)
    saved = tmp_path / ".r.partial-tune"
    assert len(list(saved.rglob("*.done"))) > 0 and not (tmp_path / "r").exists()
    with pytest.raises(ConfigError, match="other settings"):
        cardsim.tune("tusac", out=tmp_path / "r", resume=True, **{**args, "seed": 6})
    resumed = cardsim.tune("tusac", out=tmp_path / "r", resume=True, **args).summary()
    pd.testing.assert_frame_equal(resumed, whole)
    assert not saved.exists()  # written: the saved games are gone
    with pytest.raises(ConfigError, match="nothing to resume"):
        cardsim.tune("tusac", out=tmp_path / "r2", resume=True, **args)
