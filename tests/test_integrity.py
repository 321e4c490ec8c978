"""Data integrity: readers check parts against run.json, resume redoes damaged parts,
one writer per output, clean exits for hostile input, debris of killed runs removed."""
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest

from cardsim import analysis
from cardsim.simcore.run import lifecycle
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.run.output import PartialRun, verify
from cardsim.simcore.run.runner import RunConfig, write_chunk
from cli_helpers import run

ROOT = Path(__file__).resolve().parents[1]


def deal(capsys, out, *extra, n=6000, chunk=1000, seed=1):
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", n, "--chunk-size", chunk, "--seed", seed,
                          "--out", out, "--quiet", *extra)
    assert code == 0, stderr


def one_line_error(stderr, *words):
    assert stderr.count("\n") == 1 and stderr.startswith("cardsim: error:"), stderr
    assert "internal error" not in stderr and "Traceback" not in stderr
    for word in words:
        assert word in stderr, stderr


# ------------------------------------------------------------------ readers refuse bad data

def _delete(ds, other):
    (ds / "counts" / "part-000003.parquet").unlink()  # 5,000 of 6,000 deals would be counted


def _duplicate(ds, other):
    shutil.copy(ds / "counts" / "part-000001.parquet", ds / "counts" / "part-000006.parquet")


def _foreign(ds, other):
    shutil.copy(other / "counts" / "part-000002.parquet", ds / "counts" / "part-000002.parquet")


def _flip_bit(ds, other):
    part = ds / "counts" / "part-000004.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 3] ^= 0x10
    part.write_bytes(bytes(data))


def _stray_file(ds, other):
    (ds / "counts" / "notes.txt").write_text("not a part")


def _run_json_list(ds, other):
    (ds / "run.json").write_text("[]")


def _relabelled(ds, other):
    meta = json.loads((ds / "run.json").read_text())
    meta["seed"] = 99  # parts still say seed 1
    (ds / "run.json").write_text(json.dumps(meta))


def _relabelled_game(ds, other):
    for name in ("run.json", "manifest.json"):  # both edited alike: the parts still say tienlen
        meta = json.loads((ds / name).read_text())
        meta["game"] = "tusac"
        (ds / name).write_text(json.dumps(meta))


DAMAGE = [_delete, _duplicate, _foreign, _flip_bit, _stray_file, _run_json_list, _relabelled, _relabelled_game]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """Two finished deal datasets (seeds 1 and 2), copied by each test."""
    from cardsim.cli.main import main

    root = tmp_path_factory.mktemp("pristine")
    for seed in (1, 2):
        assert main(["deal", "tienlen", "--deals", "6000", "--chunk-size", "1000", "--seed", str(seed),
                     "--out", str(root / f"s{seed}"), "--quiet", "--per-deal"]) == 0
    return root


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda f: f.__name__.strip("_"))
def test_readers_refuse_a_damaged_dataset(tmp_path, capsys, pristine, damage):
    ds = tmp_path / "ds"
    shutil.copytree(pristine / "s1", ds)
    capsys.readouterr()
    code, stdout, stderr = run(capsys, "summary", ds)
    assert code == 0 and stdout
    damage(ds, pristine / "s2")
    code, stdout, stderr = run(capsys, "summary", ds)
    assert code == 2 and not stdout
    one_line_error(stderr, "cardsim verify")
    with pytest.raises(ConfigError, match="cardsim verify"):
        analysis.load(ds)
    with pytest.raises(ConfigError, match="cardsim verify"):
        analysis.summary(ds)
    code, stdout, _ = run(capsys, "verify", ds)
    assert code == 1 and "PROBLEM" in stdout


def test_report_and_comparison_refuse_a_damaged_dataset(tmp_path, capsys, pristine):
    base, arm = tmp_path / "base", tmp_path / "arm"
    shutil.copytree(pristine / "s1", base)
    shutil.copytree(pristine / "s1", arm)
    assert len(analysis.compare(base, {"arm": arm}))
    part = arm / "per_deal" / "part-000004.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0x10
    part.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="cardsim verify"):
        analysis.compare(base, {"arm": arm})
    (arm / "counts" / "part-000001.parquet").unlink()
    code, _, stderr = run(capsys, "report", arm, "--out", tmp_path / "r.md")
    assert code == 2
    one_line_error(stderr, "cardsim verify")


