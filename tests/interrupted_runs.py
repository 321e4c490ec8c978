"""An unfinished run for the resume tests: a cardsim command interrupted (Ctrl-C) at its second chunk."""
from __future__ import annotations

import importlib
from pathlib import Path

from cli_helpers import run

DEAL_TASK = "cardsim.simcore.tienlen.tasks.DealTask"


def interrupted(capsys, monkeypatch, out: Path, *args, task: str = DEAL_TASK) -> tuple[Path, str]:
    """Run ``cardsim ARGS --out OUT`` with ``task``'s second chunk raising KeyboardInterrupt (its first
    chunk is saved). Asserts the interrupted exit (130); returns ``(.OUT.partial, stderr)``."""
    module, _, cls = task.rpartition(".")
    owner = getattr(importlib.import_module(module), cls)
    original = owner.run_chunk
    calls = {"n": 0}

    def flaky(config, chunk_id):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return original(config, chunk_id)

    monkeypatch.setattr(owner, "run_chunk", staticmethod(flaky))
    try:
        code, _, err = run(capsys, *args, "--out", out)
    finally:
        monkeypatch.undo()
    assert code == 130, err
    return out.parent / f".{out.name}.partial", err


def interrupted_deal(capsys, monkeypatch, out: Path, *extra, seed: int = 1) -> tuple[Path, str]:
    """:func:`interrupted` for ``cardsim deal tienlen --deals 3000 --chunk-size 1000 --seed SEED EXTRA``
    (three chunks, the first saved)."""
    return interrupted(capsys, monkeypatch, out, "deal", "tienlen", "--deals", 3000, "--chunk-size", 1000,
                       "--seed", seed, *extra)
