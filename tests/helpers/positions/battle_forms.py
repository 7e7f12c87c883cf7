"""A battle position for the battle forms: a BT trap sprung that turned out worthless."""

from __future__ import annotations

from engine.game import apply
from engine.model import GameState, Phase
from tests.conftest import enter_phase
from tests.helpers.positions.bt_attacks import defend, trapped


def worthless_trap_revealed() -> GameState:
    """BT-33, BT-16: the Kulon laid as a trap on Carthag struck a Harkonnen leader: the BT choose the impairment."""
    state, events = enter_phase(trapped("kulon"), Phase.BATTLE)
    leader = next(e for e in events if e.type == "trap_attack").data["leader"]
    return apply(state, defend(leader)).state
