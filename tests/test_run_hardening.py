"""Hardening of the commands that write and resume: planted links, changed inputs, kills at a rename.

Each test reproduces one finding of issue 50 (F1-F14): a planted ``ln -s`` at one of
cardsim's fixed names, a model file edited or deleted between Ctrl-C and ``resume``,
saved games edited between an interruption and ``--resume``, a kill at a rename. Every
refusal is one ``cardsim: error:`` line with exit code 2 and leaves the other folder as
it was.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pandas as pd
import pytest

import cardsim
from cardsim.simcore.framework.config import ConfigError, Interrupted
from cardsim.simcore.run.output import verify
import interrupted_runs
from cli_helpers import run

TUNE = dict(switches=["players=2,4"], objectives=["turns"], budget=800, batch=20, seed=5, progress=False)
#: a race that lasts several rounds (test_tune's interrupted race)
RACE = dict(switches=["players=2,3", "win_threshold=0,6"], objectives=["turns"], budget=4000, batch=20, seed=5,
            progress=False)
TUNE_CLI = ("tune", "tusac", "--switch", "players=2,4", "--objective", "turns", "--budget", "800", "--batch", "20",
            "--seed", "5", "--quiet")


def one_line_refusal(code, err, *words):
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, err


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (what a refused command must leave alone)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def interrupted_deal(tmp_path, capsys, monkeypatch, name="run"):
    """An unfinished ``deal`` run of ``tmp_path/name`` with its first chunk saved."""
    return interrupted_runs.interrupted_deal(capsys, monkeypatch, tmp_path / name, "--quiet")[0]


def interrupted_learned_play(tmp_path, capsys, monkeypatch, model):
    """An unfinished ``play`` run of ``tmp_path/run`` with a ``learned:MODEL`` seat, its first chunk saved."""
    return interrupted_runs.interrupted(capsys, monkeypatch, tmp_path / "run", "play", "tienlen", "--games", 300,
                                        "--chunk-size", 100, "--seed", 1, "--policy", f"0=learned:{model}",
                                        "--quiet", task="cardsim.simcore.tienlen.tasks.PlayTask")[0]


def model_copy(tmp_path) -> Path:
    from cardsim.simcore.tienlen.learned import WEIGHTS_FILE

    model = tmp_path / "model.txt"
    model.write_text(WEIGHTS_FILE.read_text())
    return model


# -- F1, F4: tune's saved games and lock ---------------------------------------------------------


def test_f1_tune_refuses_a_planted_partial_tune_link(tmp_path, capsys):
    target = tmp_path / "precious"
    target.mkdir()
    (target / "tune.json").write_text("mine\n")
    before = tree(target)
    (tmp_path / ".out.partial-tune").symlink_to(target)
    for extra in ((), ("--resume",)):
        code, _, err = run(capsys, *TUNE_CLI, "--out", tmp_path / "out", *extra)
        one_line_refusal(code, err, "link")
        assert tree(target) == before and sorted(p.name for p in target.iterdir()) == ["tune.json"]
        assert not (tmp_path / "out").exists()


def test_f4_a_tune_waits_for_no_one_while_another_writes_the_same_out(tmp_path):
    from cardsim.simcore.run.lifecycle import OutputLock

    rounds = []
    with OutputLock(tmp_path / "out"):  # another `tune --out out` is running
        with pytest.raises(ConfigError, match="in use by another cardsim run"):
            cardsim.tune("tusac", out=tmp_path / "out", on_round=lambda *a: rounds.append(a), **TUNE)
    assert rounds == [] and not (tmp_path / ".out.partial-tune").exists()


# -- F3: tune --resume checks its saved games -----------------------------------------------------


def _interrupted_race(tmp_path):
    def stop(round_no, spent, budget):
        if round_no == 2:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted, match="--resume"):
        cardsim.tune("tusac", out=tmp_path / "r", on_round=stop, **RACE)
    saved = sorted((tmp_path / ".r.partial-tune").rglob("*.parquet"))
    assert saved
    return saved


def test_f3_edited_saved_games_are_played_again_on_resume(tmp_path):
    whole = cardsim.tune("tusac", out=tmp_path / "whole", **RACE).summary()
    for file in _interrupted_race(tmp_path):
        frame = pd.read_parquet(file)
        for column in frame.columns:
            if frame[column].dtype.kind in "iuf":
                frame[column] = frame[column] + 7
        frame.to_parquet(file, index=False)
    resumed = cardsim.tune("tusac", out=tmp_path / "r", resume=True, **RACE).summary()
    pd.testing.assert_frame_equal(resumed, whole)


def test_f3_a_truncated_saved_game_is_played_again_on_resume(tmp_path):
    whole = cardsim.tune("tusac", out=tmp_path / "whole", **RACE).summary()
    saved = _interrupted_race(tmp_path)
    saved[0].write_bytes(saved[0].read_bytes()[:10])
    resumed = cardsim.tune("tusac", out=tmp_path / "r", resume=True, **RACE).summary()
    pd.testing.assert_frame_equal(resumed, whole)


# -- F2, F9: a learned:FILE model changed or deleted before resume -------------------------------


def test_f2_resume_refuses_a_model_changed_since_the_run_started(tmp_path, capsys, monkeypatch):
    model = model_copy(tmp_path)
    partial = interrupted_learned_play(tmp_path, capsys, monkeypatch, model)
    saved = tree(partial)
    lines = model.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if line and not line.startswith("#"))
    name, value = lines[i].split()
    lines[i] = f"{name} {float(value) + 5.0!r}"
    model.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "resume", tmp_path / "run", "--quiet")
    one_line_refusal(code, err, "model.txt", "changed")
    assert not (tmp_path / "run").exists() and tree(partial) == saved


def test_f9_resume_with_a_deleted_model_is_one_line(tmp_path, capsys, monkeypatch):
    model = model_copy(tmp_path)
    partial = interrupted_learned_play(tmp_path, capsys, monkeypatch, model)
    model.unlink()
    code, _, err = run(capsys, "resume", tmp_path / "run", "--quiet")
    one_line_refusal(code, err, "model.txt", "missing")
    assert partial.is_dir()


def test_resume_with_the_same_model_still_finishes(tmp_path, capsys, monkeypatch):
    model = model_copy(tmp_path)
    interrupted_learned_play(tmp_path, capsys, monkeypatch, model)
    code, _, err = run(capsys, "resume", tmp_path / "run", "--quiet")
    assert code == 0, err
    assert verify(tmp_path / "run") == []


# -- F5: absurd model weights ----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e300"])
def test_f5_a_model_with_non_finite_or_absurd_weights_is_refused(tmp_path, capsys, value):
    from cardsim.simcore.tienlen import learned

    model = model_copy(tmp_path)
    lines = model.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if line and not line.startswith("#"))
    lines[i] = f"{lines[i].split()[0]} {value}"
    model.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="weight"):
        learned.read_weights(model)
    code, _, err = run(capsys, "play", "tienlen", "--games", 10, "--seed", 1, "--policy", f"0=learned:{model}")
    one_line_refusal(code, err, "model.txt")


# -- F6: --overwrite of study folders -------------------------------------------------------------


@pytest.mark.parametrize("kind", ["balance", "tune", "ladder"])
def test_f6_overwrite_replaces_a_study_folder(tmp_path, kind):
    from cardsim.simcore.run.folders import write_study_folder
    from cardsim.simcore.run.outpath import check_output_path

    out = tmp_path / "study"
    write_study_folder(out, False, kind, {"v": 1}, {"t": pd.DataFrame({"x": [1]})})
    path = check_output_path(out, overwrite=True)  # refused before: "not a cardsim dataset or experiment"
    write_study_folder(path, True, kind, {"v": 2}, {"t": pd.DataFrame({"x": [2]})})
    assert json.loads((out / f"{kind}.json").read_text()) == {"v": 2}


def test_f6_ladder_overwrite_from_the_command_line(tmp_path, capsys):
    args = ("ladder", "tusac", "--policies", "random", "--games", 20, "--seed", 1, "--quiet", "--out", tmp_path / "l")
    code, _, err = run(capsys, *args)
    assert code == 0, err
    code, _, err = run(capsys, *args, "--overwrite")
    assert code == 0, err


# -- F7, F8, F10: planted links at the run's fixed names ------------------------------------------


def test_f7_resume_refuses_a_planted_partial_link(tmp_path, capsys, monkeypatch):
    other = interrupted_deal(tmp_path, capsys, monkeypatch, name="other")
    saved = tree(other)
    (tmp_path / ".run.partial").symlink_to(other)
    code, _, err = run(capsys, "resume", tmp_path / "run", "--quiet")
    one_line_refusal(code, err, "link")
    assert not (tmp_path / "run").exists() and not (tmp_path / "run").is_symlink()
    assert tree(other) == saved
    # and a new run there is not sent to `cardsim resume` (which would follow the link)
    code, _, err = run(capsys, "deal", "tienlen", "--deals", 1000, "--seed", 1, "--quiet", "--out", tmp_path / "run")
    one_line_refusal(code, err, "link")
    assert "cardsim resume" not in err


@pytest.mark.parametrize("kind", ["balance", "tune", "ladder"])
def test_f8_a_planted_study_partial_link_is_refused(tmp_path, kind):
    from cardsim.simcore.run.folders import write_study_folder

    target = tmp_path / "precious"
    target.mkdir()
    (target / "keep.txt").write_text("mine\n")
    (tmp_path / f".out.partial.{kind}").symlink_to(target)
    with pytest.raises(ConfigError, match="link"):
        write_study_folder(tmp_path / "out", False, kind, {"v": 1}, {"t": pd.DataFrame({"x": [1]})})
    assert tree(target) == {"keep.txt": b"mine\n"} and not (tmp_path / "out").exists()


def test_f8_balance_from_the_command_line_refuses_the_link(tmp_path, capsys):
    target = tmp_path / "precious"
    target.mkdir()
    (tmp_path / ".out.partial.ladder").symlink_to(target)
    code, _, err = run(capsys, "ladder", "tusac", "--policies", "random", "--games", 20, "--seed", 1, "--quiet",
                       "--out", tmp_path / "out")
    one_line_refusal(code, err, "link")
    assert list(target.iterdir()) == []


def test_f10_resume_writes_nothing_through_a_linked_table_folder(tmp_path, capsys, monkeypatch):
    partial = interrupted_deal(tmp_path, capsys, monkeypatch)
    elsewhere = tmp_path / "elsewhere"
    (partial / "counts").rename(elsewhere)
    (partial / "counts").symlink_to(elsewhere)
    before = tree(elsewhere)
    code, _, err = run(capsys, "resume", tmp_path / "run", "--quiet")
    one_line_refusal(code, err, "link")
    assert tree(elsewhere) == before and not (tmp_path / "run").exists()


# -- F11: train's temporary model file and its permissions ---------------------------------------


def test_f11_saved_models_follow_the_umask_and_stale_temporaries_go(tmp_path):
    from cardsim.simcore.framework import selfplay
    from cardsim.simcore.tienlen.train import SPEC

    state = selfplay.start_state(SPEC, 3)
    old = os.umask(0o022)
    try:
        selfplay.write_model(SPEC, tmp_path / "m.txt", state, "cardsim train tienlen --seed 3")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "m.txt").stat().st_mode) == 0o644
    stale = tmp_path / ".m.txt.ab_9xYz1.tmp"  # a train killed while saving
    stale.write_text("half a model")
    unrelated = tmp_path / ".m.txt.notours.tmp"
    unrelated.write_text("someone else's")
    with pytest.raises(ConfigError, match="seed 3"):  # a checkpoint of another seed: refused before training
        selfplay.run_training(SPEC, tmp_path / "m.txt", 4, None, 0.01, False)
    assert not stale.exists() and unrelated.exists()


# -- F12: a metric that calls sys.exit ------------------------------------------------------------


@pytest.fixture(scope="module")
def small_play(tmp_path_factory):
    out = tmp_path_factory.mktemp("play") / "ds"
    cardsim.play("tusac", games=40, seed=1, out=out, progress=False)
    return out


@pytest.mark.parametrize("body", ["def m(x):\n    sys.exit(0)\n", "sys.exit(0)\ndef m(x):\n    return 1\n",
                                  "def m(x):\n    raise SystemExit('bye')\n"])
def test_f12_a_metric_that_exits_is_one_line(tmp_path, capsys, small_play, body):
    (tmp_path / "f.py").write_text("import sys\n" + body)
    code, out, err = run(capsys, "summary", small_play, "--metric", f"{tmp_path / 'f.py'}:m")
    one_line_refusal(code, err, "f.py:m", "exit")
    assert out == ""


# -- F13: a kill at the OUT -> .OUT.old-* rename of an --overwrite run ----------------------------


def test_f13_a_kill_at_the_overwrite_rename_resumes(tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    args = ("deal", "tienlen", "--deals", 2000, "--chunk-size", 1000, "--quiet", "--out", out)
    assert run(capsys, *args, "--seed", 1)[0] == 0
    fresh = tmp_path / "fresh"
    assert run(capsys, "deal", "tienlen", "--deals", 2000, "--chunk-size", 1000, "--quiet", "--out", fresh,
               "--seed", 2)[0] == 0
    original = Path.rename

    def killed_at_old(self, target):
        if ".old-" in Path(target).name:
            raise KeyboardInterrupt  # the process dies here: nothing after it runs
        return original(self, target)

    monkeypatch.setattr(Path, "rename", killed_at_old)
    code, _, _ = run(capsys, *args, "--seed", 2, "--overwrite")
    monkeypatch.undo()
    assert code == 130
    code, _, err = run(capsys, "resume", out, "--quiet")
    assert code == 0, err
    assert "without --overwrite" not in err
    assert verify(out) == [] and json.loads((out / "run.json").read_text())["seed"] == 2
    assert cardsim.load(out).summary().equals(cardsim.load(fresh).summary())


# -- F14: a report written into a dataset ---------------------------------------------------------


@pytest.mark.parametrize("where", ["report.html", "counts/report.html", "sub.md"])
def test_f14_a_report_inside_a_dataset_is_refused(tmp_path, capsys, where):
    ds = tmp_path / "ds"
    assert run(capsys, "deal", "tienlen", "--deals", 1000, "--seed", 1, "--quiet", "--out", ds)[0] == 0
    before = tree(ds)
    code, _, err = run(capsys, "report", ds, "--out", ds / where)
    one_line_refusal(code, err, "inside")
    assert tree(ds) == before and verify(ds) == []


def test_f14_a_report_inside_a_study_folder_is_refused(tmp_path, capsys):
    from cardsim.simcore.run.folders import verify_folder, write_study_folder

    write_study_folder(tmp_path / "b", False, "balance", {"v": 1}, {"t": pd.DataFrame({"x": [1]})})
    code, _, err = run(capsys, "report", tmp_path / "b", "--out", tmp_path / "b" / "report.html")
    one_line_refusal(code, err, "inside")
    assert verify_folder(tmp_path / "b") == []
