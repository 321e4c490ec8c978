"""Tứ Sắc learned policy and its self-play training: with the heuristic's weights it is the
heuristic, its discard weighs the copies still unseen, model files are checked, a run records
the model it played, and the shipped model's first checkpoint reproduces."""
import hashlib
import json

import numpy as np
import pytest

from cardsim.simcore.framework import selfplay
from cardsim.simcore.tusac import train
from cardsim.simcore.tusac.learned import HEURISTIC_WEIGHTS, WEIGHTS_FILE, format_weights, read_weights
from cardsim.simcore.tusac.melds import meld_eval
from cardsim.simcore.tusac.play import play_chunk, tables
from cardsim.simcore.tusac.claims import MAX_OPTS
from cardsim.simcore.tusac.policies import DEC_DISCARD, FEATURES, learned_choose, legal_discard
from cardsim.simcore.tusac.rules import TuSacRules

RULES = TuSacRules()


@pytest.mark.parametrize("policies", [["learned"] * 4, ["learned", "random", "heuristic", "learned"]])
def test_learned_with_the_heuristics_weights_is_the_heuristic(policies):
    a = play_chunk(3, 0, 3000, RULES, policies, weights=HEURISTIC_WEIGHTS)
    b = play_chunk(3, 0, 3000, RULES, [p.replace("learned", "heuristic") for p in policies])
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_shipped_weights_play_differently_from_the_heuristic():
    a = play_chunk(3, 0, 2000, RULES, ["learned"] * 4)
    b = play_chunk(3, 0, 2000, RULES, ["heuristic"] * 4)
    assert not np.array_equal(a["winner"], b["winner"])


def two_equal_loose_cards(trash_tab, score_tab):
    """A 20-card hand whose best discards (least trash, then most points) are exactly two
    types held once: ``(hand, a, b)`` with ``a < b``."""
    rng = np.random.default_rng(8)
    for _ in range(20000):
        h = np.zeros(28, np.int8)
        for t in rng.choice(112, 20, replace=False):
            h[t // 4] += 1
        after = {}
        for k in range(28):
            if legal_discard(h, np.int64(0), k):
                h[k] -= 1
                trash, score = meld_eval(h, np.int64(0), trash_tab, score_tab)
                after.setdefault((-trash, score), []).append(k)
                h[k] += 1
        best = after[max(after)]
        if len(best) == 2 and all(h[k] == 1 for k in best):
            return h, best[0], best[1]
    raise AssertionError("no such hand")


def test_the_discard_weighs_the_copies_still_unseen():
    """Two loose cards leave the same hand; all other copies of ``a`` are in sight (discarding
    it can feed nobody), none of ``b``: a negative weight on unseen copies discards ``a``, a
    positive one ``b``, the heuristic's weights the lower type."""
    trash_tab, score_tab, _, _ = tables(RULES)
    h, a, b = two_equal_loose_cards(trash_tab, score_tab)
    none_seen = np.zeros(28, np.int8), np.zeros((4, 28), np.int8)
    discards, table = np.zeros(28, np.int8), np.zeros((4, 28), np.int8)
    discards[a] = 2
    table[1, a] = 1
    no_opts = np.zeros(MAX_OPTS, np.int64)
    no_rev = np.zeros((MAX_OPTS, 3), np.int64)

    def pick(unseen_weight, seen):
        w = HEURISTIC_WEIGHTS.copy()
        w[FEATURES.index("discard_unseen_copies")] = unseen_weight
        hand = h.copy()
        k = learned_choose(DEC_DISCARD, hand, np.int64(0), 0, no_opts, no_opts, no_rev, False, trash_tab, score_tab,
                           seen[0], seen[1], w)
        np.testing.assert_array_equal(hand, h)  # the hand is left as it was
        return k

    assert pick(0.0, (discards, table)) == a
    assert pick(-1.0, (discards, table)) == a
    assert pick(+1.0, (discards, table)) == b
    assert pick(-1.0, none_seen) == pick(+1.0, none_seen) == a  # equal unseen counts: the heuristic's choice


def test_model_files_are_checked_and_runs_record_the_model(capsys, tmp_path):
    import cardsim
    from cli_helpers import run

    model = tmp_path / "heuristic-weights.txt"
    model.write_text(format_weights(HEURISTIC_WEIGHTS, ["the heuristic as a model file"]))
    a = cardsim.play("tusac", 300, seed=2, policy=f"0=learned:{model}", progress=False).tables["games"]
    b = cardsim.play("tusac", 300, seed=2, progress=False).tables["games"]
    assert a.equals(b)
    bad = tmp_path / "bad.txt"
    bad.write_text("take_trash 1.0\n")
    for policy, message in [(f"0=learned:{bad}", "not a model file"), ("0=learned:/no/such/model.txt", "no model file")]:
        code, out, err = run(capsys, "play", "tusac", "--games", "10", "--seed", "1", "--policy", policy)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (policy, err)
    cardsim.play("tusac", 50, seed=1, policy="0=learned", out=tmp_path / "a", progress=False)
    meta = json.loads((tmp_path / "a" / "run.json").read_text())
    notes = meta["players"]["learned_model"]
    assert notes["sha256"] == hashlib.sha256(WEIGHTS_FILE.read_bytes()).hexdigest()
    assert notes["reproduce"].startswith("cardsim train tusac --seed ")


def test_the_shipped_model_names_its_command_and_its_first_checkpoint_reproduces():
    text = WEIGHTS_FILE.read_text()
    shipped = selfplay.state_from_text(train.SPEC, text, str(WEIGHTS_FILE))
    assert f"# reproduce: cardsim train tusac --seed {shipped.seed} --games {shipped.games}" in text
    again = selfplay.iterate(train.SPEC, train.start_state(shipped.seed), RULES)
    # the games and the update are exact; only the last bits of the update's dot product
    # depend on the BLAS build that numpy dispatches to (a few ulps)
    np.testing.assert_allclose(again.weights, shipped.first_checkpoint, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(read_weights(), shipped.weights)
    # the weights that are not trained stay the heuristic's
    frozen = train.NOISE == 0
    np.testing.assert_array_equal(shipped.weights[frozen], HEURISTIC_WEIGHTS[frozen])
