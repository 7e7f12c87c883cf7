"""Shipment and movement (1979 rules: Movement; A-4, A-8, A-14, A-22, A-23, A-26; BT-31, R-24).

Positions are stated exactly (docs/positions.md: board, tanks, spice, alliances, Karama orders) at the start of
the movement round (engine/phases/movement.py)."""

from __future__ import annotations

import pytest

from engine.actions import (
    ForceDefault,
    Move,
    Revive,
    SendAdvisor,
    Ship,
    ShipToReserves,
    SkipMove,
    SkipShipment,
)
from engine.checks.autoplay import play_prompt
from engine.checks.invariants import violations
from engine.errors import ViolationCode
from engine.flow import DEFAULTS
from engine.game import apply
from engine.ids import BASE_FACTIONS
from engine.model import Phase, PromptKind
from engine.phases.movement import move_range, reachable_locations
from engine.rng import Rng
from engine.rules.karama import Advantage
from tests.conftest import BG, A, E, F, G, H, prompt_of, refused
from tests.helpers.positions.movement import (
    ARRAKEEN,
    CARTHAG,
    DATA,
    GREAT_FLAT,
    SINK,
    TABR,
    TUEKS,
    _stop_when_battles_begin,
    answer_defaults_until,
    arrange,
    public,
    tokens_consistent,
)

_stop_when_battles_begin = _stop_when_battles_begin  # autouse: the movement round alone


# --- building positions ----------------------------------------------------------------------


def finish(state):
    """Every open decision takes its default until the movement round is over."""
    events = []
    while state.phase == Phase.MOVEMENT and state.prompts:
        prompt = state.prompts[0]
        state, new = apply(state, DEFAULTS[prompt.kind](state, prompt))
        events += new
    return state, events


# --- the Atreides peek and the order of turns ------------------------------------------------


def test_atreides_see_the_top_spice_card_in_private():
    """1979 rules (Atreides): before shipping starts, the Atreides see the top card of the spice deck."""
    state, events = arrange()
    seen = [e for e in events if e.type == "spice_deck_seen"]
    assert len(seen) == 1 and seen[0].audience == (A,)
    assert seen[0].data["card"] == state.spice_deck[0]
    assert all(state.spice_deck[0] not in str(e.data) for e in public(events))


def test_karama_stops_the_atreides_peek():
    """A-14: a Karama readied against seeing the spice deck cancels the peek, in public."""
    state, events = arrange(karama=[(H, "karama_1", Advantage.SEE_SPICE_DECK)])
    assert not [e for e in events if e.type == "spice_deck_seen"]
    assert [e.type for e in public(events)].count("karama_played") == 1
    assert "karama_1" in state.treachery_discard and "karama_1" not in state.faction(H).hand


@pytest.mark.parametrize(("storm", "order"), [(1, [A, BG, E, F, G, H]), (10, [F, G, H, A, BG, E])])
def test_factions_ship_and_move_in_storm_order_and_the_bt_never(storm, order):
    """A-4: storm order; R-1 / BT-1: the BT come last but have no tokens, so they never take a turn."""
    state, events = arrange(storm=storm, forces={SINK: {f: 1 for f in BASE_FACTIONS}})
    announced = next(e for e in events if e.type == "shipment_order")
    assert announced.public and announced.data["order"] == [f.value for f in order]
    asked = []
    while state.phase == Phase.MOVEMENT:
        prompt = state.prompts[0]
        if prompt.kind == PromptKind.SHIPMENT:
            asked.append(prompt.faction)
        state = apply(state, DEFAULTS[prompt.kind](state, prompt)).state
    assert asked == order


def test_each_faction_ships_then_moves_and_the_round_ends():
    state, _ = arrange(forces={SINK: {A: 2}})
    assert [(p.faction, p.kind, p.secret) for p in state.prompts] == [(A, PromptKind.SHIPMENT, False)]
    state = apply(state, SkipShipment(faction=A)).state
    assert [(p.faction, p.kind) for p in state.prompts] == [(A, PromptKind.MOVEMENT)]
    state = apply(state, SkipMove(faction=A)).state
    assert [(p.faction, p.kind) for p in state.prompts] == [(BG, PromptKind.SHIPMENT)]
    state, events = finish(state)
    assert state.movement is None and state.phase == Phase.BATTLE
    assert [e.type for e in events if e.type in ("movement_over", "phase_started")] == ["movement_over",
                                                                                         "phase_started"]


