"""Experiment sweeps (one switch over values) and strengths (every arm at several policies)."""
from __future__ import annotations

import json

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
