"""Exact deal probabilities for Tiến Lên (dynamic programmes over the 13 ranks).

A hand of ``h`` cards is built rank by rank: taking ``k`` of the 4 cards of a rank can
be done in ``C(4, k)`` ways, and a small automaton per event tracks what the hand shows
so far (a run of ranks holding pairs, the pairs counted ...). Summing the weights of
accepting states gives the exact number of hands with the event; the same programme
over two hands at once gives the probability that two given seats both have it. The
automata run as integer tables (:func:`compiled_automaton`) where states that must
accept are merged and states that cannot are dropped, which keeps the two-hand programme
small (a fraction of a second per rule set; the values are also cached on disk). The
table ("any seat") value is exact with two players (``2 p1 - p2``), for events no two
hands can share (four 2s, three or four 2s), and bracketed otherwise by Bonferroni
(``S1 - S2 <= P <= S1 - S2 + S3`` with ``S3 <= C(P, 3) p2``). All values are
:class:`fractions.Fraction` before conversion.
"""
from __future__ import annotations

import itertools
import math
from collections import defaultdict
from fractions import Fraction
from functools import lru_cache


def _run(min_count: int, length: int):
    """``length`` consecutive ranks among 3..A each holding >= ``min_count`` cards."""
    def step(state, rank, k):
        run, done = state
        if rank == 12:  # 2s never belong to a sequence
            return (0, done)
        run = run + 1 if k >= min_count else 0
        return (min(run, length), done or run >= length)
    return (0, False), step, lambda s: s[1]


def _either(a, b):
    (ia, sa, fa), (ib, sb, fb) = a, b
    return (ia, ib), (lambda s, r, k: (sa(s[0], r, k), sb(s[1], r, k))), (lambda s: fa(s[0]) or fb(s[1]))


_BOMB_FOUR = (False, lambda s, r, k: s or k == 4, lambda s: s)  # four of a kind, 2s included (as the kernel counts)
_BOMB_DSEQ = _run(2, 3)

