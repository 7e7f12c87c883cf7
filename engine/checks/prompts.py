"""Checks on the prompt machinery (engine/flow.py), run after every action of random games (issue 12: no game
may stop dead):

- every open prompt's default is accepted: a forced or expired decision always moves the game on;
- default makers and samplers read the state and never change it: a default computed outside `apply` (the
  console, automatic players) must leave nothing behind that the game's record would not replay.
"""

from __future__ import annotations

from engine.errors import RuleViolation
from engine.flow import DEFAULTS, SAMPLERS
from engine.game import apply
from engine.model import GameState
from engine.rng import Rng


def refused_defaults(state: GameState) -> list[str]:
    """Every open prompt whose default the rules refuse, in words."""
    found = []
    for prompt in state.prompts:
        default = DEFAULTS[prompt.kind](state, prompt)
        try:
            apply(state, default)
        except RuleViolation as refusal:
            found.append(f"the default {default!r} for {prompt.id} ({prompt.kind.value}) is refused: {refusal}")
    return found


def state_changers(state: GameState) -> list[str]:
    """Every default maker and sampler that changed the state it was given, called on each open prompt (the
    state's own prompt objects, so a change to a prompt counts too)."""
    found = []
    before = state.model_dump()
    for prompt in list(state.prompts):
        DEFAULTS[prompt.kind](state, prompt)
        after = state.model_dump()
        SAMPLERS[prompt.kind](state, prompt, Rng.from_seed(state.seq))
        last = state.model_dump()
        for name, changed in (("default", after != before), ("sampler", last != after)):
            if changed:
                found.append(f"the {name} for {prompt.id} ({prompt.kind.value}) changed the state it was given")
        before = last
    return found


def prompt_problems(state: GameState) -> list[str]:
    """Both checks, for `play_game`'s `check`."""
    return state_changers(state) + refused_defaults(state)
