"""What the engine's public prompts of the turn say is legal and what it costs (issue 13: menus are built from the
engine's legal choices): the revival's prices (A-7, BT-60), the shipment's rates, spice and closed places (1979
rules: Shipment; A-23, A-26), the movement's range and co-existence (A-15, A-22), impairments (BT-16), the Nexus
(A-8). A decision whose choices change is asked again under a new id. Each number a prompt gives is the one the
rule's handler then charges."""

from __future__ import annotations

import pytest

from bot.app.render import decision_card
from engine.actions import (
    AcceptAlliance,
    BreakAlliance,
    EndNexus,
    PlayGhola,
    ProposeAlliance,
    Revive,
    SetCoexistence,
    Ship,
    ShipToReserves,
)
from engine.events import EventLog
from engine.game import apply
from engine.model import Impairment, Phase, PromptKind
from engine.phases.revival import revival_cost
from engine.phases.shipment import ship_back_cost, shipment_cost
from engine.rules.alliances import open_nexus
from tests.conftest import BG, BT, A, E, G, H, prompt_of, refused
from tests.helpers.positions.bt_traitors import ATREIDES, DUNCAN, at, position
from tests.helpers.positions.movement import ARRAKEEN, CARTHAG, GREAT_FLAT, SINK, TUEKS, answer_defaults_until, arrange

# --- revival (A-7, A-15, BT-60) ------------------------------------------------------------------------


def revival_asked(**position_changes):
    """The revival step of the movement round (turn 2) in a game of exactly this position."""
    return at(position(factions=(A, E, H, BT), **position_changes), Phase.MOVEMENT)


@pytest.mark.parametrize("tanks, dead, spice", [({A: 5}, {}, 10), ({A: 2, H: 4}, {A: ATREIDES}, 3),
                                                ({}, {A: ATREIDES}, 20)])
def test_a_7_the_revival_prompt_prices_every_choice_as_the_revival_is_charged(tanks, dead, spice):
    state = revival_asked(tanks=tanks, dead=dead, spice={A: spice})
    prompt = prompt_of(state, A, PromptKind.REVIVAL)
    d = prompt.detail
    assert d["spice"] == spice and len(d["token_costs"]) == d["max_tokens"] + 1
    for count, token_cost in enumerate(d["token_costs"]):
        assert token_cost == revival_cost(state, A, count, None)
        for leader in [None, *d["leader_costs"]]:
            price = token_cost + d["leader_costs"].get(leader, 0)
            assert price == revival_cost(state, A, count, leader)  # a revival costs the sum of its parts
            if price <= spice:
                after = apply(state, Revive(faction=A, tokens=count, leader=leader)).state
                assert after.faction(A).spice == spice - price
            else:
                refused(state, Revive(faction=A, tokens=count, leader=leader), rule="A-7")


def test_bt_60_an_ally_of_the_bt_is_offered_everything_free():
    state = revival_asked(tanks={A: 8}, dead={A: [DUNCAN, "thufir_hawat"]}, alliances=[(A, BT)], spice={A: 0},
                          ally_revival="grant")
    d = prompt_of(state, A, PromptKind.REVIVAL).detail
    assert d["token_costs"] == [0] * 7 and d["leader_costs"] == {"thufir_hawat": 0, DUNCAN: 0}
    assert d["max_leaders"] == 2 and d["bt_alliance"] and d["spice"] == 0


def test_a_ghola_played_during_revival_asks_the_revival_again_under_a_new_id():
    """What is left to revive changed: the old decision closes (its card's controls were made for its choices) and
    a new one opens with the new choices."""
    state = revival_asked(tanks={A: 5}, hands={A: ["tleilaxu_ghola"]})
    before = prompt_of(state, A, PromptKind.REVIVAL)
    state = apply(state, PlayGhola(faction=A, tokens=4)).state
    after = prompt_of(state, A, PromptKind.REVIVAL)
    assert after.id != before.id and state.prompt(before.id) is None
    assert (before.detail["max_tokens"], after.detail["max_tokens"]) == (3, 1)


# --- shipment (1979 rules: Shipment) ---------------------------------------------------------


@pytest.mark.parametrize("shipper, allies, where, count", [
    (A, (), ARRAKEEN, 3), (A, (), GREAT_FLAT, 3), (G, (), ARRAKEEN, 3), (G, (), GREAT_FLAT, 5),
    (E, [(E, G)], GREAT_FLAT, 3), (E, [(E, G)], TUEKS, 1)])
def test_a_23_a_26_the_cost_the_shipment_prompt_gives_is_what_the_shipment_is_charged(shipper, allies, where, count):
    state, _ = arrange(spice={shipper: 30}, alliances=allies)
    state = answer_defaults_until(state, shipper)
    d = prompt_of(state, shipper, PromptKind.SHIPMENT).detail
    rate = d["stronghold_rate"] if where in d["strongholds"] else d["elsewhere_rate"]
    assert (where in d["strongholds"]) == (where in (ARRAKEEN, TUEKS))
    cost = shipment_cost(count, rate, d["half_price"])
    after = apply(state, Ship(faction=shipper, to_location=where, tokens=count)).state
    assert after.faction(shipper).spice == 30 - cost == d["spice"] - cost


def test_a_23_the_guild_ship_back_at_the_cost_the_prompt_gives():
    state, _ = arrange(forces={GREAT_FLAT: {G: 5}}, spice={G: 10})
    state = answer_defaults_until(state, G)
    d = prompt_of(state, G, PromptKind.SHIPMENT).detail
    assert d["ship_from"] == [GREAT_FLAT] and d["tokens_at"] == {GREAT_FLAT: 5}
    after = apply(state, ShipToReserves(faction=G, from_location=GREAT_FLAT, tokens=5)).state
    assert after.faction(G).spice == 10 - ship_back_cost(5) == 7


