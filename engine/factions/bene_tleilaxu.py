"""The Bene Tleilaxu's powers that other phases call into (bene-tleilaxu.md)."""

from __future__ import annotations

from engine.events import EventLog
from engine.ids import Faction
from engine.model import GameState
from engine.names import faction_name

ALLY_TOKENS, ALLY_LEADERS = 6, 2  # BT-60


def spring_trap_if_laid(state: GameState, territory: str, faction: Faction, log: EventLog) -> None:
    """BT-31, R-12: the first tokens shipped, moved or placed into a trapped stronghold trigger the trap.
    The triggering is public at once; the card stays secret until the trap attacks (BT-32)."""
    trap = state.traps.get(territory)
    if trap is None or trap.triggered_by is not None:
        return
    trap.triggered_by = faction
    trap.triggered_turn = state.turn
    log.public(
        "trap_triggered",
        f"{faction_name(faction)} spring the Bene Tleilaxu trap on {territory}: their tokens there are frozen "
        "this turn, and the trap strikes one of their leaders at the start of the next battle round (BT-31, BT-32).",
        territory=territory, faction=faction.value,
    )


def frozen_strongholds(state: GameState, faction: Faction) -> list[str]:
    """BT-31, R-24: strongholds whose trap this faction triggered this turn; its tokens there cannot leave."""
    return [t for t, trap in state.traps.items() if trap.triggered_by == faction and trap.triggered_turn == state.turn]


def revival_payee(state: GameState) -> Faction | None:
    """BT-10: every spice paid for revival (tokens or leaders, whoever pays) goes to the BT when they are in
    the game; otherwise to the bank (None). R-3: free revivals pay nothing to anyone."""
    return Faction.BENE_TLEILAXU if state.in_game(Faction.BENE_TLEILAXU) else None


def bt_alliance_revival(state: GameState, faction: Faction) -> tuple[int, int] | None:
    """BT-60, R-14: (tokens, leaders) an ally of the BT may revive free this turn, replacing A-7's limits and
    the all-five-dead rule; None for a faction that is not allied to the BT."""
    bt = Faction.BENE_TLEILAXU
    if faction == bt or not state.in_game(bt) or bt not in state.ally_of(faction):
        return None
    return ALLY_TOKENS, ALLY_LEADERS
