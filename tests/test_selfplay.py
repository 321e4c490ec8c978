"""The self-play training framework (simcore/framework/selfplay.py) on a fake game: no
cards, a seat's win is a cheap deterministic function of its weights and the deal's luck.
Training is deterministic for a seed, resumes bit for bit from a checkpoint's text, the
model file round-trips, and bad input gets one-line ConfigErrors."""
import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from cardsim.simcore.framework import selfplay
from cardsim.simcore.framework.config import ConfigError

FEATURES = ("alpha", "beta", "gamma")
TARGET = np.array([1.0, -2.0, 0.5])
CALLS = []


def fake_seat_wins(run_seed, deals, rules, policies, weights, seat):
    """Seat ``s`` scores ``-|w_s - TARGET|^2`` (``learned`` seats) or a field's fixed
    score, plus the deal's luck; the best score wins. Deterministic in ``run_seed``."""
    CALLS.append((run_seed, tuple(policies), seat))
    fixed = {"weak": -6.0, "strong": -1.0}
    score = np.array([-((weights[s] - TARGET) ** 2).sum() if p == "learned" else fixed[p]
                      for s, p in enumerate(policies)])
    luck = np.random.default_rng(run_seed).normal(scale=2.0, size=(deals, rules.players))
    return int(((score + luck).argmax(axis=1) == seat).sum())


SPEC = selfplay.SelfPlaySpec(
    game="fake", title="cardsim learned policy for a fake game", features=FEATURES,
    heuristic_weights=np.zeros(3), noise=np.array([0.3, 0.3, 0.1]), fields=("weak", "strong", "self"),
    pairs=4, deals=50, step=0.5, players=3, make_rules=lambda: SimpleNamespace(players=3),
    seat_wins=fake_seat_wins,
)
PER = selfplay.games_per_iteration(SPEC)


def test_games_per_iteration_and_the_policies_each_seat_plays():
    assert PER == 2 * 4 * 3 * 3 * 50
    CALLS.clear()
    selfplay.fitness(SPEC, np.ones(3), np.zeros(3), 7, SPEC.make_rules())
    assert [(c[1], c[2]) for c in CALLS] == [
        (("learned", "weak", "weak"), 0), (("weak", "learned", "weak"), 1), (("weak", "weak", "learned"), 2),
        (("learned", "strong", "strong"), 0), (("strong", "learned", "strong"), 1),
        (("strong", "strong", "learned"), 2),
        (("learned",) * 3, 0), (("learned",) * 3, 1), (("learned",) * 3, 2)]
    assert [c[0] for c in CALLS] == [7 + 1_000_003 * f + s for f in range(3) for s in range(3)]


def test_training_is_deterministic_for_a_seed_and_improves():
    one = selfplay.train(SPEC, selfplay.start_state(SPEC, 5), 6 * PER, None)
    again = selfplay.train(SPEC, selfplay.start_state(SPEC, 5), 6 * PER + PER - 1, None)
    other = selfplay.train(SPEC, selfplay.start_state(SPEC, 6), 6 * PER, None)
    assert one.iterations == again.iterations == 6 and one.games == 6 * PER
    np.testing.assert_array_equal(one.weights, again.weights)
    assert one.fitness == again.fitness and len(one.fitness) == 6
    assert not np.array_equal(one.weights, other.weights)
    np.testing.assert_array_equal(SPEC.heuristic_weights, np.zeros(3))  # the start is not moved in place
    assert ((one.weights - TARGET) ** 2).sum() < (TARGET ** 2).sum()  # toward the target


def test_a_run_resumed_from_a_checkpoints_text_is_the_uninterrupted_run_bit_for_bit():
    seen = []
    whole = selfplay.train(SPEC, selfplay.start_state(SPEC, 11), 3 * PER, None, seen.append)
    assert [s.iterations for s in seen] == [1, 2, 3]
    first = selfplay.train(SPEC, selfplay.start_state(SPEC, 11), PER, None)
    text = first.to_text("cardsim train fake --seed 11 --games 1 --out m.txt")
    resumed = selfplay.TrainState.from_text(SPEC, text, "m.txt")
    assert (resumed.seed, resumed.iterations, resumed.spec) == (11, 1, SPEC)
    rest = selfplay.train(SPEC, resumed, 3 * PER, None)
    np.testing.assert_array_equal(rest.weights, whole.weights)
    np.testing.assert_array_equal(rest.first_checkpoint, first.weights)
    np.testing.assert_array_equal(whole.first_checkpoint, first.weights)
    # a minute budget stops after whole iterations too
    assert selfplay.train(SPEC, selfplay.start_state(SPEC, 11), None, 1e-9).iterations <= 1


