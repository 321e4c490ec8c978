"""Tứ Sắc claims (steal priority): hand-built cases through the kernel's claim step, and
the kernel's claim resolution against the pure-Python reference on random situations."""
from __future__ import annotations

import numpy as np
import pytest

from references import tusac as ref
from cardsim.simcore.tusac.cards import N_TYPES, parse_hand, parse_type
from cardsim.simcore.tusac.probes import claim_case
from cardsim.simcore.tusac.claims import (MAX_OPTS, meld_options, normal_taker, steal_claimant,
                                          win_claim)
from cardsim.simcore.tusac.play import tables
from cardsim.simcore.tusac.rules import kernel_params
from cardsim.simcore.tusac.melds import MELD_NAMES, part_melds, PART_TYPES, PART_KIND
from cardsim.simcore.tusac.rules import TuSacRules


def R(**kw):
    return TuSacRules.from_settings(kw)


# Waiting hands (every card melded once RH / RC / ... is taken).
WAIT_RH_A = "YG YA YE 2WC RH"        # RH makes a pair: win
WAIT_RH_B = "GC GH GN RH"            # RH makes a pair: win
TRASH = "YH GE WN"                   # three unrelated cards: never a win


# ------------------------------------------------------------------ wins and turn order

def test_two_winners_on_a_discard_first_in_turn_order_from_the_next_player():
    rules = R()
    hands = [TRASH, WAIT_RH_A, TRASH, WAIT_RH_B]
    # discard by seat 2: order 3, 0, 1 -> seat 3, the next player (an eat)
    out = claim_case(hands, "RH", 2, False, rules)
    assert (out["result"], out["seat"], out["how"], out["n_winners"]) == ("win", 3, "eat", 2)
    # discard by seat 0: order 1, 2, 3 -> seat 1, the next player (an eat)
    out = claim_case(hands, "RH", 0, False, rules)
    assert (out["result"], out["seat"], out["how"], out["n_winners"]) == ("win", 1, "eat", 2)
    # discard by seat 1: seat 1 cannot claim its own discard; seat 3 steals it
    out = claim_case(hands, "RH", 1, False, rules)
    assert (out["result"], out["seat"], out["how"], out["n_winners"]) == ("win", 3, "steal", 1)


def test_two_winners_on_a_drawn_card_first_in_turn_order_from_the_drawer():
    rules = R()
    hands = [TRASH, WAIT_RH_A, TRASH, WAIT_RH_B]
    out = claim_case(hands, "RH", 3, True, rules)  # the drawer wins first
    assert (out["result"], out["seat"], out["how"], out["n_winners"]) == ("win", 3, "draw", 2)
    out = claim_case(hands, "RH", 2, True, rules)  # order 2, 3, 0, 1
    assert (out["result"], out["seat"], out["how"]) == ("win", 3, "steal")
    out = claim_case(hands, "RH", 0, True, rules)  # order 0, 1, ...
    assert (out["result"], out["seat"]) == ("win", 1)


def test_win_beats_a_triple_steal_and_the_next_players_eat():
    rules = R()
    hands = [TRASH, "RC YH", "2RH GE", WAIT_RH_B]  # seat 1 could eat RH (pair), seat 2 steal a triple
    out = claim_case(hands, "RH", 0, False, rules)
    assert (out["result"], out["seat"], out["how"]) == ("win", 3, "steal")


def test_win_threshold_blocks_small_wins():
    hands = [TRASH, WAIT_RH_A, TRASH, WAIT_RH_B]
    # hidden-part scores: seat 1 = 1 (YG) + 2 (command) + 0 = 3 ... threshold 9 needs exposed points
    out = claim_case(hands, "RH", 0, False, R(win_threshold=9))
    assert out["result"] != "win"
    out = claim_case(hands, "RH", 0, False, R(win_threshold=9), exposed_points=[0, 0, 0, 9])
    assert (out["result"], out["seat"]) == ("win", 3)


