"""BT-16, R-17, R-33: a worthless card in a BT attack bars the attacked faction from shipping, or from moving
its on-board tokens, during the next turn."""

from __future__ import annotations

from engine.errors import RuleViolation, ViolationCode
from engine.ids import Faction
from engine.model import GameState

NO_SHIPPING, NO_MOVING = "no_shipping", "no_moving"


def is_impaired(state: GameState, faction: Faction, kind: str) -> bool:
    """An impairment of this kind (NO_SHIPPING or NO_MOVING) bars the faction this turn."""
    return state.bt is not None and any(
        i.faction == faction and i.kind == kind and i.turn == state.turn for i in state.bt.impairments)


def check_not_impaired(state: GameState, faction: Faction, kind: str) -> None:
    """Refuse a shipment (NO_SHIPPING: from reserves, Fremen placement, cross-shipping, shipping back) or a move
    (NO_MOVING: the normal move, Hajr, a worm ride) that an impairment bars this turn."""
    if is_impaired(state, faction, kind):
        what = "ship any tokens" if kind == NO_SHIPPING else "move any on-board tokens"
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-16",
                            f"A Bene Tleilaxu worthless card bars you: you may not {what} this turn (R-17).")
