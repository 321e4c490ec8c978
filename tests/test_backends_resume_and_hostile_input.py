"""Scale-out and reliability: Dask backend, kill + resume, verify, hostile input."""
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsim import analysis
from cli_helpers import run
from interrupted_runs import interrupted_deal
from cardsim.simcore.run.output import verify

ROOT = Path(__file__).resolve().parents[1]


def deal(capsys, out, *extra, n=60_000, seed=11):
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", n, "--seed", seed, "--out", out, "--quiet", *extra)
    assert code == 0, stderr


def frames(path):
    rates = analysis.rates(analysis.load(path))
    per_deal = analysis.load(path, "per_deal").sort_values("deal").reset_index(drop=True)
    return rates, per_deal


def test_dask_backend_gives_identical_dataset(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    deal(capsys, tmp_path / "local", "--per-deal", "--chunk-size", 25_000)
    deal(capsys, tmp_path / "dask", "--per-deal", "--chunk-size", 7_000, "--backend", "dask", "--workers", 2)
    for a, b in zip(frames(tmp_path / "local"), frames(tmp_path / "dask")):
        pd.testing.assert_frame_equal(a, b)
    assert len(list((tmp_path / "dask" / "counts").glob("part-*"))) == 9
    assert verify(tmp_path / "dask") == []


def test_backend_option_errors(tmp_path, capsys):
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--backend", "mpi")
    assert code == 2 and "unknown backend" in stderr
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--workers", 2)
    assert code == 2 and "--backend dask" in stderr


def _cli(*args):
    return [sys.executable, "-m", "cardsim.cli.main", *map(str, args)]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_run_resumes_to_identical_result(tmp_path, capsys, sig):
    out = tmp_path / "run"
    args = ["deal", "tienlen", "--deals", 30_000_000, "--seed", 3, "--chunk-size", 2_000_000, "--quiet"]
    # the default SIGINT disposition in the child, even when pytest runs with SIGINT
    # ignored (a background job): otherwise the Ctrl-C below would be ignored
    proc = subprocess.Popen(_cli(*args, "--out", out, "--threads", 1), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    parts = tmp_path / ".run.partial" / "counts"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(parts.glob("part-*.parquet")) if parts.exists() else []) < 2:
        if proc.poll() is not None:
            pytest.fail(f"run finished before it could be killed: {proc.communicate()}")
        time.sleep(0.02)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=60)
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and "cardsim resume" in stderr
    else:
        assert proc.returncode == -signal.SIGKILL
    assert not out.exists()
    saved = len(list(parts.glob("part-*.parquet")))
    assert 2 <= saved < 15
    assert not list(parts.glob(".*tmp"))  or sig == signal.SIGKILL  # a kill may leave a temp file
    code, _, stderr = run(capsys, "resume", out, "--quiet")
    assert code == 0, stderr
    assert verify(out) == []
    straight = tmp_path / "straight"
    code, _, stderr = run(capsys, *args, "--out", straight)
    assert code == 0, stderr
    pd.testing.assert_frame_equal(analysis.rates(analysis.load(out)), analysis.rates(analysis.load(straight)))
    assert not list(out.rglob("*.tmp"))


def test_resume_errors(tmp_path, capsys):
    code, _, stderr = run(capsys, "resume", tmp_path / "nothing")
    assert code == 2 and "no unfinished run" in stderr
    deal(capsys, tmp_path / "done", n=1000)
    code, _, stderr = run(capsys, "resume", tmp_path / "done")
    assert code == 2 and "already complete" in stderr


def _interrupted_partial(tmp_path, capsys, monkeypatch, name="run"):
    """An unfinished run with its first of three chunks saved."""
    return interrupted_deal(capsys, monkeypatch, tmp_path / name)[0]


def test_manifest_from_another_game_is_refused(tmp_path, capsys, monkeypatch):
    partial = _interrupted_partial(tmp_path, capsys, monkeypatch)
    manifest = json.loads((partial / "manifest.json").read_text())
    manifest["game"] = "poker"
    (partial / "manifest.json").write_text(json.dumps(manifest))
    code, _, stderr = run(capsys, "resume", tmp_path / "run")
    assert code == 2 and "unknown game 'poker'" in stderr
    manifest["game"] = "tienlen"
    manifest["rules"]["players"] = 9
    (partial / "manifest.json").write_text(json.dumps(manifest))
    code, _, stderr = run(capsys, "resume", tmp_path / "run")
    assert code == 2 and "players" in stderr
    (partial / "manifest.json").write_text("{not json")
    code, _, stderr = run(capsys, "resume", tmp_path / "run")
    assert code == 2 and "unreadable manifest" in stderr
    assert (partial / "counts" / "part-000000.parquet").exists()  # the finished part is kept


