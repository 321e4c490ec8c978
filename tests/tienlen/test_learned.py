"""Tiến Lên learned policy and its self-play training: the features reproduce the
heuristic exactly, the model file round-trips, and training is deterministic, resumable
and reproduces the shipped model's first checkpoint. The engine's Big Two profile has its
own learned player (the same features read as its heuristic reads them, its own weights
and ``cardsim train bigtwo``): the tests that hold for both run for both."""
import numpy as np
import pytest

from cardsim.simcore.bigtwo import learned as bigtwo_learned
from cardsim.simcore.bigtwo import train as bigtwo_train
from cardsim.simcore.bigtwo.rules import BigTwoRules
from cardsim.simcore.framework import selfplay
from cardsim.simcore.tienlen import learned as tienlen_learned
from cardsim.simcore.tienlen import train
from cardsim.simcore.tienlen.learned import FEATURES, format_weights, parse_weights, read_weights
from cardsim.simcore.tienlen.moves import N_CLASSES, allowed_classes, bigtwo_classes
from cardsim.simcore.tienlen.play import play_chunk
from cardsim.simcore.tienlen.policies import (N_FEATURES, decision_features, decision_features_bigtwo, decision_score,
                                              decision_score_bigtwo, heuristic_candidates, heuristic_candidates_any)
from cardsim.simcore.tienlen.rules import TienLenRules

#: The engine's profiles with a learned player: (rules, its learned module, its trainer).
PROFILES = {"tienlen": (TienLenRules(), tienlen_learned, train),
            "bigtwo": (BigTwoRules(), bigtwo_learned, bigtwo_train)}
BIGTWO_VARIANT = BigTwoRules(straights="wheels", flush_order="suit", four_card_quads=True)


@pytest.mark.parametrize("rules", [TienLenRules(), BigTwoRules(), BIGTWO_VARIANT], ids=["tienlen", "bigtwo",
                                                                                        "bigtwo-variant"])
@pytest.mark.parametrize("policies", [["learned"] * 4, ["learned", "random", "heuristic", "greedy"]])
def test_learned_with_the_heuristics_weights_is_the_heuristic(policies, rules):
    weights = PROFILES[rules.GAME][1].HEURISTIC_WEIGHTS
    a = play_chunk(3, 0, 3000, rules, policies, weights=weights)
    b = play_chunk(3, 0, 3000, rules, [p.replace("learned", "heuristic") for p in policies])
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.mark.parametrize("game", PROFILES)
def test_shipped_weights_play_differently_from_the_heuristic(game):
    rules = PROFILES[game][0]
    a = play_chunk(3, 0, 500, rules, ["learned"] * 4)
    b = play_chunk(3, 0, 500, rules, ["heuristic"] * 4)
    assert not np.array_equal(a["winner"], b["winner"])


def test_each_profile_plays_its_own_shipped_model():
    """Big Two's ``learned`` plays Big Two's model file (as ``learned:FILE`` of it), not Tiến Lên's."""
    rules = BigTwoRules()
    shipped = play_chunk(3, 0, 400, rules, ["learned"] * 4)
    named = play_chunk(3, 0, 400, rules, [f"learned:{bigtwo_learned.WEIGHTS_FILE}"] * 4)
    tienlen_weights = play_chunk(3, 0, 400, rules, ["learned"] * 4, weights=read_weights())
    for k in shipped:
        np.testing.assert_array_equal(shipped[k], named[k], err_msg=k)
    assert not np.array_equal(shipped["winner"], tienlen_weights["winner"])
    assert not np.array_equal(bigtwo_learned.read_weights(), read_weights())


