"""Readable pure-Python reference of the contract-rummy game rules (Loba, Continental).

For cross-checks of :mod:`cardsim.simcore.rummy.play` and as the benchmark baseline:

- :func:`claim_winner`: who gets a refused discard (claim priority);
- :func:`round_points`, :func:`match_winner`: scoring;
- :func:`valid_table_meld`, :func:`valid_laydown_meld`: meld legality of the table;
- :func:`play_hand`: one full hand (round) with the same rules and policies as the
  kernel, written as a plain Python game loop over card lists (its own
  ``random.Random`` stream, so it is not move-for-move identical to the kernel; the
  heuristic's contract distance / lay-down / discard calls go to the compiled meld
  solver of :mod:`simcore.rummy.melds`, the game loop, claims, lay-offs and scoring are
  Python).
"""
from __future__ import annotations

import random
from collections import Counter

from cardsim.simcore.rummy.cards import JOKER, hand_planes, hand_points

TRIO, RUN = 0, 1


# ----------------------------------------------------------------------------- claims
def claim_order(turn: int, players: int) -> list[int]:
    """Seats asked for a refused discard: those after the player in turn, in turn order."""
    return [(turn + o) % players for o in range(1, players)]


def claim_winner(turn: int, players: int, wants, claim_seats=None, claims_so_far=None, max_claims: int = 0,
                 discarder: int = -1, discarder_may_claim: bool = True) -> int:
    """The seat that gets the refused card (-1: nobody).

    ``wants[s]``: seat ``s`` would claim it. Earliest in turn order from the player in
    turn wins; seats without the claim right, over ``max_claims`` (0 = unlimited) or
    the discarder when ``discarder_may_claim`` is false are skipped. The player in turn
    never claims (they refused it).
    """
    for q in claim_order(turn, players):
        if claim_seats is not None and q not in claim_seats:
            continue
        if q == discarder and not discarder_may_claim:
            continue
        if max_claims and claims_so_far is not None and claims_so_far[q] >= max_claims:
            continue
        if wants[q]:
            return q
    return -1


# ----------------------------------------------------------------------------- scoring
def round_points(hands, went_out: int, closed_in_one_turn: bool, minus10: bool) -> list[int]:
    """Points of a round: the player who went out scores 0 (-10 when ``minus10`` and they
    laid down and closed in one turn), everyone else the cards left in hand."""
    out = []
    for s, cards in enumerate(hands):
        if s == went_out:
            out.append(-10 if (minus10 and closed_in_one_turn) else 0)
        else:
            out.append(hand_points(cards))
    return out


def match_winner(totals, went_out_by_round) -> int:
    """Lowest total; a tie goes to the tied player who won a round most recently, then to
    the lowest seat."""
    low = min(totals)
    tied = [s for s, t in enumerate(totals) if t == low]
    if len(tied) > 1:
        for w in reversed(list(went_out_by_round)):
            if w in tied:
                return w
    return tied[0]


# ----------------------------------------------------------------------------- melds
def _is_continental(rules) -> bool:
    return getattr(rules, "GAME", "") == "continental"


def valid_trio(cards, min_naturals: int, max_jokers: int, exact: bool) -> bool:
    nat = [c for c in cards if c != JOKER]
    if (len(cards) != 3) if exact else len(cards) < 3:
        return False
    if len(nat) < min_naturals or len(cards) - len(nat) > max_jokers:
        return False
    return len({c % 13 for c in nat}) <= 1