def test_acting_out_of_turn_is_refused():
    state, _ = arrange(forces={CARTHAG: {H: 5}})
    assert refused(state, Ship(faction=H, to_location=CARTHAG, tokens=1)).code == ViolationCode.WRONG_PHASE
    assert refused(state, Move(faction=A, from_location=SINK, to_location=SINK, tokens=1)).code == \
        ViolationCode.WRONG_PHASE
    assert refused(state, SkipMove(faction=A)).code == ViolationCode.WRONG_PHASE  # A ships first


def test_a_faction_with_no_tokens_anywhere_gets_no_turn():
    """All 20 Emperor tokens in the tanks and none revived: nothing to ship or move."""
    state, _ = arrange(tanks={E: 20})
    state = apply(state, Revive(faction=E, tokens=0)).state
    asked = set()
    while state.phase == Phase.MOVEMENT:
        prompt = state.prompts[0]
        asked.add(prompt.faction)
        state = apply(state, DEFAULTS[prompt.kind](state, prompt)).state
    assert E not in asked and asked == {A, BG, F, G, H}


# --- shipment costs and payees ---------------------------------------------------------------


def test_shipping_into_a_stronghold_costs_one_per_token_paid_to_the_guild():
    """1979 rules: Shipment: 1 spice per token into a stronghold, paid to the Guild."""
    state, _ = arrange(spice={H: 10, G: 5})
    state = answer_defaults_until(state, H)
    state, events = apply(state, Ship(faction=H, to_location="Carthag", tokens=3))
    assert state.faction(H).spice == 7 and state.faction(G).spice == 8
    assert state.tokens_at(CARTHAG, H) == 3 and state.faction(H).reserves == 17
    shipped = next(e for e in events if e.type == "shipped")
    assert shipped.public and shipped.message == "The Harkonnen ship 3 tokens to Carthag for 3 spice, paid to the " \
        "Spacing Guild."
    tokens_consistent(state)


def test_shipping_elsewhere_costs_two_per_token():
    state, _ = arrange(spice={H: 10, G: 5})
    state = answer_defaults_until(state, H)
    state, _ = apply(state, Ship(faction=H, to_location="Imperial Basin#8", tokens=2))
    assert state.faction(H).spice == 6 and state.faction(G).spice == 9
    tokens_consistent(state)


def test_without_the_guild_shipment_is_paid_to_the_bank():
    state, _ = arrange((A, BG, F, H), spice={H: 10})
    state = answer_defaults_until(state, H)
    outside = state.spice_outside_bank
    state, events = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=3))
    assert state.faction(H).spice == 7 and state.spice_outside_bank == outside - 3
    assert "paid to the bank" in next(e for e in events if e.type == "shipped").message
    tokens_consistent(state)


@pytest.mark.parametrize(("tokens", "to", "cost"), [(3, CARTHAG, 2), (1, GREAT_FLAT, 1), (3, GREAT_FLAT, 3)])
def test_the_guild_pays_half_rounded_up_to_the_bank(tokens, to, cost):
    """A-23: the Guild pays half the normal cost, rounded up; it does not pay itself."""
    state, _ = arrange(spice={G: 5})
    state = answer_defaults_until(state, G)
    outside = state.spice_outside_bank
    state, _ = apply(state, Ship(faction=G, to_location=to, tokens=tokens))
    assert state.faction(G).spice == 5 - cost and state.spice_outside_bank == outside - cost
    tokens_consistent(state)


@pytest.mark.parametrize(("tokens", "to", "cost"), [(3, CARTHAG, 2), (5, "Imperial Basin#8", 5)])
def test_the_guilds_ally_ships_at_the_half_rate_paid_to_the_guild(tokens, to, cost):
    """A-26: the Guild's allies ship at the Guild's half rate, rounded up."""
    state, _ = arrange(spice={H: 10, G: 5}, alliances=[(H, G)])
    state = answer_defaults_until(state, H)
    assert prompt_of(state, H, PromptKind.SHIPMENT).detail["half_price"] is True
    state, _ = apply(state, Ship(faction=H, to_location=to, tokens=tokens))
    assert state.faction(H).spice == 10 - cost and state.faction(G).spice == 5 + cost


def test_karama_makes_the_guild_pay_full_price():
    """A-14: Karama cancels the Guild's half price for one shipment."""
    state, _ = arrange(spice={G: 5}, karama=[(E, "karama_1", Advantage.HALF_PRICE_SHIPPING)])
    state = answer_defaults_until(state, G)
    state, events = apply(state, Ship(faction=G, to_location=CARTHAG, tokens=3))
    assert state.faction(G).spice == 2
    assert [e.type for e in public(events)][:2] == ["karama_played", "shipped"]


