"""Deal statistics of Loba and Continental: exact rates, conservation, reproducibility."""
from math import comb

import numba
import numpy as np
import pandas as pd
import pytest

import cardsim.simcore.framework.registry as registry
from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.run.runner import RunConfig, run_chunk
from cardsim.simcore.rummy import deal as D
from cardsim.simcore.rummy.cards import hand_planes, make_deck
from cardsim.simcore.rummy.rules import ContinentalRules
from cardsim.simcore.rummy.rules import LobaRules
from cardsim.simcore.rummy.melds import contract_ok

def counts_frame(game, rules, n, seed, chunk_size, options=None):
    cfg = RunConfig(game, "deal", rules, n=n, seed=seed, chunk_size=chunk_size, options=options or {})
    frames = [run_chunk(cfg, c)["counts"].to_pandas() for c in range(cfg.n_chunks)]
    df = pd.concat(frames)
    df["event"] = df["event"].astype(str)
    return df.groupby(["event", "seat"])[["count", "n"]].sum()


def exact_two_trios(hand, copies, jokers, min_nat, max_j):
    """P(a uniform ``hand``-card hand holds 2 tríos): DP over 13 ranks of ``copies`` cards each.

    From first principles: a rank with R naturals makes one trío with ``3 - n`` jokers
    (n naturals, ``min_nat <= n <= min(R, 3)``, ``3 - n <= max_j``), or two tríos
    (``n1 + n2 <= R``); two tríos exist when two ranks' single costs, or one rank's
    double cost, fit in the jokers held.
    """
    INF = 9

    def single(R):
        costs = [3 - n for n in range(min_nat, min(R, 3) + 1) if 3 - n <= max_j]
        return min(costs, default=INF)

    def double(R):
        costs = [6 - a - b for a in range(min_nat, 4) for b in range(min_nat, 4)
                 if a + b <= R and 3 - a <= max_j and 3 - b <= max_j]
        return min(costs, default=INF)

    # state: (cards, two smallest single costs (sorted), best double cost) -> ways
    states = {(0, INF, INF, INF): 1}
    for _ in range(13):
        new = {}
        for (cards, c1, c2, dbl), ways in states.items():
            for R in range(0, min(copies, hand - cards) + 1):
                s = single(R)
                a, b = sorted((c1, c2, s))[:2]
                key = (cards + R, a, b, min(dbl, double(R)))
                new[key] = new.get(key, 0) + ways * comb(copies, R)
        states = new
    total = 13 * copies + jokers
    good = 0
    for (cards, c1, c2, dbl), ways in states.items():
        j = hand - cards
        if 0 <= j <= jokers and (c1 + c2 <= j or dbl <= j):
            good += ways * comb(jokers, j)
    return good / comb(total, hand)


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_two_trios_rate_matches_exact(game):
    if game == "loba":
        rules = LobaRules(contracts=("2T",))
        p = exact_two_trios(11, 8, 4, 2, 1)
        event = "contract_r1_2T"
    else:
        rules = ContinentalRules()
        p = exact_two_trios(7, 8, 6, 1, 99)
        event = "contract_TT"
    n = 400_000 if game == "loba" else 150_000
    df = counts_frame(game, rules, n, seed=2024, chunk_size=n)
    for seat in range(rules.players):
        c = df.loc[(event, seat), "count"]
        z = (c - n * p) / np.sqrt(n * p * (1 - p))
        assert abs(z) < 4, (seat, c / n, p, z)
    pooled = sum(df.loc[(event, s), "count"] for s in range(rules.players))
    m = n * rules.players
    z = (pooled - m * p) / np.sqrt(m * p * (1 - p))
    assert abs(z) < 4, (pooled / m, p, z)


def test_exact_formula_sanity():
    # 5 cards never hold 2 tríos; the whole pack of pairs without jokers neither; triples always
    assert exact_two_trios(5, 2, 0, 2, 1) == 0.0
    assert exact_two_trios(26, 2, 0, 1, 99) == 0.0
    # 26 of 28 cards (pairs + 2 jokers): two tríos iff both jokers are held
    assert exact_two_trios(26, 2, 2, 1, 99) == pytest.approx(comb(26, 24) / comb(28, 26))
    assert exact_two_trios(39, 3, 0, 1, 99) == pytest.approx(1.0)
    # a hand of 6 from 2 ranks x 3 copies (one deck's worth each) + 0 jokers: only the 6-card hand
    assert exact_two_trios(6, 8, 0, 2, 1) == pytest.approx(
        (13 * comb(8, 6) + comb(13, 2) * comb(8, 3) ** 2) / comb(104, 6))


