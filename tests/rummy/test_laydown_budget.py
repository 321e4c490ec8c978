"""Switch ``laydown_budget``: the exact lay-down's work budget (a count, never time).

Without it a hand of 40 cards with 6 jokers under Continental's last contract (3 escaleras),
which a seat reaches by claiming a dozen refused cards (random or ISMCTS seats, the step
interface), made one lay-down decision run for minutes: the exact search scores every choice of
escalera cores and joker placements (hundreds of millions here) and checks each for a -10
close through the table's escaleras. With the budget the search stops after ``B`` choices scored
(and checks closes with the greedy lay-offs alone after ``B`` positions of the exact close
search), keeping the best lay-down found so far or the greedy solver's when better. Checked
here: that hand finishes in seconds through the engine with a legal lay-down (the reference's
meld checks, card conservation); budget 0 (unlimited, the old search) and the default give the
same lay-down on ordinary hands and the same games; a cut search is legal and never worse than
the greedy solver; bad values are refused with the one-line ``ConfigError``; the run's metadata
records the switch."""
from __future__ import annotations

import json
import time
from collections import Counter

import numpy as np
import pytest

from cardsim.simcore.framework.config import ConfigError
from cardsim.simcore.rummy import engine as E
from cardsim.simcore.rummy import melds as M
from cardsim.simcore.rummy import play as G
from cardsim.simcore.rummy import state as S
from cardsim.simcore.rummy.cards import JOKER, card_code, hand_planes, hand_points, planes_cards
from cardsim.simcore.rummy.laydown import exact_laydown_table, laydown_work
from cardsim.simcore.rummy.rules import DEFAULT_LAYDOWN_BUDGET, HANDS, ContinentalRules, LobaRules
from cli_helpers import run
from references import rummy as ref

CONT = (99, 1, 1, 1)  # max jokers, min naturals, circular, no adjacent jokers
RULES = ContinentalRules()


def codes(text):
    return [card_code(c) for c in text.split()]