def test_a_guild_that_cannot_pay_full_price_after_karama_decides_again():
    """A-14: the half price is cancelled; at full price the shipment is unaffordable, so it is not made and
    the Guild is asked again (still at full price), the Karama spent."""
    state, _ = arrange(spice={G: 2}, karama=[(E, "karama_1", Advantage.HALF_PRICE_SHIPPING)])
    state = answer_defaults_until(state, G)
    state, events = apply(state, Ship(faction=G, to_location=CARTHAG, tokens=3))
    assert state.faction(G).reserves == 20 and state.faction(G).spice == 2
    assert "karama_1" in state.treachery_discard
    assert prompt_of(state, G, PromptKind.SHIPMENT).detail["half_price"] is False
    assert refused(state, Ship(faction=G, to_location=CARTHAG, tokens=3)).code == ViolationCode.NOT_ALLOWED
    state, _ = apply(state, Ship(faction=G, to_location=CARTHAG, tokens=2))
    assert state.faction(G).spice == 0 and state.tokens_at(CARTHAG, G) == 2


def test_karama_sends_the_shipment_payment_to_the_bank():
    """A-14: Karama cancels the Guild's receipt of a shipment payment; it goes to the bank."""
    state, _ = arrange(spice={H: 10, G: 5}, karama=[(A, "karama_2", Advantage.SHIPMENT_PAYMENTS)])
    state = answer_defaults_until(state, H)
    outside = state.spice_outside_bank
    state, events = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=3))
    assert state.faction(G).spice == 5 and state.faction(H).spice == 7 and state.spice_outside_bank == outside - 3
    assert "paid to the bank" in next(e for e in events if e.type == "shipped").message


def test_an_unaffordable_shipment_is_refused():
    state, _ = arrange(spice={H: 2})
    state = answer_defaults_until(state, H)
    refusal = refused(state, Ship(faction=H, to_location=CARTHAG, tokens=3))
    assert refusal.code == ViolationCode.NOT_ALLOWED and "costs 3 spice; you have 2" in refusal.message


def test_shipping_more_tokens_than_in_reserve_is_refused():
    state, _ = arrange(forces={SINK: {H: 18}}, spice={H: 10})
    state = answer_defaults_until(state, H)
    assert "2 tokens in reserve" in refused(state, Ship(faction=H, to_location=CARTHAG, tokens=3)).message


def test_an_ally_may_pay_part_of_a_shipment():
    """A-8: allies may pay for each other's shipments."""
    state, _ = arrange(spice={H: 1, A: 10, G: 0}, alliances=[(A, H)])
    state = answer_defaults_until(state, H)
    state, events = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=3, ally_pays=2))
    assert (state.faction(H).spice, state.faction(A).spice, state.faction(G).spice) == (0, 8, 3)
    assert "(the Atreides pay 2 of it, A-8)" in next(e for e in events if e.type == "shipped").message
    no_ally, _ = arrange(spice={H: 1})
    no_ally = answer_defaults_until(no_ally, H)
    assert refused(no_ally, Ship(faction=H, to_location=CARTHAG, tokens=3, ally_pays=2)).rule == "A-8"


# --- the Guild's cross-shipping and shipping back (A-23) --------------------------------------


def test_the_guild_ships_territory_to_territory_at_half_the_destination_rate():
    state, _ = arrange(forces={TUEKS: {G: 5}}, spice={G: 5})
    state = answer_defaults_until(state, G)
    assert prompt_of(state, G, PromptKind.SHIPMENT).detail["ship_from"] == [TUEKS]
    state, events = apply(state, Ship(faction=G, from_location="Tuek's Sietch", to_location=GREAT_FLAT, tokens=3))
    assert state.tokens_at(TUEKS, G) == 2 and state.tokens_at(GREAT_FLAT, G) == 3
    assert state.faction(G).spice == 2 and state.faction(G).reserves == 15
    assert not [p for p in state.prompts if p.kind == PromptKind.SPIRITUAL_ADVISOR]  # not from off-planet
    tokens_consistent(state)


def test_the_guild_ships_back_to_reserves_for_one_spice_per_two_tokens():
    state, _ = arrange(forces={TUEKS: {G: 5}}, spice={G: 5})
    state = answer_defaults_until(state, G)
    state, events = apply(state, ShipToReserves(faction=G, from_location=TUEKS, tokens=3))
    assert state.tokens_at(TUEKS, G) == 2 and state.faction(G).reserves == 18 and state.faction(G).spice == 3
    tokens_consistent(state)