@pytest.mark.parametrize("jokers_per_deck", [3, 2])
def test_card_conservation(jokers_per_deck):
    rules = ContinentalRules(jokers_per_deck=jokers_per_deck)
    rounds = [(k, m, h) for _, k, m, h in rules.rounds()]
    base = np.sort(make_deck(rules.deck_jokers()))
    assert base.size == 104 + 2 * jokers_per_deck
    for i in range(20):
        for r in range(7):
            deck = D.shuffled_round(5, i, r, 4, rounds, 3, rules.deck_jokers())
            assert np.array_equal(np.sort(deck), base)
    loba = LobaRules(contracts=("2T", "1E1T", "2E", "3T", "2T1E", "2E1T", "3E"))
    deck = D.shuffled_round(5, 0, 6, 5, [(k, m, h) for _, k, m, h in loba.rounds()], 9, 4)
    assert deck.size == 108 and np.array_equal(np.sort(deck), np.sort(make_deck(4)))
    assert loba.rounds()[-1] == ("r7_3E", 0, 3, 12)


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_counts_match_direct_recount_and_chunking(game):
    rules = LobaRules() if game == "loba" else ContinentalRules(players=3)
    draws = 4
    n, seed = 1500, 99
    df = counts_frame(game, rules, n, seed, chunk_size=n, options={"draws": draws})
    df2 = counts_frame(game, rules, n, seed, chunk_size=400, options={"draws": str(draws)})
    assert df.equals(df2)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        df3 = counts_frame(game, rules, n, seed, chunk_size=700, options={"draws": draws})
    finally:
        numba.set_num_threads(threads)
    assert df.equals(df3)
    # recount from the replayed packs with the solver
    P = rules.players
    rounds = [(k, m, h) for _, k, m, h in rules.rounds()]
    mp = rules.meld_params()
    for r, (label, k, m, h) in enumerate(rules.rounds()):
        dealt = np.zeros(P + 1, np.int64)
        after = np.zeros(P + 1, np.int64)
        for i in range(n if r < 2 else 300):
            deck = D.shuffled_round(seed, i, r, P, rounds, draws, rules.deck_jokers())
            a0 = a1 = False
            for s in range(P):
                # as in play: seat r % P draws first
                hand = list(deck[s * h:(s + 1) * h]) + [deck[P * h + 1 + t * P + (s - r % P) % P]
                                                        for t in range(draws)]
                ok0 = contract_ok(*hand_planes(hand[:h]), k, m, mp)
                ok1 = contract_ok(*hand_planes(hand), k, m, mp)
                dealt[s] += ok0
                after[s] += ok1
                a0 |= ok0
                a1 |= ok1
            dealt[P] += a0
            after[P] += a1
        if r < 2:
            for s in range(P + 1):
                seat = s if s < P else -1
                assert df.loc[(f"contract_{label}", seat), "count"] == dealt[s]
                assert df.loc[(f"contract_{label}_after_{draws}", seat), "count"] == after[s]
        assert (after >= dealt).all()
    assert (df["n"] == n).all()


def test_options_and_rules_validation():
    task = registry.get_task("loba", "deal")
    task.check_options(LobaRules(), {"draws": 9})
    with pytest.raises(ConfigError):
        task.check_options(LobaRules(), {"draws": -1})
    with pytest.raises(ConfigError):
        task.check_options(LobaRules(), {"draws": "x"})
    with pytest.raises(ConfigError):
        task.check_options(LobaRules(), {"per_deal": True})
    with pytest.raises(ConfigError, match="at most draws="):
        task.check_options(LobaRules(players=5, contracts=("3E",)), {"draws": 10})
    LobaRules.from_settings({"contracts": "all", "players": "5", "max_jokers_per_meld": "2"})
    assert LobaRules.from_settings({"contracts": "all"}).contracts[-1] == "3E"
    for bad in [{"players": "6"}, {"contracts": "none"}, {"max_claims_per_round": "2"}, {"contracts": "2X"}]:
        with pytest.raises(ConfigError):
            LobaRules.from_settings(bad)
    ContinentalRules.from_settings({"jokers_per_deck": "2", "claims": "on", "claim_penalty_cards": "2"})
    for bad in [{"jokers_per_deck": "4"}, {"players": "5"}, {"claims": "off", "max_claims_per_hand": "1"}]:
        with pytest.raises(ConfigError):
            ContinentalRules.from_settings(bad)
    assert ContinentalRules().rounds()[0] == ("TT", 2, 0, 7) and ContinentalRules().rounds()[-1][3] == 13
    # + laydown_table (issue 34), exact_close (issue 50), laydown_budget (both games)
    assert len(LobaRules.describe()) == 7 and len(ContinentalRules.describe()) == 10
