"""The invariant checker catches what it claims to: each broken invariant is reported."""

from __future__ import annotations

from engine.checks.invariants import violations
from engine.ids import Faction
from engine.model import Battle, BattlePlan, BattleState, MovementState
from tests.conftest import ready_game

A, E, G, H = Faction.ATREIDES, Faction.EMPEROR, Faction.GUILD, Faction.HARKONNEN


def test_a_fresh_game_breaks_nothing():
    assert violations(ready_game()) == []


def test_each_broken_invariant_is_reported():
    state = ready_game()
    state.faction(E).reserves -= 1
    state.faction(A).hand.append(state.faction(H).hand[0])
    state.spice_outside_bank += 5
    state.add_tokens("Carthag#10", E, 1)
    state.faction(E).reserves -= 1
    state.add_tokens("Carthag#10", A, 1)
    state.faction(A).reserves -= 1
    state.faction(H).leaders_in_tanks = ["stilgar"]
    found = "\n".join(violations(state))
    for words in ("emperor tokens", "doubled", "spice ledger", "3 factions in the stronghold Carthag",
                  "harkonnen leaders in the tanks"):
        assert words in found


def test_a_dead_leader_in_a_plan_and_a_leader_in_two_territories_are_reported():
    state = ready_game()
    state.faction(H).leaders_in_tanks = ["feyd_rautha"]
    state.battle = BattleState(leader_territory={"hasimir_fenring": "Arrakeen"})
    state.battle.current = Battle(territory="Carthag", locations=["Carthag#10"], aggressor=E, defender=H, step="plans",
                                  plans={H: BattlePlan(leader="feyd_rautha"), E: BattlePlan(leader="hasimir_fenring")})
    found = "\n".join(violations(state))
    assert "dead leader feyd_rautha" in found and "after fighting in Arrakeen" in found


def test_a_second_shipment_and_movement_turn_in_one_round_is_reported():
    """1979 rules (Movement), A-15: one shipment-and-movement turn a faction a round, the Guild's out of order too."""
    state = ready_game()
    state.movement = MovementState(order=[A, E, G, H], index=2, turns_taken=[G, A, E])
    assert violations(state) == []
    state.movement.turns_taken.append(G)
    assert violations(state) == ["guild take a second shipment-and-movement turn this round"]
