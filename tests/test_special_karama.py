"""Special Karama powers (A-14, option `special_karama_powers`; digest section 15): each faction's once-per-game
power, a Karama card spent; refused a second time, refused without the option, never against the BT (R-27)."""

from __future__ import annotations

import pytest

from engine.actions import ReturnCards, Ship, SkipShipment, SubmitBattlePlan, UseSpecialKarama
from engine.flow import DEFAULTS, STEP_RUNNERS
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.options import FixedSetup
from engine.secrecy.views import view
from tests.conftest import BG, BT, A, E, F, G, H, enter_phase, prompt_of, ready_game, refused, tokens_back_to_reserves
from tests.helpers.positions.movement import answer_defaults_until, arrange
from tests.helpers.positions.special_karama import hand, harkonnen_and_atreides
from tests.helpers.positions.spice_blow import OLD_GAP, at_blow, base_game

FLAT, FUNERAL, ARRAKEEN = "The Great Flat#14", "Funeral Plain#14", "Arrakeen#9"


@pytest.fixture(autouse=True)
def _one_phase_at_a_time(monkeypatch):
    monkeypatch.delitem(STEP_RUNNERS, Phase.BIDDING, raising=False)


# --- the option, the once-per-game limit, the factions without a power ---------------------------------------------


def emperor_with_tanks(**options):
    state, _ = arrange(tanks={E: 5}, dead_leaders={E: ["caid"]}, **options)
    return hand(state, E, "karama_1", "karama_2")


def test_a_14_the_emperor_revive_three_tokens_free():
    state = emperor_with_tanks(special_karama_powers=True)
    reserves, spice = state.faction(E).reserves, state.faction(E).spice
    state, events = apply(state, UseSpecialKarama(faction=E, card="karama_1", tokens=3))
    assert state.faction(E).tanks == 2 and state.faction(E).reserves == reserves + 3
    assert state.faction(E).spice == spice and "karama_1" in state.treachery_discard
    assert state.special_karama_used == [E] and view(state, None).special_karama_used == [E]
    assert any(e.type == "special_karama" and e.public and e.data["power"] == "revival" for e in events)


def test_a_14_a_special_power_is_used_once_per_game():
    state = emperor_with_tanks(special_karama_powers=True)
    state, _ = apply(state, UseSpecialKarama(faction=E, card="karama_1", tokens=1))
    refusal = refused(state, UseSpecialKarama(faction=E, card="karama_2", tokens=1), rule="A-14")
    assert "once per game" in refusal.message


def test_a_14_special_powers_are_refused_without_the_option():
    state = emperor_with_tanks(special_karama_powers=False)
    refusal = refused(state, UseSpecialKarama(faction=E, card="karama_1", tokens=3), rule="A-14")
    assert "special_karama_powers" in refusal.message


def test_a_14_the_emperor_revive_a_leader_though_not_all_five_are_dead():
    state = emperor_with_tanks(special_karama_powers=True)
    state, _ = apply(state, UseSpecialKarama(faction=E, card="karama_1", leader="caid"))
    assert state.faction(E).leaders_in_tanks == []
    refused(emperor_with_tanks(special_karama_powers=True),
            UseSpecialKarama(faction=E, card="karama_1", leader="caid", tokens=2), rule="A-14")


@pytest.mark.parametrize("faction", [BG, BT])
def test_a_14_r_27_the_bg_and_the_bt_have_no_special_power(faction):
    state, _ = arrange(special_karama_powers=True)
    state = hand(state, faction, "karama_1")
    refused(state, UseSpecialKarama(faction=faction, card="karama_1"), rule="A-14")


# --- the Harkonnen take a hand -------------------------------------------------------------------------------------


def test_a_14_the_harkonnen_take_a_whole_hand_and_give_back_as_many():
    state = harkonnen_and_atreides(special_karama_powers=True)
    state, events = apply(state, UseSpecialKarama(faction=H, card="karama_1", target=A))
    assert state.faction(A).hand == [] and set(state.faction(H).hand) == {"kulon", "snooper_1", "crysknife", "shield_1"}
    swap = prompt_of(state, H, PromptKind.HAND_SWAP)
    assert swap.secret and swap.detail["count"] == 2
    public = [e for e in events if e.public]
    assert not any(c in str(e.data) or "Crysknife" in e.message for e in public for c in ("crysknife", "shield_1"))
    assert next(e for e in events if e.type == "hand_taken").audience == (H, A)
    state, events = apply(state, ReturnCards(faction=H, cards=["kulon", "shield_1"]))
    assert sorted(state.faction(A).hand) == ["kulon", "shield_1"]
    assert sorted(state.faction(H).hand) == ["crysknife", "snooper_1"]
    assert next(e for e in events if e.type == "cards_given_back").audience == (H, A)


def test_a_14_the_harkonnen_give_back_exactly_as_many_cards():
    state = harkonnen_and_atreides(special_karama_powers=True)
    state, _ = apply(state, UseSpecialKarama(faction=H, card="karama_1", target=A))
    refused(state, ReturnCards(faction=H, cards=["kulon"]), rule="A-14")
    refused(state, ReturnCards(faction=H, cards=["kulon", "karama_1"]), rule="A-14")  # spent, not in hand


