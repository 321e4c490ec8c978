"""Claims (Loba "buy", Continental robar de contra): priority, penalty card, dead covered
cards, switches and per-seat claim rights, against the reference and on the kernel's log."""
from collections import Counter

import numpy as np
import pytest

from cardsim.simcore.rummy import log as L
from cardsim.simcore.rummy import play as G
from references import rummy as ref
from cardsim.simcore.rummy.cards import card_code, make_deck
from cardsim.simcore.rummy.rules import ContinentalRules
from cardsim.simcore.rummy.rules import LobaRules

# Continental hand 1 (TT, 7 cards): the refusing hand (no use for 9H) and three hands with a pair of 9s
REFUSER = "2S 5H 8D JC KS 3D 6C"
PAIRS = ["9S 9S AH 4C 7S QD TD", "9D 9D 2H 4H 6D 8S QS", "9C 9C 3H 5S 7C JD KD"]
UP = "9H"
STOCK_HEAD = "TC KH"  # the player in turn draws TC, the claimer's penalty card is KH


def scenario_deck(first: int, rules=None):
    """Pack order for a 4-player TT hand where seat ``first`` holds REFUSER and the others
    (in turn order after it) hold the pairs; then the up-card 9H and the stock."""
    rules = rules or ContinentalRules()
    hands = [None] * 4
    hands[first] = REFUSER.split()
    for o in range(1, 4):
        hands[(first + o) % 4] = PAIRS[o - 1].split()
    head = [card_code(c) for h in hands for c in h] + [card_code(UP)] + [card_code(c) for c in STOCK_HEAD.split()]
    rest = Counter(int(c) for c in make_deck(rules.deck_jokers()))
    rest.subtract(head)
    tail = sorted(rest.elements())
    return head + tail


def one_turn(first, rules=None, claim_seats=None, policies="heuristic"):
    rules = rules or ContinentalRules()
    return G.play_round_from_deck(scenario_deck(first, rules), rules, 0, policies, claim_seats, first=first,
                                  max_turns=1)


def claims_in(st):
    return [(int(s), int(a)) for k, s, a, *_ in st["log"].tolist() if k == L.L_CLAIM]


@pytest.mark.parametrize("first", [0, 1, 2, 3])
def test_priority_earliest_in_turn_order_from_player_in_turn(first):
    st = one_turn(first)
    winner = (first + 1) % 4
    assert claims_in(st) == [(winner, card_code(UP))]
    assert st["claims"] == [1 if s == winner else 0 for s in range(4)]
    # seats 2 and 3 after the player in turn when the first one has no claim right
    for skip in (1, 2):
        allowed = [(first + o) % 4 for o in range(skip + 1, 4)]
        st = one_turn(first, claim_seats=allowed)
        assert claims_in(st) == [((first + skip + 1) % 4, card_code(UP))]
    # the reference agrees
    wants = [s != first for s in range(4)]
    assert ref.claim_winner(first, 4, wants) == winner
    assert ref.claim_winner(first, 4, wants, claim_seats={(first + 3) % 4}) == (first + 3) % 4


def test_penalty_card_is_taken_and_cards_conserved():
    for pen in (1, 2):
        rules = ContinentalRules(claim_penalty_cards=pen)
        deck = scenario_deck(0, rules)
        st = G.play_round_from_deck(deck, rules, 0, "heuristic", first=0, max_turns=1)
        pens = [(s, a) for k, s, a, *_ in st["log"].tolist() if k == L.L_PENALTY]
        stock = deck[4 * 7 + 1:]
        # seat 0 drew stock[0]; the penalty cards are the next ones
        assert pens == [(1, stock[1 + i]) for i in range(pen)]
        lines = st["lines"]
        assert "seat 1: claims 9H (refused by seat 0)" in lines
        assert "seat 1: penalty card KH from the stock" in lines
        held = Counter()
        for h in st["hands"]:
            held.update(h)
        for m in st["melds"]:
            held.update(m)
        held.update(st["pile"])
        held.update(st["stock"])
        assert held == Counter(int(c) for c in make_deck(6))
        # seat 1 kept 9H and the penalty cards (7 + 1 + pen cards; it does not discard)
        assert len(st["hands"][1]) == 7 + 1 + pen
        assert card_code("9H") in st["hands"][1] and card_code("KH") in st["hands"][1]


def test_claims_off_and_no_claim_rights():
    assert claims_in(one_turn(0, rules=ContinentalRules(claims=False))) == []
    assert claims_in(one_turn(0, claim_seats=[])) == []
    assert claims_in(one_turn(0, claim_seats=[0])) == []  # the player in turn never claims