def test_verify_reports_temp_parts_stray_files_and_nested_datasets(tmp_path, capsys, pristine):
    ds = tmp_path / "ds"
    shutil.copytree(pristine / "s1", ds)
    (ds / "counts" / ".part-000001.parquet.1234abcd.tmp").write_bytes(b"PAR1")
    (ds / "counts" / "README").write_text("x")
    shutil.copytree(pristine / "s2", ds / "counts" / "inner")
    (ds / "notes.csv").write_text("a,b\n")
    code, stdout, _ = run(capsys, "verify", ds)
    assert code == 1
    assert "counts/.part-000001.parquet.1234abcd.tmp: leftover temporary part" in stdout
    assert "counts/README: stray file" in stdout
    assert "counts/inner: nested dataset" in stdout
    assert "notes.csv: stray file" in stdout


def test_out_inside_a_dataset_is_refused(tmp_path, capsys, pristine):
    ds = tmp_path / "ds"
    shutil.copytree(pristine / "s1", ds)
    for inner in (ds / "sub", ds / "counts" / "sub"):
        code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 10, "--seed", 1, "--out", inner)
        assert code == 2
        one_line_error(stderr, "inside the cardsim dataset")
    assert verify(ds) == []


# ------------------------------------------------------------------ resume trusts no part

def _partial(out, chunks_done, n=5000, chunk=1000, seed=7):
    """An unfinished deal run with ``chunks_done`` written, as a killed run leaves it."""
    from cardsim.simcore.tienlen.rules import TienLenRules

    config = RunConfig(game="tienlen", task="deal", rules=TienLenRules.from_settings({}), n=n, seed=seed,
                       chunk_size=chunk)
    run_ = PartialRun.create(out, config.manifest())
    for chunk_id in chunks_done:
        write_chunk(run_.manifest, str(out), chunk_id)
    return run_


def test_resume_redoes_empty_truncated_and_flipped_parts(tmp_path, capsys):
    out = tmp_path / "run"
    partial = _partial(out, [0, 1, 2, 3]).dir
    counts = partial / "counts"
    (counts / "part-000000.parquet").write_bytes(b"")  # power loss: an empty file
    data = (counts / "part-000001.parquet").read_bytes()
    (counts / "part-000001.parquet").write_bytes(data[: len(data) // 2])  # truncated
    flipped = bytearray((counts / "part-000002.parquet").read_bytes())
    flipped[40] ^= 0x01
    (counts / "part-000002.parquet").write_bytes(bytes(flipped))
    (counts / ".part-000004.parquet.0badf00d.tmp").write_bytes(b"PAR1 half")  # a killed writer's temp part
    code, _, stderr = run(capsys, "resume", out, "--quiet")
    assert code == 0, stderr
    assert verify(out) == []
    assert sorted(p.name for p in (out / "counts").iterdir()) == [f"part-00000{i}.parquet" for i in range(5)]
    assert sorted(p.name for p in out.iterdir()) == ["counts", "manifest.json", "run.json"]
    straight = tmp_path / "straight"
    deal(capsys, straight, n=5000, seed=7)
    pd.testing.assert_frame_equal(analysis.summary(out), analysis.summary(straight))


def test_edited_manifest_of_an_unfinished_run_is_detected(tmp_path, capsys):
    out = tmp_path / "run"
    partial = _partial(out, [0, 1]).dir
    manifest = json.loads((partial / "manifest.json").read_text())
    manifest["seed"] = 8
    (partial / "manifest.json").write_text(json.dumps(manifest))
    code, _, stderr = run(capsys, "resume", out)
    assert code == 2
    one_line_error(stderr, "manifest was edited")
    assert not out.exists() and (partial / "counts" / "part-000001.parquet").exists()
    manifest["seed"] = 7
    manifest["n_chunks"] = 2  # would commit 2,000 of 5,000 deals
    (partial / "manifest.json").write_text(json.dumps(manifest))
    code, _, stderr = run(capsys, "resume", out)
    assert code == 2
    one_line_error(stderr, "n_chunks", "edited")


def test_parts_and_directories_are_fsynced(tmp_path, monkeypatch):
    import cardsim.simcore.run.output as output

    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(output.os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")),
                                                         real_fsync(fd)))
    out = tmp_path / "run"
    run_ = _partial(out, [0, 1, 2, 3, 4])
    run_.commit()
    names = [Path(p).name for p in synced]
    assert sum(n.startswith(".part-") and n.endswith(".tmp") for n in names) == 5  # each part before its rename
    assert "counts" in names and ".run.partial" in names  # the folders after the renames
    assert any(n.startswith(".run.json.") for n in names) and "manifest.json" in names  # at commit


# ------------------------------------------------------------------ one writer per output

HOLD_LOCK = ("import sys, time\nfrom pathlib import Path\nfrom cardsim.simcore.run.lifecycle import OutputLock\n"
             "lock = OutputLock(Path(sys.argv[1])).acquire()\nprint('locked', flush=True)\ntime.sleep(120)\n")


def test_a_live_run_holds_its_output(tmp_path, capsys):
    out = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        _partial(out, [0])
        for extra in ((), ("--overwrite",), ("--resume",)):
            code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 5000, "--chunk-size", 1000, "--seed", 7,
                                  "--out", out, *extra)
            assert code == 2
            one_line_error(stderr, "in use by another cardsim run", f"pid {holder.pid}")
        code, _, stderr = run(capsys, "resume", out)
        assert code == 2 and "in use" in stderr
        assert (tmp_path / ".run.partial" / "counts" / "part-000000.parquet").exists()  # untouched
    finally:
        holder.kill()
        holder.wait()
    # the holder died without releasing: its lock file is stale and taken over
    assert (tmp_path / ".run.lock").exists()
    code, _, stderr = run(capsys, "resume", out, "--quiet")
    assert code == 0, stderr
    assert verify(out) == [] and not (tmp_path / ".run.lock").exists()