def valid_run(cards, circular: bool, min_naturals: int, max_jokers: int, no_adjacent: bool, exact: bool) -> bool:
    """Escalera check by brute force over placements. Positions ``0..13`` (13 = ace high)
    without wrapping, or circular positions mod 13; at most 13 cards either way."""
    nat = [c for c in cards if c != JOKER]
    n = len(cards)
    nj = n - len(nat)
    if (n != 4) if exact else n < 4:
        return False
    if len(nat) < min_naturals or nj > max_jokers:
        return False
    if len({c // 13 for c in nat}) > 1:
        return False
    if circular:
        if n > 13 or len(set(nat)) != len(nat):
            return False
        starts = range(13)
    else:
        if n > 13:  # the ace is high or low, never both ends (A-2-..-K-A is not an escalera)
            return False
        starts = range(0, 14 - n + 1)
    have = Counter(c % 13 for c in nat)
    for p in starts:
        window = [(p + i) % 13 for i in range(n)]
        if not all(have[r] <= window.count(r) for r in have):
            continue
        slots = []
        left = Counter(have)
        for i, r in enumerate(window):
            if left[r] > 0:
                left[r] -= 1
            else:
                slots.append(i)
        if sum(left.values()):
            continue
        if no_adjacent and any(b - a == 1 for a, b in zip(slots, slots[1:])):
            continue
        return True
    return False


def valid_table_meld(cards, rules) -> bool:
    """Is ``cards`` a legal meld on the table (after any lay-offs) under ``rules``?"""
    if _is_continental(rules):
        return valid_trio(cards, 1, 99, False) or valid_run(cards, True, 1, 99, True, False)
    return valid_trio(cards, 2, 99, False) or valid_run(cards, False, 2, 99, False, False)


def valid_laydown_meld(cards, rules) -> bool:
    """Is ``cards`` legal as one meld of a lay-down? (Loba: exactly 3 / 4 cards and
    ``max_jokers_per_meld``; Continental: any valid length.)"""
    if _is_continental(rules):
        return valid_table_meld(cards, rules)
    mj = rules.max_jokers_per_meld
    return valid_trio(cards, 2, mj, True) or valid_run(cards, False, 2, mj, False, True)


def meld_kind(cards, rules) -> int:
    nat = [c for c in cards if c != JOKER]
    if len({c % 13 for c in nat}) <= 1 and valid_trio(cards, 1, 99, False):
        return TRIO
    return RUN


def out_at_once(rules, k: int, m: int, cards_dealt: int) -> bool:
    """Loba's final round: the contract uses every dealt card, so the first player to lay
    down must go out on that turn (with bought cards: only when longer melds take the
    whole hand but at most one card, which is discarded)."""
    return not _is_continental(rules) and 3 * k + 4 * m >= cards_dealt


# ----------------------------------------------------------------------------- one hand
class Table:
    """Melds on the table as card lists plus their escalera placement."""

    def __init__(self, rules):
        self.rules = rules
        self.melds: list[list[int]] = []

    def accepts(self, i: int, card: int) -> bool:
        trial = self.melds[i] + [card]
        return valid_table_meld(trial, self.rules) and meld_kind(trial, self.rules) == meld_kind(self.melds[i],
                                                                                               self.rules)

    def first_accepting(self, card: int) -> int:
        for i in range(len(self.melds)):
            if self.accepts(i, card):
                return i
        return -1


def _planes(cards):
    return hand_planes(cards)


def _melds_of_rows(rows, before, after):
    """Card lists of the solver's meld rows (cards removed = before - after)."""
    removed = Counter(before) - Counter(after)
    out = []
    for row in rows:
        kind, a, b, c, d = (int(x) for x in row[:5])
        if kind == RUN:
            cards = [JOKER if (d >> i) & 1 else a * 13 + (b + i) % 13 for i in range(c)]
        else:
            nat = []
            for s in range(4):
                code = s * 13 + a
                while len(nat) < int(row[4]) and removed[code] > 0:
                    removed[code] -= 1
                    nat.append(code)
            cards = nat + [JOKER] * int(row[3])
        for x in cards:
            if x != JOKER and kind == RUN:
                removed[x] -= 1
        out.append(cards)
    return out


def play_hand(rules, r: int, policies, seed: int = 0, claim_seats=None, max_turns: int = 400) -> dict:
    """Play round ``r`` of ``rules`` once in pure Python; returns points, went_out, turns, claims."""
    from cardsim.simcore.rummy import melds as M
    from cardsim.simcore.rummy.cards import make_deck

    rng = random.Random(seed)
    cont = _is_continental(rules)
    P = rules.players
    _, k, m, H = rules.rounds()[r]
    mp = tuple(int(x) for x in rules.meld_params())
    extend = 1 if cont else 0
    at_once = out_at_once(rules, k, m, H)
    pol = [policies] * P if isinstance(policies, str) else list(policies)
    deck = [int(c) for c in make_deck(rules.deck_jokers())]
    rng.shuffle(deck)
    hands = [deck[s * H:(s + 1) * H] for s in range(P)]
    pile = [deck[P * H]]
    stock = deck[P * H + 1:]
    live = True
    table = Table(rules)
    down = [False] * P
    claims = [0] * P
    claims_on = rules.claims
    penalty = rules.claim_penalty_cards if cont else 1
    maxc = rules.max_claims_per_hand if cont else rules.max_claims_per_round
    last_disc = -1

    def dist(h):
        a1, a2, j = _planes(h)
        return int(M.contract_distance(a1, a2, j, k, m, mp, 4))

    def related(h, card):  # the kernel's filter of take / claim decisions
        if card == JOKER:
            return True
        r, s = card % 13, card // 13
        if k and any(c != JOKER and c % 13 == r for c in h):
            return True
        if m:
            near = {(r + dr) % 13 for dr in (-2, -1, 1, 2)
                    if mp[2] or 0 <= r + dr <= 12 or r + dr in (-1, 13)}
            return any(c != JOKER and c // 13 == s and c % 13 in near for c in h)
        return False

    def improves(h, card):
        d = dist(h)
        return related(h, card) and d > 0 and dist(h + [card]) < d

    def draw():
        nonlocal stock, pile
        if not stock:
            if len(pile) <= 1:
                return None
            stock = pile[:-1]
            rng.shuffle(stock)
            pile = pile[-1:]
        return stock.pop(0)

    went_out, turns, closed1 = -1, 0, False
    p = r % P
    while turns < max_turns:
        turns += 1
        laid_now = False
        h = hands[p]
        heur = pol[p] == "heuristic"
        top = pile[-1] if pile and live else None
        take = False
        if top is not None:
            if heur:
                take = table.first_accepting(top) >= 0 if down[p] else improves(h, top)
            else:
                take = rng.random() < 0.5
        if take:
            h.append(pile.pop())
            live = False
        else:
            c = draw()
            if c is None:
                break
            h.append(c)
            if claims_on and top is not None and live:
                wants = [False] * P
                for q in claim_order(p, P):
                    if pol[q] == "heuristic":
                        wants[q] = (not down[q] and not at_once and improves(hands[q], top)
                                    and dist(hands[q] + [top]) <= 3)
                    else:
                        wants[q] = len(stock) >= penalty + P and rng.random() < 1 / (4 * (P - 1))
                q = claim_winner(p, P, wants, claim_seats, claims, maxc, last_disc, cont)
                if q >= 0:
                    hands[q].append(pile.pop())
                    live = False
                    claims[q] += 1
                    for _ in range(penalty):
                        c = draw()
                        if c is not None:
                            hands[q].append(c)
        a1, a2, j = _planes(h)
        if not down[p] and M.contract_ok(a1, a2, j, k, m, mp) and (heur or rng.random() < 0.5):
            # Loba's final round with bought cards: longer melds must take all but one card
            whole = at_once and len(h) > 3 * k + 4 * m + 1
            if (whole or extend) and getattr(rules, "exact_laydown" if cont else "exact_go_out", False):
                from cardsim.simcore.rummy.laydown import exact_laydown
                ok, left, rows, l1, l2, lj = exact_laydown(a1, a2, j, k, m, mp)
            else:
                ok, left, rows, l1, l2, lj = M.best_laydown(a1, a2, j, k, m, mp, 1 if whole else extend)
            from cardsim.simcore.rummy.cards import planes_cards
            after = planes_cards(int(l1), int(l2), int(lj))
            if not (whole and len(after) > 1):
                table.melds += _melds_of_rows(rows, h, after)
                hands[p] = h = after
                down[p] = laid_now = True
        if down[p] and (cont or not laid_now):
            moved = True
            while moved:
                moved = False
                for c in sorted(h, key=lambda x: x == JOKER):
                    i = table.first_accepting(c)
                    if i >= 0 and (heur or rng.random() < 0.5):
                        table.melds[i].append(c)
                        h.remove(c)
                        moved = True
                        break
        if not h:
            went_out = p
            break
        if heur:
            if down[p]:
                c = max(h, key=lambda x: (x != JOKER, table.first_accepting(x) < 0, hand_points([x]), x))
            else:
                a1, a2, j = _planes(h)
                c = int(M.best_discard(a1, a2, j, k, m, mp, 4)[0])
        else:
            c = rng.choice(h)
        h.remove(c)
        pile.append(c)
        live = True
        last_disc = p
        if not h:
            went_out = p
            break
        p = (p + 1) % P
    closed1 = went_out >= 0 and laid_now
    pts = round_points(hands, went_out, closed1, cont)
    return {"points": pts, "went_out": went_out, "turns": turns, "claims": claims,
            "closed_in_one_turn": closed1, "melds": table.melds}


# ----------------------------------------------------------------------------- log checker
def _planes_to_cards(a1: int, a2: int, j: int) -> list[int]:
    from cardsim.simcore.rummy.cards import planes_cards
    return planes_cards(a1, a2, j)


def check_round_log(log, rules, r: int, claim_seats=None) -> list[int]:
    """Replay one round's kernel move log (rows ``[kind, seat, a, b, c, d]``, kinds of
    :mod:`cardsim.simcore.rummy.play`) under the rules, asserting every move is legal: turn order,
    only the live discard taken or claimed (by a later seat with the claim right, before
    the player in turn discards; not the discarder in Loba), penalty cards, the lay-down
    is exactly the contract with legal melds, lay-offs and joker swaps legal (Loba: not
    on the lay-down turn, except in the final "go out at once" round, where the lay-down
    turn must end with the player out), discards from the hand, going out with no card,
    points.
    Returns ``(points, final hands)``. Raises ``AssertionError`` on the first illegal move."""
    from cardsim.simcore.rummy import log as L

    cont = _is_continental(rules)
    P = rules.players
    _, k, m, H = rules.rounds()[r]
    penalty = rules.claim_penalty_cards if cont else 1
    maxc = rules.max_claims_per_hand if cont else rules.max_claims_per_round
    at_once = out_at_once(rules, k, m, H)
    hands: dict[int, Counter] = {}
    table: list[list[int]] = []
    pile: list[int] = []
    live = False
    last_disc = -1
    down = [False] * P
    claims = [0] * P
    turn = None
    phase = None  # None | "took_stock" | "took_pile" | "done"
    laid_now = False
    pen_left = 0
    claimer = -1
    went_out = -1
    closed1 = False
    points = {}
    rows = [tuple(int(x) for x in row) for row in log]
    for i, (kind, seat, a, b, c, d) in enumerate(rows):
        if kind == L.L_DEAL:
            a1 = a | (b << 26)
            a2 = c | ((d & 0xFFFFFFFF) << 26)
            hands[seat] = Counter(_planes_to_cards(a1, a2, d >> 32))
            assert sum(hands[seat].values()) == H
        elif kind == L.L_UP:
            pile = [a]
            live = True
            assert len(hands) == P
        elif kind in (L.L_TAKE_PILE, L.L_TAKE_STOCK):
            assert pen_left == 0
            expected = r % P if turn is None else (turn + 1) % P
            assert seat == expected, (i, seat, expected)
            assert turn is None or phase == "done"
            turn, laid_now = seat, False
            if kind == L.L_TAKE_PILE:
                assert live and pile and pile[-1] == a, (i, "pile take of a dead card")
                pile.pop()
                live = False
                phase = "took_pile"
            else:
                phase = "took_stock"
            hands[seat][a] += 1
        elif kind == L.L_RESHUFFLE:
            pile = pile[-1:]
        elif kind == L.L_CLAIM:
            assert rules.claims and phase == "took_stock" and b == turn and seat != turn
            assert live and pile and pile[-1] == a, (i, "claim of a covered card")
            assert claim_seats is None or seat in claim_seats
            assert cont or seat != last_disc
            claims[seat] += 1
            assert not maxc or claims[seat] <= maxc
            pile.pop()
            live = False
            hands[seat][a] += 1
            pen_left, claimer = penalty, seat
            phase = "claimed"
        elif kind == L.L_PENALTY:
            assert seat == claimer and pen_left > 0
            pen_left -= 1
            hands[seat][a] += 1
        elif kind == L.L_LAYDOWN:
            pen_left = 0
            assert seat == turn and not down[seat] and a == k + m
            down[seat] = laid_now = True
            kinds = []
            for j in range(a):
                mk, ms, mi, mb, mc, md = rows[i + 1 + j]
                assert mk == L.L_MELD and ms == seat and mi == len(table)
                cards = L._unpack(mb, mc, md)
                assert valid_laydown_meld(cards, rules), (i, cards)
                kinds.append(meld_kind(cards, rules))
                for x in cards:
                    assert hands[seat][x] > 0, (i, "meld card not in hand")
                    hands[seat][x] -= 1
                table.append(cards)
            assert kinds.count(TRIO) == k and kinds.count(RUN) == m
        elif kind == L.L_MELD:
            pass
        elif kind == L.L_LAYOFF:
            pen_left = 0
            assert seat == turn and down[seat] and (cont or not laid_now or at_once), (i, "lay-off not allowed")
            assert hands[seat][b] > 0
            trial = table[a] + [b]
            assert valid_table_meld(trial, rules) and meld_kind(trial, rules) == meld_kind(table[a], rules), \
                (i, table[a], b)
            hands[seat][b] -= 1
            table[a] = trial
        elif kind == L.L_SWAP:
            assert cont and rules.joker_swap and seat == turn and down[seat] and hands[seat][b] > 0
            assert JOKER in table[a] and meld_kind(table[a], rules) == RUN
            trial = list(table[a])
            trial[trial.index(JOKER)] = b
            assert valid_table_meld(trial, rules)
            hands[seat][b] -= 1
            hands[seat][JOKER] += 1
            table[a] = trial
            nk, ns, na, nb, *_ = rows[i + 1]
            assert nk == L.L_LAYOFF and ns == seat and nb == JOKER and meld_kind(table[na], rules) == RUN
        elif kind == L.L_DISCARD:
            pen_left = 0
            assert seat == turn and phase in ("took_pile", "took_stock", "claimed")
            assert hands[seat][a] > 0
            hands[seat][a] -= 1
            pile.append(a)
            live = True
            last_disc = seat
            phase = "done"
            # Loba's final round: the lay-down turn ends with the player out
            assert not (at_once and laid_now) or sum(hands[seat].values()) == 0, (i, "laid down, not out")
        elif kind == L.L_OUT:
            assert seat == turn and sum(hands[seat].values()) == 0
            went_out, closed1 = seat, bool(a)
            assert closed1 == laid_now
        elif kind == L.L_CAPPED:
            assert went_out == -1
        elif kind == L.L_POINTS:
            points[seat] = a
    hand_lists = [sorted(hands[s].elements()) for s in range(P)]
    expect = round_points(hand_lists, went_out, closed1, cont)
    got = [points[s] for s in range(P)]
    assert got == expect, (got, expect)
    for cards in table:
        assert valid_table_meld(cards, rules)
    return got, hand_lists
