"""The balance card (``cardsim balance``): the estimators against cases with known answers,
then the command on real play.

Known answers: a synthetic outcome table with planted hand and player effects (the
decomposition recovers them), outcomes the deal alone decides (skill share 0), constant
outcomes (degenerate, said so), a two-level ladder with a known win probability, and
symmetric seats (Tiến Lên with random players: every seat's rate is 1/4 and the seat gap's
interval holds 0).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import cardsim
from cardsim.analysis.balance import (bootstrap_weights, decompose, deal_statistics, ladder_figures,
                                      score_against_field)
from cardsim.simcore.rummy.summary import balance_outcomes as rummy_outcomes
from cli_helpers import run


def _components(y: np.ndarray, seed: int = 1) -> dict[str, np.ndarray]:
    weights = bootstrap_weights(y.shape[0], seed, 300)
    return decompose(weights @ deal_statistics(y), weights.sum(axis=1), y.shape[1])


def _planted(deals: int, k: int, hand_sd: float, gap: float, noise_sd: float, seed: int) -> np.ndarray:
    """``y[d, s, r] = hand[d, s] + gap * (s == r) + noise``: the measured player sits at seat r."""
    rng = np.random.default_rng(seed)
    hand = rng.normal(0.0, hand_sd, (deals, k, 1))
    player = gap * np.eye(k)[None, :, :]
    return hand + player + rng.normal(0.0, noise_sd, (deals, k, k))


@pytest.mark.parametrize("k", [2, 4])
def test_the_decomposition_recovers_planted_hand_and_player_effects(k):
    hand_sd, gap, noise_sd = 0.2, 0.3, 0.3
    parts = _components(_planted(20_000, k, hand_sd, gap, noise_sd, seed=k))
    # the player effect over observations: +gap (k-1)/k once per cell, -gap/k k-1 times
    truth = {"hand": hand_sd ** 2, "player": (1 / k) * (1 - 1 / k) * gap ** 2, "residual": noise_sd ** 2,
             "player_gap": gap}
    total = truth["hand"] + truth["player"] + truth["residual"]
    truth["luck_share"], truth["skill_share"] = truth["hand"] / total, truth["player"] / total
    for name, value in truth.items():
        estimate, resampled = parts[name][0], parts[name][1:]
        z = (estimate - value) / resampled.std(ddof=1)
        assert abs(z) < 4, (name, estimate, value, z)


def test_outcomes_the_deal_alone_decides_have_no_skill_share():
    rng = np.random.default_rng(3)
    winner = rng.integers(0, 4, 5000)
    y = np.repeat((winner[:, None] == np.arange(4))[:, :, None], 4, axis=2).astype(float)  # same whoever plays
    parts = _components(y)
    assert parts["skill_share"][0] == 0.0 and parts["residual_share"][0] == pytest.approx(0.0, abs=1e-12)
    assert parts["luck_share"][0] == pytest.approx(1.0)


def test_constant_outcomes_are_degenerate_not_a_share_of_one():
    parts = _components(np.zeros((100, 4, 4)))
    assert np.isnan(parts["luck_share"]).all() and np.isnan(parts["skill_share"]).all()


def test_a_two_level_ladder_with_a_known_win_probability():
    p = 0.75  # the candidate beats a field player 3 times in 4
    figures = ladder_figures({"field": np.array([0.5]), "strong": np.array([p])}, "field")
    rating = 400 * math.log10(p / (1 - p))
    assert figures["elo_spread"][0] == pytest.approx(rating / 2)  # two levels at 0 and `rating`
    assert figures["levels_60"][0] == 1.0
    close = ladder_figures({"field": np.array([0.5]), "weak": np.array([0.55])}, "field")
    assert close["levels_60"][0] == 0.0


def test_score_against_the_field_ranks_by_win_then_points():
    win = np.array([[1.0, 0, 0], [0, 0, 1.0], [0, 0, 0]])
    points = np.array([[5.0, 1, 1], [3, 2, 9], [4, 4, 1]])
    assert list(score_against_field(win, points, 0, lower_is_better=False)) == [1.0, 0.5, 0.75]
    assert list(score_against_field(win, points, 0, lower_is_better=True)) == [1.0, 0.0, 0.25]


def test_rummy_comebacks_from_running_totals():
    # one match of 6 rounds, 3 seats: seat 2 trails after round 3, leads after round 4 and wins
    points = np.array([[0, 5, 20], [0, 5, 0], [0, 5, 0], [30, 0, 0], [0, 20, 0], [10, 0, 0]])
    hands = pd.DataFrame({"game": 0, "round": np.arange(1, 7), "turns": 10, "capped": [False] * 5 + [True],
                          **{f"points_{s}": points[:, s] for s in range(3)}})
    totals = points.sum(axis=0)
    matches = pd.DataFrame({"game": [0], "winner": [int(np.argmin(totals))],
                            **{f"total_{s}": [totals[s]] for s in range(3)}})

    class Rules:
        players = 3

    o = rummy_outcomes({"matches": matches, "hands": hands}, Rules())
    assert int(np.argmin(totals)) == 2
    assert o.comebacks["mid-game"][0] == 1.0  # after round 3: 0, 15, 20: seat 0 leads
    assert o.comebacks["last third"][0] == 1.0  # after round 4: 30, 15, 20: seat 1 leads
    assert o.no_winner[0] == pytest.approx(1 / 6) and o.length[0] == 60


def test_symmetric_seats_agree():
    n = 4000
    result = cardsim.balance("tienlen", policies="random", field="random", games=n, seed=6, progress=False)
    card = result.summary()
    rates = card[(card["metric"] == "win_rate") & card["group"].str.startswith("seat ")]
    assert len(rates) == 4
    se = math.sqrt(0.25 * 0.75 / n)
    assert (np.abs(rates["value"] - 0.25) / se < 4).all()


def _synthetic_play(winners: np.ndarray, players: int):
    from cardsim.simcore.framework.balance import BalanceOutcomes
    from cardsim.simcore.study.balance import BalanceConfig, BalancePlay

    class Rules:
        pass

    Rules.players = players
    win = (winners[:, None] == np.arange(players)).astype(float)
    o = BalanceOutcomes(game=np.arange(len(winners)), win=win, points=win, length=np.ones(len(winners)),
                        no_winner=np.zeros(len(winners)), length_unit="turns")
    config = BalanceConfig(game="tienlen", rules=Rules(), policies=("random",), field="random", n=len(winners),
                           seed=1)
    return BalancePlay(config, {"random": o}, {})


def test_the_seat_gap_interval_covers_zero_for_equal_seats_95_percent_of_the_time():
    from cardsim.analysis.balance import figures, records

    rng = np.random.default_rng(11)
    replicates, covered = 200, 0
    for _ in range(replicates):
        play = _synthetic_play(rng.integers(0, 4, 500), 4)
        card = records(figures(play, bootstrap_weights(500, int(rng.integers(1 << 30)), 200)))
        covered += card[card["metric"] == "seat_gap"].iloc[0]["ci_low"] == 0.0
    # binomial: 95% coverage gives 190 of 200 with sd 3.1; a plain percentile bootstrap covers ~never
    assert covered >= 0.95 * replicates - 4 * math.sqrt(replicates * 0.95 * 0.05)


def test_the_command_prints_every_figure_as_json(capsys):
    code, out, _ = run(capsys, "balance", "tienlen", "--games", "60", "--seed", "1", "--policies",
                       "random,heuristic,oracle:4", "--json")
    assert code == 0
    records = json.loads(out)
    assert set(records[0]) == {"metric", "group", "strength", "unit", "n", "value", "ci_low", "ci_high", "ess_factor", "note"}
    metrics = {r["metric"] for r in records}
    assert {"win_rate", "seat_gap", "points", "length", "no_winner_rate", "score_vs_field", "elo", "luck_share",
            "skill_share", "residual_share", "elo_spread", "levels_60", "relative_skill"} <= metrics
    roles = {r["group"] for r in records if r["metric"] == "win_rate"}
    assert "leads first" in roles
    rel = [r for r in records if r["metric"] == "relative_skill"]
    assert [r["strength"] for r in rel] == ["heuristic"]


def test_same_seed_same_card_whatever_the_threads(capsys):
    args = ("balance", "tusac", "--games", "40", "--seed", "2", "--policies", "random,heuristic", "--json")
    code1, out1, _ = run(capsys, *args, "--threads", "1")
    code2, out2, _ = run(capsys, *args, "--threads", "2")
    assert code1 == code2 == 0 and out1 == out2


def test_compare_gives_paired_differences_and_out_reads_back(tmp_path, capsys):
    out = tmp_path / "card"
    code, text, _ = run(capsys, "balance", "tusac", "--games", "40", "--seed", "3", "--policies", "heuristic",
                        "--compare-set", "win_threshold=6", "--out", out, "--json")
    assert code == 0
    records = pd.DataFrame(json.loads(text))
    assert set(records["rules"]) == {"base", "compare", "difference"}
    key = ["metric", "group", "strength"]
    merged = records[records.rules == "base"].merge(records[records.rules == "compare"], on=key).merge(
        records[records.rules == "difference"], on=key)
    assert np.allclose(merged["value"], merged["value_y"] - merged["value_x"])
    loaded = cardsim.load(out)
    assert loaded.meta["kind"] == "balance" and loaded.meta["compare_rules"]["win_threshold"] == 6
    assert len(loaded.summary()) == len(records)
    assert set(loaded.tables["seats"]["rules"]) == {"base", "compare"}
    # as text, the comparison's answer comes first: the differences at a glance
    code, text, _ = run(capsys, "balance", "tusac", "--games", "40", "--seed", "3", "--policies", "heuristic",
                        "--compare-set", "win_threshold=6", "--quiet")
    assert code == 0
    first = text.index("at a glance, the differences")
    assert first < text.index("at a glance, each rule set") < text.index("every figure")
    assert "difference" in text[first:text.index("at a glance, each rule set")]
    assert "\nbase " not in text[first:text.index("at a glance, each rule set")]


def test_two_and_two_tables_get_their_own_luck_and_skill_split(capsys):
    code, out, _ = run(capsys, "balance", "tienlen", "--games", "200", "--seed", "3", "--policies", "random,heuristic",
                       "--mix", "1,2", "--json")
    assert code == 0
    records = {(r["metric"], r["group"]): r for r in json.loads(out) if r["strength"] == "random"}
    for metric in ("luck_share", "skill_share", "residual_share"):
        assert (metric, "random x2 vs heuristic") in records and (metric, "random vs heuristic") in records
    # two random seats of four lose more of the variance to the player than one does
    assert records[("skill_share", "random x2 vs heuristic")]["ci_low"] > records[("skill_share",
                                                                                    "random vs heuristic")]["value"]
    # random players rarely win against heuristic ones, two of them or one
    assert records[("win_rate", "2 seats vs heuristic")]["value"] < 0.1


def test_pairs_meet_strengths_that_are_not_the_field_and_read_back():
    from cardsim.analysis.balance import card
    from cardsim.simcore.study.balance import BalanceConfig, from_frames, play_balance, to_frames
    from cardsim.simcore.tienlen.rules import TienLenRules

    config = BalanceConfig(game="tienlen", rules=TienLenRules(), policies=("random", "heuristic", "greedy"),
                           field="heuristic", n=150, seed=4, pairs=True)
    assert config.strength_pairs() == [("greedy", "random")]
    play = play_balance(config)
    table = card(play, resamples=50)
    groups = set(zip(table["metric"], table["group"], table["strength"]))
    assert ("skill_share", "greedy vs random", "greedy") in groups
    assert ("win_rate", "1 seat vs random", "greedy") in groups
    greedy_vs_random = table[(table["metric"] == "win_rate") & (table["group"] == "1 seat vs random")]["value"].item()
    assert greedy_vs_random > 0.25  # greedy beats random players
    # the pair tables are stored apart from the field's rotations and read back the same
    seats, games = to_frames(play)
    assert set(seats[seats["strength"] == "greedy"]["against"]) == {"greedy", "heuristic", "random"}
    first = next(iter(play.alone.values()))
    again = from_frames(config, seats, games, first.length_unit, first.points_lower_is_better)
    assert list(again.pairs) == [("greedy", "random")]
    np.testing.assert_array_equal(again.pairs[("greedy", "random")][2].win, play.pairs[("greedy", "random")][2].win)
    pd.testing.assert_frame_equal(card(again, resamples=50), table)


def test_a_rummy_card_has_comebacks_and_penalty_points(capsys):
    code, out, _ = run(capsys, "balance", "loba", "--games", "4", "--seed", "1", "--policies", "random,heuristic",
                       "--json")
    assert code == 0
    records = json.loads(out)
    assert {r["group"] for r in records if r["metric"] == "comeback_rate"} == {"mid-game", "last third"}
    assert {r["unit"] for r in records if r["metric"] == "points"} == {"penalty points"}
    assert {r["group"] for r in records if r["metric"] == "no_winner_rate"} == {"rounds"}


@pytest.mark.parametrize("args, message", [
    (("--policies", "random,nobody"), "unknown policy 'nobody'"),
    (("--games", "1"), "at least 2"),
    (("--set", "players=9"), "players"),
    (("--compare-set", "nosuch=1"), "nosuch"),
    (("--mix", "4"), "--mix must list distinct seat counts in 1..3"),
    (("--mix", "1,x"), "--mix must be seat counts"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    code, out, err = run(capsys, "balance", "tienlen", "--games", "10", "--seed", "1", *args)
    assert code == 2 and message in err and "Traceback" not in err
    assert out == "" and len(err.strip().splitlines()) == 1


def test_tienlen_comebacks_from_the_move_log():
    """The trick game's progress is the cards each seat has left: recomputed here from
    the game's records, with one replayed game per call (a different path)."""
    from cardsim.simcore.primitives.movelog import records
    from cardsim.simcore.run.runner import RunConfig
    from cardsim.simcore.tienlen.log import LOG_DEAL, LOG_OUT, LOG_PLAY
    from cardsim.simcore.tienlen.play import play_logged
    from cardsim.simcore.tienlen.replay import balance_progress
    from cardsim.simcore.tienlen.rules import TienLenRules

    rules = TienLenRules()
    policies = ["heuristic"] * 4
    run = RunConfig(game="tienlen", task="play", rules=rules, n=120, seed=9, chunk_size=60,
                    options={"policies": policies, "games_per_match": 1})
    got = balance_progress(run, 1, rules)  # games 60 .. 119
    for g in range(60):
        cols, log, nlog = play_logged(9, 60 + g, 1, rules, policies)
        left, trail, winner = {}, [], None
        for r in records(log[0], int(nlog[0])):
            if r.kind == LOG_DEAL:
                left[r.seat] = bin(r.a & ((1 << 64) - 1)).count("1")
            elif r.kind == LOG_PLAY:
                left[r.seat] -= bin(r.a & ((1 << 64) - 1)).count("1")
                trail.append(dict(left))
            elif r.kind == LOG_OUT and r.a == 1:
                winner = r.seat
        if int(cols["tricks"][0]) == 0:  # an instant win: no play, no progress
            assert np.isnan(got["mid-game"][g]) and np.isnan(got["last third"][g])
            continue
        for name, at in (("mid-game", len(trail) // 2), ("last third", len(trail) - len(trail) // 3)):
            cards = trail[at - 1]
            assert got[name][g] == float(cards[winner] > min(cards.values())), (g, name)


def test_a_tienlen_card_has_comebacks_only_where_they_are_measured(capsys):
    code, out, _ = run(capsys, "balance", "tienlen", "--games", "100", "--seed", "2", "--policies",
                       "random,heuristic", "--json")
    assert code == 0
    records = json.loads(out)
    rows = [r for r in records if r["metric"] == "comeback_rate"]
    assert {(r["group"], r["strength"]) for r in rows} == {(g, s) for g in ("mid-game", "last third")
                                                           for s in ("random", "heuristic")}
    assert all(r["n"] <= 100 for r in rows)


def test_tusac_comebacks_from_the_move_log():
    """Tứ Sắc's progress is the melds each seat has laid; time is the turns (discards)."""
    from cardsim.simcore.primitives.movelog import records
    from cardsim.simcore.run.runner import RunConfig
    from cardsim.simcore.tusac.log import LOG_DEAL, LOG_DISCARD, LOG_MELD, LOG_WIN
    from cardsim.simcore.tusac.play import play_logged
    from cardsim.simcore.tusac.replay import balance_progress
    from cardsim.simcore.tusac.rules import TuSacRules

    rules = TuSacRules()
    policies = ["heuristic"] * 4
    run = RunConfig(game="tusac", task="play", rules=rules, n=80, seed=4, chunk_size=40,
                    options={"policies": policies})
    got = balance_progress(run, 1, rules)  # games 40 .. 79
    measured = 0
    for g in range(40):
        _, log, nlog, _ = play_logged(4, 40 + g, 1, rules, policies)
        melds, trail, winner = {s: 0 for s in range(4)}, [], None
        for r in records(log[0], int(nlog[0])):
            if r.kind == LOG_DEAL:
                melds, trail = {s: 0 for s in range(4)}, []
            elif r.kind == LOG_MELD:
                melds[r.seat] += 1
            elif r.kind == LOG_DISCARD:
                trail.append(dict(melds))
            elif r.kind == LOG_WIN:
                winner = r.seat
        if winner is None or len(trail) < 3:
            assert np.isnan(got["mid-game"][g])
            continue
        measured += 1
        for name, at in (("mid-game", len(trail) // 2), ("last third", len(trail) - len(trail) // 3)):
            laid = trail[at - 1]
            assert got[name][g] == float(laid[winner] < max(laid.values())), (g, name)
    assert measured >= 30


def test_the_decomposition_recovers_planted_effects_with_two_measured_seats():
    """Two and two: the measured player holds two of four seats, in all six pairs."""
    import itertools

    k, hand_sd, gap, noise_sd = 4, 0.2, 0.3, 0.3
    pairs = list(itertools.combinations(range(k), 2))
    design = np.array([[s in pair for pair in pairs] for s in range(k)])  # [seat, rotation]
    rng = np.random.default_rng(7)
    deals = 20_000
    y = (rng.normal(0.0, hand_sd, (deals, k, 1)) + gap * design[None]
         + rng.normal(0.0, noise_sd, (deals, k, len(pairs))))
    weights = bootstrap_weights(deals, 1, 300)
    parts = decompose(weights @ deal_statistics(y, design), weights.sum(axis=1), k, len(pairs), 3)
    p = 3 / 6  # each seat is the measured player's in three of six rotations
    truth = {"hand": hand_sd ** 2, "player": p * (1 - p) * gap ** 2, "residual": noise_sd ** 2, "player_gap": gap}
    for name, value in truth.items():
        estimate, resampled = parts[name][0], parts[name][1:]
        z = (estimate - value) / resampled.std(ddof=1)
        assert abs(z) < 4, (name, estimate, value, z)
    with pytest.raises(ValueError, match="same number"):
        deal_statistics(y[:, :, :5], design[:, :5])


def test_an_interrupted_card_resumes_to_the_same_card(tmp_path, monkeypatch):
    # issue 50 item 11: an interrupted balance kept nothing; with --out its games are saved and --resume continues
    from cardsim.simcore.framework.config import ConfigError, Interrupted
    from cardsim.simcore.study import balance as study

    args = dict(policies="random,heuristic", games=300, seed=11, compare_sets=["pass_resets=on"], progress=False)
    whole = cardsim.balance("tienlen", out=tmp_path / "whole", **args).summary()
    original = study.chunk_outcomes
    calls = {"n": 0}

    def flaky(*a, **k):
        calls["n"] += 1
        if calls["n"] == 9:  # inside the compared card: both cards' folders are used
            raise KeyboardInterrupt
        return original(*a, **k)

    monkeypatch.setattr(study, "chunk_outcomes", flaky)
    with pytest.raises(Interrupted, match="--resume"):
        cardsim.balance("tienlen", out=tmp_path / "r", **args)
    monkeypatch.undo()
    saved = tmp_path / ".r.partial-balance"
    assert len(list(saved.rglob("*.done"))) == 8 and not (tmp_path / "r").exists()
    # an edited saved chunk is played again, not trusted
    victim = sorted(saved.rglob("*.npz"))[0]
    victim.write_bytes(victim.read_bytes()[:-7] + b"garbage")
    with pytest.raises(ConfigError, match="other settings"):
        cardsim.balance("tienlen", out=tmp_path / "r", resume=True, **{**args, "seed": 12})
    replayed = {"n": 0}

    def counting(*a, **k):
        replayed["n"] += 1
        return original(*a, **k)

    monkeypatch.setattr(study, "chunk_outcomes", counting)
    resumed = cardsim.balance("tienlen", out=tmp_path / "r", resume=True, **args).summary()
    monkeypatch.undo()
    pd.testing.assert_frame_equal(resumed, whole)
    total = 2 * 6  # two cards of 6 tables (random and heuristic alone, random in 4 seats of heuristic), one chunk each
    assert replayed["n"] == total - 8 + 1  # the unsaved ones, plus the edited one
    assert not saved.exists()
    with pytest.raises(ConfigError, match="nothing to resume"):
        cardsim.balance("tienlen", out=tmp_path / "r2", resume=True, **args)


def test_a_long_card_says_its_estimate_before_it_starts(capsys, monkeypatch):
    # issue 50 item 11: the README's Tứ Sắc card (default strengths, search included) ran for minutes silently
    from cardsim.simcore.study import balance as study

    def stop(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(study, "play_balance", stop)
    code, _, err = run(capsys, "balance", "tusac", "--games", 2000, "--seed", 1, "--compare-set", "steals=off")
    assert code == 130
    line = next(x for x in err.splitlines() if "(estimate)" in x)
    assert line.startswith("balance tusac: 32 tables x 2,000 deals, about ") and "minutes" in line, err


@pytest.mark.parametrize("p", [0.52, 0.55, 0.6, 0.7])
def test_games_to_outweigh_luck_gives_the_better_player_the_match_three_times_in_four(p):
    # issue 51: a match of n games between neighbours with head-to-head p: the better wins most games
    # (a tie of games split evenly) with probability 0.75, checked against the exact binomial sum
    from cardsim.analysis.balance import games_to_outweigh_luck

    gap = 400 * math.log10(p / (1 - p))
    n = int(games_to_outweigh_luck(np.array([gap]))[0])

    def match_win(n):
        win = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n // 2 + 1, n + 1))
        tie = math.comb(n, n // 2) * (p * (1 - p)) ** (n // 2) if n % 2 == 0 else 0.0
        return win + tie / 2

    # the fewest games that reach 0.75 (normal form: within 0.01 of the exact binomial's answer)
    assert match_win(n) >= 0.74 and (n == 1 or match_win(n - 1) < 0.76), (n, match_win(n), match_win(n - 1))
    assert games_to_outweigh_luck(np.array([-gap]))[0] >= 1e6  # the worse one never does


def test_the_card_says_how_long_a_match_must_be_between_neighbours(capsys):
    code, out, err = run(capsys, "balance", "tienlen", "--games", 300, "--seed", 2, "--policies",
                         "random,heuristic,greedy", "--json")
    assert code == 0, err
    rows = [r for r in json.loads(out) if r["metric"] == "games_to_outweigh_luck"]
    assert [r["group"] for r in rows] == ["heuristic vs greedy", "greedy vs random"]
    assert all(1 <= r["ci_low"] <= r["value"] <= r["ci_high"] for r in rows)
