"""Move-log kinds of the contract-rummy games (shared ``simcore.primitives.movelog`` records) and the replay text.

Every event of a round is one record ``(kind, seat, a, b, c, d)`` of
:mod:`cardsim.simcore.primitives.movelog`; the payload per kind (card codes: see
:mod:`cardsim.simcore.rummy.cards`):

=============  ==================================================================
``L_ROUND``    a = round index (0-based), seat = the seat playing first
``L_DEAL``     the seat's dealt hand as planes: a | b << 26 = ``a1``, c | (d & 2**32-1) << 26 = ``a2``,
               d >> 32 = jokers
``L_UP``       a = the up-card
``L_TAKE_PILE`` / ``L_TAKE_STOCK``  a = the card taken
``L_RESHUFFLE`` a = cards in the new stock
``L_CLAIM``    a = the claimed card, b = the seat that refused it
``L_PENALTY``  a = the penalty card drawn
``L_LAYDOWN``  a = melds laid
``L_MELD``     a = meld index, b / c = its first 10 / next 10 cards (6 bits each), d = cards
``L_LAYOFF``   a = meld, b = card, c = end (``LAY_HIGH`` / ``LAY_LOW`` for escaleras, 0 for tríos)
``L_SWAP``     a = meld, b = the natural that replaces a joker
``L_DISCARD``  a = the card
``L_OUT``      a = 1 when the seat laid down on that same turn
``L_CAPPED``   a = turns played
``L_POINTS``   a = the seat's points
=============  ==================================================================
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.primitives.movelog import log_record
from cardsim.simcore.rummy.cards import card_text
from cardsim.simcore.rummy.contract import LAY_HIGH, LAY_LOW

(L_ROUND, L_DEAL, L_UP, L_TAKE_PILE, L_TAKE_STOCK, L_RESHUFFLE, L_CLAIM, L_PENALTY, L_LAYDOWN, L_MELD,
 L_LAYOFF, L_SWAP, L_DISCARD, L_OUT, L_CAPPED, L_POINTS) = range(16)
LOG_KINDS = ("round", "deal", "up", "take_pile", "take_stock", "reshuffle", "claim", "penalty", "laydown", "meld",
             "layoff", "swap", "discard", "out", "capped", "points")
#: Rows of one game's move log (a whole match).
LOG_CAP = 60000


#: Write one record (:func:`cardsim.simcore.primitives.movelog.log_record`); returns the next row. The
#: same kernel, not a wrapper around it: each of its 26 call sites is inlined once, not twice.
_log = log_record


@njit(cache=True, _nrt=False, forceinline=True)
def _pack(cards, n, lo):
    """Cards ``lo .. lo+9`` of a meld, 6 bits each, in one int64."""
    v = np.int64(0)
    for i in range(lo, min(n, lo + 10)):
        v |= np.int64(cards[i]) << np.int64(6 * (i - lo))
    return v


def _unpack(b, c, n):
    out = []
    for i in range(n):
        v = b if i < 10 else c
        out.append((int(v) >> (6 * (i % 10))) & 63)
    return out


def _cards(codes) -> str:
    return " ".join(card_text(int(c)) for c in codes)


_WHERE = {LAY_HIGH: "high end", LAY_LOW: "low end"}


def format_log(log, rules) -> list[str]:
    """Text lines of a move log (see ``L_*`` kinds)."""
    from cardsim.simcore.rummy.cards import planes_cards
    lines = []
    labels = [lab for lab, *_ in rules.rounds()]
    for kind, seat, a, b, c, d in np.asarray(log).tolist():
        if kind == L_ROUND:
            lines.append(f"== round {a + 1} ({labels[a]}): seat {seat} plays first")
        elif kind == L_DEAL:
            a1 = a | (b << 26)
            a2 = c | ((d & 0xFFFFFFFF) << 26)
            lines.append(f"deal seat {seat}: {_cards(planes_cards(a1, a2, d >> 32))}")
        elif kind == L_UP:
            lines.append(f"up-card: {card_text(a)}")
        elif kind == L_TAKE_PILE:
            lines.append(f"seat {seat}: takes {card_text(a)} from the pile")
        elif kind == L_TAKE_STOCK:
            lines.append(f"seat {seat}: takes {card_text(a)} from the stock")
        elif kind == L_RESHUFFLE:
            lines.append(f"stock empty: pile reshuffled into a new stock of {a} cards")
        elif kind == L_CLAIM:
            lines.append(f"seat {seat}: claims {card_text(a)} (refused by seat {b})")
        elif kind == L_PENALTY:
            lines.append(f"seat {seat}: penalty card {card_text(a)} from the stock")
        elif kind == L_LAYDOWN:
            lines.append(f"seat {seat}: lays down {a} melds")
        elif kind == L_MELD:
            lines.append(f"  meld {a}: {_cards(_unpack(b, c, d))}")
        elif kind == L_LAYOFF:
            where = _WHERE.get(c, "")
            lines.append(f"seat {seat}: lays off {card_text(b)} on meld {a}" + (f" ({where})" if where else ""))
        elif kind == L_SWAP:
            lines.append(f"seat {seat}: swaps {card_text(b)} for the joker of meld {a}")
        elif kind == L_DISCARD:
            lines.append(f"seat {seat}: discards {card_text(a)}")
        elif kind == L_OUT:
            lines.append(f"seat {seat} goes out" + (" (laid down and closed in one turn)" if a else ""))
        elif kind == L_CAPPED:
            lines.append(f"round capped after {a} turns: nobody went out")
        elif kind == L_POINTS:
            lines.append(f"points seat {seat}: {a}")
    return lines