def test_only_the_guild_may_cross_ship_or_ship_back():
    """A-23, A-26: nobody else, not even the Guild's ally, ships from the board."""
    state, _ = arrange(forces={CARTHAG: {H: 5}}, spice={H: 10}, alliances=[(H, G)])
    state = answer_defaults_until(state, H)
    assert prompt_of(state, H, PromptKind.SHIPMENT).detail["ship_from"] == []
    assert refused(state, Ship(faction=H, from_location=CARTHAG, to_location=ARRAKEEN, tokens=2)).rule == "A-23"
    assert refused(state, ShipToReserves(faction=H, from_location=CARTHAG, tokens=2)).rule == "A-23"


def test_karama_cancels_the_guilds_shipment_from_the_board():
    """A-14: the cross-shipment is not made; the Guild decides again and may only ship from reserves."""
    state, _ = arrange(forces={TUEKS: {G: 5}}, spice={G: 5}, karama=[(H, "karama_1", Advantage.CROSS_SHIPPING)])
    state = answer_defaults_until(state, G)
    state, events = apply(state, ShipToReserves(faction=G, from_location=TUEKS, tokens=3))
    assert state.tokens_at(TUEKS, G) == 5 and state.faction(G).spice == 5
    assert "karama_played" in [e.type for e in public(events)]
    assert prompt_of(state, G, PromptKind.SHIPMENT).detail["ship_from"] == []
    assert refused(state, ShipToReserves(faction=G, from_location=TUEKS, tokens=3)).rule == "A-14"
    state, _ = apply(state, Ship(faction=G, to_location=CARTHAG, tokens=2))
    assert state.tokens_at(CARTHAG, G) == 2


# --- the Fremen (1979 rules: Fremen; A-22) ----------------------------------------------------


def test_the_fremen_bring_tokens_free_near_the_great_flat():
    """1979 rules: Shipment (Fremen): free, to The Great Flat or within two territories of it."""
    state, _ = arrange(spice={F: 3, G: 5})
    state = answer_defaults_until(state, F)
    outside = state.spice_outside_bank
    state, events = apply(state, Ship(faction=F, to_location="The Great Flat", tokens=12))
    assert state.tokens_at(GREAT_FLAT, F) == 12 and state.faction(F).reserves == 8
    assert state.faction(F).spice == 3 and state.faction(G).spice == 5 and state.spice_outside_bank == outside
    # Not a shipment from off-planet: no spiritual advisor; the Fremen move next.
    assert [(p.faction, p.kind) for p in state.prompts] == [(F, PromptKind.MOVEMENT)]


@pytest.mark.parametrize("where", ["Arrakeen", "Habbanya Sietch", "Imperial Basin#9"])
def test_the_fremen_cannot_bring_tokens_elsewhere(where):
    """1979 rules: Shipment (Fremen): nowhere farther."""
    state, _ = arrange()
    state = answer_defaults_until(state, F)
    options = prompt_of(state, F, PromptKind.SHIPMENT).options
    assert all(DATA.board.location_territory(o) in DATA.board.fremen_shipping_territories for o in options)
    assert refused(state, Ship(faction=F, to_location=where, tokens=2)).code == ViolationCode.ILLEGAL_CHOICE


# --- where shipping may go -------------------------------------------------------------------


def test_nothing_may_be_shipped_into_the_storm():
    state, _ = arrange(storm=14, spice={H: 10})
    state = answer_defaults_until(state, H)
    assert GREAT_FLAT not in prompt_of(state, H, PromptKind.SHIPMENT).options
    refusal = refused(state, Ship(faction=H, to_location=GREAT_FLAT, tokens=1))
    assert refusal.rule == "1979 rules: Storm"


def test_no_shipping_into_a_stronghold_holding_two_other_factions():
    state, _ = arrange(forces={ARRAKEEN: {A: 5, BG: 1}}, spice={A: 10, H: 10})
    assert ARRAKEEN in prompt_of(state, A, PromptKind.SHIPMENT).options  # A is one of the two
    state = answer_defaults_until(state, H)
    assert ARRAKEEN not in prompt_of(state, H, PromptKind.SHIPMENT).options
    assert "two other factions" in refused(state, Ship(faction=H, to_location="Arrakeen", tokens=1)).message


