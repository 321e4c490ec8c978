"""Issue 50 item 15: a first run's compile notice in a batch job (stderr not a terminal) and its
total from the last first run on this machine."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cardsim.progress import COMPILE_RECORD

ROOT = Path(__file__).resolve().parent.parent


def _play(cache: Path) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "NUMBA_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "cardsim", "play", "tusac", "--games", "100", "--seed", "1"],
                          env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_a_batch_job_is_told_that_kernels_compile_and_how_many_compiled(tmp_path):
    cache = tmp_path / "cache"
    first = _play(cache)
    assert "compiling the play tusac kernels (first run only" in first, first
    assert "compiled " in first and " kernels in " in first, first
    assert (cache / COMPILE_RECORD).is_file()
    # a source change drops the kernels, not the record: the next first run says what to expect
    for path in cache.rglob("*.nb[ic]"):
        path.unlink()
    again = _play(cache)
    assert "kernels last time)" in again, again
    warm = _play(cache)
    assert "compil" not in warm, warm


def test_a_notebook_without_ipywidgets_gets_a_plain_line_and_no_warning(monkeypatch, capsys):
    # issue 50 item 12: every API call in Jupyter warned 'install "ipywidgets"' and showed no progress
    import warnings

    import pytest
    from rich.console import Console

    from cardsim import progress

    console = Console(stderr=True, force_jupyter=True)
    monkeypatch.setattr(progress, "stderr_console", lambda: console)
    monkeypatch.setattr(progress, "_has_ipywidgets", lambda: False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bar = progress.RunProgress(True, "play tienlen", 3)
        bar.update(3, 3)
        bar.close()
    err = capsys.readouterr().err
    assert err.startswith("play tienlen: done in ") and err.count("\n") == 1, err
    with pytest.raises(AssertionError):  # what the plain line replaces: rich's live bar warns there
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            monkeypatch.setattr(progress, "_has_ipywidgets", lambda: True)
            try:
                bar = progress.RunProgress(True, "play tienlen", 3)
                bar.close()
            except Exception:
                raise AssertionError from None