def test_covered_card_is_dead():
    # nobody may claim at turn 1: seat 0 discards on top of 9H; seat 1 (a pair of 9s) cannot get it
    rules = ContinentalRules()
    st = G.play_round_from_deck(scenario_deck(0, rules), rules, 0, "heuristic", claim_seats=[], first=0,
                                max_turns=2)
    assert st["pile"][0] == card_code("9H") and len(st["pile"]) >= 2
    assert all(card_code("9H") not in h for h in st["hands"])
    assert claims_in(st) == []


def _events(log):
    return [tuple(int(x) for x in row) for row in log.tolist()]


def check_claim_log(log, players, discarder_may_claim, max_claims, claim_seats):
    """Every claim and pile take is of the live card; claim priority order is respected."""
    live = None  # (card, discarder)
    turn_seat = None
    refused = None
    per_seat = Counter()
    n = 0
    disc_claims = 0
    for kind, seat, a, b, c, d in _events(log):
        if kind == L.L_ROUND:
            live, per_seat = None, Counter()
        elif kind == L.L_UP:
            live = (a, -1)
        elif kind == L.L_TAKE_PILE:
            assert live is not None and live[0] == a
            live = None
            turn_seat, refused = seat, None
        elif kind == L.L_TAKE_STOCK:
            turn_seat, refused = seat, live
        elif kind == L.L_CLAIM:
            assert refused is not None and live is not None and live[0] == a == refused[0]
            assert seat != turn_seat and b == turn_seat
            if seat == live[1]:
                disc_claims += 1
                assert discarder_may_claim
            assert claim_seats is None or seat in claim_seats
            per_seat[seat] += 1
            if max_claims:
                assert per_seat[seat] <= max_claims
            live = None
            refused = None
            n += 1
        elif kind == L.L_DISCARD:
            live = (a, seat)
            refused = None
    return n, disc_claims


@pytest.mark.parametrize("rules,seats", [
    (ContinentalRules(), None),
    (ContinentalRules(players=3, max_claims_per_hand=1), None),
    (ContinentalRules(), [0, 3]),
    (LobaRules(claims=True), None),
    (LobaRules(players=3, claims=True, max_claims_per_round=2), [1]),
])
def test_claim_log_invariants_random_play(rules, seats):
    cont = rules.GAME == "continental"
    maxc = rules.max_claims_per_hand if cont else rules.max_claims_per_round
    total = disc = 0
    for index in range(3):
        for r in range(len(rules.rounds())):
            st = G.round_state(17, index, r, rules, "random", seats)
            n, dc = check_claim_log(st["log"], rules.players, cont, maxc, seats)
            ref.check_round_log(st["log"], rules, r, seats)
            total += n
            disc += dc
            assert sum(st["claims"]) == n
    assert total > 10
    if cont and seats is None:
        assert disc > 0  # the discarder did claim back its own discard


def test_max_claims_and_claim_seats_in_tables():
    rules = ContinentalRules(max_claims_per_hand=1)
    h = G.play_chunk(4, 0, 30, rules, "random")["hands"]
    c = np.stack([h[f"claims_{s}"] for s in range(4)])
    assert c.max() == 1
    h = G.play_chunk(4, 0, 30, ContinentalRules(), "random")["hands"]
    c = np.stack([h[f"claims_{s}"] for s in range(4)])
    assert c.max() >= 2
    h = G.play_chunk(4, 0, 30, ContinentalRules(), "heuristic", claim_seats=[2])["hands"]
    assert all(h[f"claims_{s}"].sum() == 0 for s in (0, 1, 3)) and h["claims_2"].sum() > 0
    h = G.play_chunk(4, 0, 10, LobaRules(), "random")["hands"]
    assert all(h[f"claims_{s}"].sum() == 0 for s in range(4))
    h = G.play_chunk(4, 0, 10, LobaRules(claims=True), "heuristic")["hands"]
    assert sum(h[f"claims_{s}"].sum() for s in range(4)) > 0


def test_reference_claim_winner_cases():
    wants = [True, True, True, True]
    # player in turn 2: order 3, 0, 1
    assert ref.claim_order(2, 4) == [3, 0, 1]
    assert ref.claim_winner(2, 4, wants) == 3
    assert ref.claim_winner(2, 4, wants, discarder=1, discarder_may_claim=True, claim_seats={1}) == 1
    assert ref.claim_winner(2, 4, wants, discarder=1, discarder_may_claim=False, claim_seats={1}) == -1
    assert ref.claim_winner(2, 4, [False, False, True, False]) == -1  # the player in turn never claims
    assert ref.claim_winner(2, 4, wants, claims_so_far=[0, 0, 0, 1], max_claims=1) == 0
