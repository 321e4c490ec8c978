"""Contract-rummy rounds and draws: Loba's final round with buys, the ``contracts`` list order,
escalera length, the draw order of the deal statistics and the random policy's claims."""
from collections import Counter

import numpy as np
import pytest

import cardsim.simcore.framework.registry as registry
from cardsim.simcore.run.runner import RunConfig, run_chunk
from cardsim.simcore.rummy import deal as D
from cardsim.simcore.rummy import engine as E
from cardsim.simcore.rummy import log as L
from cardsim.simcore.rummy.replay import replay_game
from cardsim.simcore.rummy import play as G
from cardsim.simcore.rummy import state as S
from cardsim.simcore.rummy import melds as M
from references import rummy as ref
from cardsim.simcore.rummy.cards import JOKER, card_code, hand_planes, make_deck, planes_cards
from cardsim.simcore.rummy.rules import ContinentalRules
from cardsim.simcore.rummy.rules import LOBA_CONTRACTS, LobaRules

MIX = ["heuristic", "random", "heuristic", "random"]


# ----------------------------------------------------------------------------- 1. Loba final round
def _final_round_rows(h, R):
    f = np.asarray(h["round"]) == R  # 1-based
    P = sum(1 for c in h if c.startswith("laid_down_"))
    downs = np.stack([np.asarray(h[f"laid_down_{s}"]) for s in range(P)], axis=1)[f]
    return downs, np.asarray(h["went_out"])[f], np.asarray(h["closed_in_one_turn"])[f], np.asarray(h["capped"])[f]


@pytest.mark.parametrize("rules", [LobaRules(claims=True), LobaRules(players=3, claims=True, contracts=("2T", "3E"))])
def test_loba_final_round_with_claims_ends_at_first_laydown(rules):
    R = len(rules.rounds())
    h = G.play_chunk(7, 0, 300, rules, "heuristic")["hands"]
    downs, went, closed1, capped = _final_round_rows(h, R)
    # every final round ends at the first lay-down: exactly one player laid down and went out on that turn
    assert (downs.sum(axis=1) == 1).all()
    assert closed1.all() and not capped.any()
    assert (downs[np.arange(len(went)), went]).all()
    # with buys the heuristic still buys in the earlier rounds
    assert sum(int(np.asarray(h[f"claims_{s}"]).sum()) for s in range(rules.players)) > 0


@pytest.mark.parametrize("policy", [MIX, "random"])
def test_loba_final_round_with_claims_any_policy(policy):
    rules = LobaRules(claims=True)
    R = len(rules.rounds())
    h = G.play_chunk(7, 0, 60, rules, policy)["hands"]
    downs, went, closed1, capped = _final_round_rows(h, R)
    nd = downs.sum(axis=1)
    assert (nd <= 1).all()
    # a lay-down ends the round at once; a round without one is capped
    assert ((nd == 1) == (went >= 0)).all() and ((nd == 0) == capped).all()
    assert closed1[went >= 0].all()
    if policy == MIX:
        assert (went >= 0).mean() > 0.95


def test_loba_final_round_logs_are_legal_with_claims():
    # the reference log checker asserts that the lay-down turn of the final round ends with the player out
    rules = LobaRules(players=3, claims=True)
    R = len(rules.rounds())
    for index in range(8):
        for pol in (MIX[:3], "random"):
            st = G.round_state(11, index, R - 1, rules, pol)
            ref.check_round_log(st["log"], rules, R - 1)
            if st["went_out"] >= 0:
                assert sum(st["laid_down"]) == 1 and st["closed_in_one_turn"]


def _laydown_out(cards, k, m, mp=M.LOBA_MP):
    a1, a2, j = hand_planes([card_code(c) if isinstance(c, str) else c for c in cards])
    st = S.new_state(2, 108)
    st[0][1], st[1][1], st[2][1] = np.uint64(a1), np.uint64(a2), j
    st[11][S.V_K], st[11][S.V_M] = k, m
    log = np.zeros((200, 6), np.int64)
    ok, nl = E.laydown_out(st, np.int64(1), mp, 1, log, np.int64(0), True)
    nm = int(st[11][S.V_NM])
    mcards, mlen = st[6], st[7]
    melds = [[int(c) for c in mcards[i, :mlen[i]]] for i in range(nm)]
    return ok, planes_cards(int(st[0][1]), int(st[1][1]), int(st[2][1])), melds, log[:nl]


