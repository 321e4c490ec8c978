"""Replaying one Loba or Continental match move by move, and the card ledger of the
conformance checks (the play driver's logged kernel, formatted by :mod:`~cardsim.simcore.rummy.log`)."""
from __future__ import annotations

import numpy as np

from cardsim.simcore.rummy.log import format_log


def replay_game(seed: int, index: int, rules, policies="heuristic", claim_seats=None,
                max_turns: int | None = None) -> list[str]:
    """Text of game ``index`` exactly as :func:`cardsim.simcore.rummy.play.play_chunk` plays it."""
    from cardsim.simcore.rummy.play import DEFAULT_MAX_TURNS, play_logged
    tables, log = play_logged(seed, index, rules, policies, claim_seats,
                              DEFAULT_MAX_TURNS if max_turns is None else max_turns)
    m = tables["matches"]
    P = rules.players
    head = [f"{rules.GAME} game {index}, seed {seed}"]
    tail = ["totals: " + ", ".join(f"seat {s}: {int(m[f'total_{s}'][0])}" for s in range(P)),
            f"winner: seat {int(m['winner'][0])}"]
    return head + format_log(log, rules) + tail


def card_ledger(seed: int, start: int, count: int, rules, policies) -> tuple[np.ndarray, np.ndarray]:
    """Where the cards of the two-deck pack are at the end of every round of games
    ``start .. start+count-1`` (the conformance suite's conservation check, see
    :class:`~cardsim.simcore.framework.spec.GameSpec`; a game is a match, so there is one row per
    round).

    Returns ``(deck int64[T], where int64[count * rounds, players + 3, T])`` over card
    codes ``0 .. T-1`` (jokers included): ``deck`` counts the pack; the places are each
    seat's hand, the melds on the table, the discard pile and the stock, as the round
    kernel leaves them (:func:`.play.round_state`).
    """
    from cardsim.simcore.rummy.cards import make_deck
    from cardsim.simcore.rummy.play import round_state

    pack = make_deck(rules.deck_jokers()).astype(np.int64)
    T = int(pack.max()) + 1
    rows = []
    for index in range(start, start + count):
        totals = np.zeros(rules.players, np.int64)
        for r in range(len(rules.rounds())):
            state = round_state(seed, index, r, rules, policies, log_on=False, totals=totals)
            totals = totals + np.asarray(state["points"], np.int64)
            places = [*state["hands"], [c for meld in state["melds"] for c in meld], state["pile"], state["stock"]]
            rows.append(np.stack([np.bincount(np.asarray(p, np.int64), minlength=T) for p in places]))
    return np.bincount(pack, minlength=T), np.stack(rows)
