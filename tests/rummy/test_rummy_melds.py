"""Meld solver against a brute-force search and hand-built cases."""
import numpy as np
import pytest

from cardsim.simcore.rummy import melds as M
from cardsim.simcore.rummy.cards import JOKER, hand_planes, hand_points, make_deck, planes_cards

CONTRACTS = [(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3), (1, 0), (0, 1)]
RULES = {"loba": (M.LOBA_MP, True), "continental": (M.CONTINENTAL_MP, False)}


def planes(text):
    return hand_planes(text.split())


def random_hands(rng, n, low, high, jokers, bias):
    """Random small hands; ``bias`` draws from a few ranks/suits so that melds are common."""
    deck = make_deck(jokers)
    out = []
    for _ in range(n):
        size = int(rng.integers(low, high + 1))
        if bias:
            suits = rng.choice(4, size=2, replace=False)
            start = int(rng.integers(0, 13))
            pool = [c for c in deck if c == JOKER or (c // 13 in suits and (c % 13 - start) % 13 < 6)]
            pool = np.array(pool)
        else:
            pool = deck
        out.append([int(c) for c in rng.choice(pool, size=size, replace=False)])
    return out


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_contract_ok_matches_brute_force(game):
    mp, exact = RULES[game]
    rng = np.random.default_rng(7 if game == "loba" else 8)
    hands = random_hands(rng, 250, 6, 9, 4 if game == "loba" else 6, True)
    hands += random_hands(rng, 80, 6, 9, 4 if game == "loba" else 6, False)
    mism = []
    positives = 0
    for cards in hands:
        a1, a2, j = hand_planes(cards)
        for k, m in CONTRACTS:
            if 3 * k + 4 * m > len(cards):
                continue
            want = M.ref_contract_ok(cards, k, m, mp, exact=exact)
            got = bool(M.contract_ok(a1, a2, j, k, m, mp))
            positives += want
            if want != got:
                mism.append((cards, k, m, want, got))
    assert not mism, mism[:5]
    assert positives > 100  # the test exercises feasible hands too


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_best_laydown_matches_brute_force(game):
    """Exact (minimal) melds: same points as brute force; Continental lay-offs: valid, never worse."""
    mp, _ = RULES[game]
    rng = np.random.default_rng(11 if game == "loba" else 12)
    hands = random_hands(rng, 200, 6, 9, 4 if game == "loba" else 6, True)
    checked = equal_ext = total_ext = 0
    for cards in hands:
        a1, a2, j = hand_planes(cards)
        total = hand_points(cards)
        for k, m in CONTRACTS:
            if 3 * k + 4 * m > len(cards):
                continue
            ok_ref, best_ref = M.ref_best(cards, k, m, mp, True)
            ok, left, melds, l1, l2, lj = M.best_laydown(a1, a2, j, k, m, mp, 0)
            assert ok == ok_ref, (cards, k, m)
            if not ok:
                continue
            checked += 1
            assert total - left == best_ref, (cards, k, m, left, best_ref)
            _check_rows(cards, melds, l1, l2, lj, mp, True)
            if game == "continental":
                ok_any, best_any = M.ref_best(cards, k, m, mp, False)
                ok2, left2, melds2, e1, e2, ej = M.best_laydown(a1, a2, j, k, m, mp, 1)
                assert ok2 and ok_any
                assert left2 <= left and total - left2 <= best_any
                _check_rows(cards, melds2, e1, e2, ej, mp, False)
                total_ext += 1
                equal_ext += total - left2 == best_any
    assert checked > 100
    if total_ext:
        assert equal_ext / total_ext > 0.99  # greedy lay-offs: optimal on every hand seen so far


def _check_rows(cards, melds, l1, l2, lj, mp, exact):
    """Meld rows are valid and, with the cards left, account for the whole hand."""
    used = []
    for row in melds:
        if row[0] == M.TRIO:
            sub = [int(row[1])] * int(row[4]) + [JOKER] * int(row[3])
            assert row[2] == row[3] + row[4]
            assert M.ref_valid_trio(sub, mp, exact), row
            used += sub
        else:
            suit, start, length, jm = (int(x) for x in row[1:5])
            sub = [JOKER if (jm >> i) & 1 else suit * 13 + (start + i) % 13 for i in range(length)]
            if mp[3]:
                assert (jm & (jm >> 1)) == 0
            if not mp[2]:
                assert 0 <= start and start + length - 1 <= 13
            assert M.ref_valid_run(sub, mp, exact), row
            used += sub
    # multiset equality: used (naturals by rank for tríos) + left == hand
    left = planes_cards(int(l1), int(l2), int(lj))
    hand_sorted = sorted(cards)
    rest = list(hand_sorted)
    for c in left:
        rest.remove(c)
    # tríos rows only know ranks: compare ranks for naturals, exact cards for runs
    assert sorted(c % 13 if c < 52 else 99 for c in rest) == sorted(c % 13 if c < 52 else 99 for c in used)


def test_hand_built_cases():
    L, C = M.LOBA_MP, M.CONTINENTAL_MP
    # circular ace in Continental, no wrap in Loba
    assert M.contract_ok(*planes("QS KS AS 2S"), 0, 1, C)
    assert not M.contract_ok(*planes("QS KS AS 2S"), 0, 1, L)
    assert M.contract_ok(*planes("JS QS KS AS"), 0, 1, L)  # ace high
    assert M.contract_ok(*planes("AS 2S 3S 4S"), 0, 1, L)  # ace low
    assert not M.contract_ok(*planes("KS AS 2S 3S"), 0, 1, L)
    assert M.contract_ok(*planes("KS AS 2S 3S"), 0, 1, C)
    # adjacent jokers refused (Continental), a joker each side of a natural is fine
    assert not M.contract_ok(*planes("5S JK JK 8S"), 0, 1, C)
    assert M.contract_ok(*planes("5S 6S JK JK"), 0, 1, C)  # JK 5 6 JK
    assert M.contract_ok(*planes("5S JK 7S JK"), 0, 1, C)
    assert M.contract_ok(*planes("JK 5S JK 7S"), 0, 1, C)
    # duplicate card in one escalera refused
    assert not M.contract_ok(*planes("5S 5S 6S 7S"), 0, 1, C)
    assert not M.contract_ok(*planes("5S 5S 6S 7S"), 0, 1, L)
    assert M.contract_ok(*planes("5S 5S 6S 6S 7S 7S 8S 8S"), 0, 2, L)  # two copies: two runs
    # a joker on a held natural's slot, so that another escalera can use the natural
    assert M.contract_ok(*planes("2D 3D 3D 4D 5D 5D JK JK"), 0, 2, L)  # 2-3-JK-5 and 3-4-5-JK
    # Loba joker limits: one joker per meld, two naturals per meld
    assert M.contract_ok(*planes("5S 6S JK 8S"), 0, 1, L)
    assert not M.contract_ok(*planes("5S JK JK 8S"), 0, 1, L)
    assert M.contract_ok(*planes("9S 9H JK"), 1, 0, L)
    assert not M.contract_ok(*planes("9S JK JK"), 1, 0, L)
    assert M.contract_ok(*planes("9S JK JK"), 1, 0, C)
    assert M.contract_ok(*planes("9S 9H 9C 9D JK JK"), 2, 0, L)  # split 2+J, 2+J
    assert M.contract_ok(*planes("9S 9H 9C 9D 9S 9H"), 2, 0, L)  # two tríos of one rank
    assert not M.contract_ok(*planes("9S 9H 9C 9D 9S"), 2, 0, L)
    assert M.contract_ok(*planes("9S 9H JK JK JK JK"), 2, 0, C)  # 9+JJ, 9+JJ
    assert not M.contract_ok(*planes("9S 9H JK JK JK"), 2, 0, C)
    assert M.contract_ok(*planes("9S JK JK 4H 4H 4D"), 2, 0, C)
    assert M.contract_ok(*planes("9S 9H 9D 9C JK JK 5S 6S 7S 8S"), 2, 1, L)
    assert not M.contract_ok(*planes("9S 9H 9D JK JK 5S 6S 7S 8S"), 2, 1, L)  # 1 natural + J per trío
    # a joker on a natural's slot frees the natural for the trío
    assert M.contract_ok(*planes("5S 6S 7S 8S JK JK JK"), 1, 1, C)
    assert M.contract_ok(*planes("5S 6S 7S 8S 5H JK JK"), 1, 1, L)
    # exact contract (Loba): longer melds do not count as more melds, extra cards stay in hand
    ok, left, melds, *_ = M.best_laydown(*planes("9S 9H 9C 9D 4S 4H 4C"), 2, 0, L, 0)
    assert ok and left == 9 and sorted(melds[:, 2]) == [3, 3]
    ok, left, melds, *_ = M.best_laydown(*planes("3S 4S 5S 6S 7S 8S"), 0, 1, L, 0)
    assert ok and left == 3 + 4 and melds[0, 3] == 4  # keeps 2 cards: the best 4 used
    assert not M.contract_ok(*planes("3S 4S 5S 6S 7S 8S 9S"), 0, 2, L)  # 7 in a row is not two runs
    # Continental lay-down with lay-offs takes the whole run and every card of the trío rank
    ok, left, melds, *_ = M.best_laydown(*planes("3S 4S 5S 6S 7S 8S 9H 9C 9D 9S JK"), 1, 1, C, 1)
    assert ok and left == 0


def test_distance_and_discard():
    L = M.LOBA_MP
    assert M.contract_distance(*planes("9S 9H 9C 4S 4H 4C"), 2, 0, L, 6) == 0
    assert M.contract_distance(*planes("9S 9H 9C 4S 4H 2C"), 2, 0, L, 6) == 1
    assert M.contract_distance(*planes("9S 9H 5C 4S 7H 2C"), 2, 0, L, 6) == 3
    assert M.contract_distance(*planes("5S 6S 8S 9H 9D 2C"), 1, 1, L, 6) == 2
    assert M.contract_distance(*planes("AS 3H 5C 7D 9S JH"), 0, 2, L, 3) == 4  # capped
    code, d = M.best_discard(*planes("9S 9H 9C 4S 4H 2C KD"), 2, 0, L, 6)
    assert d == 1 and code == 3 * 13 + 12 - 13  # KD (the K with the most points among the useless cards)
    # distance agrees with brute force: adding the missing cards reaches the contract
    rng = np.random.default_rng(3)
    for cards in random_hands(rng, 60, 7, 8, 4, True):
        for k, m in [(2, 0), (1, 1), (0, 2)]:
            d = M.contract_distance(*hand_planes(cards), k, m, L, 8)
            assert (d == 0) == M.ref_contract_ok(cards, k, m, L)
            assert d <= 3 * k + 4 * m


def test_lay_off():
    L, C = M.LOBA_MP, M.CONTINENTAL_MP
    run = np.array([M.RUN, 0, 10, 4, 0, 0])  # J Q K A of spades
    assert M.lay_off(run, 9, L, 0) == M.LAY_LOW  # 10S
    assert M.lay_off(run, 1, L, 0) == M.LAY_NO  # 2S: no wrap in Loba
    assert M.lay_off(run, 1, C, 0) == M.LAY_HIGH  # 2S: circular
    assert M.lay_off(run, 13 + 9, C, 0) == M.LAY_NO  # wrong suit
    assert M.lay_off(run, JOKER, L, 0) == M.LAY_LOW  # no room above the ace in Loba
    jrun = np.array([M.RUN, 1, 3, 5, 0b10000, 0])  # 4H 5H 6H 7H JK(8H)
    assert M.lay_off(jrun, JOKER, C, 0) == M.LAY_LOW  # high end is a joker
    assert M.lay_off(jrun, 13 + 7, C, 1) == M.LAY_SWAP
    assert M.lay_off(jrun, 13 + 7, C, 0) == M.LAY_NO
    trio = np.array([M.TRIO, 8, 3, 0, 3, 0])
    assert M.lay_off(trio, 8 + 26, C, 0) == M.LAY_HIGH
    assert M.lay_off(trio, 7, C, 0) == M.LAY_NO


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_big_contracts_match_brute_force(game):
    """10-13 card hands and the 3-meld contracts (3 levels of escalera search), minimal melds."""
    mp, _ = RULES[game]
    rng = np.random.default_rng(21 if game == "loba" else 22)
    hands = random_hands(rng, 70, 10, 13, 4 if game == "loba" else 6, True)
    positives = 0
    for n, cards in enumerate(hands):
        a1, a2, j = hand_planes(cards)
        total = hand_points(cards)
        for k, m in [(3, 0), (2, 1), (1, 2), (0, 3)]:
            if 3 * k + 4 * m > len(cards):
                continue
            ok_ref, best_ref = M.ref_best(cards, k, m, mp, True)
            assert bool(M.contract_ok(a1, a2, j, k, m, mp)) == ok_ref, (cards, k, m)
            positives += ok_ref
            if n < 25:
                ok, left, *_ = M.best_laydown(a1, a2, j, k, m, mp, 0)
                assert ok == ok_ref and (not ok or total - left == best_ref), (cards, k, m)
    assert positives > 20


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_distance_one_means_one_card_completes(game):
    """distance 0 <=> contract held; distance 1 <=> some single natural card completes it."""
    mp, _ = RULES[game]
    rng = np.random.default_rng(31 if game == "loba" else 32)
    ones = 0
    for cards in random_hands(rng, 60, 7, 12, 4 if game == "loba" else 6, True):
        a1, a2, j = hand_planes(cards)
        for k, m in [(2, 0), (1, 1), (0, 2), (2, 1)]:
            d = M.contract_distance(a1, a2, j, k, m, mp, 2)
            ok = bool(M.contract_ok(a1, a2, j, k, m, mp))
            one = not ok and any(M.contract_ok(*hand_planes(cards + [c]), k, m, mp)
                                 for c in range(52) if cards.count(c) < 2)
            assert (d == 0) == ok and (d == 1) == one, (cards, k, m, d)
            ones += d == 1
    assert ones > 20


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_distance_two_means_two_cards_complete(game):
    """distance 2 <=> no single natural card completes the contract but some two do: the
    search with missing cards (which skips joker patterns that leave the same hand) against
    brute force over the cards added, with jokers in hand."""
    from cardsim.simcore.rummy.hand import distance

    mp, _ = RULES[game]
    rng = np.random.default_rng(41 if game == "loba" else 42)
    twos = 0
    naturals = list(range(52))
    for cards in random_hands(rng, 14, 6, 10, 4 if game == "loba" else 6, True):
        if JOKER not in cards:
            cards = cards[:-1] + [JOKER]
        a1, a2, j = hand_planes(cards)
        for k, m in [(1, 1), (0, 2), (2, 1), (1, 2)]:
            d = M.contract_distance(a1, a2, j, k, m, mp, 3)
            assert d == distance(a1, a2, j, k, m, mp, 3)  # the game kernel's sorted search
            if d < 2:
                continue
            room = [c for c in naturals if cards.count(c) < 2]
            two = any(M.contract_ok(*hand_planes(cards + [c, e]), k, m, mp)
                      for i, c in enumerate(room) for e in room[i:] if cards.count(c) + (c == e) < 2)
            assert (d == 2) == two, (cards, k, m, d)
            twos += d == 2
    assert twos > 5


@pytest.mark.parametrize("game", ["loba", "continental"])
def test_best_discard_matches_naive(game):
    """The one-search-per-card shortcut gives the minimum distance over all discards."""
    mp, _ = RULES[game]
    rng = np.random.default_rng(41 if game == "loba" else 42)
    for cards in random_hands(rng, 40, 8, 12, 4 if game == "loba" else 6, True):
        a1, a2, j = hand_planes(cards)
        for k, m in [(2, 0), (1, 1), (0, 2)]:
            code, d = M.best_discard(a1, a2, j, k, m, mp, 3)
            dists = {c: M.contract_distance(*hand_planes([x for i, x in enumerate(cards) if i != cards.index(c)]),
                                            k, m, mp, 3) for c in set(cards)}
            assert d == min(dists.values()) and dists[code] == d, (cards, k, m, code, d, dists)


def test_trios_missing_closed_form_matches_the_dp():
    """With 2 or 3 jokers allowed per trío (Continental; ``min_naturals`` 1 or 0) the fewest
    missing cards for ``k`` tríos are computed in closed form; the DP over ranks (used when a
    trío takes one joker, Loba) must agree on every hand."""
    from cardsim.simcore.rummy.contract import _trios_missing_dp, _trios_missing_greedy

    rng = np.random.default_rng(41)
    deck = make_deck(6)
    for n in range(3000):
        cards = [int(c) for c in rng.choice(deck, size=int(rng.integers(0, 16)), replace=False)]
        if n % 2:  # few ranks: many pairs and tríos
            cards = [c if c == JOKER else c % 13 % 4 + 13 * (c // 13) for c in cards]
            cards = [c for i, c in enumerate(cards) if c == JOKER or cards[:i].count(c) < 2]
        a1, a2, j = hand_planes(cards)
        for k in (1, 2, 3):
            for jcap in (2, 3):
                assert _trios_missing_greedy(a1, a2, j, k, jcap) == _trios_missing_dp(a1, a2, j, k, jcap), \
                    (cards, k, jcap)
