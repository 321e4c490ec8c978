"""Output paths and resume (issue 34): output paths that are the current folder or unusable,
planted lock files, resuming an ``--overwrite`` run, parts without a checksum record, datasets
that lost a part together with its record."""
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cardsim import analysis
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.run import lifecycle
from cardsim.simcore.run.output import verify
from cli_helpers import run
from interrupted_runs import interrupted_deal


def deal(capsys, out, *extra, n=3000, chunk=1000, seed=1):
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", n, "--chunk-size", chunk, "--seed", seed,
                          "--out", out, "--quiet", *extra)
    assert code == 0, stderr


def one_line_error(stderr, *words):
    assert stderr.count("\n") == 1 and stderr.startswith("cardsim: error:"), stderr
    assert "internal error" not in stderr and "Traceback" not in stderr
    for word in words:
        assert word in stderr, stderr


def refused(capsys, *args):
    """Run ``cardsim ARGS``, expect exit 2 with one error line; return that line."""
    code, stdout, stderr = run(capsys, *args)
    assert code == 2 and not stdout, (code, stdout, stderr)
    one_line_error(stderr)
    return stderr


def _interrupted(capsys, monkeypatch, out, *extra, seed=1):
    """Interrupt ``cardsim deal ... --out OUT EXTRA`` at its second of three chunks."""
    partial, stderr = interrupted_deal(capsys, monkeypatch, out, *extra, seed=seed)
    assert "cardsim resume" in stderr, stderr
    return partial


# ------------------------------------------------------------------ 7: the current folder

def test_out_that_is_the_current_folder_is_refused_even_through_a_symlink(tmp_path, capsys, monkeypatch):
    here = tmp_path / "real" / "here"
    here.mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(here)
    args = ("deal", "tienlen", "--deals", 100, "--seed", 1, "--quiet", "--overwrite", "--out")
    for out in ("", ".", "..", str(tmp_path / "link" / "here"), str(tmp_path / "link")):
        assert "current folder" in refused(capsys, *args, out), out
    assert here.is_dir() and Path.cwd() == here and not list(here.iterdir())
    with pytest.raises(ConfigError, match="empty"):
        lifecycle.resolve_out("")


# ------------------------------------------------------------------ 9: unusable paths

@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_out_on_a_virtual_file_system_is_unusable(tmp_path, capsys):
    for extra in ((), ("--yes",)):
        line = refused(capsys, "deal", "tienlen", "--deals", 100, "--seed", 1, "--quiet", "--out", "/proc/x", *extra)
        assert "unusable output path" in line and "use a smaller N" not in line, line
    assert "unusable output path" in refused(capsys, "resume", "/proc/x")
    with pytest.raises(ConfigError, match="unusable output path"):
        lifecycle.resolve_out("/proc/x")


# ------------------------------------------------------------------ 12: planted lock files

def test_a_planted_lock_symlink_is_never_written_through(tmp_path, capsys):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / ".v1.lock").symlink_to(victim)
    line = refused(capsys, "deal", "tienlen", "--deals", 100, "--seed", 1, "--quiet", "--out", tmp_path / "v1")
    assert "lock" in line and "symbolic link" in line, line
    assert victim.read_text() == "precious\n" and not (tmp_path / "v1").exists()
    # a dangling link would otherwise create its target
    (tmp_path / ".v2.lock").symlink_to(tmp_path / "created")
    refused(capsys, "deal", "tienlen", "--deals", 100, "--seed", 1, "--quiet", "--out", tmp_path / "v2")
    assert not (tmp_path / "created").exists()


def test_a_lock_that_is_not_a_regular_file_is_refused(tmp_path, capsys):
    os.mkfifo(tmp_path / ".v1.lock")
    (tmp_path / ".v2.lock").mkdir()
    other = tmp_path / "other"
    other.write_text("precious\n")
    os.link(other, tmp_path / ".v3.lock")  # a hard link: truncating it would empty "other"
    for name in ("v1", "v2", "v3"):
        line = refused(capsys, "deal", "tienlen", "--deals", 100, "--seed", 1, "--quiet", "--out", tmp_path / name)
        assert "lock" in line, line
        assert not (tmp_path / name).exists()
    assert other.read_text() == "precious\n"


# ------------------------------------------------------------------ 14: resuming --overwrite

def test_resume_finishes_an_interrupted_overwrite(tmp_path, capsys, monkeypatch):
    out = tmp_path / "ds"
    deal(capsys, out, seed=2)
    partial = _interrupted(capsys, monkeypatch, out, "--overwrite", seed=1)
    assert partial.is_dir() and json.loads((out / "run.json").read_text())["seed"] == 2  # old one kept so far
    code, _, stderr = run(capsys, "resume", out, "--quiet")
    assert code == 0, stderr
    assert verify(out) == [] and not partial.exists()
    assert sorted(p.name for p in out.iterdir()) == ["counts", "manifest.json", "run.json"]
    straight = tmp_path / "straight"
    deal(capsys, straight, seed=1)
    pd.testing.assert_frame_equal(analysis.summary(out), analysis.summary(straight))
    assert json.loads((out / "manifest.json").read_text())["seed"] == 1


