"""The Bene Tleilaxu before the auction: traps (R-11, BT-30) and gifts (BT-40); Karama against a trap (BT-51).

R-21: the cards for auction are counted and dealt first (A-5, engine/phases/bidding.py). Then, in bidding's
step "before_bidding", the BT get ONE secret prompt, BT_TRAPS_AND_GIFTS, answered by ONE action, TrapsAndGifts:
the traps to lay (option `bt_traps`) and the cards to give (option `bt_give_cards`), both from the BT hand,
both possibly empty. The auction count is not redone: a gift may fill a hand a card was dealt for.

The prompt opens only when the BT hold a card and something is possible: a stronghold they may trap or a
player with room in his hand. All of that is public (hand sizes, tokens, traps), so its existence tells
nothing secret. Its options are the strongholds a trap may go on; its detail carries the hand and, per
receiver, how many cards he may still take.

Karama against the BT (BT-51, R-27), played at any time by any other faction holding one: KaramaDestroyTrap
here; KaramaTaxBt in engine/factions/bt_spice.py. `spend_karama_against_bt` checks and discards the card
for both.
"""

from __future__ import annotations

from collections import Counter

from engine.actions import KaramaDestroyTrap, TrapsAndGifts
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.flow import Details, default_for, details_for, handles, open_prompt, sampler_for, take_prompt
from engine.ids import Faction
from engine.model import GameState, Prompt, PromptKind, Trap
from engine.names import card_name, counted, faction_does, faction_name, the_faction
from engine.rng import Rng
from engine.rules.board import controller, factions_in_territory, is_stronghold
from engine.rules.hands import hand_limit
from engine.rules.karama import counts_as_karama, karama_cards, karama_words

BT = Faction.BENE_TLEILAXU


# --- queries ---------------------------------------------------------------------------------


@details_for(PromptKind.BT_TRAPS_AND_GIFTS)
class BtTrapsAndGiftsDetails(Details):
    hand: list[str]
    receivers: dict[Faction, int]  # BT-40: room in each hand
    traps: bool  # R-11 in play
    gifts: bool  # BT-40 in play


def trappable(state: GameState, stronghold: str) -> bool:
    """R-11: after setup, a trap goes on a stronghold the BT control or one that holds no tokens."""
    return controller(state, stronghold) == BT or not factions_in_territory(state, stronghold)


def trap_strongholds(state: GameState) -> list[str]:
    """The strongholds the BT may trap now: trappable (R-11) and not trapped already (BT-30)."""
    return [s for s in load_game_data().board.strongholds if s not in state.traps and trappable(state, s)]


def gift_room(state: GameState) -> dict[Faction, int]:
    """BT-40: how many cards each other player may still receive, never above his hand limit."""
    room = {f: hand_limit(f) - len(fs.hand) for f, fs in state.factions.items() if f != BT}
    return {f: n for f, n in room.items() if n > 0}


# --- shared with setup (BT-5) ----------------------------------------------------------------


def check_trap_cards(hand: list[str], cards: list[str], rule: str) -> None:
    """BT-30: a trap is a card from the BT hand, and one card makes one trap."""
    for card in cards:
        if card not in hand:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule, f"{card!r} is not a card in your hand.",
                                list(hand))
    if len(set(cards)) != len(cards):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule, "One card cannot be laid as two traps.")


def lay_trap(state: GameState, stronghold: str, card: str) -> None:
    """BT-30: the card leaves the BT hand and lies face down on the stronghold."""
    state.faction(BT).hand.remove(card)
    _drop_karama_orders(state, card)
    state.traps[stronghold] = Trap(card=card)


def _drop_karama_orders(state: GameState, card: str) -> None:
    """A Karama readied as a standing order (A-14) lapses when the card leaves the hand."""
    state.karama_orders = [o for o in state.karama_orders if o.card != card]


# --- the window before bidding (R-21) ----------------------------------------------------------


