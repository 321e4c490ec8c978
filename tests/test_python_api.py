"""The Python API (``cardsim.deal/play/experiment/ladder/load``): the same data and errors
as the command line, result objects with tables, summaries and rates."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import cardsim
from cli_helpers import run

ROOT = Path(__file__).resolve().parents[1]


def test_play_equals_the_cli_for_the_same_seed(capsys):
    code, out, _ = run(capsys, "play", "tienlen", "--games", "300", "--seed", "1", "--json")
    assert code == 0
    cli = pd.DataFrame(json.loads(out))
    api = cardsim.play("tienlen", games=300, seed=1, progress=False)
    assert cli.values.tolist() == api.summary().values.tolist()
    assert api.seed == 1 and api.path is None and list(api.tables) == ["games"]
    assert len(api.tables["games"]) == 300


def test_deal_rates_and_load_round_trip(tmp_path, capsys):
    out = tmp_path / "d"
    r = cardsim.deal("tusac", deals=2000, seed=3, rules={"players": 3}, out=out, progress=False)
    rates = r.rates()
    assert {"event", "seat", "rate", "ci_low", "ci_high"} <= set(rates.columns)
    assert (rates["n"] == 2000).all() and r.meta["rules"]["players"] == 3
    loaded = cardsim.load(out)
    pd.testing.assert_frame_equal(loaded.summary(), r.summary())
    code, text, _ = run(capsys, "deal", "tusac", "--deals", "2000", "--seed", "3", "--set", "players=3", "--json")
    assert code == 0
    cli = pd.DataFrame(json.loads(text)).astype({"exact_low": float, "exact_high": float, "z": float})
    pd.testing.assert_frame_equal(cli, r.summary(), check_dtype=False)


def test_rates_is_for_deal_runs():
    with pytest.raises(cardsim.ConfigError, match="rates\\(\\) is for deal runs"):
        cardsim.play("tienlen", games=10, seed=1, progress=False).rates()


@pytest.mark.parametrize("call, args", [
    (lambda: cardsim.play("tienlen", games=10, seed=1, rules={"players": 9}),
     ["play", "tienlen", "--games", "10", "--seed", "1", "--set", "players=9"]),
    (lambda: cardsim.deal("nosuchgame", deals=10, seed=1), ["deal", "nosuchgame", "--deals", "10", "--seed", "1"]),
    (lambda: cardsim.play("tusac", games=10, seed=1, policy="nosuchpolicy"),
     ["play", "tusac", "--games", "10", "--seed", "1", "--policy", "nosuchpolicy"]),
    (lambda: cardsim.deal("tienlen", deals=0, seed=1), ["deal", "tienlen", "--deals", "0", "--seed", "1"]),
])
def test_bad_input_raises_the_cli_message(call, args, capsys):
    with pytest.raises(cardsim.ConfigError) as info:
        call()
    code, _, err = run(capsys, *args)
    assert code == 2 and err.strip() == f"cardsim: error: {info.value}"


def test_experiment_from_a_dict_and_ladder():
    spec = {"game": "tienlen", "task": "play", "n": 200, "seed": 5,
            "baseline": {"rules": {"chop_rules": "seed"}},
            "arms": [{"name": "southern", "rules": {"chop_rules": "southern"}}]}
    e = cardsim.experiment(spec, progress=False)
    table = e.summary()
    assert {"metric", "arm"} <= set(table.columns) or "metric" in table.columns
    assert e.meta["n"] == 200 and e.path is None
    lad = cardsim.ladder("tienlen", policies=["random", "heuristic"], games=20, seed=1, progress=False)
    assert set(lad.summary()["policy"]) == {"random", "heuristic"}
    assert len(lad.tables["games"]) > 0


def test_import_cardsim_is_light():
    code = "import sys, cardsim; print('numba' in sys.modules, 'pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_kernels_python_calls_load_after_a_cli_run_filled_the_cache(tmp_path):
    """A command fills Numba's cache; then tests calling inner Tứ Sắc kernels from Python
    (meld scoring, claims, steals) run on that cache as a user's script would (no crash)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    subprocess.run([sys.executable, "-m", "cardsim", "play", "tusac", "--games", "4", "--seed", "1", "--quiet"],
                   env=env, check=True, capture_output=True)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                           "tests/tusac/test_claims.py::test_kernel_claims_equal_reference_on_random_situations",
                           "tests/tusac/test_claims.py::test_trio_lock_only_quadruples_from_a_locked_triple",
                           "tests/tusac/test_melds.py::test_win_with_taken_card"],
                          env=env, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_a_clone_named_cardsim_imported_from_its_parent_says_what_happened(tmp_path):
    # issue 50 item 18: git's default folder name, a script run from the parent folder: Python took the
    # clone for a namespace package (module 'cardsim' has no attribute 'play')
    (tmp_path / "cardsim").symlink_to(ROOT, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", "import cardsim; cardsim.play"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError:") and "source folder" in last and "another folder" in last, done.stderr
    assert "no attribute" not in done.stderr