def test_the_shipment_prompt_says_which_strongholds_are_closed_and_leaves_out_the_storm():
    state, _ = arrange(forces={CARTHAG: {H: 2, BG: 1}}, storm=14)
    state = answer_defaults_until(state, A)
    prompt = prompt_of(state, A, PromptKind.SHIPMENT)
    assert prompt.detail["full_strongholds"] == ["Carthag"]
    assert CARTHAG not in prompt.options and GREAT_FLAT not in prompt.options and ARRAKEEN in prompt.options


def test_bt_16_an_impaired_faction_is_told_so_by_its_shipment_and_movement_prompts():
    state = position(factions=(A, E, H, BT), forces={GREAT_FLAT: {A: 3}})
    state.bt.impairments = [Impairment(faction=A, kind="no_shipping", turn=state.turn),
                            Impairment(faction=A, kind="no_moving", turn=state.turn)]
    state = answer_defaults_until(at(state, Phase.MOVEMENT), A)
    assert prompt_of(state, A, PromptKind.SHIPMENT).detail["impaired"]
    state = answer_defaults_until(state, A, PromptKind.MOVEMENT)
    movement = prompt_of(state, A, PromptKind.MOVEMENT)
    assert movement.detail["impaired"]
    card = decision_card(state, movement, None).text  # issue 25 item 12: not "You may move one group"
    assert "A Bene Tleilaxu worthless card bars you from moving your tokens this turn (BT-16): you can only move " \
        "nothing." in card and "You may move" not in card


# --- movement (A-15, A-22) -----------------------------------------------------------------------------


@pytest.mark.parametrize("forces, ornithopters, distance", [({GREAT_FLAT: {A: 3}}, False, 1),
                                                            ({ARRAKEEN: {A: 3}}, True, 3)])
def test_a_22_the_movement_prompt_says_whether_ornithopters_give_the_range(forces, ornithopters, distance):
    state, _ = arrange(forces=forces)
    state = answer_defaults_until(state, A, PromptKind.MOVEMENT)
    d = prompt_of(state, A, PromptKind.MOVEMENT).detail
    assert (d["ornithopters"], d["range"]) == (ornithopters, distance)
    assert "coexist" not in d


def test_a_15_co_existence_declared_asks_the_bene_gesserit_movement_again():
    state, _ = arrange(forces={ARRAKEEN: {A: 3, BG: 2}, SINK: {BG: 1}}, character_advantages=True)
    state = answer_defaults_until(state, BG, PromptKind.MOVEMENT)
    before = prompt_of(state, BG, PromptKind.MOVEMENT)
    assert before.detail["coexist"] == {"advisors": ["Arrakeen", "Polar Sink"], "fighters": []}
    assert before.options == [ARRAKEEN, SINK]
    state = apply(state, SetCoexistence(faction=BG, territory="Arrakeen", advisors=True)).state
    after = prompt_of(state, BG, PromptKind.MOVEMENT)
    assert after.id != before.id and after.options == [SINK]  # the advisors do not move
    assert after.detail["coexist"] == {"advisors": ["Polar Sink"], "fighters": ["Arrakeen"]}


# --- the Nexus (A-8) -----------------------------------------------------------------------------------


def nexus(alliances=()):
    state = position(factions=(A, E, H, BT), alliances=alliances).model_copy(deep=True)
    state.prompts = []
    open_nexus(state, EventLog())
    return state


def test_a_8_the_nexus_prompt_offers_the_legal_proposals_and_no_offer_before_one_is_made():
    state = nexus(alliances=[(E, H)])
    d = prompt_of(state, A, PromptKind.NEXUS).detail
    assert d["propose_to"] == [BT.value] and d["offers"] == [] and not d["may_break"]  # E and H: full (size 2)
    d = prompt_of(state, E, PromptKind.NEXUS).detail
    assert (d["allies"], d["may_break"], d["propose_to"]) == ([H.value], True, [])


def test_a_8_an_offer_asks_its_receiver_again_with_the_offer_to_accept():
    state = nexus()
    asked, harkonnen = prompt_of(state, BT, PromptKind.NEXUS), prompt_of(state, H, PromptKind.NEXUS)
    state = apply(state, ProposeAlliance(faction=A, partner=BT)).state
    again = prompt_of(state, BT, PromptKind.NEXUS)
    assert again.id != asked.id and again.detail["offers"] == [A.value]
    assert prompt_of(state, H, PromptKind.NEXUS) == harkonnen  # nothing changed for the Harkonnen: the same decision

    state = apply(state, AcceptAlliance(faction=BT, partner=A)).state
    for faction, ally in ((A, BT), (BT, A)):
        d = prompt_of(state, faction, PromptKind.NEXUS).detail
        assert d["allies"] == [ally.value] and d["may_break"] and d["offers"] == [] and d["propose_to"] == []
    assert prompt_of(state, H, PromptKind.NEXUS).detail["propose_to"] == [E.value]  # A and BT are full

    state = apply(state, BreakAlliance(faction=A)).state
    assert not prompt_of(state, BT, PromptKind.NEXUS).detail["may_break"]


def test_a_8_a_faction_done_with_the_nexus_is_offered_to_nobody_but_its_offer_may_be_accepted():
    state = nexus()
    state = apply(state, ProposeAlliance(faction=E, partner=A)).state
    state = apply(state, EndNexus(faction=E)).state
    assert E.value not in prompt_of(state, H, PromptKind.NEXUS).detail["propose_to"]
    assert prompt_of(state, A, PromptKind.NEXUS).detail["offers"] == [E.value]
    state = apply(state, AcceptAlliance(faction=A, partner=E)).state
    assert state.alliances == [[A, E]]