def test_model_files_round_trip_and_bad_ones_are_refused(tmp_path):
    w = np.random.default_rng(1).normal(size=3) * 1e3
    text = selfplay.format_weights(FEATURES, w, ["a comment", "another"])
    assert text.splitlines()[:2] == ["# a comment", "# another"]
    np.testing.assert_array_equal(selfplay.parse_weights(FEATURES, text), w)  # repr floats: the same bits
    state = dataclasses.replace(selfplay.start_state(SPEC, 3), iterations=2, weights=w, first_checkpoint=-w,
                                fitness=[0.25, 0.375])
    path = tmp_path / "m.txt"
    selfplay.write_model(SPEC, path, state, selfplay.reproduce_command(SPEC, 3, state.games, path.name))
    lines = path.read_text().splitlines()
    assert lines[:6] == ["# cardsim learned policy for a fake game",
                         f"# reproduce: cardsim train fake --seed 3 --games {2 * PER} --out m.txt",
                         "# train: seed 3", "# train: iterations 2", f"# train: games {2 * PER}",
                         "# train: first_checkpoint " + " ".join(repr(float(x)) for x in -w)]
    assert lines[6] == "# train: fitness_last 0.375" and len(lines) == 10
    assert [p.name for p in tmp_path.iterdir()] == ["m.txt"]  # no temporary file left
    np.testing.assert_array_equal(selfplay.read_weights(FEATURES, path), w)
    back = selfplay.TrainState.from_text(SPEC, path.read_text())
    np.testing.assert_array_equal(back.first_checkpoint, -w)
    assert back.to_text("x").splitlines()[2:6] == lines[2:6]
    for bad, message in [("\n".join(text.splitlines()[:-1]), "m.txt: no weight for gamma"),
                         (text + "alpha 1.0\n", "m.txt:6: expected 'FEATURE VALUE' with a known, new feature"),
                         (text.replace("beta", "delta"), "m.txt:4: expected"),
                         (text.replace("beta ", "beta x"), "m.txt:4: expected")]:
        with pytest.raises(ValueError, match=message):
            selfplay.parse_weights(FEATURES, bad, "m.txt")
    with pytest.raises(ValueError, match="m.txt: not a cardsim training checkpoint"):
        selfplay.TrainState.from_text(SPEC, text, "m.txt")  # weights but no training header


def test_run_training_writes_resumes_and_refuses_bad_input_in_one_line(tmp_path):
    out = tmp_path / "m.txt"
    seen = []
    state, started = selfplay.run_training(SPEC, out, 4, PER, None, False, seen.append)
    assert (state.iterations, started, len(seen)) == (1, 0, 1)
    assert out.read_text().splitlines()[1] == f"# reproduce: cardsim train fake --seed 4 --games {PER} --out m.txt"
    state, started = selfplay.run_training(SPEC, out, 4, 2 * PER, None, False)
    assert (state.iterations, started) == (2, 1)
    whole = selfplay.train(SPEC, selfplay.start_state(SPEC, 4), 2 * PER, None)
    np.testing.assert_array_equal(selfplay.TrainState.from_text(SPEC, out.read_text()).weights, whole.weights)
    state, started = selfplay.run_training(SPEC, out, 5, PER, None, True)  # --overwrite starts again
    assert (state.seed, state.iterations, started) == (5, 1, 0)
    junk = tmp_path / "junk.txt"
    junk.write_text("not a model\n")
    for args, message in [
        ((out, 4, PER, None, False), f"{out} was trained with seed 5; pass --seed 5 to resume it or --overwrite"),
        ((tmp_path / "x.txt", 4, PER - 1, None, False),
         f"--games must be at least {PER:,} (one training iteration), got {PER - 1:,}"),
        ((tmp_path / "x.txt", 4, None, 0.0, False), "--minutes must be positive, got 0.0"),
        ((tmp_path, 4, PER, None, False), f"--out {tmp_path}: not a usable file path"),
        ((tmp_path / "no" / "x.txt", 4, PER, None, False), "not a usable file path"),
        ((junk, 4, PER, None, False), f"{junk} exists and is not a training checkpoint; use --overwrite"),
    ]:
        with pytest.raises(ConfigError) as e:
            selfplay.run_training(SPEC, *args)
        assert message in str(e.value) and "\n" not in str(e.value), (args, str(e.value))
    assert not (tmp_path / "x.txt").exists()


def test_bad_specs_and_rules_are_refused():
    with pytest.raises(TypeError, match="noise is not float64"):
        dataclasses.replace(SPEC, noise=np.ones(2))
    with pytest.raises(TypeError, match="heuristic_weights is not float64"):
        dataclasses.replace(SPEC, heuristic_weights=[0, 0, 0])
    with pytest.raises(TypeError, match="features repeat"):
        dataclasses.replace(SPEC, features=("a", "a", "b"))
    with pytest.raises(TypeError, match="needs its SelfPlaySpec"):
        selfplay.TrainState(seed=1, iterations=0, weights=np.zeros(3))
    with pytest.raises(ValueError, match="training plays 3-player fake"):
        selfplay.train(SPEC, selfplay.start_state(SPEC, 1), PER, None, rules=SimpleNamespace(players=4))
