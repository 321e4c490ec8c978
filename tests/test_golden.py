"""Refactors keep behaviour: every golden case (``golden/cases.py``) reproduces its stored data
(``golden/data``) cell for cell, and every golden replay its stored text, run through the CLI as
a user's command runs."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))

from cases import CASES, REPLAYS  # noqa: E402
from runner import load_case, replay_case  # noqa: E402


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_data_is_unchanged(name, tmp_path):
    tables = load_case(CASES[name], tmp_path / name)
    stored = sorted(p.name.split(".")[1] for p in (GOLDEN / "data").glob(f"{name}.*.parquet"))
    assert sorted(tables) == stored
    for table, frame in tables.items():
        expected = pd.read_parquet(GOLDEN / "data" / f"{name}.{table}.parquet")
        pd.testing.assert_frame_equal(frame, expected, check_exact=True)


@pytest.mark.parametrize("game", sorted(REPLAYS))
def test_golden_replay_is_unchanged(game, tmp_path):
    case, index = REPLAYS[game]
    text = replay_case(CASES[case], index, tmp_path / "run")
    assert text == (GOLDEN / "data" / f"replay_{game}.txt").read_text()