# ------------------------------------------------------------------ triple / quadruple steals

def test_a_triple_claim_beats_the_next_players_eat():
    hands = [TRASH, "RH RN WA", "GA", "2RC YH GE"]  # seat 1 could eat RC in a Field group
    out = claim_case(hands, "RC", 0, False, R())
    assert (out["result"], out["seat"], out["how"], out["meld"]) == ("taken", 3, "steal", "triple")
    assert out["hands"][3][parse_type("RC")] == 0
    # without steals (or win-only steals, or seat 3 not allowed) the next player eats
    for rules in (R(steals="off"), R(steals="win_only"), R(steal_seats=["0", "1", "2"])):
        out = claim_case(hands, "RC", 0, False, rules)
        assert (out["result"], out["seat"], out["how"], out["meld"]) == ("taken", 1, "eat", "field")


def test_quadruple_steal_from_a_concealed_triple():
    hands = [TRASH, "WA", "3YC GE WN", "GA"]
    out = claim_case(hands, "YC", 0, False, R())
    assert (out["result"], out["seat"], out["how"], out["meld"]) == ("taken", 2, "steal", "quadruple")


def test_soldier_melds_cannot_be_claimed_out_of_turn():
    hands = [TRASH, "WA GE", "YS GS WS YH", "GA"]  # seat 2 could make soldier groups with RS
    out = claim_case(hands, "RS", 0, False, R())
    assert (out["result"], out["seat"]) == ("pass", 1)  # nobody may take it: seat 1 draws
    # the next player may eat it for a soldier group
    out = claim_case(["WA GE", "YS GS WS YH", TRASH, "GA"], "RS", 0, False, R())
    assert (out["result"], out["seat"], out["how"]) == ("taken", 1, "eat")
    assert out["meld"] in ("three_colour_soldiers", "full_colour_soldiers")
    # identical Soldiers are a triple: that steal is allowed
    out = claim_case([TRASH, "WA GE", "2RS YH GE", "GA"], "RS", 0, False, R())
    assert (out["result"], out["seat"], out["meld"]) == ("taken", 2, "triple")


def test_ordinary_melds_are_not_stolen_out_of_turn():
    # seat 3 could make a Field group with RC, but it is not the next player
    out = claim_case([TRASH, "WA GE", "GA", "RH RN YH"], "RC", 0, False, R())
    assert (out["result"], out["seat"]) == ("pass", 1)


def test_drawn_general_stolen_only_from_a_concealed_triple():
    rules = R()
    # a pair of the General: no steal, the drawer must keep the General
    out = claim_case(["WA GE", TRASH, "2RG YH GE", "GA"], "RG", 0, True, rules)
    assert (out["result"], out["seat"], out["how"], out["meld"]) == ("taken", 0, "draw", "general")
    # a concealed triple: quadruple steal
    out = claim_case(["WA GE", TRASH, "3RG YH GE", "GA"], "RG", 0, True, rules)
    assert (out["result"], out["seat"], out["how"], out["meld"]) == ("taken", 2, "steal", "quadruple")
    # general_steals=never: the drawer keeps it
    out = claim_case(["WA GE", TRASH, "3RG YH GE", "GA"], "RG", 0, True, R(general_steals="never"))
    assert (out["result"], out["seat"], out["how"]) == ("taken", 0, "draw")
    # ... but a win may still take it
    out = claim_case(["WA GE", TRASH, "YC YH YN", "GA"], "RG", 0, True, R(general_steals="never"))
    assert (out["result"], out["seat"], out["how"]) == ("win", 2, "steal")


def test_a_drawn_card_can_be_stolen_for_a_triple():
    out = claim_case(["WA GE YH", TRASH, "2GC YH GE", "GA"], "GC", 0, True, R())
    assert (out["result"], out["seat"], out["how"], out["meld"]) == ("taken", 2, "steal", "triple")


