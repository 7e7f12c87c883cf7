"""Every spice movement goes through here, so that spice is never created or lost by accident.

`state.spice_outside_bank` counts the spice that is not in the bank: behind shields, in bribe piles and
on the board. The invariant checker asserts it always equals the sum of those places.
"""

from __future__ import annotations

from engine.errors import RuleViolation, ViolationCode
from engine.ids import Faction
from engine.model import GameState


def total_spice_outside_bank(state: GameState) -> int:
    held = sum(fs.spice + fs.bribes for fs in state.factions.values())
    return held + sum(state.spice_on_board.values())


def bank_pays(state: GameState, faction: Faction, amount: int) -> None:
    state.faction(faction).spice += amount
    state.spice_outside_bank += amount


def require_spice(state: GameState, faction: Faction, amount: int, rule: str, what: str) -> None:
    have = state.faction(faction).spice
    if amount > have:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, rule, f"{what} costs {amount} spice; you have {have}.")


def spice_committed(state: GameState, faction: Faction) -> int:
    """Spice a faction has bid for the card up for auction and must still be able to pay when it is sold (its
    share of the standing high bid; an ally's share when it supports one, A-8)."""
    auction = state.bidding
    if auction is None or not auction.card_open:
        return 0
    if auction.high_bidder == faction:
        return auction.high_bid - auction.high_ally_pays
    return auction.high_ally_pays if auction.high_ally == faction else 0


def spare_spice(state: GameState, faction: Faction) -> int:
    """What a faction may give away now: its spice less what it has bid (a bribe or a gift cannot leave a standing
    bid unpaid, nor tell the table so when the card is sold)."""
    return state.faction(faction).spice - spice_committed(state, faction)


def require_spare_spice(state: GameState, faction: Faction, amount: int, rule: str, what: str) -> None:
    committed = spice_committed(state, faction)
    if committed and amount > spare_spice(state, faction):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, rule,
                            f"{what} would leave your bid of {committed} unpaid: you may give up to "
                            f"{spare_spice(state, faction)} until the card is sold.")
    require_spice(state, faction, amount, rule, what)


def pay(state: GameState, faction: Faction, amount: int, to: Faction | None, rule: str, what: str) -> None:
    """Pay spice to another faction, or to the bank when `to` is None; refused if the payer is short."""
    require_spice(state, faction, amount, rule, what)
    state.faction(faction).spice -= amount
    if to is None:
        state.spice_outside_bank -= amount
    else:
        state.faction(to).spice += amount


def place_spice(state: GameState, location: str, amount: int) -> None:
    state.spice_on_board[location] = state.spice_on_board.get(location, 0) + amount
    state.spice_outside_bank += amount


def remove_spice(state: GameState, location: str) -> int:
    """All spice at a location back to the bank (storm, worm); returns how much."""
    amount = state.spice_on_board.pop(location, 0)
    state.spice_outside_bank -= amount
    return amount


def collect_spice(state: GameState, faction: Faction, location: str, amount: int) -> int:
    """Take up to `amount` from a location into a faction's spice; returns what was taken."""
    taken = min(amount, state.spice_on_board.get(location, 0))
    if taken:
        state.spice_on_board[location] -= taken
        if not state.spice_on_board[location]:
            del state.spice_on_board[location]
        state.faction(faction).spice += taken
    return taken
