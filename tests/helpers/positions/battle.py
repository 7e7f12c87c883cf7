"""Builders of battle positions: an arena (turn 2, empty board), tokens and cards put down, battle plans, and a
duel fought to its end."""

from __future__ import annotations

from engine.actions import CallTraitor, SubmitBattlePlan
from engine.model import Phase, PromptKind
from engine.positions.documents import FORMAT
from tests.conftest import BG, A, E, F, G, H, apply_all, enter_phase, load_position

FLAT = "The Great Flat#14"

DOTS = {E: 3, H: 6, G: 9, A: 12, BG: 15, F: 18}


def arena(factions=(E, H, G), **position):
    """Turn 2 with the storm at sector 1 (storm order E, H, G, A, BG, F), an empty board, empty hands and no
    traitors, or what `position` states (docs/positions.md): each test puts down exactly what it needs, then
    enters the battle round."""
    return load_position({
        "format": FORMAT, "factions": [f.value for f in factions], "turn": 2, "storm": 1,
        "dots": {f.value: DOTS[f] for f in factions if f in DOTS}, **position,
    })


def give(state, faction, *cards):
    for card in cards:
        state.treachery_deck.remove(card)
        state.faction(faction).hand.append(card)


def put(state, faction, location, count):
    state.add_tokens(location, faction, count)
    state.faction(faction).reserves -= count


def plan(faction, leader=None, dial=0, weapon=None, defense=None, cheap_hero=None):
    return SubmitBattlePlan(faction=faction, leader=leader, dial=dial, weapon=weapon, defense=defense,
                            cheap_hero=cheap_hero)


def no_traitors(*factions):
    return [CallTraitor(faction=f, call=False) for f in factions]


def duel(state, aggressor_plan, defender_plan, calls=None):
    """Both plans, then both traitor answers (no calls unless given); returns the state and all events."""
    state, _ = enter_phase(state, Phase.BATTLE)
    assert {p.kind for p in state.prompts} == {PromptKind.BATTLE_PLAN}
    calls = calls or no_traitors(aggressor_plan.faction, defender_plan.faction)
    return apply_all(state, aggressor_plan, defender_plan, *calls)
