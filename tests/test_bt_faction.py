"""The Bene Tleilaxu as a faction (BT-1..BT-5, R-1..R-3) and the named rules whose effects other test files
cover under other names (BT-17, BT-31, R-5, R-18, R-24, R-33)."""

from __future__ import annotations

import pytest

from engine.actions import ChooseBtAttack, LayTraps, Ship, SubmitBattlePlan
from engine.data import load_game_data
from engine.errors import RuleViolation
from engine.game import apply, new_game
from engine.model import Phase, PromptKind, Trap
from engine.options import FixedSetup
from engine.phases.storm import storm_dialers
from engine.rules.order import storm_order
from tests.conftest import BT, A, E, G, H, make_setup, prompt_of, ready_game, refused, start
from tests.helpers.positions.battle import give
from tests.helpers.positions.bt_attacks import bt_arena, bt_plan, defend, fought
from tests.helpers.positions.movement import CARTHAG, TUEKS, answer_defaults_until, arrange

DATA = load_game_data()


def test_bt_1_no_tokens_leaders_dot_or_traitors():
    state = start()
    bt = state.faction(BT)
    assert (bt.reserves, bt.dot, bt.traitors) == (0, None, [])
    assert DATA.factions[BT].leaders == ()
    assert not [p for p in state.prompts if p.faction == BT and p.kind == PromptKind.TRAITOR_PICK]
    assert not any(BT in here for here in ready_game().forces.values())


def test_bt_2_a_two_player_game_with_the_bt_is_refused():
    with pytest.raises(ValueError, match="BT-2"):
        new_game(make_setup((A, BT)))
    assert new_game(make_setup((A, H, BT))).state.in_game(BT)


def test_bt_3_the_bt_never_dial_the_storm():
    for seed in range(6):
        state = ready_game(seed=seed)
        assert BT not in storm_dialers(state)
        assert BT not in {p.faction for p in state.prompts if p.kind == PromptKind.STORM_DIAL}


def test_r_1_the_bt_come_last_in_every_order():
    for storm in (1, 5, 9, 13, 18):
        state = start(fixed=FixedSetup(storm_sector=storm))
        assert storm_order(state)[-1] == BT


def test_bt_4_r_2_five_spice_four_cards_hand_limit_four():
    state = start()
    assert state.faction(BT).spice == 5 and len(state.faction(BT).hand) == 4
    assert DATA.factions[BT].hand_limit == 4


def test_bt_5_traps_are_laid_before_any_starting_token_is_placed():
    state = start()
    assert prompt_of(state, BT, PromptKind.BT_TRAPS) and state.forces == {}
    card = state.faction(BT).hand[0]
    for prompt in list(state.prompts):
        if prompt.kind == PromptKind.BT_TRAPS:
            state = apply(state, LayTraps(faction=BT, traps={"Arrakeen": card})).state
    assert state.forces == {} and state.traps["Arrakeen"].card == card


def test_r_3_free_revivals_pay_nobody():
    state, _ = arrange(tanks={A: 2})
    bt_spice = state.faction(BT).spice
    from engine.actions import Revive

    state = apply(state, Revive(faction=A, tokens=2)).state
    assert state.faction(BT).spice == bt_spice and state.faction(A).tanks == 0