def test_resume_without_overwrite_intent_refuses_before_running(tmp_path, capsys, monkeypatch):
    out = tmp_path / "ds"
    partial = _interrupted(capsys, monkeypatch, out)
    deal(capsys, tmp_path / "other", seed=2)
    (tmp_path / "other").rename(out)  # a dataset appeared at OUT meanwhile
    line = refused(capsys, "resume", out)
    assert "output path exists" in line
    assert sorted(p.name for p in (partial / "counts").iterdir()) == ["part-000000.parquet"]  # nothing ran
    assert json.loads((out / "run.json").read_text())["seed"] == 2


def test_resume_of_an_overwrite_still_refuses_to_replace_foreign_files(tmp_path, capsys, monkeypatch):
    out = tmp_path / "ds"
    deal(capsys, out, seed=2)
    partial = _interrupted(capsys, monkeypatch, out, "--overwrite")
    shutil.rmtree(out)
    out.mkdir()
    (out / "thesis.tex").write_text("precious\n")  # not a dataset any more
    line = refused(capsys, "resume", out)
    assert "not a cardsim dataset" in line
    assert (out / "thesis.tex").read_text() == "precious\n" and partial.is_dir()


# ------------------------------------------------------------------ 16: parts without a checksum

def test_resume_redoes_a_part_without_a_checksum_record(tmp_path, capsys, monkeypatch):
    out = tmp_path / "ds"
    partial = _interrupted(capsys, monkeypatch, out)
    part = partial / "counts" / "part-000000.parquet"
    table = pq.read_table(part)
    counts = table.column("count").to_numpy().copy()
    counts[0] += 1  # silently altered, still a readable part of this run
    column = table.schema.get_field_index("count")
    altered = table.set_column(column, table.schema.field(column), pa.array(counts))
    assert altered.schema.metadata == table.schema.metadata
    pq.write_table(altered, part, compression="zstd")
    shutil.rmtree(partial / "checksums")
    code, _, stderr = run(capsys, "resume", out, "--quiet")
    assert code == 0, stderr
    assert verify(out) == []
    straight = tmp_path / "straight"
    deal(capsys, straight, seed=1)
    pd.testing.assert_frame_equal(analysis.summary(out), analysis.summary(straight))


# ------------------------------------------------------------------ 17: incomplete datasets

def _drop_record(ds, table, chunk):
    meta = json.loads((ds / "run.json").read_text())
    meta["parts"] = [p for p in meta["parts"] if (p["table"], p["chunk"]) != (table, chunk)]
    (ds / "run.json").write_text(json.dumps(meta))


def test_a_part_deleted_with_its_record_is_an_incomplete_dataset(tmp_path, capsys):
    ds = tmp_path / "ds"
    deal(capsys, ds, n=6000)
    (ds / "counts" / "part-000003.parquet").unlink()
    _drop_record(ds, "counts", 3)  # 5,000 of 6,000 deals would be counted
    line = refused(capsys, "summary", ds)
    assert "incomplete" in line and "cardsim verify" in line, line
    with pytest.raises(ConfigError, match="cardsim verify"):
        analysis.load(ds)
    code, stdout, _ = run(capsys, "verify", ds)
    assert code == 1 and "PROBLEM" in stdout


def test_duplicate_records_and_short_row_totals_are_refused(tmp_path, capsys):
    ds = tmp_path / "ds"
    deal(capsys, ds, "--per-deal", n=6000)
    pristine = tmp_path / "pristine"
    shutil.copytree(ds, pristine)
    # a record listed twice in place of another one
    meta = json.loads((ds / "run.json").read_text())
    meta["parts"] = [p for p in meta["parts"] if (p["table"], p["chunk"]) != ("counts", 3)]
    meta["parts"].append(next(p for p in meta["parts"] if (p["table"], p["chunk"]) == ("counts", 2)))
    (ds / "run.json").write_text(json.dumps(meta))
    (ds / "counts" / "part-000003.parquet").unlink()
    assert "cardsim verify" in refused(capsys, "summary", ds)
    # a per-deal part cut to half its rows, its record edited to match: 5,500 of 6,000 deals
    shutil.rmtree(ds)
    shutil.copytree(pristine, ds)
    part = ds / "per_deal" / "part-000003.parquet"
    table = pq.read_table(part)
    pq.write_table(table.slice(0, 500), part, compression="zstd")
    meta = json.loads((ds / "run.json").read_text())
    record = next(p for p in meta["parts"] if (p["table"], p["chunk"]) == ("per_deal", 3))
    from cardsim.simcore.run.output import file_sha256
    record.update(rows=500, bytes=part.stat().st_size, sha256=file_sha256(part))
    (ds / "run.json").write_text(json.dumps(meta))
    with pytest.raises(ConfigError, match="cardsim verify"):
        analysis.load(ds, "per_deal")
    assert "cardsim verify" in refused(capsys, "summary", ds)
    assert any("rows" in problem for problem in verify(ds))
    assert verify(pristine) == [] and len(analysis.load(pristine, "per_deal")) == 6000


