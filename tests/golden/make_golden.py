"""Regenerate the golden outputs (see ``cases.py``). Run from the repository root."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cases import CASES, REPLAYS  # noqa: E402
from runner import load_case, replay_case  # noqa: E402


def main(names: list[str]) -> None:
    data = HERE / "data"
    data.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in CASES.items():
            if names and name not in names:
                continue
            tables = load_case(args, Path(tmp) / name)
            for table, frame in tables.items():
                frame.to_parquet(data / f"{name}.{table}.parquet", index=False)
            print("wrote", name, {t: len(f) for t, f in tables.items()})
        for game, (case, index) in REPLAYS.items():
            if names and case not in names and game not in names:
                continue
            text = replay_case(CASES[case], index, Path(tmp) / f"r_{case}")
            (data / f"replay_{game}.txt").write_text(text)
            print("wrote replay", game)


if __name__ == "__main__":
    main(sys.argv[1:])