def test_r_27_the_harkonnen_cannot_take_the_bt_hand():
    state = harkonnen_and_atreides(special_karama_powers=True)
    hand(state, BT, "lasgun")
    refusal = refused(state, UseSpecialKarama(faction=H, card="karama_1", target=BT), rule="A-14")
    assert "R-27" in refusal.message


# --- the Guild stop a shipment ------------------------------------------------------------------------------------


def test_a_14_the_guild_stop_the_next_shipment_of_a_faction():
    state, _ = arrange(forces={ARRAKEEN: {A: 2}}, spice={H: 10}, special_karama_powers=True)
    state = hand(state, G, "karama_1")
    state, events = apply(state, UseSpecialKarama(faction=G, card="karama_1", target=H))
    assert not any(e.public for e in events)  # a secret standing order
    assert view(state, G).own.special_karama_orders and not view(state, H).own.special_karama_orders
    state = answer_defaults_until(state, H)
    reserves = state.faction(H).reserves
    state, events = apply(state, Ship(faction=H, to_location=ARRAKEEN, tokens=2))
    assert state.faction(H).reserves == reserves and state.faction(H).spice == 10
    assert "karama_1" in state.treachery_discard and state.special_karama_used == [G]
    assert any(e.type == "special_karama" and e.data["target"] == "harkonnen" for e in events)
    assert not any(p.kind == PromptKind.SHIPMENT and p.faction == H for p in state.prompts)


def test_a_14_without_the_order_the_shipment_is_made():
    state, _ = arrange(forces={ARRAKEEN: {A: 2}}, spice={H: 10}, special_karama_powers=True)
    state = answer_defaults_until(state, H)
    state, _ = apply(state, Ship(faction=H, to_location=ARRAKEEN, tokens=2))
    assert state.tokens_at(ARRAKEEN, H) == 2


# --- the Fremen worm --------------------------------------------------------------------------------------------


def test_a_14_the_fremen_karama_worm_devours_its_territory_at_the_next_blow():
    state = hand(base_game(special_karama_powers=True).model_copy(deep=True), F, "karama_1")
    state, events = apply(state, UseSpecialKarama(faction=F, card="karama_1", territory="Funeral Plain"))
    assert [e.audience for e in events] == [(F,)]
    refused(state, UseSpecialKarama(faction=F, card="karama_1", territory="Funeral Plain"), rule="A-14")  # readied
    state, events = at_blow([OLD_GAP], state=state, tokens=[(FUNERAL, H, 3)])
    assert state.tokens_at(FUNERAL, H) == 0 and state.faction(H).tanks == 3
    assert any(e.type == "karama_worm" and e.data["territory"] == "Funeral Plain" for e in events)
    assert state.nexus is not None and "karama_1" in state.treachery_discard


def test_a_14_the_fremen_worm_goes_to_sand_only():
    state = hand(base_game(special_karama_powers=True).model_copy(deep=True), F, "karama_1")
    refused(state, UseSpecialKarama(faction=F, card="karama_1", territory="Arrakeen"), rule="A-14")


# --- the Atreides see a whole plan -------------------------------------------------------------------------------


def atreides_battle(**options):
    dots = {H: 3, A: 6, E: 9}
    state = ready_game((H, A, E), fixed=FixedSetup(dots=dots), **options)
    state.turn, state.storm_sector = 2, 1
    tokens_back_to_reserves(state)
    for fs in state.factions.values():
        state.treachery_deck += fs.hand
        fs.hand, fs.traitors = [], []
    for faction, count in ((A, 5), (H, 5)):
        state.add_tokens(FLAT, faction, count)
        state.faction(faction).reserves -= count
    hand(state, A, "karama_1")
    hand(state, H, "crysknife")
    state, _ = enter_phase(state, Phase.BATTLE)
    while not any(p.kind == PromptKind.BATTLE_PLAN for p in state.prompts):
        state = apply(state, DEFAULTS[state.prompts[0].kind](state, state.prompts[0])).state
    return state


def test_a_14_the_atreides_see_the_opponents_whole_plan_before_making_theirs():
    state = atreides_battle(special_karama_powers=True)
    refused(state, UseSpecialKarama(faction=A, card="karama_1"), rule="A-14")  # the Harkonnen plan is not in yet
    state, _ = apply(state, SubmitBattlePlan(faction=H, leader="feyd_rautha", dial=3, weapon="crysknife"))
    state, events = apply(state, UseSpecialKarama(faction=A, card="karama_1"))
    seen = next(e for e in events if e.type == "plan_seen")
    assert seen.audience == (A,) and seen.data["plan"]["weapon"] == "crysknife" and seen.data["plan"]["dial"] == 3
    assert not any("crysknife" in str(e.data) for e in events if e.public)


def test_a_14_without_the_option_the_atreides_see_nothing():
    state = atreides_battle(special_karama_powers=False)
    state, _ = apply(state, SubmitBattlePlan(faction=H, leader="feyd_rautha", dial=3, weapon="crysknife"))
    refused(state, UseSpecialKarama(faction=A, card="karama_1"), rule="A-14")


def test_shipment_skip_is_unchanged_by_the_option():
    state, _ = arrange(special_karama_powers=True)
    state = answer_defaults_until(state, H)
    state, events = apply(state, SkipShipment(faction=H))
    assert not any(e.type == "special_karama" for e in events)