def open_traps_and_gifts(state: GameState) -> None:
    """Bidding's step "before_bidding": the BT's prompt, when they hold a card and may use it (R-11, BT-40)."""
    if not state.in_game(BT):
        return
    options = state.setup.options
    hand = state.faction(BT).hand
    strongholds = trap_strongholds(state) if options.bt_traps else []
    room = gift_room(state) if options.bt_give_cards else {}
    if not hand or not (strongholds or room):
        return
    open_prompt(state, PromptKind.BT_TRAPS_AND_GIFTS, BT, secret=True, options=strongholds, hand=list(hand),
                receivers={f.value: n for f, n in room.items()}, traps=options.bt_traps,
                gifts=options.bt_give_cards)


@handles(TrapsAndGifts)
def traps_and_gifts(state: GameState, action: TrapsAndGifts, log: EventLog) -> None:
    take_prompt(state, action.faction, PromptKind.BT_TRAPS_AND_GIFTS, "R-21")
    hand = state.faction(BT).hand
    _check_traps(state, action.traps, hand)
    _check_gifts(state, action.gifts, hand)
    if set(action.traps.values()) & set(action.gifts):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-40", "One card cannot be both laid as a trap and given.")
    for stronghold, card in action.traps.items():
        lay_trap(state, stronghold, card)
        log.private(EventType.TRAP_LAID_CARD, BT, f"Your trap on {stronghold}: {card_name(card)} (R-11).",
                    stronghold=stronghold, card=card)
        log.public(EventType.TRAP_LAID, f"The Bene Tleilaxu lay a face-down trap on {stronghold} (R-11).",
                   stronghold=stronghold)
    for card, receiver in action.gifts.items():
        hand.remove(card)
        _drop_karama_orders(state, card)
        state.faction(receiver).hand.append(card)
        log.private(EventType.CARD_GIVEN_CARD, (BT, receiver),
                    f"The Bene Tleilaxu give {the_faction(receiver)} {card_name(card)}; only the two of you know "
                    "which card it is (BT-40).", to=receiver.value, card=card)
        log.public(EventType.CARD_GIVEN, f"The Bene Tleilaxu give a Treachery card to {the_faction(receiver)} (BT-40).",
                   to=receiver.value)
    if not action.traps and not action.gifts:
        log.public(EventType.DECISION_MADE, "The Bene Tleilaxu lay no trap and give no card before the bidding.",
                   faction=BT.value, kind=PromptKind.BT_TRAPS_AND_GIFTS.value)


def _check_traps(state: GameState, traps: dict[str, str], hand: list[str]) -> None:
    if not traps:
        return
    if not state.setup.options.bt_traps:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-30", "Traps are not played in this game (option "
                            "bt_traps is off).")
    allowed = trap_strongholds(state)
    for stronghold in traps:
        if not is_stronghold(stronghold):
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-30",
                                f"Traps are laid on strongholds; {stronghold!r} is not one.", allowed)
        if stronghold in state.traps:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-30",
                                f"At most one trap per stronghold: {stronghold} is trapped already.", allowed)
        if not trappable(state, stronghold):
            there = ", ".join(faction_name(f) for f in factions_in_territory(state, stronghold))
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "R-11",
                                f"{stronghold} holds tokens ({there}) and the Bene Tleilaxu do not control it: "
                                "a trap goes only on a stronghold they control or one with no tokens.", allowed)
    check_trap_cards(hand, list(traps.values()), "BT-30")


def _check_gifts(state: GameState, gifts: dict[str, Faction], hand: list[str]) -> None:
    if not gifts:
        return
    if not state.setup.options.bt_give_cards:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-40", "Giving cards is not played in this game (option "
                            "bt_give_cards is off).")
    receivers = [f.value for f in state.factions if f != BT]
    for card, receiver in gifts.items():
        if card not in hand:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-40", f"{card!r} is not a card in your hand.",
                                list(hand))
        if receiver == BT or not state.in_game(receiver):
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-40",
                                "Cards are given to another player in this game.", receivers)
    for receiver, count in Counter(gifts.values()).items():
        held, limit = len(state.faction(receiver).hand), hand_limit(receiver)
        if held + count > limit:
            raise RuleViolation(
                ViolationCode.NOT_ALLOWED, "BT-40",
                f"{faction_does(receiver, 'hold', start=True)} {counted(held, 'card')} of a hand limit of {limit}: "
                f"at most {limit - held} more may be given, not {count}.",
                [f.value for f in gift_room(state)],
            )


