"""Loba / Carioca rule switches (spec: ``shared/rules/loba.md``) and the ``deal`` task.

``cardsim deal loba`` counts, per round of the contract list, how often each seat (and
any seat) holds the round's contract in its 11 dealt cards (events
``contract_r<i>_<code>``, e.g. ``contract_r1_2T``, ``contract_r2_1E1T``; ``i`` is the
round's place in the ``contracts`` list, which is played in the given order, repeats
allowed) and, with
option ``draws=K``, in those cards plus its first K stock draws
(``contract_r1_2T_after_K``; see :mod:`simcore.rummy.deal` for which cards).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardsim.simcore.config import ConfigError, Rules, Switch
from cardsim.simcore.rummy.deal import RummyDealTask

#: Contract codes: nT = n tríos, nE = n escaleras. The first six are the seed's rounds,
#: the seventh the Argentine final round (3 escaleras).
LOBA_CONTRACTS = ("2T", "1E1T", "2E", "3T", "2T1E", "2E1T", "3E")
DEFAULT_CONTRACTS = LOBA_CONTRACTS[:6]
CARDS_DEALT = 11
MIN_NATURALS = 2


def contract_melds(code: str) -> tuple[int, int]:
    """``(tríos, escaleras)`` of a contract code such as ``"2T1E"``."""
    k = m = 0
    for i in range(0, len(code), 2):
        n, kind = int(code[i]), code[i + 1]
        if kind == "T":
            k += n
        else:
            m += n
    return k, m


@dataclass(frozen=True)
class LobaRules(Rules):
    """Loba switches; defaults are the seed's game."""

    players: int = 4
    contracts: tuple[str, ...] = DEFAULT_CONTRACTS
    max_jokers_per_meld: int = 1
    claims: bool = False
    max_claims_per_round: int = 0

    GAME: ClassVar[str] = "loba"
    SWITCHES: ClassVar = {
        "players": Switch("int", "number of players", low=2, high=5),
        "contracts": Switch(
            "list",
            "rounds played, in this order, repeats allowed (T = trío, E = escalera); 'all' = the "
            "Argentine 7 rounds (the seed's 6 then 3E, 12 cards dealt)",
            choices=LOBA_CONTRACTS,
        ),
        "max_jokers_per_meld": Switch("int", "jokers allowed in one meld when laying down the contract",
                                      low=0, high=2),
        "claims": Switch("bool", "buying: another player may take a refused discard plus a penalty stock card"),
        "max_claims_per_round": Switch("int", "buys allowed per player and round (0 = unlimited)", low=0, high=20),
    }
    HOUSE_CHOICES: ClassVar = {
        "cards_dealt": "11 cards per round; 12 in a 3-escalera round (the contract needs 12)",
        "naturals": "every meld needs at least 2 natural cards (at lay-down)",
        "exact_contract": "the lay-down is exactly the contract: tríos of 3 and escaleras of 4 cards; "
                          "further cards are laid off on later turns (final round: see final_round)",
        "same_rank_trios": "two tríos of the same rank are allowed (two decks)",
        "escalera_positions": "ace low (A-2-3-4) or high (J-Q-K-A), never wrapping (K-A-2); at most 13 "
                              "cards (A..K or 2..A), never an ace at both ends (A-2-..-K-A)",
        "jokers_on_lay_off": "max_jokers_per_meld limits the lay-down only; jokers laid off later may "
                             "go anywhere they fit",
        "deal_rounds": "round r of deal i uses RNG stream game_key(seed, i * rounds + r)",
        "draws": "deal statistics after K draws: the seat's dealt cards plus stock cards in turn order as "
                 "in play (seat r % players draws first in round r; everyone draws from the stock, discards "
                 "ignored, no claims, no reshuffle)",
        "max_claims_per_round": "0 means unlimited",
        "play_seats": "play: seat r % players plays first in round r (seat 0 in round 1); play goes seat s -> s + 1",
        "play_deal": "play: round r of game i is a full shuffle from stream game_key(seed, i * rounds + r); "
                     "seat s gets cards s*11.., then the up-card, then the stock; the round's play continues "
                     "that stream (rounds are independent)",
        "live_discard": "only the most recent discard (or the up-card) can be taken or bought; a card exposed "
                        "by a take or a buy is dead",
        "random_policy_claims": "play, random policy: each asked seat claims a refused card with probability "
                                "1 / (4 (players - 1)), never when the stock holds fewer than penalty + players "
                                "cards (so that claims do not exhaust stock and pile)",
        "buy": "claims: a buy is offered when the player in turn takes from the stock, before they lay down or "
               "discard; the seats after the player in turn are asked in turn order, the first that wants the "
               "card gets it plus the next stock card and does not discard; the discarder may not buy back "
               "its own discard; the up-card may be bought; a player already down may buy",
        "lay_off_timing": "lay-offs only on turns after the lay-down turn",
        "going_out": "a player with no card left goes out: after lay-offs (no discard needed) or after the "
                     "discard; in the final round this happens on the lay-down turn (12th card discarded)",
        "final_round": "in a round whose contract uses every dealt card (the final 2E1T, 3E) the first "
                       "lay-down goes out at once: a player holding more cards (buys) may lay down only when "
                       "the whole hand goes, the contract's melds lengthened by the extra cards (same-turn "
                       "lay-offs on the player's own new melds, the solver's greedy extend mode) leaving at "
                       "most one card, which is discarded; the heuristic never buys in such a round",
        "match_winner": "lowest total; a tie goes to the tied player who won a round most recently, then to "
                        "the lowest seat",
        "round_cap": "a round reaching max_turns turns (play option, default 400) or where neither stock nor "
                     "pile can supply a card is capped: nobody goes out, everyone scores the cards in hand",
    }

    def validate(self) -> None:
        if not self.contracts:
            raise ConfigError("contracts: at least one round is needed")
        if self.max_claims_per_round and not self.claims:
            raise ConfigError("max_claims_per_round is set but claims is off")

    def rounds(self) -> list[tuple[str, int, int, int]]:
        """``(label, tríos, escaleras, cards dealt)`` of each round."""
        out = []
        for i, code in enumerate(self.contracts):
            k, m = contract_melds(code)
            out.append((f"r{i + 1}_{code}", k, m, max(CARDS_DEALT, 3 * k + 4 * m)))
        return out

    def meld_params(self) -> tuple[int, int, int, int]:
        """``(max_jokers, min_naturals, circular, no_adjacent)`` for :mod:`simcore.rummy.melds`."""
        return (self.max_jokers_per_meld, MIN_NATURALS, 0, 0)

    @staticmethod
    def deck_jokers() -> int:
        return 4


TASK = RummyDealTask(LobaRules, "loba")
