"""The rule switches of Loba / Carioca and Continental (frozen ``Rules`` classes, contracts, house choices).

Specs: ``docs/rules/loba.md`` and ``docs/rules/continental.md``. Both games share
one rummy core; a rules class gives the core its rounds (:meth:`rounds`: label, tríos,
escaleras, cards dealt), its meld rules (:meth:`meld_params`) and its pack
(:meth:`deck_jokers`). Deal events: Loba ``contract_r<i>_<code>`` (``i`` = the round's
1-based place in ``contracts``), Continental ``contract_<code>``; with option
``draws=K`` also ``..._after_K`` (see :mod:`cardsim.simcore.rummy.deal`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardsim.simcore.framework.config import ConfigError, Rules, Switch

#: Switch ``laydown_budget`` (both games): the work one exact lay-down may spend, a count (never time):
#: at most this many positions of the exact close search in all (then closes are checked by the
#: greedy lay-offs alone, as with ``exact_close`` off) and this many lay-down choices scored (then the
#: best choice found so far is laid down); 0 = unlimited. The default is about 140 times what the
#: largest lay-down of heuristic play spends (about 7,000 positions and 900 choices in the golden
#: cases' matches), so ordinary play never reaches it; random seats reach it with hands of 26 cards
#: and more (3 of 4,162 lay-downs in 200 matches, none changed), and a hand of 40 cards with 6 jokers
#: beside 9 table escaleras, which went on for minutes, stops after about 3.5 s (laydown.py).
DEFAULT_LAYDOWN_BUDGET = 1_000_000
MAX_LAYDOWN_BUDGET = 10**12

# ----------------------------------------------------------------------------- Loba
#: Contract codes: nT = n tríos, nE = n escaleras. The first six are the seed's rounds,
#: the seventh the Argentine final round (3 escaleras).
LOBA_CONTRACTS = ("2T", "1E1T", "2E", "3T", "2T1E", "2E1T", "3E")
DEFAULT_CONTRACTS = LOBA_CONTRACTS[:6]
CARDS_DEALT = 11
LOBA_MIN_NATURALS = 2


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
    exact_go_out: bool = True
    laydown_budget: int = DEFAULT_LAYDOWN_BUDGET

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
        "exact_go_out": Switch("bool", "final round with buys: go out whenever some lay-down plus same-turn lay-offs "
                                       "leaves at most one card (exact search, jokers laid off anywhere they fit); "
                                       "off = the old greedy check (most points, lay-down joker limit on lay-offs)"),
        "laydown_budget": Switch("int", "with exact_go_out: work budget of one exact going-out search, a count: at "
                                        "most this many lay-down choices scored, then the best found so far; "
                                        "0 = unlimited", low=0, high=MAX_LAYDOWN_BUDGET),
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
                       "lay-offs on the player's own new melds, jokers laid off anywhere they fit: the exact "
                       "search of laydown.py, switch exact_go_out) leaving at most one card, which is discarded; "
                       "the heuristic never buys in such a round",
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
        return (self.max_jokers_per_meld, LOBA_MIN_NATURALS, 0, 0)

    @staticmethod
    def deck_jokers() -> int:
        return 4


# ----------------------------------------------------------------------------- Continental
#: The 7 hands: code, tríos, escaleras (cards dealt = 3 k + 4 m + 1).
HANDS = (("TT", 2, 0), ("TE", 1, 1), ("EE", 0, 2), ("TTT", 3, 0), ("TTE", 2, 1), ("TEE", 1, 2), ("EEE", 0, 3))
UNLIMITED_JOKERS = 99
CONTINENTAL_MIN_NATURALS = 1


@dataclass(frozen=True)
class ContinentalRules(Rules):
    """Continental switches; defaults are the seed's game."""

    players: int = 4
    jokers_per_deck: int = 3
    joker_swap: bool = True
    claims: bool = True
    claim_penalty_cards: int = 1
    max_claims_per_hand: int = 0
    exact_laydown: bool = True
    laydown_table: bool = True
    exact_close: bool = True
    laydown_budget: int = DEFAULT_LAYDOWN_BUDGET

    GAME: ClassVar[str] = "continental"
    SWITCHES: ClassVar = {
        "players": Switch("int", "number of players", low=2, high=4),
        "jokers_per_deck": Switch("int", "jokers per deck: 3 (110 cards) or 2 (108 cards)", low=2, high=3),
        "joker_swap": Switch("bool", "a natural card may replace a joker in an escalera on the table"),
        "claims": Switch("bool", "robar de contra: a later player may take a refused pozo card plus penalty"),
        "claim_penalty_cards": Switch("int", "stock cards taken as a penalty with a claimed card", low=0, high=5),
        "max_claims_per_hand": Switch("int", "claims allowed per player and hand (0 = unlimited)", low=0, high=20),
        "exact_laydown": Switch("bool", "the lay-down with same-turn lay-offs on its new melds leaves the fewest "
                                        "cards, then the fewest points (exact search); off = the old greedy solver "
                                        "(most points laid)"),
        "laydown_table": Switch("bool", "the exact lay-down puts first one that closes at once with the same-turn "
                                        "lay-offs and joker swaps on the melds already on the table (issue 34); "
                                        "off = blind to the table"),
        "exact_close": Switch("bool", "with exact_laydown and laydown_table: a lay-down closes at once when any "
                                      "sequence of same-turn lay-offs and joker swaps leaves at most one card (exact "
                                      "search; the lay-offs then follow it, e.g. a joker placed so that a natural "
                                      "fits) (issue 50); off = only the heuristic's greedy lay-offs count"),
        "laydown_budget": Switch("int", "with exact_laydown: work budget of one exact lay-down, a count: at most "
                                        "this many positions of the exact close search in all (then only the greedy "
                                        "close check) and lay-down choices scored (then the best found so far); "
                                        "0 = unlimited", low=0, high=MAX_LAYDOWN_BUDGET),
    }
    HOUSE_CHOICES: ClassVar = {
        "naturals": "a meld needs at least 1 natural card; an escalera's jokers are never adjacent "
                    "(so at least half of it is natural)",
        "jokers": "no limit on jokers per meld (a trío may hold any number)",
        "lay_down": "exactly the hand's combinations, each of any valid length; cards laid off on the same "
                    "turn count as part of the lay-down; the lay-down chosen leaves the fewest cards, then the "
                    "fewest points (switch exact_laydown), except that a lay-down after which same-turn lay-offs "
                    "on the melds already on the table (and joker swaps) leave at most one card (a -10 close) "
                    "comes first (switch laydown_table); with switch exact_close any sequence of lay-offs counts "
                    "(exact search) and the lay-down turn's lay-offs follow it, else only the heuristic's "
                    "greedy ones; then further same-turn lay-offs go on any table meld",
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
        return (UNLIMITED_JOKERS, CONTINENTAL_MIN_NATURALS, 1, 1)

    def deck_jokers(self) -> int:
        return 2 * self.jokers_per_deck
