"""A real Dask cluster: `dask scheduler` and two `dask worker` processes started (and stopped, by PID)
by the test on localhost; relative --out, resume through the scheduler, a worker killed mid-run, Ctrl-C."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed")

from cardsim import analysis  # noqa: E402
from cardsim.simcore.run.output import PartialRun, verify  # noqa: E402
from cardsim.simcore.run.runner import RunConfig, write_chunk  # noqa: E402
from cli_helpers import run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DASK = [sys.executable, "-m", "dask"]


def _cli(*args):
    return [sys.executable, "-m", "cardsim.cli.main", *map(str, args)]


def _default_sigint() -> None:
    """In the child: the default SIGINT disposition, even when pytest runs with SIGINT
    ignored (a background job), so that the Ctrl-C the test sends is not ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """``(address, [worker processes])`` of a scheduler and two single-threaded workers."""
    from dask.distributed import Client

    home = tmp_path_factory.mktemp("cluster")  # the workers' own folder: not where the client runs
    log = open(home / "cluster.log", "w")
    procs = []
    try:
        scheduler_file = home / "scheduler.json"
        procs.append(subprocess.Popen(DASK + ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                              "--scheduler-file", str(scheduler_file)],
                                      cwd=home, stdout=log, stderr=log))
        deadline = time.time() + 60
        while not scheduler_file.exists() and time.time() < deadline:
            assert procs[0].poll() is None, (home / "cluster.log").read_text()
            time.sleep(0.1)
        time.sleep(0.2)  # the file is complete once it parses
        address = json.loads(scheduler_file.read_text())["address"]
        workers = [subprocess.Popen(DASK + ["worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                            "--host", "127.0.0.1", "--local-directory", str(home / f"w{i}")],
                                    cwd=home, stdout=log, stderr=log) for i in range(2)]
        procs += workers
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers
    finally:
        for proc in reversed(procs):
            _stop(proc)
        log.close()


def _straight(capsys, out, n, chunk, seed):
    code, _, stderr = run(capsys, "deal", "tienlen", "--deals", n, "--chunk-size", chunk, "--seed", seed,
                          "--out", out, "--quiet")
    assert code == 0, stderr


def test_resume_through_a_scheduler_with_a_relative_path(tmp_path, capsys, cluster):
    from cardsim.simcore.tienlen.rules import TienLenRules

    address, _ = cluster
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    config = RunConfig(game="tienlen", task="deal", rules=TienLenRules.from_settings({}), n=6000, seed=5,
                       chunk_size=1000)
    partial = PartialRun.create(client_dir / "rel", config.manifest())
    for chunk_id in (0, 3):
        write_chunk(partial.manifest, str(partial.out), chunk_id)
    done = subprocess.run(_cli("resume", "rel", "--backend", "dask", "--scheduler", address, "--quiet"),
                          cwd=client_dir, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert verify(client_dir / "rel") == []
    _straight(capsys, tmp_path / "straight", 6000, 1000, 5)
    assert analysis.summary(client_dir / "rel").equals(analysis.summary(tmp_path / "straight"))


def test_ctrl_c_of_a_client_of_a_remote_scheduler(tmp_path, capsys, cluster):
    address, _ = cluster
    out = tmp_path / "run"
    args = ["deal", "tienlen", "--deals", 12_000_000, "--chunk-size", 500_000, "--seed", 4, "--quiet"]
    proc = subprocess.Popen(_cli(*args, "--backend", "dask", "--scheduler", address, "--out", out), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    parts = tmp_path / ".run.partial" / "counts"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(parts.glob("part-*.parquet")) if parts.exists() else []) < 2:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("cardsim: interrupted;"), stderr
    time.sleep(1.0)  # tasks already running on the workers may still finish their part
    code, _, stderr = run(capsys, "resume", out, "--quiet")
    assert code == 0, stderr
    assert verify(out) == []
    _straight(capsys, tmp_path / "straight", 12_000_000, 500_000, 4)
    assert analysis.summary(out).equals(analysis.summary(tmp_path / "straight"))


def test_worker_killed_mid_run_with_a_relative_out(tmp_path, capsys, cluster):
    address, workers = cluster
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    args = ["deal", "tienlen", "--deals", 12_000_000, "--chunk-size", 500_000, "--seed", 9]
    proc = subprocess.Popen(_cli(*args, "--backend", "dask", "--scheduler", address, "--out", "rel", "--quiet"),
                            cwd=client_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    parts = client_dir / ".rel.partial" / "counts"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(parts.glob("part-*.parquet")) if parts.exists() else []) < 3:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    workers[1].kill()  # SIGKILL, by PID: its running task is lost and rescheduled
    workers[1].wait()
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert verify(client_dir / "rel") == []
    _straight(capsys, tmp_path / "straight", 12_000_000, 500_000, 9)
    assert analysis.summary(client_dir / "rel").equals(analysis.summary(tmp_path / "straight"))


@pytest.mark.skipif(signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
                    reason="pytest runs with SIGINT ignored (a background job): the LocalCluster's worker "
                           "processes would inherit it and the group-wide Ctrl-C cannot be reproduced")
def test_ctrl_c_with_a_local_cluster_is_one_line_and_keeps_parts(tmp_path, capsys):
    out = tmp_path / "run"
    # 32 chunks of 2 M deals (a few tenths of a second each): Ctrl-C lands mid-run even when
    # the test process, busy beside other test files, sees the first parts late
    args = ["deal", "tienlen", "--deals", 64_000_000, "--chunk-size", 2_000_000, "--seed", 3, "--quiet"]
    # A session of its own: SIGINT goes to the whole group, as a Ctrl-C in a terminal does.
    proc = subprocess.Popen(_cli(*args, "--backend", "dask", "--workers", 2, "--out", out), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_sigint)
    try:
        parts = tmp_path / ".run.partial" / "counts"
        deadline = time.time() + 180
        while time.time() < deadline and len(list(parts.glob("part-*.parquet")) if parts.exists() else []) < 2:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever is left of the group
        except ProcessLookupError:
            pass
    assert proc.returncode == 130, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("cardsim: interrupted;"), stderr
    assert "cardsim resume" in stderr
    saved = len(list(parts.glob("part-*.parquet")))
    assert 2 <= saved < 32
    code, _, stderr = run(capsys, "resume", out, "--quiet")
    assert code == 0, stderr
    assert verify(out) == []
    _straight(capsys, tmp_path / "straight", 64_000_000, 2_000_000, 3)
    assert analysis.summary(out).equals(analysis.summary(tmp_path / "straight"))
