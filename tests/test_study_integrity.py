"""Study folders (experiments, ladders, balance cards, tune races) are checksummed: an
edited table, a deleted arm part or a stray file is found by ``verify`` and refused by
``report`` and ``cardsim.load`` (issue 34 item 15)."""
from __future__ import annotations

import shutil

import pandas as pd
import pytest

import cardsim
from cardsim.simcore.framework.config import ConfigError
from cli_helpers import run


@pytest.fixture()
def experiment(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text('game = "tienlen"\nn = 300\nseed = 3\n[[arms]]\nname = "southern"\n'
                    'rules = { chop_rules = "southern" }\n')
    out = tmp_path / "e"
    code, _, err = run(capsys, "experiment", spec, "--out", out, "--quiet")
    assert code == 0, err
    return out


def test_a_clean_experiment_verifies(experiment, capsys):
    code, out, err = run(capsys, "verify", experiment)
    assert code == 0 and out.startswith("OK ") and "2 datasets" in out, err


@pytest.mark.parametrize("damage", ["edit_table", "delete_arm_part", "delete_arm", "stray_file", "no_checksums"])
def test_damage_is_found_and_refused(experiment, damage, tmp_path, capsys):
    if damage == "edit_table":
        table = pd.read_parquet(experiment / "comparison.parquet")
        table.loc[0, "difference"] += 1.0
        table.to_parquet(experiment / "comparison.parquet", index=False)
    elif damage == "delete_arm_part":
        part = next((experiment / "southern" / "games").glob("*.parquet"))
        part.unlink()
    elif damage == "delete_arm":
        shutil.rmtree(experiment / "southern")
    elif damage == "stray_file":
        (experiment / "notes.txt").write_text("x")
    else:
        (experiment / "checksums.json").unlink()
    code, out, _ = run(capsys, "verify", experiment)
    assert code == 1 and "PROBLEM" in out
    code, _, err = run(capsys, "report", experiment, "--out", tmp_path / "r.md")
    assert code == 2 and "is damaged" in err and not (tmp_path / "r.md").exists()
    if damage in ("edit_table", "stray_file", "no_checksums"):
        with pytest.raises(ConfigError, match="is damaged"):
            cardsim.load(experiment)


@pytest.mark.parametrize("kind", ["ladder", "balance", "tune"])
def test_other_study_folders_are_checksummed(kind, tmp_path, capsys):
    out = tmp_path / kind
    args = {"ladder": ["ladder", "tienlen", "--policies", "random,heuristic", "--games", "5"],
            "balance": ["balance", "tienlen", "--policies", "random", "--field", "random", "--games", "20"],
            "tune": ["tune", "tusac", "--switch", "players=2,4", "--objective", "turns", "--budget", "400",
                     "--batch", "100"]}[kind]
    code, _, err = run(capsys, *args, "--seed", "1", "--out", out, "-q")
    assert code == 0, err
    code, text, _ = run(capsys, "verify", out)
    assert code == 0 and text.startswith("OK"), text
    main = {"ladder": "ratings", "balance": "card", "tune": "candidates"}[kind]
    table = pd.read_parquet(out / f"{main}.parquet")
    table.iloc[:1].to_parquet(out / f"{main}.parquet", index=False)
    code, text, _ = run(capsys, "verify", out)
    assert code == 1 and f"{main}.parquet: checksum mismatch" in text
