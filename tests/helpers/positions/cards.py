"""Builders of positions for the Treachery cards: one round at a time (an autouse fixture stops the game at the
spice blow), the storm dialled, a card asked for."""

from __future__ import annotations

import pytest

from engine.actions import DialStorm
from engine.checks.invariants import violations
from engine.data import load_game_data
from engine.flow import STEP_RUNNERS
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.options import FixedSetup
from engine.rules.economy import total_spice_outside_bank
from tests.conftest import BG, A, E, F, G, H, enter_phase, ready_game, take_card

DATA = load_game_data()

DOTS = {A: 3, BG: 6, E: 9, F: 12, G: 15, H: 18}  # storm at 1: A, BG, E, F, G, H, then the BT

TRUTHTRANCE = "truthtrance_1"


@pytest.fixture(autouse=True)
def _stop_after_storm_and_movement(monkeypatch):
    """Each test looks at one round: the game stops when the spice blow or (unless a test asks for it) the
    battle round begins."""
    monkeypatch.delitem(STEP_RUNNERS, Phase.SPICE_BLOW, raising=False)


def position(*, forces=None, tanks=None, dead_leaders=None, hands=None, discard=()):
    """A ready game with exactly this board (location -> faction -> tokens; the rest of each faction's 20
    not in the tanks in reserve), these hands (every other hand empty) and these cards in the discard pile."""
    state = ready_game(fixed=FixedSetup(dots=DOTS)).model_copy(deep=True)
    for trap in state.traps.values():
        state.treachery_deck.append(trap.card)
    state.traps = {}
    for fs in state.factions.values():
        state.treachery_deck += fs.hand
        fs.hand = []
    for faction, cards in (hands or {}).items():
        state.faction(faction).hand = [take_card(state, c) for c in cards]
    state.treachery_discard = [take_card(state, c) for c in discard]
    state.forces, state.spice_on_board = {}, {}
    for faction, fs in state.factions.items():
        fs.tanks = (tanks or {}).get(faction, 0)
        fs.leaders_in_tanks = list((dead_leaders or {}).get(faction, []))
    for location, here in (forces or {}).items():
        for faction, count in here.items():
            state.add_tokens(location, faction, count)
    for faction, fs in state.factions.items():
        on_board = sum(here.get(faction, 0) for here in state.forces.values())
        fs.reserves = DATA.factions[faction].tokens_total - fs.tanks - on_board
    state.spice_outside_bank = total_spice_outside_bank(state)
    assert violations(state) == []
    return state


def storm_round(state, *, turn=2, storm=1):
    state, _ = enter_phase(state, Phase.STORM, turn=turn, storm_sector=storm)
    return state


def dial(state, first=1, second=1):
    """Both dialers answer (in storm order); returns the state and the events."""
    dialers = [p.faction for p in state.prompts if p.kind == PromptKind.STORM_DIAL]
    events = []
    for faction, value in zip(dialers, (first, second), strict=True):
        state, new = apply(state, DialStorm(faction=faction, value=value))
        events += new
    return state, events


def movement_round(state, storm=1):
    state, _ = enter_phase(state, Phase.MOVEMENT, storm_sector=storm)
    return state