def test_a_territory_of_several_sectors_must_name_one():
    state, _ = arrange(spice={H: 10})
    state = answer_defaults_until(state, H)
    refusal = refused(state, Ship(faction=H, to_location="Imperial Basin", tokens=1))
    assert refusal.allowed == ["Imperial Basin#8", "Imperial Basin#9", "Imperial Basin#10"]


def test_shipping_into_a_trap_springs_it_and_freezes_the_tokens():
    """BT-31, R-24: the first tokens shipped into a trapped stronghold trigger it and cannot move that turn."""
    state, _ = arrange(spice={H: 10}, traps={"Arrakeen": None}, forces={GREAT_FLAT: {H: 2}})
    state = answer_defaults_until(state, H)
    state, events = apply(state, Ship(faction=H, to_location=ARRAKEEN, tokens=3))
    assert "trap_triggered" in [e.type for e in public(events)]
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    assert prompt_of(state, H, PromptKind.MOVEMENT).options == [GREAT_FLAT]
    assert refused(state, Move(faction=H, from_location=ARRAKEEN, to_location="Imperial Basin#9",
                               tokens=1)).rule == "BT-31"


# --- the Bene Gesserit spiritual advisor ------------------------------------------------------


def test_the_bg_may_send_a_free_advisor_to_the_polar_sink_after_another_ships():
    """1979 rules: Bene Gesserit spiritual advisor: after another faction ships, 1 token free to the Polar Sink."""
    state, _ = arrange(spice={H: 10, BG: 5})
    state = answer_defaults_until(state, H)
    state, _ = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=2))
    advisor = prompt_of(state, BG, PromptKind.SPIRITUAL_ADVISOR)
    assert not advisor.secret and advisor.detail["shipper"] == "harkonnen"
    assert not [p for p in state.prompts if p.faction == H]  # H moves after the BG decide
    state, events = apply(state, SendAdvisor(faction=BG, accept=True))
    assert state.tokens_at(SINK, BG) == 1 and state.faction(BG).reserves == 19 and state.faction(BG).spice == 5
    assert [(p.faction, p.kind) for p in state.prompts] == [(H, PromptKind.MOVEMENT)]
    tokens_consistent(state)


def test_declining_the_advisor_is_the_default():
    state, _ = arrange(spice={H: 10})
    state = answer_defaults_until(state, H)
    state, _ = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=2))
    advisor = prompt_of(state, BG, PromptKind.SPIRITUAL_ADVISOR)
    state, _ = apply(state, ForceDefault(admin="mod", reason="deadline", prompt_id=advisor.id))
    assert state.tokens_at(SINK, BG) == 0 and state.faction(BG).reserves == 20


def test_no_advisor_after_the_bgs_own_shipment_or_when_they_have_no_reserves():
    """1979 rules: Bene Gesserit spiritual advisor: not after their own shipment, nor without reserves."""
    state, _ = arrange(spice={BG: 5})
    state = answer_defaults_until(state, BG)
    state, _ = apply(state, Ship(faction=BG, to_location=CARTHAG, tokens=1))
    assert [(p.faction, p.kind) for p in state.prompts] == [(BG, PromptKind.MOVEMENT)]
    empty, _ = arrange(forces={SINK: {BG: 20}}, spice={H: 10})
    empty = answer_defaults_until(empty, H)
    empty, _ = apply(empty, Ship(faction=H, to_location=CARTHAG, tokens=1))
    assert not [p for p in empty.prompts if p.kind == PromptKind.SPIRITUAL_ADVISOR]


def test_karama_cancels_the_spiritual_advisor():
    state, _ = arrange(spice={H: 10}, karama=[(E, "karama_1", Advantage.SPIRITUAL_ADVISOR)])
    state = answer_defaults_until(state, H)
    state, _ = apply(state, Ship(faction=H, to_location=CARTHAG, tokens=2))
    state, events = apply(state, SendAdvisor(faction=BG, accept=True))
    assert state.tokens_at(SINK, BG) == 0 and state.faction(BG).reserves == 20
    assert "karama_played" in [e.type for e in public(events)]


# --- movement range (A-22) -------------------------------------------------------------------


