"""What a side may put in its battle plan (engine/phases/battle_plans.py) and what the traitor question offers:
the shape of the BATTLE_PLAN prompt lists exactly the plans the check accepts (issue 13: a form offers only legal
choices), bound by prescience's answer and the Voice (A-26), one card a slot, the Kwisatz Haderach beside a
leader and the spice up to the dial (A-15), the BT attack's weapon slot and impairment (R-34, BT-16, R-17);
"call" only for a side holding the opposing leader's traitor (A-13, A-26), every side still asked."""

from __future__ import annotations

from collections import Counter

from engine.actions import AnswerPrescience, AskPrescience, SubmitBattlePlan, UseVoice
from engine.errors import RuleViolation
from engine.game import apply
from engine.ids import Faction
from engine.model import BattlePlan, GameState, PromptKind
from engine.phases.battle_plans import check_plan, hand_shape, plan_shape
from engine.secrecy.leaks import LeakChecker
from engine.secrecy.views import view
from tests.conftest import BG, BT, A, E, H, apply_all, prompt_of, prompts_met, refused
from tests.helpers.positions.battle_plans import ARRAKEEN, battle, bt_attack, until_plans


def shape_of(state: GameState, faction: Faction) -> dict:
    return prompt_of(state, faction, PromptKind.BATTLE_PLAN).detail


# --- prescience binds (A-26) ---------------------------------------------------------------------------------


def test_a_26_a_dial_answered_to_prescience_is_the_only_dial_offered():
    state = until_plans(battle(), AskPrescience(faction=A, element="dial"), AnswerPrescience(faction=H, answer="2"))
    shape = shape_of(state, H)
    assert (shape["min_dial"], shape["max_dial"]) == (2, 2) and shape["prescience_answer"] == "2"
    assert shape_of(state, A)["min_dial"] == 0 and shape_of(state, A)["max_dial"] == 5  # the asker is not bound
    refused(state, SubmitBattlePlan(faction=H, leader="feyd_rautha", dial=3))
    assert apply(state, SubmitBattlePlan(faction=H, leader="feyd_rautha", dial=2))


def test_a_26_a_weapon_answered_to_prescience_fills_every_pair_offered():
    state = until_plans(battle(hands={H: ["crysknife", "chaumas", "shield_1"]}),
                        AskPrescience(faction=A, element="weapon"), AnswerPrescience(faction=H, answer="chaumas"))
    shape = shape_of(state, H)
    assert shape["weapons"] == ["chaumas"] and {w for w, _ in shape["card_pairs"]} == {"chaumas"}
    assert shape["defenses"] == ["shield_1"]
    refused(state, SubmitBattlePlan(faction=H, leader="feyd_rautha", weapon="crysknife"))


def test_a_26_a_cheap_hero_answered_to_prescience_is_the_only_head_offered():
    state = until_plans(battle(hands={H: ["cheap_hero_1"]}), AskPrescience(faction=A, element="leader"),
                        AnswerPrescience(faction=H, answer="cheap_hero_1"))
    shape = shape_of(state, H)
    assert (shape["leaders"], shape["cheap_heroes"]) == ([], ["cheap_hero_1"])
    refused(state, SubmitBattlePlan(faction=H, leader="feyd_rautha"))


# --- the Voice (A-26) ---------------------------------------------------------------------------------------


def voiced(command: str, kind: str, hand: list[str]) -> dict:
    """The Harkonnen plan's shape after the Bene Gesserit, allied to the Atreides, Voice them (A-26; the Atreides
    asked nothing)."""
    state = battle(factions=(A, H, BG, BT), hands={H: hand}, alliances=[(A, BG)])
    state = until_plans(state, AskPrescience(faction=A),
                        UseVoice(faction=BG, command=command, category=kind))
    return shape_of(state, H)


def test_a_26_the_voice_forbids_a_kind_the_side_holds():
    shape = voiced("not", "poison weapon", ["chaumas", "crysknife", "snooper_1"])
    assert shape["weapons"] == ["crysknife"] and shape["voice_binds"]
    assert all(w != "chaumas" for w, _ in shape["card_pairs"])
    assert [None, None] in shape["card_pairs"]