def test_resume_flag_checks_settings(tmp_path, capsys, monkeypatch):
    _interrupted_partial(tmp_path, capsys, monkeypatch)
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 3000, "--chunk-size", 1000, "--seed", 2,
                          "--out", tmp_path / "run", "--resume")
    assert code == 2 and "different settings" in stderr
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 3000, "--chunk-size", 1000, "--seed", 1,
                          "--out", tmp_path / "run", "--resume", "--quiet")
    assert code == 0, stderr
    assert verify(tmp_path / "run") == []


def test_full_disk_keeps_finished_parts(tmp_path, capsys, monkeypatch):
    import cardsim.simcore.run.output as output

    real_replace = output.os.replace
    calls = {"n": 0}

    def failing_replace(src, dst):
        if str(dst).endswith(".parquet"):
            calls["n"] += 1
            if calls["n"] == 2:  # the second part's temporary file is written...
                Path(src).write_bytes(b"PAR1 half a file")
                raise OSError(errno.ENOSPC, "No space left on device")  # ...then the disk is full
        return real_replace(src, dst)

    monkeypatch.setattr(output.os, "replace", failing_replace)
    args = ["deal", "tienlen", "--deals", 3000, "--chunk-size", 1000, "--seed", 4, "--quiet"]
    code, _, stderr = run(capsys, *args, "--out", tmp_path / "run")
    assert code == 1
    assert "No space left on device" in stderr and "1 of 3 chunks are saved" in stderr
    assert stderr.count("\n") == 1
    partial = tmp_path / ".run.partial" / "counts"
    assert sorted(p.name for p in partial.iterdir()) == ["part-000000.parquet"]  # no half-written part
    monkeypatch.undo()
    code, _, stderr = run(capsys, "resume", tmp_path / "run", "--quiet")
    assert code == 0, stderr
    assert verify(tmp_path / "run") == []


def test_verify_reports_every_kind_of_damage(tmp_path, capsys):
    deal(capsys, tmp_path / "a", "--chunk-size", 20_000, seed=1)
    deal(capsys, tmp_path / "b", "--chunk-size", 20_000, seed=2)
    code, stdout, _ = run(capsys, "verify", tmp_path / "a")
    assert code == 0 and stdout.startswith("OK")

    part = tmp_path / "a" / "counts" / "part-000001.parquet"
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2])  # truncated
    code, stdout, stderr = run(capsys, "verify", tmp_path / "a")
    assert code == 1 and "part-000001.parquet: checksum mismatch" in stdout and "problem" in stderr
    part.write_bytes(data)
    assert verify(tmp_path / "a") == []

    (tmp_path / "a" / "counts" / "part-000002.parquet").unlink()  # missing
    assert any("part-000002.parquet: missing" in p for p in verify(tmp_path / "a"))

    foreign = tmp_path / "b" / "counts" / "part-000002.parquet"
    (tmp_path / "a" / "counts" / "part-000002.parquet").write_bytes(foreign.read_bytes())  # mixed runs
    problems = verify(tmp_path / "a")
    assert any("metadata of a different run" in p for p in problems)

    (tmp_path / "a" / "counts" / "part-000009.parquet").write_bytes(foreign.read_bytes())
    assert any("part-000009.parquet: not part of this run" in p for p in verify(tmp_path / "a"))

    (tmp_path / "a" / "run.json").write_text("{")
    code, stdout, _ = run(capsys, "verify", tmp_path / "a")
    assert code == 1 and "unreadable" in stdout


def test_corrupt_part_gives_clear_error_in_summary(tmp_path, capsys):
    deal(capsys, tmp_path / "a", n=1000)
    part = next((tmp_path / "a" / "counts").glob("part-*.parquet"))
    part.write_bytes(b"garbage")
    code, _, stderr = run(capsys, "summary", tmp_path / "a")
    assert code == 2 and "is damaged" in stderr and "cardsim verify" in stderr and stderr.count("\n") == 1