def test_laydown_out_takes_the_whole_hand_or_nothing():
    rules = LobaRules()
    # 2E1T with 14 cards (a buy): 2-6H, 5-TS, KKK -> the whole hand goes
    hand = "2H 3H 4H 5H 6H 5S 6S 7S 8S 9S TS KC KD KH".split()
    ok, left, melds, log = _laydown_out(hand, 1, 2)
    assert ok and left == []
    exact = [L._unpack(b, c, d) for kind, s, a, b, c, d in log.tolist() if kind == L.L_MELD]
    assert sorted(len(x) for x in exact) == [3, 4, 4]
    assert all(ref.valid_laydown_meld(x, rules) for x in exact)
    assert all(ref.valid_table_meld(x, rules) for x in melds)
    assert Counter(c for x in melds for c in x) == Counter(card_code(c) for c in hand)
    lay = [row for row in log.tolist() if row[0] == L.L_LAYOFF]
    assert len(lay) == 3 and all(row[1] == 1 for row in lay)
    # a joker and a fourth K: one card may be left (to discard)
    hand2 = "2H 3H 4H 5H 5S 6S 7S 8S KC KD KH KS AD".split() + [JOKER]
    ok, left, melds, _ = _laydown_out(hand2, 1, 2)
    assert ok and len(left) == 1
    assert all(ref.valid_table_meld(x, rules) for x in melds)
    # two cards that fit nowhere: no lay-down, nothing moves
    hand3 = "2H 3H 4H 5H 5S 6S 7S 8S KC KD KH 9D 9C".split()
    ok, left, melds, log = _laydown_out(hand3, 1, 2)
    assert not ok and melds == [] and len(log) == 0 and sorted(left) == sorted(card_code(c) for c in hand3)


def _buy_scenario_deck(p1_penalty="TS"):
    """2-player final round (round 6, 2E1T: seat 1 plays first): seat 1 holds junk, seat 0
    holds 2-5H, 5-9S, KC KD; up-card KH, then seat 1's stock card, then seat 0's penalty
    card, then 6H."""
    seat1 = "3C 7D 9C JD 2C 4D 6C 8D TC QD AC".split()
    seat0 = "2H 3H 4H 5H 5S 6S 7S 8S 9S KC KD".split()
    head = seat0 + seat1 + ["KH", "QC", p1_penalty, "6H"]
    codes = [card_code(c) for c in head]
    rest = Counter(int(c) for c in make_deck(4))
    rest.subtract(codes)
    return codes + sorted(rest.elements())


def test_buyer_goes_out_in_final_round_with_longer_melds():
    rules = LobaRules(players=2, claims=True)
    R = len(rules.rounds())
    pol = ["random", "heuristic"]
    deck = _buy_scenario_deck()
    found = 0
    for state in range(300):
        st = G.play_round_from_deck(deck, rules, R - 1, pol, first=1, state=state, max_turns=2)
        rows = st["log"].tolist()
        claimed = any(r[0] == L.L_CLAIM and r[1] == 0 for r in rows)
        laid = any(r[0] == L.L_LAYDOWN and r[1] == 0 for r in rows)
        ref.check_round_log(st["log"], rules, R - 1)
        if laid:
            assert claimed and st["went_out"] == 0 and st["closed_in_one_turn"]
            assert any(r[0] == L.L_LAYOFF and r[1] == 0 for r in rows)  # the extra cards, same turn
            assert st["hands"][0] == []
            found += 1
    assert found > 0
    # with a penalty card that fits nowhere, the buyer (holding the contract) may not lay down
    deck = _buy_scenario_deck("9D")
    claimed = 0
    for state in range(100):
        st = G.play_round_from_deck(deck, rules, R - 1, pol, first=1, state=state, max_turns=2)
        rows = st["log"].tolist()
        ref.check_round_log(st["log"], rules, R - 1)
        if any(r[0] == L.L_CLAIM for r in rows):
            claimed += 1
            take = [r for r in rows if r[1] == 0 and r[0] in (L.L_TAKE_PILE, L.L_TAKE_STOCK)]
            assert take
            if take[0][2] not in (card_code("TS"), card_code("6H"), card_code("KS"), card_code("4S"), JOKER):
                assert not st["laid_down"][0]
    assert claimed > 0


def test_reference_hand_final_round_with_claims():
    rules = LobaRules(claims=True)
    R = len(rules.rounds())
    for seed in range(4):
        out = ref.play_hand(rules, R - 1, "heuristic", seed=seed)
        assert out["went_out"] >= 0 and out["closed_in_one_turn"]
        assert sum(out["claims"]) == 0  # the heuristic does not buy in the final round