def test_a_26_the_voice_commands_a_kind_the_side_can_play():
    shape = voiced("play", "shield", ["crysknife", "shield_1"])
    assert shape["voice_binds"] and shape["defenses"] == ["shield_1"]
    assert sorted(shape["card_pairs"], key=str) == sorted([["crysknife", "shield_1"], [None, "shield_1"]], key=str)


def test_a_26_a_voice_that_cannot_be_obeyed_binds_nothing():
    shape = voiced("play", "lasgun", ["crysknife"])
    assert not shape["voice_binds"] and [None, None] in shape["card_pairs"]


def test_a_13_one_card_fills_one_slot_even_a_worthless_card_that_fits_both():
    shape = voiced("play", "worthless", ["baliset"])  # the worthless Baliset fits either slot, not both
    assert sorted(shape["card_pairs"], key=str) == sorted([["baliset", None], [None, "baliset"]], key=str)


# --- the Kwisatz Haderach and advanced combat (A-15) ------------------------------------------------------------


def test_a_15_the_kwisatz_haderach_goes_only_beside_a_leader_and_spice_backs_the_dial_only_up_to_it():
    state = battle(hands={A: ["cheap_hero_1"]}, options={"character_advantages": True, "advanced_combat": True},
                   kh={"active": True}, spice={A: 3})
    state = apply(state, AskPrescience(faction=A)).state
    shape = shape_of(state, A)
    assert shape["kwisatz_haderach"] and (shape["max_dial"], shape["max_spice"]) == (5, 3)
    refused(state, SubmitBattlePlan(faction=A, cheap_hero="cheap_hero_1", kwisatz_haderach=True))
    refused(state, SubmitBattlePlan(faction=A, leader="duncan_idaho", dial=1, spice=2))
    assert apply(state, SubmitBattlePlan(faction=A, leader="duncan_idaho", dial=4, spice=3, kwisatz_haderach=True))


# --- the BT attack (R-34, BT-16, R-17) ------------------------------------------------------------------------


def test_r_34_bt_16_the_attack_fills_its_weapon_slot_and_a_worthless_card_alone_calls_for_an_impairment():
    state = bt_attack(["crysknife", "baliset"])
    shape = shape_of(state, BT)
    assert all(w is not None for w, _ in shape["card_pairs"])
    assert shape["impairing"] == ["baliset"] and shape["impairments"] == ["no_shipping", "no_moving"]
    assert ["crysknife", "baliset"] in shape["card_pairs"]  # a worthless card beside a real weapon (BT-12)
    refused(state, SubmitBattlePlan(faction=BT, weapon="crysknife", impair="no_moving"), rule="R-17")
    refused(state, SubmitBattlePlan(faction=BT, weapon="baliset"), rule="BT-16")


def test_bt_16_with_the_impairers_off_a_worthless_weapon_impairs_nothing():
    shape = shape_of(bt_attack(["baliset"], impairers=False), BT)
    assert shape["card_pairs"] == [["baliset", None]] and shape["impairing"] == shape["impairments"] == []


# --- the traitor question (A-13, A-26, A-15) -------------------------------------------------------------------


def test_a_13_call_is_offered_only_to_a_side_holding_the_opposing_leaders_traitor_and_both_are_asked():
    state = until_plans(battle(traitors={A: ["feyd_rautha"], H: ["gurney_halleck"]}), AskPrescience(faction=A))
    state, events = apply_all(state, SubmitBattlePlan(faction=A, leader="duncan_idaho", dial=1),
                             SubmitBattlePlan(faction=H, leader="feyd_rautha", dial=1))
    atreides, harkonnen = prompt_of(state, A, PromptKind.TRAITOR_CALL), prompt_of(state, H, PromptKind.TRAITOR_CALL)
    assert atreides.options == ["call", "no"] and harkonnen.options == ["no"]  # Gurney is not the one fighting
    assert (atreides.detail["leader"], atreides.detail["opponent"]) == ("feyd_rautha", "harkonnen")
    assert harkonnen.detail["leader"] == "duncan_idaho"
    # the table sees both asked, nothing of the options; a faction sees only its own
    table = view(state, None)
    assert {(a.faction, a.kind) for a in table.awaiting} == {(A, PromptKind.TRAITOR_CALL), (H, PromptKind.TRAITOR_CALL)}
    assert not table.own_prompts and [p.options for p in view(state, H).own_prompts] == [["no"]]
    assert LeakChecker().check(state, events) == []