def test_a_move_goes_one_territory_and_sectors_inside_a_territory_are_free():
    """1979 rules: Movement: one territory, any sectors inside it."""
    state, _ = arrange(forces={GREAT_FLAT: {H: 5}})
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    assert prompt_of(state, H, PromptKind.MOVEMENT).detail["range"] == 1
    refusal = refused(state, Move(faction=H, from_location=GREAT_FLAT, to_location="Bight Of The Cliff#14",
                                  tokens=2))
    assert refusal.rule == "A-22" and "Plastic Basin#11" in refusal.allowed
    state, events = apply(state, Move(faction=H, from_location=GREAT_FLAT, to_location="Plastic Basin#11", tokens=2))
    assert state.tokens_at("Plastic Basin#11", H) == 2 and state.tokens_at(GREAT_FLAT, H) == 3
    assert next(e for e in events if e.type == "moved").public


def test_a_move_may_just_change_sector_inside_a_territory():
    state, _ = arrange(forces={"Wind Pass#13": {H: 5}})
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    state, _ = apply(state, Move(faction=H, from_location="Wind Pass#13", to_location="Wind Pass#16", tokens=5))
    assert state.tokens_at("Wind Pass#16", H) == 5


def test_ornithopters_give_a_move_of_three_territories():
    """1979 rules: tokens in Arrakeen or Carthag at the start of the move give a range of 3: The Great Flat
    -> Wind Pass -> Polar Sink -> Imperial Basin."""
    state, _ = arrange(forces={GREAT_FLAT: {H: 5}, CARTHAG: {H: 1}})
    assert "Imperial Basin#8" not in reachable_locations(state, H, GREAT_FLAT, 2)
    assert "Imperial Basin#8" in reachable_locations(state, H, GREAT_FLAT, 3)
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    assert prompt_of(state, H, PromptKind.MOVEMENT).detail["range"] == 3
    state, _ = apply(state, Move(faction=H, from_location=GREAT_FLAT, to_location="Imperial Basin#8", tokens=5))
    assert state.tokens_at("Imperial Basin#8", H) == 5
    without, _ = arrange(forces={GREAT_FLAT: {H: 5}})
    without = answer_defaults_until(without, H, PromptKind.MOVEMENT)
    assert refused(without, Move(faction=H, from_location=GREAT_FLAT, to_location="Imperial Basin#8",
                                 tokens=5)).rule == "A-22"


def test_a_22_a_refused_move_says_how_far_away_its_target_is():
    """A-22: the search for a move stops at its range; a refusal still counts the whole way round the storm
    (The Great Flat -> Wind Pass -> Polar Sink -> Imperial Basin is 3) and lists what is in range."""
    state, _ = arrange(forces={GREAT_FLAT: {H: 5}})
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    refusal = refused(state, Move(faction=H, from_location=GREAT_FLAT, to_location="Imperial Basin#8", tokens=5))
    assert refusal.message.startswith("Imperial Basin (sector 8) is 3 territories away: you may move 1 territory")
    assert refusal.allowed == sorted(reachable_locations(state, H, GREAT_FLAT, 1), key=DATA.board.all_locations().index)
    assert "Wind Pass#13" in refusal.allowed and "Polar Sink" not in refusal.allowed
    cut, _ = arrange(forces={"Cielago Depression#2": {H: 4}, CARTHAG: {H: 1}})  # storm in sector 1, range 3
    cut = answer_defaults_until(cut, H, PromptKind.MOVEMENT)
    assert "Cielago West (sector 18) is 4 territories away" in refused(
        cut, Move(faction=H, from_location="Cielago Depression#2", to_location="Cielago West#18", tokens=4)).message


def test_the_fremen_move_two_territories():
    """A-22: The Great Flat -> Plastic Basin -> Sietch Tabr is two; Imperial Basin is three."""
    state, _ = arrange(forces={GREAT_FLAT: {F: 5}})
    state = answer_defaults_until(state, F, PromptKind.MOVEMENT)
    assert prompt_of(state, F, PromptKind.MOVEMENT).detail["range"] == 2
    assert refused(state, Move(faction=F, from_location=GREAT_FLAT, to_location="Imperial Basin#8",
                               tokens=5)).rule == "A-22"
    state, _ = apply(state, Move(faction=F, from_location=GREAT_FLAT, to_location="Sietch Tabr", tokens=5))
    assert state.tokens_at(TABR, F) == 5


def test_the_fremen_with_ornithopters_move_three_not_five():
    """A-22: with tokens in Arrakeen or Carthag the Fremen, like anyone, move 3."""
    state, _ = arrange(forces={GREAT_FLAT: {F: 5}, ARRAKEEN: {F: 1}})
    state = answer_defaults_until(state, F, PromptKind.MOVEMENT)
    assert move_range(state, F) == 3
    state, _ = apply(state, Move(faction=F, from_location=GREAT_FLAT, to_location="Imperial Basin#8", tokens=5))
    assert state.tokens_at("Imperial Basin#8", F) == 5


