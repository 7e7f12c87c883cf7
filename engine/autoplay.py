"""Automatic players: each answers its open prompts with a random legal choice.

They use their own seeded generator, not the game's, so that the game's randomness (decks, storm) is the
same whoever plays it. Samples come from each prompt kind's registered sampler (engine/flow.py); a sample
the rules refuse is retried, and after a few refusals the prompt's default (always legal) is taken.
"""

from __future__ import annotations

from engine.actions import Action
from engine.errors import RuleViolation
from engine.events import Event
from engine.flow import DEFAULTS, SAMPLERS
from engine.game import Transition, apply
from engine.model import GameState, Prompt
from engine.rng import Rng

RETRIES = 8


def choose(state: GameState, prompt: Prompt, rng: Rng) -> Action:
    return SAMPLERS[prompt.kind](state, prompt, rng)


def play_prompt(state: GameState, prompt: Prompt, rng: Rng) -> tuple[Action, Transition]:
    """Answer one prompt: random samples first, the default if the rules keep refusing them."""
    for _ in range(RETRIES):
        action = choose(state, prompt, rng)
        try:
            return action, apply(state, action)
        except RuleViolation:
            continue
    action = DEFAULTS[prompt.kind](state, prompt)
    return action, apply(state, action)


def play_until_stuck(
    state: GameState, rng: Rng, max_actions: int = 100_000
) -> tuple[GameState, list[Action], list[Event]]:
    """Answer open prompts (a random one each time) until none is open; returns state, actions and events."""
    actions: list[Action] = []
    events: list[Event] = []
    while state.prompts and len(actions) < max_actions:
        prompt = rng.choice(state.prompts)
        action, (state, new_events) = play_prompt(state, prompt, rng)
        actions.append(action)
        events += new_events
    return state, actions, events