def test_resume_after_a_commit_killed_before_its_rename_keeps_the_parts(tmp_path, capsys, monkeypatch):
    """The commit removes ``checksums/`` just before its rename: the parts are then
    vouched for by the run.json it wrote, not redone (nor taken on trust)."""
    import cardsim.simcore.run.output as output

    out = tmp_path / "ds"
    partial = _interrupted(capsys, monkeypatch, out)

    def killed(src, dst, overwrite):
        raise KeyboardInterrupt  # stands for SIGKILL between the last fsync and the rename

    monkeypatch.setattr(output, "replace_directory", killed)
    code, _, _ = run(capsys, "resume", out, "--quiet")
    monkeypatch.undo()
    assert code == 130 and (partial / "run.json").is_file() and not (partial / "checksums").exists()
    first = (partial / "counts" / "part-000000.parquet").stat().st_mtime_ns
    code, _, stderr = run(capsys, "resume", out, "--quiet")
    assert code == 0, stderr
    assert verify(out) == [] and (out / "counts" / "part-000000.parquet").stat().st_mtime_ns == first


def test_an_unreachable_scheduler_leaves_no_unfinished_run(tmp_path, capsys):
    pytest.importorskip("distributed")
    out = tmp_path / "d"
    code, _, err = run(capsys, "play", "tienlen", "--games", "100", "--seed", "1", "--out", out, "--backend", "dask",
                       "--scheduler", "tcp://127.0.0.1:1", "-q")
    assert code == 2 and "cannot reach the Dask scheduler" in err
    assert not out.exists() and not any(tmp_path.iterdir())


def test_a_lost_dask_cluster_is_one_resumable_line(tmp_path, capsys, monkeypatch):
    distributed = pytest.importorskip("distributed")
    from cardsim.simcore.run import dask_backend

    def lost(run, chunk_ids, **kwargs):
        raise distributed.client.FutureCancelledError("key", "scheduler-connection-lost")

    monkeypatch.setattr(dask_backend, "execute_dask", lost)  # our own module: the cluster "goes away"
    out = tmp_path / "d"
    code, _, err = run(capsys, "play", "tienlen", "--games", "100", "--seed", "1", "--out", out, "--backend", "dask",
                       "--scheduler", "tcp://127.0.0.1:1", "-q")
    assert code == 1 and "the Dask cluster went away mid-run" in err and f"cardsim resume {out}" in err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err


def test_a_planted_partial_symlink_is_refused_not_followed(tmp_path, capsys):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("x")
    (tmp_path / ".v1.partial").symlink_to(victim)
    code, _, err = run(capsys, "play", "tusac", "--games", "50", "--seed", "1", "-q", "--out", tmp_path / "v1",
                       "--overwrite")
    assert code == 2 and "is not an unfinished run" in err and "internal error" not in err
    assert (victim / "keep").read_text() == "x" and not (tmp_path / "v1").exists()


def test_a_non_utf8_output_name_is_refused_up_front(tmp_path, capsys):
    out = os.fsdecode(os.fsencode(str(tmp_path)) + b"/bad\xff")
    code, _, err = run(capsys, "play", "tusac", "--games", "50", "--seed", "1", "-q", "--out", out)
    assert code == 2 and "not valid UTF-8" in err and "internal error" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_dask_worker_with_other_versions_refuses_to_write(tmp_path):
    pytest.importorskip("distributed")
    from cardsim.simcore.framework.config import RunFailed
    from cardsim.simcore.run.dask_backend import write_chunk_on_worker

    with pytest.raises(RunFailed, match=r"a Dask worker runs cardsim .* \(the run: 0\.0\.1\)"):
        write_chunk_on_worker({"cardsim_version": "0.0.1", "numba_version": "0.1"}, str(tmp_path / "x"), 0)
    assert list(tmp_path.iterdir()) == []


def test_missing_chunks_is_one_scan_and_agrees_with_per_part_checks(tmp_path):
    """Item 18: the Ctrl-C report counts saved chunks without a stat per part."""
    from cardsim.simcore.run.output import PartialRun, part_name

    run_ = PartialRun.__new__(PartialRun)
    run_.dir, run_.manifest = tmp_path, {"tables": ["games", "hands"], "n_chunks": 50}
    for table in ("games", "hands"):
        (tmp_path / table).mkdir()
    for c in range(0, 50, 3):
        (tmp_path / "games" / part_name(c)).write_bytes(b"")
    for c in range(0, 50, 2):
        (tmp_path / "hands" / part_name(c)).write_bytes(b"")
    (tmp_path / "hands" / part_name(3)).mkdir()  # not a file: not a part
    assert run_.missing_chunks() == [c for c in range(50) if not run_.chunk_done(c)]
    assert 0 not in run_.missing_chunks() and 3 in run_.missing_chunks()
