"""Builders of positions where a Karama card is revealed against the BT."""

from __future__ import annotations

from engine.actions import RevealBtTraitor
from engine.game import apply
from engine.model import Phase, PromptKind
from tests.conftest import BT, A, E, H, prompt_of
from tests.helpers.positions.bt_traitors import ARRAKEEN, DUNCAN, at, position, stronghold_won


def with_options(state, **options):
    """The same position in a game with these options on."""
    chosen = state.setup.options.model_copy(update=options)
    return state.model_copy(update={"setup": state.setup.model_copy(update={"options": chosen})})


def revealed(hands=None, factions=(A, E, H, BT), **options):
    """Turn 2's movement round, the Atreides' shipment decision open; the BT reveal Duncan Idaho."""
    state = at(with_options(position(factions, forces={ARRAKEEN: {A: 7}}, marked=[DUNCAN],
                                     victories=[stronghold_won()], hands=hands or {}), **options), Phase.MOVEMENT)
    assert prompt_of(state, A, PromptKind.SHIPMENT)
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    return state, events
