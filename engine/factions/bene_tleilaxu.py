"""The Bene Tleilaxu's powers that other phases call into (bene-tleilaxu.md)."""

from __future__ import annotations

from engine.events import EventLog, EventType
from engine.ids import Faction
from engine.model import GameState
from engine.names import counted, faction_does
from engine.rules.board import territory_of, tokens_in_territory

ALLY_TOKENS, ALLY_LEADERS = 6, 2  # BT-60


def spring_trap_if_laid(state: GameState, territory: str, faction: Faction, tokens: int, log: EventLog) -> None:
    """BT-31, R-12: the first tokens shipped, moved or placed into a trapped stronghold trigger the trap, and
    those `tokens` are frozen for the turn (turn 1 when placed at setup, which is turn 0). The triggering is public
    at once; the card stays secret until the trap attacks (BT-32)."""
    trap = state.traps.get(territory)
    if trap is None or trap.triggered_by is not None:
        return
    trap.triggered_by = faction
    trap.triggered_turn = max(state.turn, 1)
    trap.frozen = tokens
    log.public(
        EventType.TRAP_TRIGGERED,
        f"{faction_does(faction, 'spring', start=True)}"
        f" the Bene Tleilaxu trap on {territory}: their {counted(tokens, 'token')} "
        f"that sprang it {'is' if tokens == 1 else 'are'} frozen there this turn, and the trap strikes one of "
        "their leaders at the start of the next battle round (BT-31, BT-32).",
        territory=territory, faction=faction.value, tokens=tokens,
    )


def frozen_tokens(state: GameState, territory: str, faction: Faction) -> int:
    """BT-31, R-24: how many of the faction's tokens in this territory a trap froze this turn (they cannot leave
    it by any means); tokens it brings there later in the turn are free."""
    trap = state.traps.get(territory)
    if trap is None or trap.triggered_by != faction or trap.triggered_turn != state.turn:
        return 0
    return trap.frozen


def free_to_leave(state: GameState, territory: str, faction: Faction) -> int:
    """How many of the faction's tokens in the territory a trap leaves free to move or ship out this turn."""
    return max(0, tokens_in_territory(state, territory, faction) - frozen_tokens(state, territory, faction))


def tokens_lost(state: GameState, location: str, faction: Faction) -> None:
    """Tokens of the faction died at a location (battle, storm, explosion, betrayal, allies apart) or an admin took
    them off. Our ruling on BT-31: tokens are alike, so the loss takes the free tokens first; a trap's frozen count
    falls only when fewer of the faction's tokens remain there than it counts, and tokens arriving afterwards are
    free. (A battle can thus take frozen tokens once the free ones are gone; nothing moves after the battle round,
    so only a loss earlier in the turn can make a difference.)"""
    territory = territory_of(location)
    trap = state.traps.get(territory)
    if trap is not None and trap.triggered_by == faction:
        trap.frozen = min(trap.frozen, tokens_in_territory(state, territory, faction))


def revival_payee(state: GameState) -> Faction | None:
    """BT-10: every spice paid for revival (tokens or leaders, whoever pays) goes to the BT when they are in
    the game; otherwise to the bank (None). R-3: free revivals pay nothing to anyone."""
    return Faction.BENE_TLEILAXU if state.in_game(Faction.BENE_TLEILAXU) else None


def is_bt_ally(state: GameState, faction: Faction) -> bool:
    bt = Faction.BENE_TLEILAXU
    return faction != bt and state.in_game(bt) and bt in state.ally_of(faction)


def bt_alliance_revival(state: GameState, faction: Faction) -> tuple[int, int] | None:
    """BT-60, R-14: (tokens, leaders) an ally of the BT may revive free this turn, replacing A-7's limits and
    the all-five-dead rule, once the BT granted it (engine/phases/revival.py); None otherwise."""
    if not is_bt_ally(state, faction) or not state.bt_state().revival_grants.get(faction):
        return None
    return ALLY_TOKENS, ALLY_LEADERS
