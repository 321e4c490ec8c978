"""Exact lay-down with same-turn lay-offs (issue 13): Continental's lay-down and Loba's final-round
go-out check leave the fewest cards, then the fewest points, checked against a brute force over
every choice of final melds; the old greedy solver stays reachable through the switches."""
from __future__ import annotations

import numpy as np
import pytest

from cardsim.simcore.rummy import engine as E
from cardsim.simcore.rummy import melds as M
from cardsim.simcore.rummy import state as S
from cardsim.simcore.rummy.cards import JOKER, card_code, hand_planes, hand_points, make_deck, planes_cards
from cardsim.simcore.rummy.laydown import exact_laydown
from cardsim.simcore.rummy.play import play_chunk
from cardsim.simcore.rummy.rules import ContinentalRules, LobaRules

CONT = (99, 1, 1, 1)  # max jokers, min naturals, circular, no adjacent jokers
LOBA = (1, 2, 0, 0)


def codes(text):
    return [card_code(c) for c in text.split()]


# ----------------------------------------------------------------------------- brute force
def _run_ok(cards, circular, min_nat, no_adj, core_jokers):
    """A final escalera: some placement of its naturals; with ``core_jokers`` it must hold a
    4-slot window with at most that many jokers (Loba's lay-down core; the rest laid off)."""
    nat = [c for c in cards if c != JOKER]
    L = len(cards)
    if not 4 <= L <= 13 or len(nat) < min_nat or len({c // 13 for c in nat}) > 1 or len(set(nat)) != len(nat):
        return False
    ranks = {c % 13 for c in nat}
    for p in (range(13) if circular else range(0, 14 - L + 1)):
        window = [(p + i) % 13 for i in range(L)]
        if not ranks <= set(window) or len(set(window)) != L:
            continue
        joker = [r not in ranks for r in window]
        if no_adj and any(a and b for a, b in zip(joker, joker[1:])):
            continue
        if core_jokers is not None and not any(sum(joker[o:o + 4]) <= core_jokers for o in range(L - 3)):
            continue
        return True
    return False


def _trio_ok(cards, min_nat):
    nat = [c for c in cards if c != JOKER]
    return len(cards) >= 3 and len(nat) >= min_nat and len({c % 13 for c in nat}) <= 1


def brute_best(cards, k, m, game):
    """Fewest cards, then points, left by ``k`` tríos + ``m`` escaleras of any length (Continental
    lay-down; Loba final round: cores of 3 / 4 cards with at most one joker, lengthened by lay-offs)."""
    n = len(cards)
    if game == "continental":
        run = lambda sub: _run_ok(sub, True, 1, True, None)  # noqa: E731
        trio = lambda sub: _trio_ok(sub, 1)  # noqa: E731
    else:
        run = lambda sub: _run_ok(sub, False, 2, False, 1)  # noqa: E731
        trio = lambda sub: _trio_ok(sub, 2)  # noqa: E731
    runs, trios, seen = [], [], set()
    for mask in range(1, 1 << n):
        sub = tuple(sorted(cards[i] for i in range(n) if mask >> i & 1))
        if len(sub) < 3:
            continue
        key = (sub, mask)
        if key in seen:
            continue
        seen.add(key)
        if m and run(list(sub)):
            runs.append(mask)
        if k and trio(list(sub)):
            trios.append(mask)
    best = None

    def score(used):
        left = [cards[i] for i in range(n) if not used >> i & 1]
        return len(left), hand_points(left)

    def pick(pool, start, count, used, then):
        nonlocal best
        if count == 0:
            if then is not None:
                pick(trios, 0, then, used, None)
                return
            s = score(used)
            if best is None or s < best:
                best = s
            return
        for i in range(start, len(pool)):
            if not pool[i] & used:
                pick(pool, i, count - 1, used | pool[i], then)

    if m:
        pick(runs, 0, m, 0, k)
    else:
        pick(trios, 0, k, 0, None)
    return best


def kernel_best(cards, k, m, mp):
    a1, a2, j = hand_planes(cards)
    ok, left_pts, rows, l1, l2, lj = exact_laydown(np.uint64(a1), np.uint64(a2), np.int64(j), np.int64(k),
                                                  np.int64(m), mp)
    if not ok:
        return None, rows
    left = planes_cards(int(l1), int(l2), int(lj))
    assert hand_points(left) == left_pts
    assert sum(int(r[3]) if r[0] == M.RUN else int(r[2]) for r in rows) == len(cards) - len(left)
    return (len(left), int(left_pts)), rows


# ----------------------------------------------------------------------------- the issue's hands
def test_issue_hands():
    # Loba final round (2E1T) with buys: 7S-TS, 9D-KD + AD, 3S 3C JK, discard AH
    best, _ = kernel_best(codes("3S 7S 8S 9S TS AH AD 9D TD JD QD KD 3C JK"), 1, 2, LOBA)
    assert best is not None and best[0] == 1
    # Continental TE: a legal lay-down keeps one card (the greedy one kept 7S QC)
    best, _ = kernel_best(codes("7S 9S JC JC JK JK JK JS KS QC TS"), 1, 1, CONT)
    assert best[0] == 1
    # Continental TT: 2C 2H JK + 6D 6S JK JK, discard KH: the -10 close
    best, _ = kernel_best(codes("2C 2H 6D 6S JK JK JK KH"), 2, 0, CONT)
    assert best == (1, 10)
    # the old greedy solver misses them (kept reachable through the switches)
    a1, a2, j = hand_planes(codes("7S 9S JC JC JK JK JK JS KS QC TS"))
    ok, pts, rows, l1, l2, lj = M.best_laydown(np.uint64(a1), np.uint64(a2), np.int64(j), 1, 1, CONT, 1)
    assert len(planes_cards(int(l1), int(l2), int(lj))) > 1


def _random_hands(rng, n_hands, size, jokers_max):
    deck = [int(c) for c in make_deck(4)]
    out = []
    while len(out) < n_hands:
        hand = [int(c) for c in rng.choice(deck, size, replace=False)]
        if sum(c == JOKER for c in hand) <= jokers_max:
            out.append(hand)
    return out


def _suited_hands(rng, n_hands, size, k, m, mp):
    """Random hands that hold the contract (most random hands do not): deal until they do."""
    out = []
    deck = np.array([int(c) for c in make_deck(6 if mp[0] > 1 else 4)])
    while len(out) < n_hands:
        hand = [int(c) for c in rng.choice(deck, size, replace=False)]
        a1, a2, j = hand_planes(hand)
        if M.contract_ok(np.uint64(a1), np.uint64(a2), np.int64(j), k, m, mp):
            out.append(hand)
    return out


@pytest.mark.parametrize("k,m,size", [(2, 0, 8), (1, 1, 9), (0, 2, 10), (2, 1, 11)])
def test_continental_laydown_equals_brute_force(k, m, size):
    rng = np.random.default_rng(100 + 10 * k + m)
    for hand in _suited_hands(rng, 25, size, k, m, CONT):
        best, _ = kernel_best(hand, k, m, CONT)
        assert best == brute_best(hand, k, m, "continental"), [c for c in hand]


@pytest.mark.parametrize("k,m,size", [(1, 2, 13), (1, 2, 14), (0, 3, 14)])
def test_loba_final_round_go_out_equals_brute_force(k, m, size):
    rng = np.random.default_rng(7 + size + m)
    # hands built around the contract so that going out is a real question
    for hand in _suited_hands(rng, 20, size, k, m, LOBA):
        best, _ = kernel_best(hand, k, m, LOBA)
        want = brute_best(hand, k, m, "loba")
        assert best[0] == want[0], hand
        # the engine's go-out check: the whole hand goes, or all but one card
        st = S.new_state(2, 108)
        a1, a2, j = hand_planes(hand)
        st[0][1], st[1][1], st[2][1] = np.uint64(a1), np.uint64(a2), j
        st[11][S.V_K], st[11][S.V_M] = k, m
        ok, _ = E.laydown_out(st, np.int64(1), LOBA, 1, np.zeros((1, 6), np.int64), np.int64(0), False)
        assert ok == (want[0] <= 1), hand


def test_switches_keep_the_old_solvers():
    old = play_chunk(4, 0, 6, ContinentalRules(exact_laydown=False), "heuristic")["hands"]
    new = play_chunk(4, 0, 6, ContinentalRules(), "heuristic")["hands"]
    assert not all(np.array_equal(old[c], new[c]) for c in old if c.startswith("points_"))
    assert "exact_go_out" in LobaRules.SWITCHES and "exact_laydown" in ContinentalRules.SWITCHES


def test_round_numbers_agree_with_deal_events():
    h = play_chunk(1, 0, 2, LobaRules(), "heuristic")["hands"]
    assert list(h["round"][:6]) == [1, 2, 3, 4, 5, 6]
    assert list(h["contract"][:2]) == ["2T", "1E1T"]  # deal events contract_r1_2T, contract_r2_1E1T
