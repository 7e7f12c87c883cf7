"""Builders of positions for the BT's spice: a board cleared, a card given."""

from __future__ import annotations

from engine.checks.invariants import violations
from engine.options import FixedSetup
from tests.conftest import BG, BT, A, E, F, G, H, ready_game, tokens_back_to_reserves

ALL = (A, BG, E, F, G, H, BT)

DOTS = {A: 18, BG: 3, E: 6, F: 9, G: 12, H: 15}


def cleared(factions=ALL, **options):
    """A game after setup (turn 1, storm) with every token back in reserves, no trap and no card in any hand
    but the BT's, so each test sets exactly what it needs."""
    state = ready_game(factions, fixed=FixedSetup(dots={f: d for f, d in DOTS.items() if f in factions}),
                       **options).model_copy(deep=True)
    state.storm_sector = 1
    tokens_back_to_reserves(state)
    state.treachery_discard += [t.card for t in state.traps.values()]
    state.traps = {}
    for fs in state.factions.values():
        if fs.faction != BT:
            state.treachery_discard += fs.hand
            fs.hand = []
    state.karama_orders = []
    assert violations(state) == []
    return state


def give_card(state, faction, card):
    for pile in (state.treachery_deck, state.treachery_discard, *(fs.hand for fs in state.factions.values())):
        if card in pile:
            pile.remove(card)
    state.faction(faction).hand.append(card)