def run_row(cards):
    """The table row of an escalera given by its cards in order (no jokers)."""
    return [M.RUN, cards[0] // 13, cards[0] % 13, len(cards), 0, 0]


# ----------------------------------------------------------------------------- the pathological hand
# Hand 7 (EEE), seat 1 holds 34 naturals and all 6 jokers (a dozen claims); the three other seats
# are down with 9 escaleras. Unlimited (laydown_budget = 0, the old search) this one decision scores
# 33.5 million choices with exact_close off (80 s) and ran for more than 7 minutes with it (stopped
# at 420 s); with the default budget it takes about 3 s.
PATHO_HAND = ("2S 4S 5S 9S TS QS KS 4H 5H 6H 8H 9H JH AD 2D 3D 4D 6D 7D 7D 8D 8D 9D TD JD QD 6C 7C 8C TC JC JC "
              "QC QC " + " ".join(["JK"] * 6))
PATHO_TABLE = ["7H 8H 9H TH JH QH", "AC 2C 3C 4C", "KC AC 2C 3C", "QH KH AH 2H 3H", "AS 2S 3S 4S 5S 6S",
               "5C 6C 7C 8C 9C", "6S 7S 8S 9S TS JS", "AH 2H 3H 4H 5H 6H", "KD AD 2D 3D"]


def _engine_lay_down(table, hand, k, m, prm):
    """Seat 1 lays down through the engine (``_lay_down_contract``, the exact solver) with the
    escaleras ``table`` already down; returns ``(new melds' cards, hand after)``."""
    st = S.new_state(4, 110)
    mrow, mcards, mlen = st[5], st[6], st[7]
    for i, text in enumerate(table):
        cards = codes(text)
        mrow[i] = run_row(cards)
        mcards[i, :len(cards)] = cards
        mlen[i] = len(cards)
    a1, a2, j = hand_planes(hand)
    p = 1
    st[0][p], st[1][p], st[2][p] = np.uint64(a1), np.uint64(a2), j
    sv = st[11]
    sv[S.V_K], sv[S.V_M], sv[S.V_P], sv[S.V_NM] = k, m, p, len(table)
    log = np.zeros((1, 6), np.int64)
    E._lay_down_contract(st, np.int64(p), prm, CONT, 1, log, np.int64(0), False)
    new = [[int(c) for c in mcards[i, :mlen[i]]] for i in range(len(table), int(sv[S.V_NM]))]
    return new, planes_cards(int(st[0][p]), int(st[1][p]), int(st[2][p]))


def test_pathological_hand_finishes_under_the_default_budget():
    prm = S.kernel_params(RULES)
    assert prm[S.P_BUDGET] == DEFAULT_LAYDOWN_BUDGET
    # the same kernel on a small hand first: the timing below is the decision, not a compile
    _engine_lay_down(PATHO_TABLE[:2], codes("4H 5H 6H 7H 8D 9D TD JD 6C 7C 8C 9C JK"), 0, 3, prm)
    hand = codes(PATHO_HAND)
    assert len(hand) == 40 and hand.count(JOKER) == 6
    # a legal position: no card more than twice (two decks) between the hand and the table
    assert max(Counter([c for c in hand if c != JOKER] + [c for t in PATHO_TABLE for c in codes(t)]).values()) <= 2
    t0 = time.perf_counter()
    new, left = _engine_lay_down(PATHO_TABLE, hand, 0, 3, prm)
    elapsed = time.perf_counter() - t0
    assert elapsed < 30, elapsed  # about 3 s; unlimited more than 80 s
    assert len(new) == 3 and all(ref.valid_laydown_meld(cards, RULES) for cards in new)
    assert all(ref.valid_run(cards, True, 1, 99, True, False) for cards in new)  # the contract: 3 escaleras
    assert Counter(hand) == Counter(left) + Counter(c for cards in new for c in cards)
    # the budget was what stopped it (deterministic: a count), and the cut search is no worse than
    # the greedy solver (exact_laydown = off)
    a1, a2, j = hand_planes(hand)
    mrow = np.zeros((16, 6), np.int64)
    for i, text in enumerate(PATHO_TABLE):
        mrow[i] = run_row(codes(text))
    res = laydown_work(np.uint64(a1), np.uint64(a2), np.int64(j), np.int64(0), np.int64(3), CONT, mrow,
                       np.int64(len(PATHO_TABLE)), np.int64(1), np.int64(1), np.int64(DEFAULT_LAYDOWN_BUDGET))
    assert res[6] == DEFAULT_LAYDOWN_BUDGET
    assert sorted(planes_cards(int(res[3]), int(res[4]), int(res[5]))) == sorted(left)
    ok, pts, _, g1, g2, gj = M.best_laydown(np.uint64(a1), np.uint64(a2), np.int64(j), np.int64(0), np.int64(3), CONT,
                                            np.int64(1))
    assert ok and (res[8] == 0 or (len(left), hand_points(left)) <= (len(planes_cards(int(g1), int(g2), int(gj))), pts))


# ----------------------------------------------------------------------------- ordinary hands
def _ordinary_positions(seed, n):
    """Hands of 7-20 cards (0-3 jokers) for every contract, beside 0-6 table escaleras (with jokers) and
    tríos: the sizes heuristic and search seats lay down."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        _, k, m = HANDS[int(rng.integers(len(HANDS)))]
        table = []
        for _ in range(int(rng.integers(0, 7))):
            if rng.random() < 0.3:
                table.append([M.TRIO, int(rng.integers(13)), 3, 0, 3, 0])
            else:
                L = int(rng.integers(4, 8))
                jm = 0b10 if rng.random() < 0.3 else 0
                table.append([M.RUN, int(rng.integers(4)), int(rng.integers(13)), L, jm, 0])
        suit = int(rng.integers(4))  # some cards of one suit so that escaleras form
        size = int(rng.integers(3 * k + 4 * m, 21))
        cards = [suit * 13 + int(r) for r in rng.choice(13, min(6, size), replace=False)]
        cards += [int(c) for c in rng.integers(0, 52, size - len(cards))]
        cards = [c for i, c in enumerate(cards) if cards[:i].count(c) < 2]
        cards += [JOKER] * int(rng.integers(0, 4))
        out.append((k, m, table, cards))
    return out


def _solve(k, m, table, cards, budget, close=1):
    a1, a2, j = hand_planes(cards)
    mrow = np.zeros((16, 6), np.int64)
    for i, row in enumerate(table):
        mrow[i] = row
    return laydown_work(np.uint64(a1), np.uint64(a2), np.int64(j), np.int64(k), np.int64(m), CONT, mrow,
                        np.int64(len(table)), np.int64(1), np.int64(close), np.int64(budget))


def _same(a, b):
    return a[0] == b[0] and a[1] == b[1] and (a[2] == b[2]).all() and a[3:6] == b[3:6]


@pytest.mark.parametrize("seed", [1, 2])
def test_budget_zero_and_the_default_give_the_old_lay_down_on_ordinary_hands(seed):
    laid = 0
    for k, m, table, cards in _ordinary_positions(seed, 300):
        unlimited = _solve(k, m, table, cards, 0)
        default = _solve(k, m, table, cards, DEFAULT_LAYDOWN_BUDGET)
        assert _same(unlimited, default), (k, m, table, cards)
        assert unlimited[6] < DEFAULT_LAYDOWN_BUDGET // 20 and unlimited[7] < DEFAULT_LAYDOWN_BUDGET // 20
        # the solver's entry the engine calls, without the budget argument (0: the old search)
        a1, a2, j = hand_planes(cards)
        mrow = np.zeros((16, 6), np.int64)
        for i, row in enumerate(table):
            mrow[i] = row
        old = exact_laydown_table(np.uint64(a1), np.uint64(a2), np.int64(j), np.int64(k), np.int64(m), CONT, mrow,
                                  np.int64(len(table)), np.int64(1), np.int64(1))
        assert _same(old, unlimited)
        laid += bool(unlimited[0])
    assert laid >= 50  # the sample lays down often


@pytest.mark.parametrize("budget", [1, 7, 100])
def test_a_cut_search_is_legal_and_no_worse_than_the_greedy_solver(budget):
    cut = 0
    for k, m, table, cards in _ordinary_positions(3, 200):
        res = _solve(k, m, table, cards, budget)
        if not res[0]:
            continue
        cut += res[6] >= budget
        left = planes_cards(int(res[3]), int(res[4]), int(res[5]))
        assert hand_points(left) == res[1]
        melds = ref._melds_of_rows(res[2], cards, left)
        assert all(ref.valid_laydown_meld(x, RULES) for x in melds), (cards, melds)
        assert Counter(cards) == Counter(left) + Counter(c for x in melds for c in x)
        a1, a2, j = hand_planes(cards)
        ok, pts, _, g1, g2, gj = M.best_laydown(np.uint64(a1), np.uint64(a2), np.int64(j), np.int64(k),
                                                np.int64(m), CONT, np.int64(1))
        assert ok
        if res[8] != 0:  # a lay-down that closes at once beats any other
            assert (len(left), res[1]) <= (len(planes_cards(int(g1), int(g2), int(gj))), pts), cards
    assert cut >= 20


def test_budget_zero_and_the_default_play_the_same_games():
    mixed = ["heuristic", "random", "heuristic", "random"]
    old = G.play_chunk(9, 0, 12, ContinentalRules(laydown_budget=0), mixed)
    new = G.play_chunk(9, 0, 12, RULES, mixed)
    for table in old:
        for col in old[table]:
            assert (np.asarray(old[table][col]) == np.asarray(new[table][col])).all(), (table, col)


# ----------------------------------------------------------------------------- the switch
def test_switch_values_and_parameters():
    assert RULES.laydown_budget == LobaRules().laydown_budget == DEFAULT_LAYDOWN_BUDGET
    assert S.kernel_params(ContinentalRules(laydown_budget=0))[S.P_BUDGET] == 0
    assert S.kernel_params(LobaRules(laydown_budget=1234))[S.P_BUDGET] == 1234
    assert ContinentalRules.from_settings({"laydown_budget": "2_000_000"}).laydown_budget == 2_000_000
    for rules_cls in (ContinentalRules, LobaRules):
        for bad in ("-1", "abc", "1.5", str(10**12 + 1)):
            with pytest.raises(ConfigError, match="laydown_budget"):
                rules_cls.from_settings({"laydown_budget": bad})


def test_bad_value_is_one_line_and_the_run_records_the_switch(capsys, tmp_path):
    code, out, err = run(capsys, "play", "continental", "--games", "2", "--set", "laydown_budget=-5")
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "laydown_budget" in err
    code, out, _ = run(capsys, "rules", "continental")
    assert code == 0 and "laydown_budget" in out
    code, _, _ = run(capsys, "play", "continental", "--games", "2", "--seed", "1", "--set", "laydown_budget=5000",
                     "--out", tmp_path / "r", "--quiet")
    assert code == 0
    assert json.loads((tmp_path / "r" / "run.json").read_text())["rules"]["laydown_budget"] == 5000