def test_karama_limits_the_fremen_to_one_territory():
    """A-14: a Karama cancels the Fremen two-territory move; the move is not made and they decide again."""
    state, _ = arrange(forces={GREAT_FLAT: {F: 5}}, karama=[(H, "karama_1", Advantage.TWO_TERRITORY_MOVE)])
    state = answer_defaults_until(state, F, PromptKind.MOVEMENT)
    state, events = apply(state, Move(faction=F, from_location=GREAT_FLAT, to_location=TABR, tokens=5))
    assert state.tokens_at(GREAT_FLAT, F) == 5 and "karama_played" in [e.type for e in public(events)]
    assert prompt_of(state, F, PromptKind.MOVEMENT).detail["range"] == 1
    assert refused(state, Move(faction=F, from_location=GREAT_FLAT, to_location=TABR, tokens=5)).rule == "A-22"
    state, _ = apply(state, Move(faction=F, from_location=GREAT_FLAT, to_location="Plastic Basin#13", tokens=5))
    assert state.tokens_at("Plastic Basin#13", F) == 5


def test_a_one_territory_fremen_move_does_not_spend_the_karama():
    state, _ = arrange(forces={GREAT_FLAT: {F: 5}}, karama=[(H, "karama_1", Advantage.TWO_TERRITORY_MOVE)])
    state = answer_defaults_until(state, F, PromptKind.MOVEMENT)
    state, _ = apply(state, Move(faction=F, from_location=GREAT_FLAT, to_location="Funeral Plain#14", tokens=5))
    assert "karama_1" in state.faction(H).hand and len(state.karama_orders) == 1


# --- storm, full strongholds, traps ----------------------------------------------------------


def test_a_move_may_not_cross_the_storm():
    """1979 rules: Storm: with the storm in sector 1 the way from Cielago Depression sector 2 to sector 18 (the
    same territory) and to Cielago West is cut, even with ornithopters."""
    state, _ = arrange(forces={"Cielago Depression#2": {H: 4}, CARTHAG: {H: 1}})
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    for target in ("Cielago Depression#18", "Cielago West#18"):
        assert refused(state, Move(faction=H, from_location="Cielago Depression#2", to_location=target,
                                   tokens=4)).rule == "A-22"
    clear, _ = arrange(storm=9, forces={"Cielago Depression#2": {H: 4}, CARTHAG: {H: 1}})
    assert {"Cielago Depression#18", "Cielago West#18"} <= reachable_locations(clear, H, "Cielago Depression#2", 1)


def test_no_move_into_or_out_of_the_storm():
    state, _ = arrange(storm=13, forces={"Plastic Basin#13": {H: 3}, CARTHAG: {H: 2}})
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    assert prompt_of(state, H, PromptKind.MOVEMENT).options == [CARTHAG]
    assert refused(state, Move(faction=H, from_location="Plastic Basin#13", to_location="Plastic Basin#12",
                               tokens=3)).rule == "1979 rules: Storm"
    assert refused(state, Move(faction=H, from_location=CARTHAG, to_location="Plastic Basin#13",
                               tokens=2)).rule == "1979 rules: Storm"
    state, _ = apply(state, Move(faction=H, from_location=CARTHAG, to_location="Plastic Basin#12", tokens=2))
    assert state.tokens_at("Plastic Basin#12", H) == 2


def test_no_move_into_a_stronghold_holding_two_other_factions():
    state, _ = arrange(forces={ARRAKEEN: {A: 5, BG: 1}, "Imperial Basin#9": {H: 3, A: 2}})
    assert ARRAKEEN not in reachable_locations(state, H, "Imperial Basin#9", 1)
    assert ARRAKEEN in reachable_locations(state, A, "Imperial Basin#9", 1)
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    assert "two other factions" in refused(state, Move(faction=H, from_location="Imperial Basin#9",
                                                       to_location=ARRAKEEN, tokens=3)).message


def test_frozen_trap_tokens_cannot_move():
    """BT-31, R-24: tokens that sprang a trap this turn stay in that stronghold."""
    state, _ = arrange(forces={CARTHAG: {H: 5}, GREAT_FLAT: {H: 2}}, traps={"Carthag": H})
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    assert prompt_of(state, H, PromptKind.MOVEMENT).options == [GREAT_FLAT]
    assert refused(state, Move(faction=H, from_location=CARTHAG, to_location="Tsimpo#10", tokens=1)).rule == "BT-31"