def test_bt_17_a_karama_attacks_as_a_lasgun():
    state = bt_arena()
    give(state, BT, "karama_2")
    give(state, H, "shield_1")
    state, _ = fought(state)
    state, events = apply(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"))
    for action in (bt_plan("karama_2"), defend("feyd_rautha", "shield_1")):
        state, events = apply(state, action)
    assert "feyd_rautha" in state.faction(H).leaders_in_tanks
    assert any(e.data.get("explosion") for e in events)  # BT-50: a Karama lasgun meets a shield


def test_r_5_the_attack_ignores_strength():
    """R-5: the attack ignores strength (with the Kwisatz Haderach: tests/test_kwisatz_haderach.py)."""
    state = bt_arena()
    give(state, BT, "maula_pistol")
    state, _ = fought(state)
    state, _ = apply(state, ChooseBtAttack(faction=BT, leader="hasimir_fenring"))
    state, _ = apply(state, bt_plan("maula_pistol"))
    state, _ = apply(state, SubmitBattlePlan(faction=E, leader="hasimir_fenring"))
    assert "hasimir_fenring" in state.faction(E).leaders_in_tanks


def test_r_18_the_defender_always_discards_a_worthless_card():
    state = bt_arena()
    give(state, BT, "stunner")
    give(state, H, "shield_2", "la_la_la")
    state, _ = fought(state)
    for action in (ChooseBtAttack(faction=BT, leader="feyd_rautha"), bt_plan("stunner"),
                   defend("feyd_rautha", "shield_2", worthless="la_la_la")):
        state, _ = apply(state, action)
    assert "la_la_la" in state.treachery_discard and "shield_2" in state.faction(H).hand


def test_bt_31_the_first_tokens_in_spring_the_trap_and_are_frozen():
    state, _ = arrange(forces={"Arsunt#10": {H: 3}}, spice={H: 10})
    state.traps["Carthag"] = Trap(card=state.treachery_deck.pop())
    state = answer_defaults_until(state, H)
    state, events = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=2))
    assert state.traps["Carthag"].triggered_by == H
    assert any(e.type == "trap_triggered" and e.public for e in events)
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    assert CARTHAG not in prompt_of(state, H, PromptKind.MOVEMENT).options


def test_r_24_frozen_tokens_cannot_leave_by_any_means():
    state, _ = arrange(forces={TUEKS: {G: 5}}, spice={G: 5}, traps={"Tuek's Sietch": G})
    state = answer_defaults_until(state, G)
    from engine.actions import ShipToReserves

    assert refused(state, ShipToReserves(faction=G, from_location=TUEKS, tokens=1)).rule == "R-24"


def test_r_33_no_moving_does_not_bar_guild_cross_shipping():
    from engine.model import Impairment

    state, _ = arrange(forces={TUEKS: {G: 5}}, spice={G: 10})
    state.bt.impairments = [Impairment(faction=G, kind="no_moving", turn=state.turn)]
    state = answer_defaults_until(state, G)
    shipped, _ = apply(state, Ship(faction=G, from_location=TUEKS, to_location=CARTHAG, tokens=2))
    assert shipped.tokens_at(CARTHAG, G) == 2
    state.bt.impairments = [Impairment(faction=G, kind="no_shipping", turn=state.turn)]
    with pytest.raises(RuleViolation) as refusal:
        apply(state, Ship(faction=G, from_location=TUEKS, to_location=CARTHAG, tokens=1))
    assert refusal.value.rule == "BT-16"


def test_r_7_after_an_open_field_battle_the_bt_may_betray_the_winner_at_once():
    """R-7 with BT-23, BT-24: a marked leader wins in the open; the BT reveal him before the next battle."""
    from engine.actions import AnswerRevealWindow, CallTraitor
    from tests.helpers.positions.battle import FLAT, plan, put
    from tests.helpers.positions.bt_attacks import bt_arena as arena_with_bt

    def battle(marked: bool):
        state = arena_with_bt()
        state.bt.marked = ["hasimir_fenring"] if marked else []
        put(state, E, FLAT, 6)
        put(state, H, FLAT, 5)
        from tests.conftest import apply_all, enter_phase

        state, _ = enter_phase(state, Phase.BATTLE)
        state, _ = apply_all(state, plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2),
                             CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
        return state

    marked, unmarked = battle(True), battle(False)
    from engine.secrecy.views import view

    for viewer in (None, E, H, G):  # the window opens either way: it tells nobody about the mark
        assert view(marked, viewer) == view(unmarked, viewer)
    assert prompt_of(marked, BT, PromptKind.BT_REVEAL_WINDOW).options == ["hasimir_fenring", "pass"]
    state, events = apply(marked, AnswerRevealWindow(faction=BT, leader="hasimir_fenring"))
    assert any(e.type == "bt_traitor_revealed" and e.data["effect"] for e in events)
    from tests.conftest import let_reveal_stand

    state, _ = let_reveal_stand(state)  # BT-51: nobody cancels it with Karama
    assert "hasimir_fenring" in state.faction(E).leaders_in_tanks
    assert state.tokens_at(FLAT, E) == 0 and "The Great Flat" in state.bt.controlled