def test_drawer_declining_its_drawn_card_exposes_it_as_a_discard():
    out = claim_case(["WA GE YH", TRASH, "GA", "WC"], "GC", 0, True, R(), policies="heuristic")
    assert (out["result"], out["seat"]) == ("rediscard", 0)


def test_steals_switches():
    hands = [TRASH, TRASH.replace("YH", "YC"), TRASH, WAIT_RH_B]
    assert claim_case(hands, "RH", 0, False, R(steals="off"))["result"] == "pass"
    assert claim_case(hands, "RH", 0, False, R(steals="win_only"))["seat"] == 3
    assert claim_case(hands, "RH", 0, False, R(steal_seats=["0", "1", "2"]))["result"] == "pass"
    # the normal taker is not stealing: it may win whatever the switches
    hands = [TRASH, WAIT_RH_B, TRASH, TRASH.replace("YH", "YC")]
    for rules in (R(steals="off"), R(steal_seats=["0"])):
        out = claim_case(hands, "RH", 0, False, rules)
        assert (out["result"], out["seat"], out["how"]) == ("win", 1, "eat")


def test_taiwanese_priority_gives_drawn_cards_to_the_next_player():
    # the drawer could make a Field group with its drawn RC; the next player too
    hands = ["RH RN GE", "RH RN YH", "GA", "WA"]
    out = claim_case(hands, "RC", 0, True, R())
    assert (out["result"], out["seat"], out["how"]) == ("taken", 0, "draw")
    out = claim_case(hands, "RC", 0, True, R(priority="taiwanese"))
    assert (out["result"], out["seat"], out["how"], out["meld"]) == ("taken", 1, "eat", "field")
    # the drawer keeps it for a triple
    out = claim_case(["2RC GE YH", "RH RN YH", "GA", "WA"], "RC", 0, True, R(priority="taiwanese"))
    assert (out["result"], out["seat"], out["how"], out["meld"]) == ("taken", 0, "draw", "triple")
    # nobody: it stays as the drawer's discard and the next player draws
    out = claim_case(["GE", "WA", "GA", "WA"], "RC", 0, True, R(priority="taiwanese"))
    assert (out["result"], out["seat"]) == ("pass", 1)
    # drawn Generals stay with the drawer
    out = claim_case(["GE", "WA", "GA", "WA"], "RG", 0, True, R(priority="taiwanese"))
    assert (out["result"], out["seat"], out["meld"]) == ("taken", 0, "general")


def test_trio_lock_only_quadruples_from_a_locked_triple():
    rules = R(trio_lock=True)
    rc = parse_type("RC")
    hand = parse_hand("3RC RH RN")
    prm = kernel_params(rules)
    okind = np.zeros(MAX_OPTS, np.int64)
    opts = np.zeros(MAX_OPTS, np.int64)
    orev = np.zeros((MAX_OPTS, 3), np.int64)
    n = meld_options(hand, np.int64(1 << rc), rc, prm, okind, opts, orev)
    assert sorted(MELD_NAMES[k] for k in okind[:n]) == ["field", "quadruple"]  # the taken RC is free
    n = meld_options(hand, np.int64(0), rc, prm, okind, opts, orev)
    assert sorted(MELD_NAMES[k] for k in okind[:n]) == ["field", "pair", "quadruple", "triple"]
    # a locked triple cannot lend a card to a Field group
    rh = parse_type("RH")
    n = meld_options(hand, np.int64(1 << rc), rh, prm, okind, opts, orev)
    assert sorted(MELD_NAMES[k] for k in okind[:n]) == ["pair"]
    out = claim_case([TRASH, "WA", "3YC GE WN", "GA"], "YC", 0, False, rules,
                     locked=[0, 0, 1 << parse_type("YC"), 0])
    assert (out["seat"], out["meld"]) == (2, "quadruple")