# ----------------------------------------------------------------------------- 2. contracts order
def test_contracts_switch_keeps_order_and_repeats():
    assert LobaRules.from_settings({"contracts": "3T,2T"}).contracts == ("3T", "2T")
    assert LobaRules.from_settings({"contracts": "2T,3E,2T"}).contracts == ("2T", "3E", "2T")
    assert LobaRules.from_settings({"contracts": ["2E", "1E1T"]}).contracts == ("2E", "1E1T")
    allr = LobaRules.from_settings({"contracts": "all"})
    assert allr.contracts == LOBA_CONTRACTS and len(allr.contracts) == 7 and allr.contracts[-1] == "3E"
    assert allr.contracts[:6] == LobaRules().contracts
    rules = LobaRules.from_settings({"contracts": "3T,2T,3T"})
    assert [lab for lab, *_ in rules.rounds()] == ["r1_3T", "r2_2T", "r3_3T"]
    assert [(k, m) for _, k, m, _ in rules.rounds()] == [(3, 0), (2, 0), (3, 0)]
    assert LobaRules().contracts == ("2T", "1E1T", "2E", "3T", "2T1E", "2E1T")


def test_contracts_order_in_play_and_replay():
    rules = LobaRules.from_settings({"contracts": "3T,2T"})
    h = G.play_chunk(3, 0, 20, rules, "heuristic")["hands"]
    assert list(h["contract"][:4]) == ["3T", "2T", "3T", "2T"]
    # round 1 is 3 tríos: every lay-down has 3 melds; round 2 has 2
    for r, n in ((0, 3), (1, 2)):
        for index in range(5):
            st = G.round_state(3, index, r, rules, "heuristic")
            downs = [row[2] for row in st["log"].tolist() if row[0] == L.L_LAYDOWN]
            assert downs and all(d == n for d in downs)
    lines = replay_game(3, 0, rules, "heuristic")
    heads = [x for x in lines if x.startswith("== round")]
    assert heads[0].startswith("== round 1 (r1_3T)") and heads[1].startswith("== round 2 (r2_2T)")


def test_contracts_order_in_deal_statistics():
    rules = LobaRules.from_settings({"contracts": "3T,2T,3T"})
    task = registry.get_task("loba", "deal")
    assert task.events(rules, 0) == ["contract_r1_3T", "contract_r2_2T", "contract_r3_3T"]
    n, seed = 300, 5
    cfg = RunConfig("loba", "deal", rules, n=n, seed=seed, chunk_size=n, options={})
    df = run_chunk(cfg, 0)["counts"].to_pandas()
    df["event"] = df["event"].astype(str)
    got = df.groupby(["event", "seat"])["count"].sum()
    rounds = [(k, m, h) for _, k, m, h in rules.rounds()]
    for r, (label, k, m, h) in enumerate(rules.rounds()):
        cnt = np.zeros(rules.players, np.int64)
        for i in range(n):
            deck = D.shuffled_round(seed, i, r, rules.players, rounds, 0, 4)
            for s in range(rules.players):
                cnt[s] += M.contract_ok(*hand_planes(list(deck[s * h:(s + 1) * h])), k, m, rules.meld_params())
        for s in range(rules.players):
            assert got[(f"contract_{label}", s)] == cnt[s]
    # 3 tríos are rarer than 2
    assert got[("contract_r1_3T", -1)] < got[("contract_r2_2T", -1)]


# ----------------------------------------------------------------------------- 3. escalera length
def test_loba_escalera_at_most_13_cards():
    L, C = M.LOBA_MP, M.CONTINENTAL_MP
    a_to_k = np.array([M.RUN, 0, 0, 13, 0, 0])  # AS 2S .. KS (ace low)
    two_to_a = np.array([M.RUN, 0, 1, 13, 0, 0])  # 2S .. KS AS (ace high)
    for run in (a_to_k, two_to_a):
        assert M.lay_off(run, 0, L, 0) == M.LAY_NO  # the other ace
        assert M.lay_off(run, JOKER, L, 0) == M.LAY_NO
    assert M.lay_off(np.array([M.RUN, 0, 0, 12, 0, 0]), 12, L, 0) == M.LAY_HIGH  # A..Q + KS
    assert M.lay_off(np.array([M.RUN, 0, 0, 12, 0, 0]), 0, L, 0) == M.LAY_NO  # A..Q + AS: the ace is low
    assert M.lay_off(np.array([M.RUN, 0, 1, 12, 0, 0]), 0, L, 0) != M.LAY_NO  # 2..K + A (high or low)
    assert M.lay_off(np.array([M.RUN, 0, 0, 13, 0, 0]), 0, C, 0) == M.LAY_NO
    cards = list(range(13)) + [0]  # A..K of spades + A
    assert ref.valid_run(list(range(13)), False, 2, 99, False, False)
    assert not ref.valid_run(cards, False, 2, 99, False, False)
    assert not ref.valid_run(list(range(13)) + [JOKER], False, 2, 99, False, False)
    assert not ref.valid_table_meld(cards, LobaRules())
    assert not M.ref_valid_run(cards, L, False)


