"""Tiến Lên move-log kinds (shared ``simcore.primitives.movelog`` records) and the replay text.

Every record is ``(kind, seat, a, b, c, d)`` (:mod:`cardsim.simcore.primitives.movelog`); the
payload per kind:

==============  =====  ==========================================================
kind            seat   payload
==============  =====  ==========================================================
``LOG_DEAL``    s      ``a`` = the hand dealt to ``s`` (52-bit card mask)
``LOG_PLAY``    s      ``a`` = cards played (mask), ``b`` = class id
                       (:mod:`.moves`), ``c`` = 1 when the play chopped the table
``LOG_PASS``    s      --
``LOG_LEAD``    s      -- (a new trick: ``s`` leads)
``LOG_OUT``     s      ``a`` = the place ``s`` finished in (1 = first out)
``LOG_INSTANT`` s      ``a`` = index into ``INSTANT_WIN_KINDS``
``LOG_DECLINE`` s      -- (``bombs_after_pass``: ``s`` passed earlier in the trick, holds
                       a bomb that beats the table, is offered it and passes again;
                       no pass is counted. A ``random`` seat's repeat is a ``LOG_PASS``,
                       counted as one)
==============  =====  ==========================================================
"""
from __future__ import annotations

import numpy as np

from cardsim.simcore.primitives.movelog import F_A, F_B, F_C, F_KIND, F_SEAT
from cardsim.simcore.tienlen.cards import hand_str
from cardsim.simcore.tienlen.moves import N_CLASSES, class_name
from cardsim.simcore.tienlen.rules import INSTANT_WIN_KINDS

LOG_DEAL, LOG_PLAY, LOG_PASS, LOG_LEAD, LOG_OUT, LOG_INSTANT, LOG_DECLINE = range(7)
LOG_KINDS = ("deal", "play", "pass", "lead", "out", "instant", "decline")
#: Records per game: a 26-card hand game has at most ~2 x 52 decisions plus the leads.
LOG_CAP = 1024


def _suits(mask: int, suit_order: str = "SCDH") -> str:
    return hand_str(int(mask) & ((1 << 52) - 1), suit_order)


def format_log(log: np.ndarray, n: int, row: dict, players: int, suit_order: str = "SCDH") -> list[str]:
    """Human-readable lines of one game's move log (``int64[n, LOG_WIDTH]``) and result row."""
    lines = []
    for rec in np.asarray(log)[:n]:
        kind, seat = int(rec[F_KIND]), int(rec[F_SEAT])
        a = int(rec[F_A])
        if kind == LOG_DEAL:
            lines.append(f"deal seat {seat}: {_suits(a, suit_order)}")
        elif kind == LOG_INSTANT:
            lines.append(f"instant win: seat {seat} ({INSTANT_WIN_KINDS[a]})")
        elif kind == LOG_LEAD:
            lines.append(f"-- trick: seat {seat} leads")
        elif kind == LOG_PASS:
            lines.append(f"seat {seat}: pass")
        elif kind == LOG_DECLINE:
            lines.append(f"seat {seat}: declines to bomb (passed earlier in this trick)")
        elif kind == LOG_PLAY:
            chop = " (chop)" if rec[F_C] and int(rec[F_B]) < N_CLASSES else ""  # (Big Two: a stronger five-card kind)
            lines.append(f"seat {seat}: {_suits(a, suit_order)}  [{class_name(int(rec[F_B]))}]{chop}")
        elif kind == LOG_OUT:
            lines.append(f"seat {seat} is out (place {a})")
    places = ", ".join(f"seat {s}: {row[f'place_{s}']}" for s in range(players))
    points = ", ".join(f"seat {s}: {row[f'points_{s}']}" for s in range(players))
    lines.append(f"places: {places}")
    lines.append(f"points: {points}")
    return lines
