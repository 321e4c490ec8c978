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
