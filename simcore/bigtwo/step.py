"""Big Two one decision at a time: Tiến Lên's :class:`~cardsim.simcore.tienlen.step.TienLenStep`
on the Big Two profile of the engine (same state, action ids and explicit deals; cards
written in Big Two's suit order), with Big Two's games row and table classes."""
from __future__ import annotations

from typing import Any

import numpy as np

from cardsim.simcore.tienlen.engine import (ST_LAST, ST_NCARDS, ST_PASSED, ST_PLACE, ST_PLAYED, ST_REQ,
                                            ST_TABLE_CLS, ST_TABLE_MASK, ST_TURN)
from cardsim.simcore.tienlen.fives import FIVE_BASE
from cardsim.simcore.tienlen.step import TienLenStep

#: Table classes of the observation vector: single, pair, triple, four alone, then the five-card types.
N_TABLE_CLASSES = 9


def table_class_index(cls: int) -> int:
    """A class id as its index in the observation's ``table_class`` block."""
    return 4 + ((cls - FIVE_BASE) & 7) if cls >= FIVE_BASE else cls


class BigTwoStep(TienLenStep):
    """One Big Two game stepped decision by decision (see :mod:`cardsim.simcore.tienlen.step`)."""

    game = "bigtwo"

    @classmethod
    def observation_layout(cls, rules) -> list[tuple[str, int]]:
        """As Tiến Lên's, with ``table_class`` over Big Two's 9 classes (single, pair,
        triple, four alone, straight, flush, full house, four + kicker, straight flush)."""
        return [(name, N_TABLE_CLASSES if name == "table_class" else n)
                for name, n in TienLenStep.observation_layout(rules)]

    def observation_vector(self, seat: int) -> np.ndarray:
        st = self.st
        v = np.zeros(self.obs_size, np.float32)
        masks = np.array([self.hands[seat], st[ST_PLAYED], st[ST_TABLE_MASK]], "<u8")
        v[:156] = np.unpackbits(masks.view(np.uint8), bitorder="little").reshape(3, 64)[:, :52].ravel()
        off = 156
        if st[ST_TABLE_CLS] >= 0:
            v[off + table_class_index(int(st[ST_TABLE_CLS]))] = 1
        off += N_TABLE_CLASSES
        for s in range(self.players):
            v[off + s] = st[ST_NCARDS + s] / self.rules.cards_per_player
            v[off + 4 + s] = (int(st[ST_PASSED]) >> s) & 1
            v[off + 8 + s] = st[ST_PLACE + s] != 0
        if not self.finished:
            v[off + 12 + int(st[ST_TURN])] = 1
        v[off + 16 + seat] = 1
        if st[ST_TABLE_CLS] >= 0:
            v[off + 20 + int(st[ST_LAST])] = 1
        off += 24
        if st[ST_REQ] >= 0:
            v[off + int(st[ST_REQ])] = 1
        return v

    def result(self) -> dict[str, Any]:
        from cardsim.simcore.bigtwo.tasks import bigtwo_columns

        row = TienLenStep.result(self)["games"]
        return {"games": bigtwo_columns(row)}