@default_for(PromptKind.BT_TRAPS_AND_GIFTS)
def _default_traps_and_gifts(state: GameState, prompt: Prompt) -> TrapsAndGifts:
    """Nothing laid, nothing given."""
    return TrapsAndGifts(faction=prompt.faction)


@sampler_for(PromptKind.BT_TRAPS_AND_GIFTS)
def _sample_traps_and_gifts(state: GameState, prompt: Prompt, rng: Rng) -> TrapsAndGifts:
    """Now and then a trap on a legal stronghold and/or a card to a player with room. The cards used are the
    last ones in the hand (the latest received), so games that differ only in an older card play alike."""
    hand = list(prompt.detail["hand"])
    traps: dict[str, str] = {}
    gifts: dict[str, Faction] = {}
    if prompt.options and hand and not rng.below(2):
        traps[rng.choice(prompt.options)] = hand.pop()
    receivers = sorted(prompt.detail["receivers"])
    if receivers and hand and not rng.below(2):
        gifts[hand.pop()] = Faction(rng.choice(receivers))
    return TrapsAndGifts(faction=prompt.faction, traps=traps, gifts=gifts)


# --- Karama against the BT (BT-51, R-27) ------------------------------------------------------


def check_karama_against_bt(state: GameState, faction: Faction, card: str) -> None:
    """BT-51: the player holds the Karama card he names, the BT are in the game, and he is not the BT."""
    hand = state.faction(faction).hand
    if card not in hand or not counts_as_karama(state, faction, card):  # BG worthless cards too
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-51", "You must hold the Karama card you name.",
                            karama_cards(state, faction))
    if not state.in_game(BT):
        raise RuleViolation(ViolationCode.NOT_IN_GAME, "BT-51", "The Bene Tleilaxu are not in this game.")
    if faction == BT:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "R-27",
                            "These uses of Karama are against the Bene Tleilaxu; they cannot play them on themselves.")


def spend_karama_against_bt(state: GameState, faction: Faction, card: str) -> None:
    """The Karama card goes from the hand to the discard pile (call check_karama_against_bt first)."""
    state.faction(faction).hand.remove(card)
    _drop_karama_orders(state, card)
    state.treachery_discard.append(card)


@handles(KaramaDestroyTrap)
def karama_destroy_trap(state: GameState, action: KaramaDestroyTrap, log: EventLog) -> None:
    """BT-51 (with traps): one untriggered trap is shown and discarded."""
    check_karama_against_bt(state, action.faction, action.card)
    if not state.setup.options.bt_traps:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-51", "Traps are not played in this game (option "
                            "bt_traps is off).")
    untriggered = [s for s, t in state.traps.items() if t.triggered_by is None]
    trap = state.traps.get(action.stronghold)
    if trap is None:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "BT-51", f"There is no trap on {action.stronghold}.",
                            untriggered)
    if trap.triggered_by is not None:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-51",
                            f"The trap on {action.stronghold} was sprung already; Karama destroys only an "
                            "untriggered trap.", untriggered)
    spend_karama_against_bt(state, action.faction, action.card)
    del state.traps[action.stronghold]
    state.treachery_discard.append(trap.card)
    log.public(
        EventType.KARAMA_VS_BT,
        f"{faction_does(action.faction, 'play', start=True)}"
        f" {karama_words(action.card)} to destroy the Bene Tleilaxu trap on "
        f"{action.stronghold}: "
        f"it was {card_name(trap.card)}, now discarded (BT-51).",
        faction=action.faction.value, card=action.card, use="destroy_trap", stronghold=action.stronghold,
        trap_card=trap.card,
    )
