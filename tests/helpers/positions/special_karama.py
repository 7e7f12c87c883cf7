"""Builders of positions for the special Karama powers: a hand dealt, Harkonnen facing Atreides."""

from __future__ import annotations

from tests.conftest import A, H
from tests.helpers.positions.movement import arrange


def hand(state, faction, *cards):
    """The faction holds exactly these cards (taken from wherever they are)."""
    for card in cards:
        for pile in (state.treachery_deck, state.treachery_discard, *(fs.hand for fs in state.factions.values())):
            if card in pile:
                pile.remove(card)
    state.faction(faction).hand = list(cards)
    return state


def harkonnen_and_atreides(**options):
    state, _ = arrange(**options)
    hand(state, A, "crysknife", "shield_1")
    return hand(state, H, "karama_1", "kulon", "snooper_1")
