"""Builders of game positions for the any-time actions: positions of the seven seasons of a game, a hand dealt, and
a twin position whose secrets another seat could not know."""

from __future__ import annotations

import itertools
from functools import cache

from engine.data import load_game_data
from engine.game import new_game
from engine.ids import Faction
from engine.model import GameState, KaramaOrder, Phase
from engine.options import GameOptions, GameSetup
from engine.rng import Rng
from engine.rules.hands import hand_limit
from tests.conftest import BT, A, E, random_step, take_card

ANYTIME_CARDS = ("karama_1", "karama_2", "hajr", "tleilaxu_ghola", "truthtrance_1", "truthtrance_2")

QUESTIONS = ("Do you hold a traitor?", "x" * 300)


def _season(state: GameState, rng: Rng) -> GameState:
    """The position with each faction that has room given one card played at any time, from the deck or the
    discard pile (so that every kind of choice shows up often)."""
    seasoned = state.model_copy(deep=True)
    for faction, fs in seasoned.factions.items():
        loose = [c for c in ANYTIME_CARDS if c in seasoned.treachery_deck or c in seasoned.treachery_discard]
        if loose and len(fs.hand) < hand_limit(faction):
            fs.hand.append(take_card(seasoned, rng.choice(loose)))
    if seasoned.bt is not None and not seasoned.bt.marked and rng.below(2):  # a BT traitor (BT-20)
        alive = [leader.id for f, fd in load_game_data().factions.items() if f != BT and seasoned.in_game(f)
                 for leader in fd.leaders if leader.id not in seasoned.faction(f).leaders_in_tanks]
        winners = [v.leader for v in seasoned.victories if v.leader in alive]  # whose reveal may take effect
        seasoned.bt.marked = [rng.choice(winners if winners and rng.below(2) else alive)]
    if not seasoned.alliances and rng.below(2):  # an alliance, the Emperor's now and then
        others = [f for f in seasoned.factions if f != E]
        pair = [E if rng.below(2) else rng.choice(others), rng.choice(others)]
        seasoned.alliances = [[f for f in seasoned.factions if f in pair]] if pair[0] != pair[1] else []
    return seasoned


@cache
def positions() -> tuple[GameState, ...]:
    """Every 5th state of six random 7-faction games (four with every option on), seasoned."""
    found = []
    for seed, options in ((1, GameOptions.all_on()), (2, GameOptions.all_on()), (5, GameOptions.all_on()),
                          (6, GameOptions.all_on()), (3, GameOptions()), (4, GameOptions())):
        setup = GameSetup(factions=tuple(Faction), options=options.model_copy(update={"turns": 5}), seed=seed)
        state, _ = new_game(setup)
        rng, seasoning = Rng.from_seed(seed), Rng.from_seed(seed + 100)
        for step in itertools.count():
            if state.phase == Phase.ENDED or not state.prompts or step > 1500:
                break
            if step % 5 == 0:
                found.append(_season(state, seasoning))
            state = random_step(state, rng)  # an action at any time is offered only when legal
    return tuple(found)


def others_secrets_changed(state: GameState, keeper: Faction, rng: Rng) -> GameState:
    """The same position with every other faction's secrets changed: spice, hand (swapped with the deck),
    traitors, the BT's marks, readied Karamas, standing orders."""
    changed = state.model_copy(deep=True)
    for faction, fs in changed.factions.items():
        if faction == keeper:
            continue
        fs.spice += 1 + rng.below(20)
        swap = min(len(fs.hand), len(changed.treachery_deck))
        fs.hand[:swap], changed.treachery_deck[:swap] = changed.treachery_deck[:swap], fs.hand[:swap]
        fs.traitors = fs.traitors[:1]
        fs.auto_traitor = not fs.auto_traitor
        fs.never_storm_cards = not fs.never_storm_cards
        fs.pass_when_outbid = not fs.pass_when_outbid
        fs.revive_free_tokens = not fs.revive_free_tokens
        fs.guild_timing_in_storm_order = not fs.guild_timing_in_storm_order
        fs.advisor_order = "never" if fs.advisor_order == "ask" else "ask"
        fs.bid_order.auto_pass = not fs.bid_order.auto_pass
        if fs.hand:
            changed.karama_orders.append(KaramaOrder(faction=faction, card=fs.hand[0], advantage="voice"))
    if changed.bt is not None and keeper != BT:
        changed.bt.marked = [] if changed.bt.marked else [load_game_data().factions[A].leaders[0].id]
        changed.bt.declare_order = not changed.bt.declare_order
    return changed


def holding(state: GameState, faction: Faction, *cards: str) -> None:
    """The faction's hand is exactly these cards (taken from wherever they are); its cards go back to the deck."""
    taken = [take_card(state, card) for card in cards]
    state.treachery_deck += state.faction(faction).hand
    state.faction(faction).hand = taken
