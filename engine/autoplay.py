"""Automatic players: each answers its open prompts with a random legal choice.

They use their own seeded generator, not the game's, so that the game's randomness (decks, storm) is the
same whoever plays it.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.actions import Action, ChooseTraitor, LayTraps, PlaceStartingTokens, PredictWinner
from engine.data import load_game_data
from engine.events import Event
from engine.game import apply
from engine.ids import Faction
from engine.model import GameState, Prompt, PromptKind
from engine.rng import Rng

Chooser = Callable[[GameState, Prompt, Rng], Action]


def _traitor(state: GameState, prompt: Prompt, rng: Rng) -> Action:
    return ChooseTraitor(faction=prompt.faction, leader=rng.choice(prompt.options))


def _prediction(state: GameState, prompt: Prompt, rng: Rng) -> Action:
    return PredictWinner(
        faction=prompt.faction,
        predicted=Faction(rng.choice(prompt.options)),
        turn=1 + rng.below(prompt.detail["turns"]),
    )


def _traps(state: GameState, prompt: Prompt, rng: Rng) -> Action:
    hand = list(prompt.detail["hand"])
    strongholds = list(prompt.options)
    rng.shuffle(hand)
    rng.shuffle(strongholds)
    count = rng.below(min(len(hand), len(strongholds)) + 1)
    return LayTraps(faction=prompt.faction, traps=dict(zip(strongholds[:count], hand[:count], strict=True)))


def _placement(state: GameState, prompt: Prompt, rng: Rng) -> Action:
    board = load_game_data().board
    placement: dict[str, int] = {}
    for _ in range(prompt.detail["tokens"]):
        territory = board.territory(rng.choice(prompt.options))
        location = rng.choice(territory.locations)
        placement[location] = placement.get(location, 0) + 1
    return PlaceStartingTokens(faction=prompt.faction, placement=placement)


CHOOSERS: dict[PromptKind, Chooser] = {
    PromptKind.TRAITOR_PICK: _traitor,
    PromptKind.BG_PREDICTION: _prediction,
    PromptKind.BT_TRAPS: _traps,
    PromptKind.STARTING_PLACEMENT: _placement,
}


def choose(state: GameState, prompt: Prompt, rng: Rng) -> Action:
    return CHOOSERS[prompt.kind](state, prompt, rng)


def play_until_stuck(
    state: GameState, rng: Rng, max_actions: int = 100_000
) -> tuple[GameState, list[Action], list[Event]]:
    """Answer open prompts (oldest first) until none is open; returns the state, the actions and the events."""
    actions: list[Action] = []
    events: list[Event] = []
    while state.prompts and len(actions) < max_actions:
        prompt = state.prompts[0]
        action = choose(state, prompt, rng)
        state, new_events = apply(state, action)
        actions.append(action)
        events += new_events
    return state, actions, events
