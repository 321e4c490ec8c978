"""Tứ Sắc move-log kinds (records in the shared :mod:`cardsim.simcore.primitives.movelog` format) and
the replay text of one game.

Payload ``(a, b, c, d)`` per kind (``d`` unused):

``LOG_MULLIGAN`` a = mask of weak seats; ``LOG_DEAL`` a, b = packed counts of types 0-13,
14-27 (3 bits each), c = locked mask; ``LOG_QUAD`` a = type of a dealt quadruple;
``LOG_DRAW`` a = card, b = stock left; ``LOG_CLAIM`` a = card, b = reason (1 win, 2
quadruple, 3 triple), c = seats able to win; ``LOG_TAKE`` a = card, b = take kind
(``TAKE_NAMES``), c = from seat; ``LOG_MELD`` a = taken card, b = meld kind, c = revealed
hand types (:func:`rev_code`); ``LOG_PASS`` a = card; ``LOG_DISCARD`` a = card, b = 1 when
discarded as drawn; ``LOG_NODISCARD``; ``LOG_WIN`` a = card, b = score, c = take kind;
``LOG_END`` a = stock left (a drawn hand).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardsim.simcore.tusac.cards import N_TYPES, hand_str, type_name
from cardsim.simcore.tusac.melds import MELD_NAMES

(LOG_DEAL, LOG_MULLIGAN, LOG_QUAD, LOG_DRAW, LOG_CLAIM, LOG_TAKE, LOG_MELD, LOG_PASS, LOG_DISCARD,
 LOG_WIN, LOG_END, LOG_NODISCARD) = range(12)
LOG_KINDS = ("deal", "mulligan", "quadruple", "draw", "claim", "take", "meld", "pass", "discard", "win", "end",
             "no_discard")
#: Log rows kept per game (a game logs a few hundred).
LOG_CAP = 1024
# take kinds (how a card was taken)
TAKE_DRAW, TAKE_EAT, TAKE_STEAL = 0, 1, 2
TAKE_NAMES = ("draw", "eat", "steal")
_CLAIM_REASONS = {1: "win", 2: "quadruple", 3: "triple"}
KIND_COLS = ("win_generals", "win_pairs", "win_triples", "win_quads", "win_command", "win_field",
             "win_soldier3", "win_soldier4")


@njit(cache=True)
def pack_counts(h, lo, hi):
    """Counts of types ``lo..hi-1`` of hand ``h``, 3 bits each, in one int64."""
    v = np.int64(0)
    for t in range(lo, hi):
        v |= np.int64(h[t]) << (3 * (t - lo))
    return v


@njit(cache=True)
def rev_code(orev, i):
    """The hand types revealed by meld option ``i`` (``orev[i, :3]``), 5 bits each (+1)."""
    return (orev[i, 0] + 1) | ((orev[i, 1] + 1) << 5) | ((orev[i, 2] + 1) << 10)


def unpack_counts(lo, hi) -> list[int]:
    """The 28 counts of a ``LOG_DEAL`` record's ``a, b``."""
    return [(int(lo) >> (3 * t)) & 7 for t in range(14)] + [(int(hi) >> (3 * t)) & 7 for t in range(14)]


def rev_types(code) -> list[int]:
    """The hand types of a :func:`rev_code`."""
    return [((int(code) >> (5 * j)) & 31) - 1 for j in range(3) if ((int(code) >> (5 * j)) & 31)]


def format_log(log: np.ndarray, n: int, row: dict, players: int) -> list[str]:
    """Human-readable lines of one game's move log and result row."""
    lines = []
    for kind, seat, a, b, c, _ in log[:n]:
        kind, seat, a, b, c = int(kind), int(seat), int(a), int(b), int(c)
        if kind == LOG_MULLIGAN:
            weak = [s for s in range(players) if a >> s & 1]
            lines.append(f"mulligan: weak hand(s) at seat(s) {', '.join(map(str, weak))}; redeal")
        elif kind == LOG_DEAL:
            lock = f"  (locked: {' '.join(type_name(t) for t in range(N_TYPES) if c >> t & 1)})" if c else ""
            lines.append(f"deal seat {seat}: {hand_str(unpack_counts(a, b))}{lock}")
        elif kind == LOG_QUAD:
            lines.append(f"seat {seat} reveals a dealt quadruple {type_name(a)} (8)")
        elif kind == LOG_DRAW:
            lines.append(f"seat {seat} draws {type_name(a)} ({b} left in the stock)")
        elif kind == LOG_CLAIM:
            extra = f", {c} seat(s) could win, first in turn order takes it" if b == 1 and c > 1 else ""
            lines.append(f"  claim: seat {seat} claims {type_name(a)} for a {_CLAIM_REASONS[b]}{extra}")
        elif kind == LOG_TAKE:
            how = TAKE_NAMES[b]
            lines.append(f"  seat {seat} takes {type_name(a)} ({how}"
                         + (f" from seat {c})" if b != TAKE_DRAW else ")"))
        elif kind == LOG_MELD:
            cards = " ".join(type_name(t) for t in [a] + rev_types(c))
            lines.append(f"  seat {seat} melds {MELD_NAMES[b]}: {cards}")
        elif kind == LOG_PASS:
            lines.append(f"  seat {seat} does not take {type_name(a)}")
        elif kind == LOG_DISCARD:
            lines.append(f"  seat {seat} discards {type_name(a)}" + (" (as drawn)" if b else ""))
        elif kind == LOG_NODISCARD:
            lines.append(f"  seat {seat} has no legal discard")
        elif kind == LOG_WIN:
            lines.append(f"seat {seat} wins on {type_name(a)} ({TAKE_NAMES[c]}) with {b} points")
        elif kind == LOG_END:
            lines.append(f"stock exhausted ({a} left): draw")
    pts = ", ".join(f"seat {s}: {row[f'points_{s}']}" for s in range(players))
    lines.append(f"turns {row['turns']}, stock left {row['stock_left']}, mulligans {row['mulligans']}")
    if row["winner"] >= 0:
        kinds = ", ".join(f"{k[4:]} {row[k]}" for k in KIND_COLS if row[k])
        lines.append(f"winner seat {row['winner']}: {row['winner_points']} points ({kinds})")
    else:
        lines.append("no winner")
    lines.append(f"points: {pts}")
    return lines