@pytest.mark.parametrize("game", PROFILES)
def test_score_is_the_dot_product_of_the_features(game):
    """The kernel's score (summed in the heuristic's order) ranks like ``w . features``."""
    rng = np.random.default_rng(4)
    acls = np.zeros(N_CLASSES, np.int64)
    amin = np.zeros(N_CLASSES, np.int64)
    if game == "tienlen":
        n_acl = allowed_classes(np.int64(-1), np.int64(-1), np.int64(1), np.bool_(False), np.int64(0), acls, amin,
                                np.int64(3))
        candidates, decision_features_of, decision_score_of = heuristic_candidates, decision_features, decision_score
    else:
        n_acl = bigtwo_classes(np.int64(-1), np.int64(-1), np.int64(BigTwoRules().five_profile()), np.int64(1),
                               acls, amin)
        candidates = heuristic_candidates_any
        decision_features_of, decision_score_of = decision_features_bigtwo, decision_score_bigtwo
    cand = np.zeros(512, np.uint64)
    ccls = np.zeros(512, np.int64)
    w = rng.normal(size=N_FEATURES)
    f = np.zeros(N_FEATURES)
    g = np.zeros(N_FEATURES)
    checked = 0
    for _ in range(300):
        h = np.uint64(sum(1 << int(c) for c in rng.choice(52, int(rng.integers(2, 14)), replace=False)))
        opp_min, heads_up = int(rng.integers(1, 14)), bool(rng.integers(2))
        decision_features_of(h, np.uint64(0), -1, -1, opp_min, heads_up, g)
        for i in range(candidates(h, n_acl, acls, amin, -1, cand, ccls)):
            decision_features_of(h, cand[i], ccls[i], -1, opp_min, heads_up, f)
            got = (decision_score_of(h, cand[i], ccls[i], -1, opp_min, heads_up, w)
                   - decision_score_of(h, np.uint64(0), -1, -1, opp_min, heads_up, w))
            assert got == pytest.approx(w @ (f - g), abs=1e-9)
            checked += 1
    assert checked > 1000


def test_model_files_round_trip_and_bad_ones_are_refused(tmp_path):
    w = np.random.default_rng(1).normal(size=N_FEATURES)
    text = format_weights(w, ["a comment"])
    np.testing.assert_array_equal(parse_weights(text), w)  # repr floats: the same bits
    with pytest.raises(ValueError, match="no weight for"):
        parse_weights("\n".join(text.splitlines()[:-1]))
    with pytest.raises(ValueError, match="known, new feature"):
        parse_weights(text + f"{FEATURES[0]} 1.0\n")
    with pytest.raises(ValueError, match="known, new feature"):
        parse_weights(text.replace(FEATURES[3], "no_such_feature"))
    assert read_weights().shape == (N_FEATURES,)


def test_training_is_deterministic_whatever_the_threads_and_resumes_bit_for_bit():
    import numba

    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = train.train(train.start_state(9), 2 * train.games_per_iteration(), None)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        first = train.train(train.start_state(9), train.games_per_iteration(), None)
    finally:
        numba.set_num_threads(old)
    resumed_from = train.TrainState.from_text(first.to_text("x"))
    two = train.train(resumed_from, 2 * train.games_per_iteration(), None)
    assert one.iterations == two.iterations == 2
    np.testing.assert_array_equal(one.weights, two.weights)
    np.testing.assert_array_equal(one.first_checkpoint, first.weights)
    assert not np.array_equal(one.weights, train.start_state(9).weights)


