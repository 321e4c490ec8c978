"""Experiment sweeps (one switch over values) and strengths (every arm at several policies)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from cardsim.analysis.compare import robustness
from cardsim.simcore.study.experiment import parse_experiment, read_experiment
from cardsim.simcore.framework.config import ConfigError
from cli_helpers import run

SWEEP = """
name = "players"
game = "tienlen"
n = 2000
seed = 5
metrics = ["tricks", "instant_win"]
[sweep]
switch = "players"
values = [2, 3, 4]
"""


def test_sweep_runs_and_writes_a_tidy_table(tmp_path, capsys):
    spec = tmp_path / "sweep.toml"
    spec.write_text(SWEEP)
    code, out, err = run(capsys, "experiment", spec, "--out", tmp_path / "exp", "--quiet")
    assert code == 0, err
    sweep = pd.read_parquet(tmp_path / "exp" / "sweep.parquet")
    assert list(sweep.columns) == ["switch", "value", "metric", "unit", "n", "estimate", "ci_low", "ci_high"]
    assert sweep["value"].tolist() == ["2", "3", "4"] * 2 and set(sweep["metric"]) == {"tricks", "instant_win"}
    tricks = sweep[sweep["metric"] == "tricks"]["estimate"].to_numpy()
    assert tricks[0] < tricks[1] < tricks[2]  # more players, more tricks
    assert (sweep["ci_low"] <= sweep["estimate"]).all() and (sweep["estimate"] <= sweep["ci_high"]).all()
    # the arm at players=4 is the plain default run: same numbers as `cardsim play`
    code, out, err = run(capsys, "play", "tienlen", "--games", 2000, "--seed", 5, "--out", tmp_path / "p", "--quiet")
    plain = pd.read_parquet(tmp_path / "p" / "games")
    assert sweep[(sweep["metric"] == "tricks") & (sweep["value"] == "4")]["estimate"].iloc[0] == \
        pytest.approx(plain["tricks"].mean())
    code, _, err = run(capsys, "report", tmp_path / "exp", "--out", tmp_path / "r.html")
    assert code == 0, err


@pytest.mark.parametrize("bad,message", [
    ({"sweep": {"switch": "nope", "values": [1, 2]}}, "not a switch"),
    ({"sweep": {"switch": "players", "values": [2]}}, "at least two"),
    ({"sweep": {"switch": "players", "values": [2, 3]}, "arms": [{"name": "x"}]}, "not both"),
    ({"sweep": {"switch": "players", "values": [2, 9]}}, "players"),
    ({"policies": "heuristic", "arms": [{"name": "x"}]}, "policies"),
    ({"policies": ["heuristic", "nobody"], "arms": [{"name": "x"}]}, "unknown policy"),
])
def test_bad_sweeps_and_strengths_are_refused_before_running(bad, message):
    data = {"game": "tienlen", "n": 10, **bad}
    with pytest.raises(ConfigError, match=message):
        parse_experiment(data)


def test_strengths_run_every_arm_at_each_policy(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text('game = "tienlen"\nn = 1500\nseed = 3\npolicies = ["random", "heuristic"]\n'
                    'metrics = ["tricks"]\n[[arms]]\nname = "southern"\nrules = { chop_rules = "southern" }\n')
    experiment = read_experiment(spec)
    assert experiment.strengths == ("random", "heuristic")
    code, out, err = run(capsys, "experiment", spec, "--out", tmp_path / "e", "--json", "--quiet")
    assert code == 0, err
    table = pd.DataFrame(json.loads(out))
    assert table["strength"].tolist() == ["random", "heuristic"]
    verdict = robustness(table)
    assert len(verdict) == 1 and verdict["verdict"].iloc[0]
    info = json.loads((tmp_path / "e" / "experiment.json").read_text())
    assert info["policies"] == ["random", "heuristic"]
    # each strength's arms played with that policy at every seat
    meta = json.loads((tmp_path / "e" / "random" / "southern" / "run.json").read_text())
    assert meta["options"]["policies"] == ["random"] * 4


def test_robustness_verdicts():
    def table(diffs, lows, highs):
        return pd.DataFrame({"metric": "m", "arm": "a", "strength": [f"s{i}" for i in range(len(diffs))],
                             "difference": diffs, "ci_low": lows, "ci_high": highs})

    assert robustness(table([0.2, 0.19], [0.18, 0.17], [0.22, 0.21]))["verdict"][0].startswith("robust")
    assert "shrinks" in robustness(table([0.2, 0.08], [0.19, 0.07], [0.21, 0.09]))["verdict"][0]
    assert "reverses" in robustness(table([0.2, -0.1], [0.19, -0.11], [0.21, -0.09]))["verdict"][0]


def test_verdicts_come_from_the_paired_interaction_test(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text('game = "tusac"\nn = 600\nseed = 3\npolicies = ["random", "heuristic"]\n'
                    'metrics = ["draw", "turns"]\n[[arms]]\nname = "nosteal"\nrules = { steals = "off" }\n'
                    '[[arms]]\nname = "same"\nrules = { steals = "on" }\n')
    code, out, err = run(capsys, "experiment", spec, "--out", tmp_path / "e", "--quiet")
    assert code == 0, err
    tests = pd.read_parquet(tmp_path / "e" / "interaction.parquet")
    comparison = pd.read_parquet(tmp_path / "e" / "comparison.parquet")
    for r in tests.itertuples(index=False):  # the effects it pairs are the comparison's, deal by deal
        at = comparison.set_index(["metric", "arm", "strength"])["difference"]
        assert r.effect_a == pytest.approx(at[(r.metric, r.arm, r.strength_a)])
        assert r.effect_b == pytest.approx(at[(r.metric, r.arm, r.strength_b)])
        assert r.change == pytest.approx(r.effect_b - r.effect_a)
    verdicts = robustness(comparison, tests).set_index(["metric", "arm"])["verdict"]
    assert verdicts[("draw", "nosteal")].startswith("changes with strength")  # +0.19 with random, +0.03
    assert verdicts[("turns", "nosteal")].startswith("reverses")  # fewer turns with random, more with heuristic
    assert verdicts[("draw", "same")].startswith("no effect")
    assert "changes with strength" in out and "Holm p" in out


def test_a_change_inside_overlapping_intervals_is_found_by_the_paired_test():
    # per-strength intervals overlap (the old verdict: robust), but on the same deals the change is clear
    table = pd.DataFrame({"metric": "m", "arm": "a", "strength": ["weak", "strong"], "difference": [0.20, 0.17],
                          "ci_low": [0.16, 0.13], "ci_high": [0.24, 0.21]})
    assert robustness(table)["verdict"][0].startswith("robust")
    tests = pd.DataFrame([{"metric": "m", "arm": "a", "strength_a": "weak", "strength_b": "strong", "n": 10_000,
                           "effect_a": 0.20, "effect_b": 0.17, "change": -0.03, "ci_low": -0.04, "ci_high": -0.02,
                           "z": -5.9, "p": 3.6e-9, "p_holm": 3.6e-9}])
    assert robustness(table, tests)["verdict"][0].startswith("changes with strength")
    calm = tests.assign(z=-1.0, p=0.32, p_holm=0.32, ci_low=-0.09, ci_high=0.03)
    assert robustness(table, calm)["verdict"][0].startswith("robust")


def test_the_verdict_reports_the_largest_change_when_every_holm_p_is_1():
    table = pd.DataFrame({"metric": "m", "arm": "a", "strength": ["weak", "mid", "strong"],
                          "difference": [0.29, 0.29, 0.23], "ci_low": [0.19, 0.19, 0.13],
                          "ci_high": [0.39, 0.39, 0.33]})
    row = {"metric": "m", "arm": "a", "n": 120, "ci_low": -0.1, "ci_high": 0.1, "p_holm": 1.0}
    tests = pd.DataFrame([dict(row, strength_a="weak", strength_b="mid", effect_a=0.29, effect_b=0.29, change=0.0,
                               z=0.0, p=1.0),
                          dict(row, strength_a="weak", strength_b="strong", effect_a=0.29, effect_b=0.23,
                               change=-0.06, z=-0.9, p=0.37),
                          dict(row, strength_a="mid", strength_b="strong", effect_a=0.29, effect_b=0.23,
                               change=-0.06, z=-1.1, p=0.27)])
    verdict = robustness(table, tests)["verdict"][0]
    assert verdict.startswith("robust") and "(mid) -> +0.23 (strong)" in verdict and "z -1.10" in verdict


def test_holm_adjustment():
    from cardsim.analysis.compare import holm

    # sorted p 0.01, 0.02, 0.04 of m = 3: 3 * 0.01, max(0.03, 2 * 0.02), max(0.04, 1 * 0.04)
    assert holm(np.array([0.04, 0.01, 0.02])).tolist() == pytest.approx([0.04, 0.03, 0.04])
    assert holm(np.array([0.5, 0.9])).tolist() == pytest.approx([1.0, 1.0])
