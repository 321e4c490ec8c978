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


#: Games replayed per call when the balance card reads progress (a log is 48 kB a game).
_PROGRESS_BATCH = 512


def balance_progress(run, chunk_id: int, rules) -> dict[str, np.ndarray]:
    """Comebacks of one chunk's games for the balance card, from their move logs.

    Progress is the cards each seat has left after each play. ``mid-game``: 1 where the
    winner had more cards left than the leader (the fewest; ties count as leading) after
    half of the game's plays, ``last third``: after ``plays - plays // 3``; NaN for a game
    with fewer than 3 plays (an instant win). The games are replayed with logging, exactly
    as the chunk played them, so this costs a second play of the chunk.
    """
    from cardsim.simcore.tienlen.log import LOG_OUT

    from cardsim.simcore.primitives.blocks import run_blocks

    start, count = run.chunk_range(chunk_id)
    K = int(run.options.get("games_per_match", 1))
    P = rules.players
    mid, late = np.full(count, np.nan), np.full(count, np.nan)

    def block(m0: int, m1: int) -> None:  # matches m0 .. m1-1 of the chunk, on one thread
        first, n = start + m0 * K, min(m1 * K, count) - m0 * K
        _, log, nlog = play_logged(run.seed, first, n, rules, run.options["policies"], K)
        for g in range(n):
            left = np.zeros(P, np.int64)
            trail, winner = [], -1
            for rec in log[g, :nlog[g]]:
                kind, seat = int(rec[F_KIND]), int(rec[F_SEAT])
                if kind == LOG_DEAL:
                    left[seat] = bin(int(np.uint64(rec[F_A]))).count("1")
                elif kind == LOG_PLAY:
                    left[seat] -= bin(int(np.uint64(rec[F_A]))).count("1")
                    trail.append(left.copy())
                elif kind == LOG_OUT and int(rec[F_A]) == 1:
                    winner = seat
            plays = len(trail)
            if plays < 3 or winner < 0:
                continue
            for out, at in ((mid, plays // 2), (late, plays - plays // 3)):
                cards = trail[at - 1]
                out[first - start + g] = float(cards[winner] > cards.min())

    matches = -(-count // K)
    run_blocks(block, matches, max(1, -(-count // _PROGRESS_BATCH)))
    return {"mid-game": mid, "last third": late}