@pytest.mark.parametrize("game", PROFILES)
def test_the_shipped_model_names_its_command_and_its_first_checkpoint_reproduces(game):
    rules, learned, trainer = PROFILES[game]
    text = learned.WEIGHTS_FILE.read_text()
    shipped = selfplay.state_from_text(trainer.SPEC, text, str(learned.WEIGHTS_FILE))
    assert text.splitlines()[1] == (f"# reproduce: cardsim train {game} --seed {shipped.seed} --games {shipped.games} "
                                    f"--out {learned.WEIGHTS_FILE.name}")
    again = trainer.iterate(trainer.start_state(shipped.seed), rules)
    # the games and the update are exact; only the last bits of the update's dot product
    # depend on the BLAS build that numpy dispatches to (a few ulps)
    np.testing.assert_allclose(again.weights, shipped.first_checkpoint, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(learned.read_weights(), shipped.weights)


@pytest.mark.parametrize("game", PROFILES)
def test_train_command_writes_resumes_and_refuses_bad_input(capsys, tmp_path, game):
    from cli_helpers import run

    trainer = PROFILES[game][2]
    per = trainer.games_per_iteration()
    out = tmp_path / "m.txt"
    code, stdout, err = run(capsys, "train", game, "--seed", "4", "--games", per, "--out", out)
    assert code == 0, err
    assert "iteration 1/1" in err and f"reproduce: cardsim train {game} --seed 4 --games {per}" in stdout
    once = out.read_text()
    assert once.splitlines()[0] == f"# {trainer.SPEC.title}"
    assert once.splitlines()[1] == f"# reproduce: cardsim train {game} --seed 4 --games {per} --out m.txt"
    # a second run with a bigger budget resumes from the checkpoint
    code, stdout, err = run(capsys, "train", game, "--seed", "4", "--games", 2 * per, "--out", out, "-q")
    assert code == 0 and stdout == ""
    assert selfplay.state_from_text(trainer.SPEC, out.read_text()).iterations == 2
    for args, message in [
        (["--seed", "5", "--games", per, "--out", out], "was trained with seed 4"),
        (["--seed", "4", "--games", per - 1, "--out", tmp_path / "x.txt"], "at least"),
        (["--seed", "4", "--games", per, "--minutes", "1"], "not both"),
        (["--seed", "4", "--out", tmp_path], "not a usable file path"),
    ]:
        code, stdout, err = run(capsys, "train", game, *args)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (args, err)
    code, _, err = run(capsys, "train", "no-such-game", "--seed", "1")
    assert code == 2 and "no-such-game" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("game", PROFILES)
def test_a_run_with_a_learned_seat_records_the_model_it_played(tmp_path, game):
    import hashlib
    import json

    import cardsim

    cardsim.play(game, 50, seed=1, policy="0=learned", out=tmp_path / "a", progress=False)
    cardsim.play(game, 50, seed=1, out=tmp_path / "b", progress=False)
    meta = json.loads((tmp_path / "a" / "run.json").read_text())
    model = meta["players"]["learned_model"]
    assert model["sha256"] == hashlib.sha256(PROFILES[game][1].WEIGHTS_FILE.read_bytes()).hexdigest()
    assert model["reproduce"].startswith(f"cardsim train {game} --seed ")
    assert "players" not in json.loads((tmp_path / "b" / "run.json").read_text())


@pytest.mark.parametrize("game", PROFILES)
def test_a_trained_model_file_plays_as_learned_file(capsys, tmp_path, game):
    from cli_helpers import run

    model = tmp_path / "heuristic-weights.txt"
    model.write_text(format_weights(PROFILES[game][1].HEURISTIC_WEIGHTS, ["the heuristic as a model file"]))
    a = cardsim_play(["0=learned:" + str(model)], 400, game)
    b = cardsim_play(["heuristic"], 400, game)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    bad = tmp_path / "bad.txt"
    bad.write_text("left_units 1.0\n")
    for policy, message in [(f"0=learned:{bad}", "not a model file"), ("0=learned:/no/such/model.txt", "no model file"),
                            ("0=learned:", "give a model file")]:
        code, out, err = run(capsys, "play", game, "--games", "10", "--seed", "1", "--policy", policy)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (policy, err)


def cardsim_play(policy, games, game="tienlen"):
    import cardsim

    r = cardsim.play(game, games, seed=2, policy=",".join(policy), progress=False)
    frame = r.tables["games"]
    return {c: frame[c].to_numpy() for c in frame.columns if c.startswith(("place_", "points_", "plays_"))}