# ------------------------------------------------------------------ bad input exits 2

def test_hostile_input_exits_2(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    nested = tmp_path / "nested.toml"
    nested.write_text("players = " + "[" * 5000 + "]" * 5000 + "\n")
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'players = "\xff"\n')
    cases = [
        (["deal", "tienlen", "--deals", "1e400", "--seed", 1], "too large"),
        (["deal", "tienlen", "--deals", 10, "--seed", 1, "--rules", nested], "nested too deeply"),
        (["deal", "tienlen", "--deals", 10, "--seed", 1, "--rules", latin], "not UTF-8"),
        (["deal", "tienlen", "--deals", 10, "--seed", 1, "--rules", "/dev/zero"], "not a regular file"),
        (["deal", "tienlen", "--deals", 10, "--seed", 1, "--out", "x" * 300], "too long"),
        (["deal", "tienlen", "--deals", 10, "--seed", 1, "--backend", "dask", "--scheduler", "xx::yy"],
         "Dask scheduler"),
        (["replay", "tienlen", "--seed", 1, "--game", 2**63], "--"),
        (["deal", "tienlen", "--deals", 10, "--seed", "9" * 100_000], "characters"),
    ]
    for args, words in cases:
        code, _, stderr = run(capsys, *args)
        assert code == 2, (args[:4], stderr[:300])
        one_line_error(stderr, words)
        assert len(stderr) < 2000
    assert sorted(os.listdir(tmp_path)) == ["latin.toml", "nested.toml"]


def test_tilde_in_out_is_expanded_once(tmp_path, capsys, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 100, "--seed", 1, "--out=~/x", "--quiet")
    assert code == 0, stderr
    assert verify(home / "x") == [] and not (tmp_path / "~").exists()


