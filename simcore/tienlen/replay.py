"""Replaying one Tiến Lên game move by move, and the card ledger of the conformance checks
(the play driver's logged kernel, formatted by :mod:`~cardsim.simcore.tienlen.log`)."""
from __future__ import annotations

import numpy as np

from cardsim.simcore.primitives.movelog import F_A, F_KIND, F_SEAT
from cardsim.simcore.tienlen.log import LOG_DEAL, LOG_PLAY, format_log
from cardsim.simcore.tienlen.play import play_logged
from cardsim.simcore.tienlen.rules import TienLenRules


def replay_game(seed: int, index: int, rules: TienLenRules, policies,
                games_per_match: int = 1) -> list[str]:
    """The text of game ``index`` exactly as :func:`play_chunk` plays it: the deal, every
    move, trick leads, players going out, places and points. Games of a match before
    ``index`` are replayed first (the previous winner leads)."""
    K = int(games_per_match)
    m0 = index - index % K
    cols, log, nlog = play_logged(seed, m0, index - m0 + 1, rules, policies, K)
    row = {k: v[-1].item() for k, v in cols.items()}
    head = [f"game {index} (match {index // K}, game {index - m0 + 1} of the match), seed {seed}"]
    return head + format_log(log[-1], int(nlog[-1]), row, rules.players, rules.suit_order)


def card_ledger(seed: int, start: int, count: int, rules, policies) -> tuple[np.ndarray, np.ndarray]:
    """Where the 52 cards are at the end of games ``start .. start+count-1`` (the
    conformance suite's conservation check, see :class:`~cardsim.simcore.framework.spec.GameSpec`).

    Returns ``(deck int64[52], where int64[count, players + 2, 52])``: ``deck`` is one
    of each card; place ``s < players`` is seat ``s``'s hand (its dealt cards minus the
    cards the move log shows it playing: negative if it played a card it did not hold,
    or one card twice), place ``players`` the cards played, place ``players + 1`` the
    cards not dealt (fewer than four players; negative if a card was dealt twice).
    """
    from cardsim.simcore.tienlen.play import play_logged

    P = rules.players
    _, log, nlog = play_logged(seed, start, count, rules, policies)
    deck = np.ones(52, np.int64)
    where = np.zeros((count, P + 2, 52), np.int64)
    where[:, P + 1] = 1
    bits = np.arange(52, dtype=np.uint64)
    for g in range(count):
        for rec in log[g, :nlog[g]]:
            kind, seat, mask = int(rec[F_KIND]), int(rec[F_SEAT]), np.uint64(rec[F_A])
            cards = ((mask >> bits) & np.uint64(1)).astype(np.int64)
            if kind == LOG_DEAL:
                where[g, seat] += cards
                where[g, P + 1] -= cards
            elif kind == LOG_PLAY:
                where[g, seat] -= cards
                where[g, P] += cards
    return deck, where