def test_rules_file_with_unknown_keys(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text("players = 4\nwild_jokers = true\n")
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--rules", spec)
    assert code == 2 and "unknown switch 'wild_jokers'" in stderr


# ---------------------------------------------------------------- property-based input tests

SWITCH_VALUES = st.one_of(
    st.integers(-3, 60).map(str),
    st.sampled_from(["", "on", "off", "none", "all", "dragon", "dragon,four_twos", "seed", "southern",
                     "four_pairs", "4-3-2-1", "per_card", "1e3", "0x4", " 3 ", "four_twos,,six_pairs"]),
    st.text(min_size=0, max_size=12),
)
SWITCHES = ["players", "cards_per_player", "instant_wins", "chop_rules", "bombs_after_pass", "pass_resets",
            "three_spades_alone", "scoring", "unknown_switch"]


def expected_valid(settings_):
    from cardsim.simcore.tienlen.rules import INSTANT_WIN_KINDS

    values = {"players": 4, "cards_per_player": 13}
    for key, raw in settings_.items():
        text = raw.strip()
        if key in ("players", "cards_per_player"):
            try:
                values[key] = int(text.replace("_", ""), 10)
            except ValueError:
                return False
            if not ({"players": (2, 4), "cards_per_player": (1, 26)}[key][0] <= values[key]
                    <= {"players": (2, 4), "cards_per_player": (1, 26)}[key][1]):
                return False
        elif key == "instant_wins":
            items = [x.strip() for x in text.split(",") if x.strip()]
            if items not in ([], ["none"], ["all"]) and not all(x in INSTANT_WIN_KINDS for x in items):
                return False
        elif key == "chop_rules":
            if text not in ("seed", "southern"):
                return False
        elif key == "bombs_after_pass":
            if text not in ("none", "all", "four_pairs"):
                return False
        elif key in ("pass_resets", "three_spades_alone"):
            if text.lower() not in ("on", "off", "true", "false", "yes", "no", "1", "0"):
                return False
        elif key == "scoring":
            if text not in ("3-2-1-0", "4-3-2-1", "per_card"):
                return False
        else:
            return False
    return values["players"] * values["cards_per_player"] <= 52


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(SWITCHES), SWITCH_VALUES, max_size=4))
def test_any_switch_values_either_run_or_fail_cleanly(tmp_path, capsys, settings_):
    sets = []
    for key, value in settings_.items():
        if "\n" in value or "\r" in value or "\x00" in value or "=" in key:
            continue
        sets += ["--set", f"{key}={value}"]
    settings_ = {k: v for k, v in settings_.items() if not any(c in v for c in "\n\r\x00")}
    out = tmp_path / "hyp"
    code, stdout, stderr = run(capsys, "deal", "tienlen", "--deals", 50, "--seed", 1, "--out", out,
                               "--overwrite", "--quiet", *sets)
    assert "Traceback" not in stdout + stderr
    if expected_valid(settings_):
        assert code == 0, stderr
        assert (out / "run.json").exists()
    else:
        assert code == 2, (settings_, stderr)
        assert stderr.count("\n") == 1 and stderr.startswith("cardsim: error:")
    assert not list(tmp_path.glob(".hyp.*"))  # never partial output


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(deals=st.one_of(st.integers(-10, 3000).map(str), st.text(max_size=8)),
       seed=st.one_of(st.none(), st.integers(-5, 2**64 + 5).map(str), st.text(max_size=6)),
       threads=st.one_of(st.none(), st.integers(-1, 4)),
       chunk=st.one_of(st.none(), st.integers(-2, 5000)))
def test_any_run_arguments_either_run_or_fail_cleanly(tmp_path, capsys, deals, seed, threads, chunk):
    args = ["deal", "tienlen", "--deals", deals, "--quiet", "--json"]
    if seed is not None:
        args += ["--seed", seed]
    if threads is not None:
        args += ["--threads", threads]
    if chunk is not None:
        args += ["--chunk-size", chunk]
    if any(isinstance(a, str) and (a.startswith("-") and a not in ("--deals", "--quiet", "--json", "--seed",
                                                                     "--threads", "--chunk-size"))
           for a in args[3:]):
        return  # a value that looks like an option is a different CLI question
    code, stdout, stderr = run(capsys, *args)
    assert "Traceback" not in stdout + stderr
    assert code in (0, 2)
    if code == 0:
        assert json.loads(stdout)
    else:
        assert stderr.count("\n") == 1 and stderr.startswith("cardsim: error:")
    assert not os.listdir(tmp_path)
