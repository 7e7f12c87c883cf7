"""A refusal names the rule that forbids the action, not the rule of whichever decision happens to be closed
(engine/rules/refusals.py): the BT ship, move, revive or fight nothing (BT-1) and never dial (BT-3); one revival a turn
(A-7); no bid after a final pass (A-6); the faction whose decision it is, and when."""

from __future__ import annotations

import pytest

from engine.actions import (
    AskPrescience,
    Bid,
    CallTraitor,
    ChooseBattle,
    ChooseTraitor,
    DialStorm,
    Move,
    PassBid,
    PlaceWorm,
    PredictWinner,
    Revive,
    RideWorm,
    SendAdvisor,
    Ship,
    SkipMove,
    SkipShipment,
    SubmitBattlePlan,
    UseVoice,
)
from engine.errors import ViolationCode
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.options import FixedSetup
from engine.phases.bidding import RULE as RULE_BIDDING
from tests.conftest import BG, BT, A, E, F, G, H, prompt_of, ready_game, refused, start
from tests.helpers.positions.bidding import game
from tests.helpers.positions.movement import ARRAKEEN, CARTHAG, SINK, _stop_when_battles_begin, arrange  # noqa: F401

NOT_ALLOWED, WRONG_PHASE = ViolationCode.NOT_ALLOWED, ViolationCode.WRONG_PHASE


# --- BT-1, BT-3: what the Bene Tleilaxu never do ----------------------------------------------------------------


@pytest.mark.parametrize("action", [
    Ship(faction=BT, to_location=CARTHAG, tokens=1),
    SkipShipment(faction=BT),
    Move(faction=BT, from_location=SINK, to_location=ARRAKEEN, tokens=1),
    SkipMove(faction=BT),
    Revive(faction=BT, tokens=1),
    ChooseBattle(faction=BT, territory="Arrakeen", opponent=A),
    CallTraitor(faction=BT, call=True),
    RideWorm(faction=BT, to_location=SINK),
], ids=lambda action: action.type)
def test_bt_1_the_bt_have_no_tokens_to_ship_move_or_revive_and_fight_no_battles(action):
    state, _ = arrange(tanks={A: 2})
    refusal = refused(state, action, "BT-1", NOT_ALLOWED)
    assert "Bene Tleilaxu" in refusal.message and "no tokens" in refusal.message


def test_bt_1_the_bt_choose_no_traitor_at_setup():
    refusal = refused(start(), ChooseTraitor(faction=BT, leader="duncan_idaho"), "BT-1", NOT_ALLOWED)
    assert "no traitor cards" in refusal.message


@pytest.mark.parametrize("moment", ["storm round", "movement round"])
def test_bt_3_the_bt_never_dial_the_storm(moment):
    state = ready_game() if moment == "storm round" else arrange()[0]
    refusal = refused(state, DialStorm(faction=BT, value=2), "BT-3", NOT_ALLOWED)
    assert "never dial" in refusal.message


# --- one revival a turn, at the start of the movement round ------------------------------------------------


def test_a_7_a_second_revival_in_a_turn_is_refused_as_one_revival_a_turn():
    state, _ = arrange(tanks={A: 5, H: 2})
    state, _ = apply(state, Revive(faction=A, tokens=1))
    refusal = refused(state, Revive(faction=A, tokens=1), "A-7", NOT_ALLOWED)
    assert "one revival a turn" in refusal.message
    state, _ = apply(state, Revive(faction=H, tokens=0))  # the shipments begin: still the same turn
    assert prompt_of(state, A, PromptKind.SHIPMENT)
    refusal = refused(state, Revive(faction=A, tokens=1), "A-7", NOT_ALLOWED)
    assert "one revival a turn" in refusal.message


def test_a_7_revival_outside_the_start_of_the_movement_round_is_refused_as_such():
    state, _ = arrange(tanks={H: 2})
    state, _ = apply(state, Revive(faction=H, tokens=2))
    state.faction(A).tanks, state.faction(A).reserves = 2, state.faction(A).reserves - 2  # lost since
    refusal = refused(state, Revive(faction=A, tokens=1), "A-7", WRONG_PHASE)
    assert "start of the movement round" in refusal.message


def test_a_7_a_faction_with_nothing_in_the_tanks_has_nothing_to_revive():
    state, _ = arrange(tanks={H: 2})
    refusal = refused(state, Revive(faction=A, tokens=1), "A-7", NOT_ALLOWED)
    assert "nothing in the tanks" in refusal.message


# --- A-6 and the bidding order ------------------------------------------------------------------------------------


def test_a_6_a_bid_after_a_final_pass_is_refused_by_a_6():
    """Bids go round A, E, F, H; the Atreides pass on the first card and may not come back in (pass_is_final)."""
    state, _ = game()
    state, _ = apply(state, PassBid(faction=A))
    refusal = refused(state, Bid(faction=A, amount=3), "A-6", NOT_ALLOWED)
    assert "passed" in refusal.message and "this card" in refusal.message
    refused(state, PassBid(faction=A), "A-6", NOT_ALLOWED)


def test_a_6_without_final_passes_a_faction_that_passed_waits_for_its_turn_again():
    state, _ = game(pass_is_final=False)
    state, _ = apply(state, PassBid(faction=A))
    refusal = refused(state, Bid(faction=A, amount=3), RULE_BIDDING, WRONG_PHASE)
    assert "Emperor" in refusal.message and "to bid" in refusal.message


