"""Commands that run nothing (help, games, rules) import no numba, pandas or pyarrow
(issue 12: warm CLI overhead); game specs stay declarative and cheap to import."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cardsim.simcore.framework import registry

#: Modules that cost a few hundred ms each to import and that listing games never needs.
HEAVY = ("numba", "pandas", "pyarrow")

def _heavy_modules_after(code: str) -> list[str]:
    """Heavy top-level modules loaded by running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    return sorted(loaded & set(HEAVY))


@pytest.mark.parametrize("game", registry.game_names())
def test_spec_and_rules_import_no_kernels(game):
    code = (f"from cardsim.cli.main import main\nfrom cardsim.simcore.framework import registry\n"
            f"spec = registry.get_spec({game!r}); spec.rules_cls().to_dict(); spec.title\n"
            f"import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main(['rules', {game!r}]) == 0")
    assert _heavy_modules_after(code) == []


def test_help_imports_no_kernels():
    code = ("from cardsim.cli.main import main\nimport contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['--help']) == 0")
    assert _heavy_modules_after(code) == []


def test_lazy_pieces_resolve_and_are_checked():
    """A spec's text references import on first use and are checked then (wrong game, not a task)."""
    from cardsim.simcore.framework.spec import GameSpec, MetricSpec
    from cardsim.simcore.tienlen.rules import TienLenRules

    spec = GameSpec(name="tienlen", title="t", rules_cls=TienLenRules,
                    deal="cardsim.simcore.tusac.tasks:DEAL",  # another game's task
                    play="cardsim.simcore.tienlen.tasks:PLAY",
                    summary="cardsim.simcore.tienlen.summary:play_summary",
                    metrics={"play": MetricSpec("games", "cardsim.simcore.tienlen.summary:play_metrics")})
    assert spec.play.game == "tienlen"
    with pytest.raises(TypeError, match="deal.game is 'tusac'"):
        _ = spec.deal
    bad = GameSpec(name="tienlen", title="t", rules_cls=TienLenRules, deal="cardsim.simcore.tienlen.tasks:DEAL",
                   play="cardsim.simcore.tienlen.rules:TienLenRules", summary="json:dumps",
                   metrics={"play": MetricSpec("games", "cardsim.simcore.tienlen.summary:SummaryAccumulator")})
    with pytest.raises(TypeError, match="play is not a Task"):
        bad.check()
    with pytest.raises(TypeError, match="not callable"):
        MetricSpec("games", json)  # given directly: checked when built


@pytest.mark.parametrize("game", registry.game_names())
def test_every_piece_of_every_spec_resolves(game):
    registry.get_spec(game).check()