def test_random_policy_may_decline_a_steal_heuristic_claims():
    hands = [TRASH, "WA", "2RC YH GE", "GA"]
    seen = {claim_case(hands, "RC", 0, False, R(), policies="random", state=k)["seat"] for k in range(40)}
    assert seen == {1, 2}  # stolen by seat 2, or left to seat 1
    assert claim_case(hands, "RC", 0, False, R(), policies="heuristic")["seat"] == 2


# ------------------------------------------------------------------ random situations vs reference

def _all_melds():
    out = []
    for p in range(PART_TYPES.shape[0]):
        types = [int(t) for t in PART_TYPES[p] if t >= 0]
        for vec, *_ in part_melds(int(PART_KIND[p])):
            out.append([types[j] for j in range(len(types)) for _ in range(vec[j])])
    return out


MELDS = _all_melds()
RULE_SETS = [
    R(), R(priority="taiwanese"), R(steals="off"), R(steals="win_only"), R(general_steals="never"),
    R(steal_seats=["1", "3"]), R(trio_lock=True, win_threshold=3), R(players=3, soldier_pairs=False),
    R(players=2, command_points=1, three_colour_soldier_points=3),
]


def _situation(rng, P):
    left = np.full(N_TYPES, 4)
    hands = np.zeros((4, N_TYPES), np.int8)
    waits = []
    for s in range(P):
        for _ in range(rng.integers(1, 5)):
            m = MELDS[rng.integers(len(MELDS))]
            if all(left[t] >= m.count(t) for t in m):
                for t in m:
                    left[t] -= 1
                    hands[s, t] += 1
        cards = [t for t in range(N_TYPES) for _ in range(hands[s, t])]
        if cards and rng.random() < 0.9:
            t = cards[rng.integers(len(cards))]
            hands[s, t] -= 1
            left[t] += 1
            waits.append(t)
        if rng.random() < 0.3:
            t = rng.integers(N_TYPES)
            if left[t]:
                left[t] -= 1
                hands[s, t] += 1
    choices = [t for t in waits if left[t]] or [t for t in range(N_TYPES) if left[t]]
    c = int(choices[rng.integers(len(choices))])
    locked = np.array([sum(1 << t for t in range(N_TYPES) if hands[s, t] == 3 and rng.random() < 0.5)
                       for s in range(4)], np.int64)
    exposed = rng.integers(0, 6, 4).astype(np.int64)
    return hands, locked, exposed, c


@pytest.mark.parametrize("k", range(len(RULE_SETS)))
def test_kernel_claims_equal_reference_on_random_situations(k):
    rules = RULE_SETS[k]
    P = rules.players
    rng = np.random.default_rng(100 + k)
    prm = kernel_params(rules)
    tt, st, wt, _ = tables(rules)
    wins = ties = steals = 0
    for _ in range(600):
        hands, locked, exposed, c = _situation(rng, P)
        src = int(rng.integers(P))
        is_draw = bool(rng.random() < 0.5)
        w, nwin, ws = win_claim(c, src, is_draw, prm, hands, locked, exposed, tt, st, wt)
        stealer = steal_claimant(c, src, is_draw, prm, hands, locked)
        expect = ref.resolve_claims([list(map(int, h)) for h in hands[:P]], [int(x) for x in locked[:P]],
                                    [int(x) for x in exposed[:P]], c, src, is_draw, rules)
        assert (w, nwin, ws if w >= 0 else -1) == (expect["winner"], expect["n_winners"], expect["win_score"])
        assert stealer == expect["stealer"]
        assert normal_taker(c, src, is_draw, prm) == expect["normal"]
        wins += w >= 0
        ties += nwin > 1
        steals += stealer >= 0
    assert wins > 50 and (steals > 10 or rules.steals != "on")  # the situations exercise the rules
    if rules.steals != "off":
        assert ties > 3