def test_bidding_out_of_turn_names_whose_turn_it_is():
    state, _ = game()
    refusal = refused(state, Bid(faction=E, amount=1), RULE_BIDDING, WRONG_PHASE)
    assert "Atreides" in refusal.message and "to bid" in refusal.message


def test_bidding_outside_the_bidding_round_is_refused_as_the_wrong_phase():
    state, _ = arrange()
    refusal = refused(state, Bid(faction=A, amount=1), RULE_BIDDING, WRONG_PHASE)
    assert "bidding round" in refusal.message


# --- whose turn it is in the movement round ------------------------------------------------------------------------


def test_shipping_out_of_turn_names_whose_turn_it_is():
    """Storm order A, BG, E, F, G, H (tests/test_movement.py): the Atreides ship first."""
    state, _ = arrange(forces={CARTHAG: {H: 5}})
    refusal = refused(state, Ship(faction=H, to_location=CARTHAG, tokens=1), "1979 rules: Shipment", WRONG_PHASE)
    assert "Atreides" in refusal.message
    refused(state, SkipMove(faction=H), "1979 rules: Movement", WRONG_PHASE)


def test_moving_before_shipping_in_ones_own_turn_is_refused_as_out_of_order():
    state, _ = arrange(forces={SINK: {A: 5}})
    refusal = refused(state, Move(faction=A, from_location=SINK, to_location=ARRAKEEN, tokens=1),
                      "1979 rules: Movement", WRONG_PHASE)
    assert "ship" in refusal.message


def test_a_second_shipment_in_a_turn_is_refused_as_one_shipment_a_turn():
    state, _ = arrange(forces={SINK: {A: 5}})
    state, _ = apply(state, SkipShipment(faction=A))
    refusal = refused(state, Ship(faction=A, to_location=ARRAKEEN, tokens=1), "1979 rules: Shipment", NOT_ALLOWED)
    assert "One shipment a turn" in refusal.message


def test_a_15_the_guild_asked_whether_they_go_now_are_told_to_answer_that_first():
    state, _ = arrange(forces={SINK: {A: 5, G: 5}}, character_advantages=True)
    assert prompt_of(state, G, PromptKind.GUILD_TIMING)
    refusal = refused(state, Ship(faction=G, to_location=ARRAKEEN, tokens=1), "A-15", WRONG_PHASE)
    assert "guild timing" in refusal.message


def test_shipping_outside_the_movement_round_is_refused_as_the_wrong_phase():
    state, _ = game()
    refusal = refused(state, Ship(faction=A, to_location=ARRAKEEN, tokens=1), "1979 rules: Shipment", WRONG_PHASE)
    assert "movement round" in refusal.message


# --- decisions that belong to one faction -------------------------------------------------------------------------


@pytest.mark.parametrize(("action", "rule", "owner"), [
    (SendAdvisor(faction=A, accept=True), "1979 rules: Bene Gesserit spiritual advisor", "Bene Gesserit"),
    (PredictWinner(faction=A, predicted=H, turn=3), "Setup: Bene Gesserit prediction", "Bene Gesserit"),
    (UseVoice(faction=H), "1979 rules: Battles", "Bene Gesserit"),
    (AskPrescience(faction=H), "1979 rules: Battles", "Atreides"),
    (PlaceWorm(faction=A, territory="The Great Flat"), "A-21", "Fremen"),
], ids=lambda value: getattr(value, "type", ""))
def test_a_decision_of_one_faction_is_refused_to_the_others_with_its_rule(action, rule, owner):
    state, _ = arrange(tanks={A: 2})
    refusal = refused(state, action, rule, NOT_ALLOWED)
    assert owner in refusal.message


def test_the_harkonnen_choose_no_traitor_they_keep_all_four():
    refusal = refused(start(), ChooseTraitor(faction=H, leader="duncan_idaho"), "Setup: traitors", NOT_ALLOWED)
    assert "keep all four" in refusal.message


# --- who dials the storm ---------------------------------------------------------------------------------------


def test_a_1_a_faction_that_is_not_a_dialer_is_told_who_dials():
    """Turn 1 with the storm at 18 (tests/test_storm.py): the Atreides and the Harkonnen dial."""
    state = ready_game(fixed=FixedSetup(dots={A: 18, BG: 3, E: 6, F: 9, G: 12, H: 15}))
    assert state.phase == Phase.STORM
    refusal = refused(state, DialStorm(faction=F, value=3), "A-1", NOT_ALLOWED)
    assert "Atreides and Harkonnen dial" in refusal.message
    state, _ = apply(state, DialStorm(faction=A, value=3))
    refusal = refused(state, DialStorm(faction=A, value=4), "A-1", NOT_ALLOWED)
    assert "already dialed" in refusal.message


def test_a_1_dialing_outside_the_storm_round_is_refused_as_the_wrong_phase():
    state, _ = arrange()
    refusal = refused(state, DialStorm(faction=A, value=3), "A-1", WRONG_PHASE)
    assert "storm round" in refusal.message


# --- battles ---------------------------------------------------------------------------------------------------------


def test_a_battle_plan_outside_a_battle_is_refused_as_the_wrong_phase():
    state, _ = arrange()
    refused(state, SubmitBattlePlan(faction=A, leader="duncan_idaho", dial=1), "1979 rules: Battles", WRONG_PHASE)
