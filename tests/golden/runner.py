"""Run a golden case through the CLI in-process and load its tables as sorted frames."""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pandas as pd

try:
    from cardsim.cli.main import main
except ImportError:  # before the cardsim namespace existed
    from cli.main import main


def _run(args: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    if code != 0:
        raise RuntimeError(f"cardsim {' '.join(args)} exited {code}: {err.getvalue()}")
    return out.getvalue()


def load_case(args: list[str], out: Path) -> dict[str, pd.DataFrame]:
    """``{table: frame}`` of the dataset the case writes, rows in a canonical order."""
    _run([*args, "--out", str(out), "--quiet"])
    tables = {}
    for folder in sorted(p for p in out.iterdir() if p.is_dir()):
        frame = pd.read_parquet(folder)
        frame = frame.drop(columns=[c for c in ("chunk",) if c in frame.columns])
        for col in frame.columns:
            if isinstance(frame[col].dtype, pd.CategoricalDtype):
                frame[col] = frame[col].astype(str)
        keys = [c for c in ("game", "round", "deal", "event", "seat") if c in frame.columns]
        frame = frame.sort_values(keys, kind="stable").reset_index(drop=True)
        tables[folder.name] = frame
    return tables


def replay_case(args: list[str], index: int, out: Path) -> str:
    """Replay text of game ``index`` of a play case."""
    _run([*args, "--out", str(out), "--quiet"])
    game = args[1]
    return _run(["replay", game, "--run", str(out), "--game", str(index)])
