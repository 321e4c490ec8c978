"""Continental rule switches (spec: ``shared/rules/continental.md``) and the ``deal`` task.

``cardsim deal continental`` counts, for each of the 7 hands, how often each seat (and
any seat) holds the hand's contract in its dealt cards (contract + 1 cards: 7..13;
events ``contract_TT``, ``contract_TE``, ``contract_EE``, ``contract_TTT``,
``contract_TTE``, ``contract_TEE``, ``contract_EEE``) and, with option ``draws=K``, in
those cards plus its first K stock draws (``contract_TT_after_K``; see
:mod:`simcore.rummy.deal`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardsim.simcore.config import ConfigError, Rules, Switch
from cardsim.simcore.rummy.deal import RummyDealTask

#: The 7 hands: code, tríos, escaleras (cards dealt = 3 k + 4 m + 1).
HANDS = (("TT", 2, 0), ("TE", 1, 1), ("EE", 0, 2), ("TTT", 3, 0), ("TTE", 2, 1), ("TEE", 1, 2), ("EEE", 0, 3))
UNLIMITED_JOKERS = 99
MIN_NATURALS = 1


@dataclass(frozen=True)
class ContinentalRules(Rules):
    """Continental switches; defaults are the seed's game."""

    players: int = 4
    jokers_per_deck: int = 3
    joker_swap: bool = True
    claims: bool = True
    claim_penalty_cards: int = 1
    max_claims_per_hand: int = 0

    GAME: ClassVar[str] = "continental"
    SWITCHES: ClassVar = {
        "players": Switch("int", "number of players", low=2, high=4),
        "jokers_per_deck": Switch("int", "jokers per deck: 3 (110 cards) or 2 (108 cards)", low=2, high=3),
        "joker_swap": Switch("bool", "a natural card may replace a joker in an escalera on the table"),
        "claims": Switch("bool", "robar de contra: a later player may take a refused pozo card plus penalty"),
        "claim_penalty_cards": Switch("int", "stock cards taken as a penalty with a claimed card", low=0, high=5),
        "max_claims_per_hand": Switch("int", "claims allowed per player and hand (0 = unlimited)", low=0, high=20),
    }
    HOUSE_CHOICES: ClassVar = {
        "naturals": "a meld needs at least 1 natural card; an escalera's jokers are never adjacent "
                    "(so at least half of it is natural)",
        "jokers": "no limit on jokers per meld (a trío may hold any number)",
        "lay_down": "exactly the hand's combinations, each of any valid length; cards laid off on the same "
                    "turn count as part of the lay-down",
        "escalera_length": "at most 13 cards (no duplicate card), circular through the ace",
        "deal_rounds": "hand r of deal i uses RNG stream game_key(seed, i * 7 + r)",
        "draws": "deal statistics after K draws: the seat's dealt cards plus stock cards in turn order as "
                 "in play (seat r % players draws first in hand r; everyone draws from the stock, discards "
                 "ignored, no claims, no reshuffle)",
        "max_claims_per_hand": "0 means unlimited",
        "play_seats": "play: seat r % players plays first in hand r (seat 0 in hand 1); play goes seat s -> s + 1",
        "play_deal": "play: hand r of game i is a full shuffle from stream game_key(seed, i * 7 + r); seat s "
                     "gets its cards in turn, then the up-card, then the stock; the hand's play continues that "
                     "stream (hands are independent)",
        "random_policy_claims": "play, random policy: each asked seat claims a refused card with probability "
                                "1 / (4 (players - 1)), never when the stock holds fewer than penalty + players "
                                "cards (so that claims do not exhaust stock and pile)",
        "robar_de_contra": "offered when the player in turn takes from the stock (before they lay down or "
                           "discard); the seats after the player in turn are asked in turn order (the discarder "
                           "last), the first that wants it takes the card plus claim_penalty_cards stock cards "
                           "(fewer if no card can be drawn) without discarding; the up-card may be claimed; a "
                           "player already down may claim; a card exposed by a take or a claim is dead",
        "closing": "a player with no card left closes: by laying off the last card (no discard) or by "
                   "discarding it; -10 when the lay-down was on that same turn",
        "joker_swap": "a natural replaces a joker of an escalera on the table only when the released joker can "
                      "be laid off at once at an end of an escalera (the same one included); the random policy "
                      "is not offered swaps",
        "match_winner": "lowest total; a tie goes to the tied player who closed a hand most recently, then to "
                        "the lowest seat",
        "round_cap": "a hand reaching max_turns turns (play option, default 400) or where neither stock nor pozo "
                     "can supply a card is capped: nobody closes, everyone scores the cards in hand",
    }

    def validate(self) -> None:
        if not self.claims and (self.max_claims_per_hand or self.claim_penalty_cards != 1):
            raise ConfigError("claim switches are set but claims is off")

    @staticmethod
    def rounds() -> list[tuple[str, int, int, int]]:
        """``(label, tríos, escaleras, cards dealt)`` of each hand."""
        return [(code, k, m, 3 * k + 4 * m + 1) for code, k, m in HANDS]

    def meld_params(self) -> tuple[int, int, int, int]:
        """``(max_jokers, min_naturals, circular, no_adjacent)`` for :mod:`simcore.rummy.melds`."""
        return (UNLIMITED_JOKERS, MIN_NATURALS, 1, 1)

    def deck_jokers(self) -> int:
        return 2 * self.jokers_per_deck


TASK = RummyDealTask(ContinentalRules, "continental")