def test_frozen_trap_tokens_cannot_be_shipped_away_by_the_guild():
    """R-24: nor by cross-shipping or shipping back."""
    state, _ = arrange(forces={TUEKS: {G: 5}}, spice={G: 5}, traps={"Tuek's Sietch": G})
    state = answer_defaults_until(state, G)
    assert prompt_of(state, G, PromptKind.SHIPMENT).detail["ship_from"] == []
    assert refused(state, ShipToReserves(faction=G, from_location=TUEKS, tokens=1)).rule == "R-24"
    assert refused(state, Ship(faction=G, from_location=TUEKS, to_location=CARTHAG, tokens=1)).rule == "R-24"


def test_reachable_locations_from_the_polar_sink():
    """The Polar Sink borders eight territories; with the storm in sector 1, Cielago North#1 is cut off."""
    state, _ = arrange()
    expected = {
        "Arsunt#10", "Arsunt#11", "Cielago North#18", "Cielago North#2", "Hagga Basin#11", "Hagga Basin#12",
        "Harg Pass#3", "Harg Pass#4", "Imperial Basin#8", "Imperial Basin#9", "Imperial Basin#10",
        "Wind Pass North#16", "Wind Pass North#17", "Wind Pass#13", "Wind Pass#14", "Wind Pass#15", "Wind Pass#16",
        *(f"False Wall East#{s}" for s in range(4, 9)),
    }
    assert reachable_locations(state, H, SINK, 1) == expected
    assert reachable_locations(state, H, SINK, 0) == set()
    assert reachable_locations(state, H, "Cielago North#1", 3) == set()  # under the storm: cannot leave


# --- allies (A-8) ----------------------------------------------------------------------------


def test_tokens_ending_their_turn_beside_an_ally_go_to_the_tanks():
    """A-8 (digest §13): at the end of its shipment and movement a faction's tokens sharing a territory with its
    ally's go to the tanks; the ally's stay."""
    state, _ = arrange(forces={"Imperial Basin#8": {A: 3}, "Old Gap#9": {H: 4}}, alliances=[(A, H)])
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    state, events = apply(state, Move(faction=H, from_location="Old Gap#9", to_location="Imperial Basin#10",
                                      tokens=4))
    assert state.tokens_at("Imperial Basin#10", H) == 0 and state.faction(H).tanks == 4
    assert state.tokens_at("Imperial Basin#8", A) == 3
    lost = next(e for e in events if e.type == "allies_apart")
    assert lost.public and lost.data == {"faction": "harkonnen", "territory": "Imperial Basin", "tokens": 4}
    tokens_consistent(state)


def test_allies_may_share_the_polar_sink():
    state, _ = arrange(forces={SINK: {A: 3}, "Imperial Basin#8": {H: 4}}, alliances=[(A, H)])
    state = answer_defaults_until(state, H, PromptKind.MOVEMENT)
    state, events = apply(state, Move(faction=H, from_location="Imperial Basin#8", to_location=SINK, tokens=4))
    assert state.tokens_at(SINK, H) == 4 and state.faction(H).tanks == 0
    assert "allies_apart" not in [e.type for e in events]


# --- automatic play keeps every invariant ----------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_random_movement_rounds_keep_tokens_and_spice_consistent(seed):
    rng = Rng.from_seed(seed)
    state, _ = arrange(
        forces={ARRAKEEN: {A: 6}, CARTHAG: {H: 6}, TUEKS: {G: 4}, SINK: {BG: 2, E: 1}, TABR: {F: 7},
                "False Wall West#16": {F: 3}},
        tanks={A: 4, F: 5, E: 3, G: 2},
        spice={A: 1 + seed, BG: 5, E: 10, F: 3, G: 5 + seed, H: 10},
        dead_leaders={E: [leader.id for leader in DATA.factions[E].leaders]},
        alliances=[(A, G)] if seed % 2 else [], storm=1 + 3 * seed,
    )
    kinds = set()
    while state.phase == Phase.MOVEMENT:
        prompt = rng.choice(state.prompts)
        kinds.add(prompt.kind)
        _, (state, _) = play_prompt(state, prompt, rng)
        assert violations(state) == []
        tokens_consistent(state)
    assert {PromptKind.REVIVAL, PromptKind.SHIPMENT, PromptKind.MOVEMENT} <= kinds
    assert state.movement is None
