"""Builders of revival positions where the BT's ally may revive from the BT's tanks."""

from __future__ import annotations

from engine.checks.invariants import violations
from engine.model import Phase
from tests.conftest import BT, A, E, H, enter_phase
from tests.helpers.positions.bt_traitors import DUNCAN, position


def revival_of(state):
    """The state entered into turn 2's movement round, at its revival: (state, events)."""
    state, events = enter_phase(state, Phase.MOVEMENT)
    assert violations(state) == []
    return state, events


def ally_position(tanks=5, dead=(DUNCAN,), order="ask", alliances=((A, BT),)):
    """The Atreides, allied to the BT, have `tanks` tokens and `dead` leaders in the tanks and 10 spice; the
    Harkonnen 2 tokens; `order`: the BT's standing order for their allies' revival."""
    return position(factions=(A, E, H, BT), tanks={A: tanks, H: 2}, dead={A: list(dead)},
                    alliances=[list(a) for a in alliances], spice={BT: 5}, ally_revival=order)


def ally_in_revival(**position_changes):
    return revival_of(ally_position(**position_changes))
