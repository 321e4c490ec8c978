"""Loba / Continental learned policy and its self-play training: with the heuristic's weights
it is the heuristic, it never peeks at hidden cards, model files are checked, a run records
the model it played, and each shipped model's first checkpoint reproduces."""
from __future__ import annotations


import hashlib
import json
from collections import Counter

import numpy as np
import pytest

from cardsim.simcore.framework import selfplay
from cardsim.simcore.rummy import learned_continental, learned_loba
from cardsim.simcore.rummy import state as S
from cardsim.simcore.rummy.learned import HEURISTIC_WEIGHTS, format_weights, read_weights
from cardsim.simcore.rummy.play import decision_state, play_chunk
from cardsim.simcore.rummy.policies import FEATURES, learned_choose
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules
from cardsim.simcore.rummy.train import NOISE
from rummy.test_rummy_search import permute_hidden

RULES = {"loba": LobaRules(), "loba_buys": LobaRules(claims=True), "continental": ContinentalRules()}


@pytest.mark.parametrize("name", list(RULES))
@pytest.mark.parametrize("policies", [["learned"] * 4, ["learned", "random", "heuristic", "learned"]],
                         ids=["all_learned", "mixed"])
def test_learned_with_the_heuristics_weights_is_the_heuristic(name, policies):
    rules = RULES[name]
    a = play_chunk(3, 0, 150, rules, policies, weights=HEURISTIC_WEIGHTS)
    b = play_chunk(3, 0, 150, rules, [p.replace("learned", "heuristic") for p in policies])
    for table in a:
        for k in a[table]:
            np.testing.assert_array_equal(a[table][k], b[table][k], err_msg=f"{table}.{k}")


@pytest.mark.parametrize("name", ["loba", "continental"])
def test_shipped_weights_play_differently_from_the_heuristic(name):
    rules = RULES[name]
    a = play_chunk(3, 0, 200, rules, ["learned"] * 4)
    b = play_chunk(3, 0, 200, rules, ["heuristic"] * 4)
    assert not np.array_equal(a["matches"]["total_0"], b["matches"]["total_0"])


# ----------------------------------------------------------------------------- no peeking
def _permute_hidden(st, me, rng):
    """The same state with the hidden cards dealt again (same counts, known cards kept;
    :func:`rummy.test_rummy_search.permute_hidden`) and every seat's distance memory
    scrambled (a learned seat keeps none; the others' is private)."""
    st = permute_hidden({"st": st, "seat": me}, rng)["st"]
    st[3][S.F_DIST, :] = rng.integers(-1, 6, st[3].shape[1])
    return st


@pytest.mark.parametrize("name", ["loba_buys", "continental"])
def test_learned_never_peeks_at_hidden_cards(name):
    """Decisions met in real play (a search seat's, so every phase), decided by the learned
    policy with weights that use every feature: the same after re-dealing the hidden cards."""
    rules = RULES[name]
    prm = S.kernel_params(rules)
    mp = tuple(int(x) for x in rules.meld_params())
    w = np.tile(HEURISTIC_WEIGHTS + NOISE * np.random.default_rng(1).standard_normal(len(FEATURES)), (4, 1))
    policies = ["search:4", "heuristic", "random", "heuristic"]
    rng = np.random.default_rng(3)
    phases = Counter()
    moved = 0
    n = 0
    for index in range(3):
        for r in (0, 2, 4):
            for nth in range(0, 40, 3):
                ds = decision_state(11, index, r, rules, policies, nth)
                if ds is None:
                    break
                me = np.int64(ds["seat"])
                choice = learned_choose(tuple(a.copy() for a in ds["st"]), me, prm, mp, w)
                phases[int(ds["st"][11][S.V_PHASE])] += 1
                n += 1
                for _ in range(2):
                    other = _permute_hidden(ds["st"], int(me), rng)
                    moved += not all(np.array_equal(a, b) for a, b in zip(other[:3], ds["st"][:3]))
                    assert learned_choose(other, me, prm, mp, w) == choice
    assert n >= 40 and moved > n
    assert {S.PH_TAKE, S.PH_CLAIM, S.PH_DISCARD} <= set(phases)


# ----------------------------------------------------------------------------- model files
def test_model_files_are_checked_and_runs_record_the_model(capsys, tmp_path):
    import cardsim
    from cli_helpers import run

    model = tmp_path / "heuristic-weights.txt"
    model.write_text(format_weights(HEURISTIC_WEIGHTS, ["the heuristic as a model file"]))
    a = cardsim.play("loba", 40, seed=2, policy=f"0=learned:{model}", progress=False).tables["matches"]
    b = cardsim.play("loba", 40, seed=2, progress=False).tables["matches"]
    assert a.equals(b)
    bad = tmp_path / "bad.txt"
    bad.write_text("take_bias 1.0\n")
    for policy, message in [(f"0=learned:{bad}", "not a model file"), ("0=learned:/no/such/model.txt", "no model file")]:
        code, out, err = run(capsys, "play", "continental", "--games", "10", "--seed", "1", "--policy", policy)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (policy, err)
    for game, module in [("loba", learned_loba), ("continental", learned_continental)]:
        cardsim.play(game, 10, seed=1, policy="0=learned", out=tmp_path / game, progress=False)
        notes = json.loads((tmp_path / game / "run.json").read_text())["players"]["learned_model"]
        assert notes["sha256"] == hashlib.sha256(module.WEIGHTS_FILE.read_bytes()).hexdigest()
        assert notes["reproduce"].startswith(f"cardsim train {game} --seed ")


@pytest.mark.parametrize("module", [learned_loba, learned_continental], ids=["loba", "continental"])
def test_the_shipped_model_names_its_command_and_its_first_checkpoint_reproduces(module):
    text = module.WEIGHTS_FILE.read_text()
    assert text.splitlines()[1].startswith(f"# reproduce: cardsim train {module.SPEC.game} --seed ")
    shipped = selfplay.state_from_text(module.SPEC, text, str(module.WEIGHTS_FILE))
    assert f"--seed {shipped.seed} --games {shipped.games} --out {module.WEIGHTS_FILE.name}" in text
    rules = module.SPEC.make_rules()  # the default rules (Continental: exact_close on, as trained)
    again = selfplay.iterate(module.SPEC, module.start_state(shipped.seed), rules)
    # the games and the update are exact; only the last bits of the update's dot product
    # depend on the BLAS build that numpy dispatches to (a few ulps)
    np.testing.assert_allclose(again.weights, shipped.first_checkpoint, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(module.read_weights(), shipped.weights)
    np.testing.assert_array_equal(read_weights(module.WEIGHTS_FILE), shipped.weights)