def test_taken_general_is_never_laid_as_a_triple():
    # Spec: a drawn General is laid alone or in a Command group (a quadruple from a
    # concealed triple also contains it); never as a triple with two hidden copies.
    import numpy as np

    from cardsim.simcore.tusac.cards import parse_hand, parse_type
    from cardsim.simcore.tusac.claims import K_TRIPLE, meld_options

    hand = parse_hand("RG RG RA RE YS GC WH")
    okind = np.zeros(8, np.int64)
    opts = np.zeros(8, np.int64)
    orev = np.full((8, 3), -1, np.int64)
    n = meld_options(hand, np.int64(0), parse_type("RG"), kernel_params(TuSacRules()), okind, opts, orev)
    assert K_TRIPLE not in okind[:n].tolist()
    assert n == 2  # the General alone, or the Command group RG RA RE


# ------------------------------------------------------------------ triple_steal (issue 13)

def test_a_triple_claim_needs_a_pair():
    from cardsim.simcore.tusac.claims import K_QUAD, K_TRIPLE, steal_options

    okind, opts, orev = np.zeros(MAX_OPTS, np.int64), np.zeros(MAX_OPTS, np.int64), np.zeros((MAX_OPTS, 3), np.int64)
    three = parse_hand("3RC YH")
    two = parse_hand("2RC YH")
    c = parse_type("RC")
    n = steal_options(three, np.int64(0), c, kernel_params(R()), False, okind, opts, orev)
    assert list(okind[:n]) == [K_QUAD]  # seed: "announces a triple" to claim for a quadruple
    n = steal_options(three, np.int64(0), c, kernel_params(R(triple_steal="pair_or_triple")), False, okind, opts, orev)
    assert list(okind[:n]) == [K_TRIPLE, K_QUAD]
    n = steal_options(two, np.int64(0), c, kernel_params(R()), False, okind, opts, orev)
    assert list(okind[:n]) == [K_TRIPLE]
    # the reference agrees
    assert [k for k, *_ in ref.steal_melds(list(three), 0, c, R(), False)] == ["quadruple"]
    assert [k for k, *_ in ref.steal_melds(list(three), 0, c, R(triple_steal="pair_or_triple"), False)] == \
        ["triple", "quadruple"]


def triple_claims_by_count(rules, seed, start, count, policies="heuristic"):
    """Hidden copies held by the claimant at every steal for a triple, tracked through the
    kernel's move log (deal - dealt quadruples - revealed meld cards - discards)."""
    from cardsim.simcore.tusac.log import (LOG_CLAIM, LOG_DEAL, LOG_DISCARD, LOG_MELD, LOG_QUAD, rev_types,
                                           unpack_counts)
    from cardsim.simcore.tusac.play import play_logged

    cols, log, nlog, fin = play_logged(seed, start, count, rules, policies)
    held = []
    for i in range(count):
        hands = {}
        for kind, seat, a, b, c, _ in log[i, :nlog[i]]:
            if kind == LOG_DEAL:
                hands[seat] = unpack_counts(a, b)
            elif kind == LOG_QUAD:
                hands[seat][a] -= 4
            elif kind == LOG_MELD:
                for t in rev_types(c):
                    hands[seat][t] -= 1
            elif kind == LOG_DISCARD and not b:
                hands[seat][a] -= 1
            elif kind == LOG_CLAIM and b == 3:
                held.append((i, hands[seat][a]))
        for s, h in hands.items():
            assert list(fin[i, s]) == h or cols["winner"][i] == s  # the tracking is exact
    return held


def test_no_triple_is_stolen_by_a_holder_of_three():
    # the example: cardsim replay tusac -g 24 --seed 31 (lines 86-89)
    old = triple_claims_by_count(R(triple_steal="pair_or_triple"), 31, 24, 1)
    assert 3 in [h for _, h in old]
    assert 3 not in [h for _, h in triple_claims_by_count(R(), 31, 24, 1)]
    held = triple_claims_by_count(R(), 31, 0, 300)
    assert held and {h for _, h in held} == {2}
    assert 3 in {h for _, h in triple_claims_by_count(R(triple_steal="pair_or_triple"), 31, 0, 300)}