def test_a_26_the_harkonnen_are_offered_their_traitor_for_an_allys_battle():
    state = battle(factions=(A, E, H, BT), forces={ARRAKEEN: {A: 5, E: 3}}, traitors={H: ["bashar"]},
                   alliances=[(A, H)])
    state = until_plans(state, AskPrescience(faction=A))
    state, _ = apply_all(state, SubmitBattlePlan(faction=A, leader="duncan_idaho"),
                        SubmitBattlePlan(faction=E, leader="bashar"))
    harkonnen = prompt_of(state, H, PromptKind.TRAITOR_CALL)
    assert harkonnen.options == ["call", "no"] and harkonnen.detail["ally"] == "atreides"
    assert prompt_of(state, A, PromptKind.TRAITOR_CALL).options == ["no"]


def test_a_15_no_call_is_offered_against_a_leader_beside_the_kwisatz_haderach():
    state = battle(traitors={H: ["duncan_idaho"]}, options={"character_advantages": True}, kh={"active": True})
    state = until_plans(state, AskPrescience(faction=A))
    state, _ = apply_all(state, SubmitBattlePlan(faction=A, leader="duncan_idaho", kwisatz_haderach=True),
                        SubmitBattlePlan(faction=H, leader="feyd_rautha"))
    harkonnen = prompt_of(state, H, PromptKind.TRAITOR_CALL)
    assert harkonnen.options == ["no"] and harkonnen.detail["kwisatz_haderach"] is True


# --- one computation: the shape offers exactly what the check accepts --------------------------------------------


def plan_prompts():
    """(state, faction) for the battle plans of random 7-faction games (tests/conftest.py)."""
    return [(state, prompt.faction) for state, prompt in prompts_met({PromptKind.BATTLE_PLAN}, per_kind=10_000)]


def accepted(state: GameState, faction: Faction, plan: BattlePlan) -> bool:
    try:
        check_plan(state, state.battle.current, faction, plan)
    except RuleViolation:
        return False
    return True


def test_the_plan_shape_lists_exactly_the_parts_the_check_accepts():
    """Part by part, the others held at a legal choice: every head, dial and pair of cards the hand could make."""
    plans, tried = plan_prompts(), Counter()
    assert len(plans) > 40
    for state, faction in plans:
        battle_now = state.battle.current
        shape, hand = plan_shape(state, battle_now, faction), hand_shape(state, battle_now, faction)
        head = ({"leader": shape["leaders"][0]} if shape["leaders"] else
                {"cheap_hero": shape["cheap_heroes"][0]} if shape["cheap_heroes"] else {})
        weapon, defense = shape["card_pairs"][0]
        legal = BattlePlan(**head, dial=shape["min_dial"], weapon=weapon, defense=defense)
        assert accepted(state, faction, legal)
        for w in [None, *hand["weapons"]]:
            for d in [None, *hand["defenses"]]:
                plan = legal.model_copy(update={"weapon": w, "defense": d})
                assert accepted(state, faction, plan) == ([w, d] in shape["card_pairs"]), (w, d, shape)
                tried["pairs"] += 1
        for dial in range(hand["max_dial"] + 1):
            plan = legal.model_copy(update={"dial": dial})
            assert accepted(state, faction, plan) == (shape["min_dial"] <= dial <= shape["max_dial"]), dial
        for leader in hand["leaders"]:
            plan = legal.model_copy(update={"leader": leader, "cheap_hero": None})
            assert accepted(state, faction, plan) == (leader in shape["leaders"]), leader
            with_kh = plan.model_copy(update={"kwisatz_haderach": True})
            assert accepted(state, faction, with_kh) == (leader in shape["leaders"] and shape["kwisatz_haderach"])
        for hero in hand["cheap_heroes"]:
            plan = legal.model_copy(update={"leader": None, "cheap_hero": hero})
            assert accepted(state, faction, plan) == (hero in shape["cheap_heroes"]), hero
    assert tried["pairs"] > 200
