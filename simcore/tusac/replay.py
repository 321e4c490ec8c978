"""Replaying one Tứ Sắc game move by move, and the card ledger of the conformance checks
(the play driver's logged kernel, formatted by :mod:`~cardsim.simcore.tusac.log`)."""
from __future__ import annotations

import numpy as np

from cardsim.simcore.tusac.cards import N_TYPES
from cardsim.simcore.tusac.log import format_log


def replay_game(seed: int, index: int, rules, policies) -> list[str]:
    """The text of game ``index`` exactly as :func:`~cardsim.simcore.tusac.play.play_chunk`
    plays it: redeals, the deal, every draw, claim, take, meld and discard, the win and the
    points."""
    from cardsim.simcore.tusac.play import play_logged
    from cardsim.simcore.tusac.policies import POLICIES
    from cardsim.simcore.tusac.play import policy_codes

    cols, log, nlog, fin = play_logged(seed, index, 1, rules, policies)
    row = {k: v[0].item() for k, v in cols.items()}
    names = [POLICIES[c] for c in policy_codes(policies, rules.players)]
    if not isinstance(policies, str):
        names = [p if isinstance(p, str) else n for p, n in zip(policies, names)]
    head = [f"game {index}, seed {seed}, policies {', '.join(names)}"]
    return head + format_log(log[0], int(nlog[0]), row, rules.players)


def card_ledger(seed: int, start: int, count: int, rules, policies) -> tuple[np.ndarray, np.ndarray]:
    """Where the 112 cards (28 types x 4) are at the end of games ``start ..
    start+count-1`` (the conformance suite's conservation check, see
    :class:`~cardsim.simcore.framework.spec.GameSpec`).

    Returns ``(deck int64[28], where int64[count, 10, 28])``: ``deck`` is four of each
    type; the places are the hidden hands of seats 0..3, their table cards (melds
    laid, the winning card included), the discards and the stock, as the kernel leaves
    them (:func:`.play.play_logged`'s final state).
    """
    from cardsim.simcore.tusac.deal import BASE_DECK
    from cardsim.simcore.tusac.play import play_logged

    fin = play_logged(seed, start, count, rules, policies)[3]
    return np.bincount(BASE_DECK, minlength=N_TYPES).astype(np.int64), fin.astype(np.int64)


#: Games replayed per block when the balance card reads progress (a log is 48 kB a game).
_PROGRESS_BATCH = 512


def balance_progress(run, chunk_id: int, rules) -> dict[str, np.ndarray]:
    """Comebacks of one chunk's games for the balance card, from their move logs.

    Progress is the melds each seat has laid on the table; time is the turns (a turn
    ends with a discard). ``mid-game``: 1 where the winner had laid fewer melds than the
    leader (the most; ties count as leading) after half of the game's turns, ``last
    third``: after ``turns - turns // 3``; NaN for a game without a winner or with fewer
    than 3 turns. The games are replayed with logging, exactly as the chunk played them.
    """
    from cardsim.simcore.primitives.blocks import run_blocks
    from cardsim.simcore.tusac.log import LOG_DEAL, LOG_DISCARD, LOG_MELD, LOG_WIN
    from cardsim.simcore.tusac.play import play_logged
    from cardsim.simcore.primitives.movelog import F_KIND, F_SEAT

    start, count = run.chunk_range(chunk_id)
    P = rules.players
    mid, late = np.full(count, np.nan), np.full(count, np.nan)

    def block(g0: int, g1: int) -> None:  # games g0 .. g1-1 of the chunk, on one thread
        _, log, nlog, _ = play_logged(run.seed, start + g0, g1 - g0, rules, run.options["policies"])
        for g in range(g1 - g0):
            melds = np.zeros(P, np.int64)
            trail, winner = [], -1
            for rec in log[g, :nlog[g]]:
                kind, seat = int(rec[F_KIND]), int(rec[F_SEAT])
                if kind == LOG_DEAL:  # a redeal (mulligan) starts over
                    melds[:] = 0
                    trail = []
                elif kind == LOG_MELD:
                    melds[seat] += 1
                elif kind == LOG_DISCARD:
                    trail.append(melds.copy())
                elif kind == LOG_WIN:
                    winner = seat
            turns = len(trail)
            if turns < 3 or winner < 0:
                continue
            for out, at in ((mid, turns // 2), (late, turns - turns // 3)):
                laid = trail[at - 1]
                out[g0 + g] = float(laid[winner] < laid.max())

    run_blocks(block, count, max(1, -(-count // _PROGRESS_BATCH)))
    return {"mid-game": mid, "last third": late}
