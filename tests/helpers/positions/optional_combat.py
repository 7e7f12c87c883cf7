"""Builders of positions for the optional combat rules: options switched on, elites put down, a Harkonnen win, a
Karama made ready."""

from __future__ import annotations

from engine.actions import UseKarama
from engine.factions.elites import add_elites
from engine.game import apply
from engine.options import GameOptions
from tests.conftest import E, G, H
from tests.helpers.positions.battle import FLAT, arena, duel, give, plan, put


def switch_on(state, **options):
    """The same scenario with these options on (the setup is frozen; the state's copy of it is replaced)."""
    state.setup = state.setup.model_copy(update={"options": GameOptions(**options)})
    return state


def put_elites(state, faction, location, tokens, elites):
    put(state, faction, location, tokens)
    add_elites(state, location, faction, elites)


def event(events, kind):
    found = [e for e in events if e.type == kind]
    assert found, f"no {kind} event"
    return found[0]


def harkonnen_win(on: bool, factions=(E, H, G)):
    """Harkonnen beat the Emperor on The Great Flat; of the Emperor's leaders only Burseg is available (Bashar
    fought, the others are dead)."""
    state = arena(factions)
    if on:
        switch_on(state, character_advantages=True)
    state.faction(E).leaders_in_tanks = ["hasimir_fenring", "captain_aramsham", "caid"]
    put(state, E, FLAT, 3)
    put(state, H, FLAT, 5)
    return duel(state, plan(E, "bashar", 0), plan(H, "feyd_rautha", 1))


def ready_karama(state, holder, against, advantage):
    give(state, holder, "karama_1")
    return apply(state, UseKarama(faction=holder, card="karama_1", against=against, advantage=advantage))[0]