def test_extend_runs_and_laydown_stop_at_13_cards():
    # 2S..KS on the table-to-be, two aces of spades in hand: only one can join
    a1, a2, j = hand_planes([0, 0])
    runs = np.array([[M.RUN, 0, 1, 12, 0, 0]], np.int64)
    b1, b2, bj, pts = M._extend_runs(np.uint64(a1), np.uint64(a2), np.int64(j), runs, 1, 0, 0, True)
    assert runs[0, 3] == 13 and planes_cards(int(b1), int(b2), int(bj)) == [0]
    # a joker cannot make it 14 either
    runs = np.array([[M.RUN, 0, 0, 13, 0, 0]], np.int64)
    b1, b2, bj, pts = M._extend_runs(np.uint64(0), np.uint64(0), np.int64(1), runs, 1, 0, 0, True)
    assert runs[0, 3] == 13 and bj == 1
    # the extend-mode lay-down of A..K + A leaves an ace in hand
    ok, left, rows, l1, l2, lj = M.best_laydown(*hand_planes(list(range(13)) + [0]), 0, 1, M.LOBA_MP, 1)
    assert ok and rows[0, 3] == 13 and planes_cards(int(l1), int(l2), int(lj)) == [0]


# ----------------------------------------------------------------------------- 4. deal draws order
@pytest.mark.parametrize("game", ["loba", "continental"])
def test_after_k_counts_follow_play_draw_order(game):
    rules = LobaRules(players=3, contracts=("2T", "1E1T", "2E")) if game == "loba" else ContinentalRules(players=3)
    rules_rounds = rules.rounds()[:3]
    draws, n, seed = 5, 400, 31
    cfg = RunConfig(game, "deal", rules, n=n, seed=seed, chunk_size=n, options={"draws": draws})
    df = run_chunk(cfg, 0)["counts"].to_pandas()
    df["event"] = df["event"].astype(str)
    got = df.groupby(["event", "seat"])["count"].sum()
    P = rules.players
    rounds = [(k, m, h) for _, k, m, h in rules.rounds()]
    mp = rules.meld_params()
    for r, (label, k, m, h) in enumerate(rules_rounds):
        after = np.zeros(P + 1, np.int64)
        for i in range(n):
            deck = D.shuffled_round(seed, i, r, P, rounds, draws, rules.deck_jokers())
            stock = list(deck[P * h + 1:])
            # the play engine: seat r % P takes the first stock card, then the next seats in turn
            order = [(r % P + o) % P for o in range(P)]
            drawn = {s: [] for s in range(P)}
            for t in range(draws * P):
                drawn[order[t % P]].append(stock[t])
            hit = False
            for s in range(P):
                ok = bool(M.contract_ok(*hand_planes(list(deck[s * h:(s + 1) * h]) + drawn[s]), k, m, mp))
                after[s] += ok
                hit |= ok
            after[P] += hit
        for s in range(P):
            assert got[(f"contract_{label}_after_{draws}", s)] == after[s], (label, s)
        assert got[(f"contract_{label}_after_{draws}", -1)] == after[P]


def test_play_engine_first_player_matches_deal_draw_order():
    rules = LobaRules(players=3)
    for r in range(len(rules.rounds())):
        st = G.round_state(2, 0, r, rules, "random")
        first = next(row for row in st["log"].tolist() if row[0] in (L.L_TAKE_PILE, L.L_TAKE_STOCK))
        assert first[1] == r % rules.players


# ----------------------------------------------------------------------------- 5. random claims
@pytest.mark.parametrize("rules", [LobaRules(claims=True), LobaRules(players=5, claims=True), ContinentalRules(),
                                   ContinentalRules(players=3, claim_penalty_cards=3)])
def test_random_claims_do_not_exhaust_stock_and_pile(rules):
    h = G.play_chunk(7, 0, 100, rules, "random")["hands"]
    P = rules.players
    capped = np.asarray(h["capped"])
    exhausted = capped & (np.asarray(h["turns"]) < G.DEFAULT_MAX_TURNS)
    assert exhausted.mean() == 0
    claims = sum(np.asarray(h[f"claims_{s}"]).astype(int) for s in range(P))
    assert claims.mean() > 5  # random still buys a lot
    if P >= 4:
        nobody = G.play_chunk(7, 0, 100, type(rules)(players=P, claims=False), "random")["hands"]
        assert capped.mean() < np.asarray(nobody["capped"]).mean() + 0.05