#: event -> (initial state, step(state, rank, cards taken) -> state, accept(state))
AUTOMATA = {
    "dragon": ((True,), lambda s, r, k: (s[0] and (r == 12 or k >= 1),), lambda s: s[0]),
    "four_twos": ((False,), lambda s, r, k: (r == 12 and k == 4,) if r == 12 else s, lambda s: s[0]),
    "six_pairs": (0, lambda s, r, k: min(6, s + k // 2), lambda s: s >= 6),
    "five_consecutive_pairs": _run(2, 5),
    "three_consecutive_triples": _run(3, 3),
    "bomb_four": _BOMB_FOUR,
    "bomb_double_sequence": _BOMB_DSEQ,
    "bomb_any": _either(_BOMB_FOUR, _BOMB_DSEQ),
    **{f"twos_{j}": (0, (lambda j: lambda s, r, k: k if r == 12 else s)(j), (lambda j: lambda s: s == j)(j))
       for j in range(5)},
}
#: Events no two hands can hold at once: the table value is exactly players x p.
DISJOINT = {"four_twos", "twos_3", "twos_4"}


#: Ways to take ``k`` of the 4 cards of a rank, and ``k2`` of the ``4 - k1`` left.
_TAKE = [math.comb(4, k) for k in range(5)]
_TAKE_AFTER = [[math.comb(4, k1) * math.comb(4 - k1, k2) for k2 in range(5 - k1)] for k1 in range(5)]


@lru_cache(maxsize=None)
def compiled_automaton(event: str) -> tuple[list, list]:
    """``AUTOMATA[event]`` as integer tables with equivalent states merged.

    Returns ``(table, accepting)``: ``table[rank][state][k]`` is the next state id after
    taking ``k`` cards of ``rank`` (-1: the event can no longer happen, so the hand
    drops out), ``accepting[state]`` whether the final state has the event. State 0 is
    the initial state. States that accept whatever comes next become one state, and
    states from which no accepting state can be reached are dropped: the same counts
    as running the automaton itself, with far fewer states for combined events.
    """
    init, step, accept = AUTOMATA[event]
    # reachable states, rank by rank (a state's future depends on the ranks left)
    layers = [{init}]
    for rank in range(13):
        layers.append({step(state, rank, k) for state in layers[-1] for k in range(5)})
    edges = {(rank, state): [step(state, rank, k) for k in range(5)]
             for rank in range(13) for state in layers[rank]}
    # sure[r]: states at rank r that accept whatever cards the remaining ranks bring;
    # alive[r]: states at rank r from which some cards lead to acceptance
    sure = [set() for _ in range(14)]
    alive = [set() for _ in range(14)]
    sure[13] = alive[13] = {state for state in layers[13] if accept(state)}
    for rank in range(12, -1, -1):
        for state in layers[rank]:
            nxt = edges[(rank, state)]
            if all(t in sure[rank + 1] for t in nxt):
                sure[rank].add(state)
            if any(t in alive[rank + 1] for t in nxt):
                alive[rank].add(state)
    # one id per (rank, state); every sure state of a rank shares one id
    ids: list[dict] = []
    for rank in range(14):
        layer = {}
        for state in sorted(alive[rank], key=repr):
            key = "sure" if state in sure[rank] else state
            if key not in layer:
                layer[key] = len(layer)
        ids.append({state: layer["sure" if state in sure[rank] else state] for state in alive[rank]})
    if init not in alive[0]:
        return [], []
    table = []
    for rank in range(13):
        width = max(ids[rank].values(), default=-1) + 1
        rows = [[-1] * 5 for _ in range(width)]
        for state, sid in ids[rank].items():
            rows[sid] = [ids[rank + 1].get(t, -1) for t in edges[(rank, state)]]
        table.append(rows)
    final = [False] * (max(ids[13].values(), default=-1) + 1)
    for state, sid in ids[13].items():
        final[sid] = accept(state)
    return table, final


@lru_cache(maxsize=None)
def p_hand(event: str, hand: int) -> Fraction:
    """Exact probability that one ``hand``-card hand has ``event``."""
    table, final = compiled_automaton(event)
    states = {(0, 0): 1} if table else {}
    for rank in range(13):
        nxt: dict = defaultdict(int)
        moves = table[rank]
        for (cards, sid), ways in states.items():
            row = moves[sid]
            for k in range(0, min(4, hand - cards) + 1):
                if row[k] >= 0:
                    nxt[(cards + k, row[k])] += ways * _TAKE[k]
        states = nxt
    good = sum(w for (cards, sid), w in states.items() if cards == hand and final[sid])
    return Fraction(good, math.comb(52, hand))


@lru_cache(maxsize=None)
def p_two_hands(event: str, hand: int) -> Fraction:
    """Exact probability that two given disjoint ``hand``-card hands both have ``event``."""
    table, final = compiled_automaton(event)
    states = {(0, 0, 0, 0): 1} if table else {}
    left_over = 52 - 2 * hand  # cards in neither hand
    for rank in range(13):
        nxt: dict = defaultdict(int)
        moves = table[rank]
        for (c1, s1, c2, s2), ways in states.items():
            row1, row2 = moves[s1], moves[s2]
            seen = 4 * (rank + 1) - c1 - c2
            for k1 in range(0, min(4, hand - c1) + 1):
                t1 = row1[k1]
                if t1 < 0:
                    continue
                after = _TAKE_AFTER[k1]
                for k2 in range(max(0, seen - k1 - left_over), min(4 - k1, hand - c2) + 1):
                    t2 = row2[k2]
                    if t2 >= 0:
                        nxt[(c1 + k1, t1, c2 + k2, t2)] += ways * after[k2]
        states = nxt
    good = sum(w for (c1, s1, c2, s2), w in states.items() if c1 == c2 == hand and final[s1] and final[s2])
    return Fraction(good, math.comb(52, hand) * math.comb(52 - hand, hand))


def p_k_hands(event: str, hand: int, k: int) -> Fraction:
    """Exact probability that ``k`` given disjoint ``hand``-card hands all have ``event``.

    The two-hand programme for ``k`` hands at once: per rank, every split of the rank's 4
    cards among the ``k`` hands and the rest (``4! / (k_1! ... k_k! rest!)`` ways), the
    rest never exceeding the cards outside the ``k`` hands. The hands are exchangeable,
    so a state is the sorted tuple of ``(cards held, automaton state)`` pairs (the count
    is unchanged: transitions enumerate every labelled split). Seconds for ``k = 4``.
    """
    if k == 1:
        return p_hand(event, hand)
    table, final = compiled_automaton(event)
    if not table:
        return Fraction(0)
    left_over = 52 - k * hand
    splits = [t for t in itertools.product(range(5), repeat=k) if sum(t) <= 4]
    ways_of = {t: math.factorial(4) // (math.prod(math.factorial(x) for x in t) * math.factorial(4 - sum(t)))
               for t in splits}
    states: dict = {tuple([(0, 0)] * k): 1}
    for rank in range(13):
        moves = table[rank]
        least = hand - 4 * (12 - rank)  # a hand must hold at least this many cards after this rank
        outside_max = left_over - 4 * (rank + 1)
        nxt: dict = defaultdict(int)
        for key, ways in states.items():
            held = sum(c for c, _ in key)
            for t in splits:
                new = []
                for (c, sid), take in zip(key, t):
                    c += take
                    sid = moves[sid][take]
                    if sid < 0 or c > hand or c < least:
                        break
                    new.append((c, sid))
                else:
                    if held + sum(t) + outside_max >= 0:  # cards outside the k hands fit outside
                        nxt[tuple(sorted(new))] += ways * ways_of[t]
        states = nxt
    good = sum(w for key, w in states.items() if all(c == hand and final[sid] for c, sid in key))
    hands = math.factorial(52) // (math.factorial(hand) ** k * math.factorial(52 - k * hand))
    return Fraction(good, hands)


def p_any_seat(event: str, players: int, hand: int) -> Fraction:
    """Exact P(some seat has ``event``), by inclusion–exclusion over the seats (they are
    exchangeable): ``sum_k (-1)**(k + 1) C(players, k) p_k`` with :func:`p_k_hands`."""
    return sum(((-1) ** (k + 1) * math.comb(players, k) * p_k_hands(event, hand, k) for k in range(1, players + 1)),
               Fraction(0))


def p_one_colour(hand: int) -> Fraction:
    """A hand with at most one card off one colour (26 black, 26 red cards)."""
    if hand < 2:
        return Fraction(1)
    one = sum(math.comb(26, b) * math.comb(26, hand - b) for b in (hand - 1, hand))
    return Fraction(2 * one, math.comb(52, hand))


#: A Bonferroni bracket wider than this is not reported (it would say little).
MAX_BRACKET = Fraction(1, 500)


def p_any_seat_twos(j: int, players: int, hand: int) -> Fraction:
    """Exact P(some seat holds exactly ``j`` 2s): the four 2s' positions are a uniform
    4-subset of the 52 dealt positions (multivariate hypergeometric)."""
    rest = 52 - players * hand
    total = Fraction(0)

    def spread(seat, left, ways, hit):
        nonlocal total
        if seat == players:
            if hit and left <= rest:
                total += Fraction(ways * math.comb(rest, left), math.comb(52, 4))
            return
        for a in range(0, min(left, hand) + 1):
            spread(seat + 1, left - a, ways * math.comb(hand, a), hit or a == j)

    spread(0, 4, 1, False)
    return total


def exact_table_full(rules) -> list[tuple[str, object, Fraction, Fraction]]:
    """:func:`exact_table` with every table ("any seat") row exact, by inclusion–exclusion
    (:func:`p_any_seat`; seconds, where the brackets take milliseconds). Only
    ``one_colour``'s table row stays without a value (its event is about colours, not
    the rank automata)."""
    players, hand = rules.players, rules.cards_per_player
    rows = []
    for event, seat, low, high in exact_table(rules):
        if seat == "any" and low != high:
            low = high = p_any_seat(event, players, hand)
        rows.append((event, seat, low, high))
    have = {event for event, seat, _, _ in rows if seat == "any"}
    for event in AUTOMATA:
        if event not in have:  # its bracket was too wide to report: exact now
            p = p_any_seat(event, players, hand)
            rows.append((event, "any", p, p))
    order = {event: i for i, event in enumerate([*AUTOMATA, "holds_three_spades"])}
    return sorted(rows, key=lambda r: (order[r[0]], r[1] == "any"))


def exact_table(rules) -> list[tuple[str, object, Fraction, Fraction]]:
    """Rows ``(event, seat, low, high)``: ``seat`` an int or ``"any"``; ``low == high``
    when exact, else a guaranteed bracket of the exact value (reported only when
    narrower than :data:`MAX_BRACKET`). Fast (milliseconds): what a deal run's summary
    shows; :func:`exact_table_full` makes every table row exact."""
    players, hand = rules.players, rules.cards_per_player
    rows = []
    for event in AUTOMATA:
        p = p_hand(event, hand)
        rows += [(event, s, p, p) for s in range(players)]
        if event.startswith("twos_"):
            q = p_any_seat_twos(int(event[-1]), players, hand)
            rows.append((event, "any", q, q))
            continue
        if event in DISJOINT:
            rows.append((event, "any", players * p, players * p))
            continue
        p2 = p_two_hands(event, hand)
        s1, s2 = players * p, math.comb(players, 2) * p2
        if players == 2:
            rows.append((event, "any", s1 - s2, s1 - s2))
            continue
        low, high = max(Fraction(0), s1 - s2), min(s1, s1 - s2 + math.comb(players, 3) * p2, Fraction(1))
        if high - low <= MAX_BRACKET:
            rows.append((event, "any", low, high))
    q = Fraction(hand, 52)
    rows += [("holds_three_spades", s, q, q) for s in range(players)]
    rows.append(("holds_three_spades", "any", players * q, players * q))
    return rows