def test_full_disk_while_writing_run_json(tmp_path, capsys, monkeypatch):
    import cardsim.simcore.run.output as output

    real = output.write_durably

    def full(path, data):
        if path.name == "run.json":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, data)

    monkeypatch.setattr(output, "write_durably", full)
    out = tmp_path / "run"
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 3000, "--chunk-size", 1000, "--seed", 4,
                          "--out", out, "--quiet")
    assert code == 1 and stderr.count("\n") == 1
    assert "No space left on device" in stderr and "cardsim resume" in stderr and "internal" not in stderr
    monkeypatch.undo()
    assert not out.exists()
    code, _, stderr = run(capsys, "resume", out, "--quiet")
    assert code == 0, stderr
    assert verify(out) == []


@pytest.mark.parametrize("name", [".", "..", "comparison.csv", "experiment.json", ".hidden"])
def test_bad_arm_names_are_rejected_before_running(tmp_path, capsys, name):
    spec = tmp_path / "exp.toml"
    spec.write_text(f'game = "tienlen"\ntask = "deal"\nn = 100\nseed = 1\n[[arms]]\nname = "{name}"\n'
                    'rules = { players = 3 }\n')
    out = tmp_path / "exp"
    code, _, stderr = run(capsys, "experiment", spec, "--out", out)
    assert code == 2
    one_line_error(stderr, "arm names")
    assert sorted(os.listdir(tmp_path)) == ["exp.toml"]
    code, _, stderr = run(capsys, "experiment", "/dev/zero")
    assert code == 2 and "not a regular file" in stderr


# ------------------------------------------------------------------ debris of killed runs

def _cli(*args):
    return [sys.executable, "-m", "cardsim.cli.main", *map(str, args)]


def test_killed_run_without_out_leaves_nothing_behind(tmp_path, capsys, monkeypatch):
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = subprocess.Popen(_cli("deal", "tienlen", "--deals", 30_000_000, "--chunk-size", 1_000_000,
                                 "--threads", 1, "--seed", 1, "--quiet"),
                            cwd=ROOT, env=dict(os.environ, TMPDIR=str(temp)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not list(temp.glob("cardsim-*/.run.partial/counts/part-*.parquet")):
        assert proc.poll() is None, "the run finished before it could be killed"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (killed,) = list(temp.glob("cardsim-*"))
    live = Path(tempfile.mkdtemp(prefix="cardsim-", dir=temp))  # a live run's folder must survive
    lock = lifecycle.OutputLock(live / "run", live / ".run.lock").acquire()
    try:
        monkeypatch.setattr(tempfile, "tempdir", str(temp))
        code, _, stderr = run(capsys, "deal", "tienlen", "--deals", 100, "--seed", 1, "--quiet")
        assert code == 0, stderr
        assert not killed.exists() and live.exists()
        assert sorted(os.listdir(temp)) == [live.name]
    finally:
        lock.release()


def test_old_output_debris_and_symlinks_are_cleaned(tmp_path, capsys, pristine):
    out = tmp_path / "out"
    (tmp_path / ".out.old-1234abcd").mkdir()  # a kill during an --overwrite commit
    (tmp_path / ".out.old-1234abcd" / "run.json").write_text("{}")
    (tmp_path / ".out.partial.0badf00d").mkdir()  # a kill while creating the run folder
    target = tmp_path / "target"
    shutil.copytree(pristine / "s1", target)
    out.symlink_to(target)
    deal(capsys, out, "--overwrite", n=100, chunk=100)
    assert out.is_dir() and not out.is_symlink() and verify(out) == []
    assert verify(target) == []  # the link was replaced, its target left alone
    assert sorted(os.listdir(tmp_path)) == ["out", "target"]


def test_lock_without_flock_trusts_a_live_owner_only(tmp_path, monkeypatch):
    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(lifecycle.fcntl, "flock", no_flock)
    out = tmp_path / "run"
    (tmp_path / ".run.lock").write_text(f"pid {os.getppid()} on {os.uname().nodename}\n")  # a live process
    with pytest.raises(ConfigError, match="in use"):
        lifecycle.OutputLock(out).acquire()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / ".run.lock").write_text(f"pid {dead.pid} on {os.uname().nodename}\n")  # a dead one
    lock = lifecycle.OutputLock(out).acquire()
    assert f"pid {os.getpid()}" in (tmp_path / ".run.lock").read_text()
    lock.release()
    assert not (tmp_path / ".run.lock").exists()
