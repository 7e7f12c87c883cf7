"""The Kwisatz Haderach (A-13, A-15 `character_advantages`; factions.json Atreides optional XV) and the BT
rulings about him (R-5, R-19). Each scenario is also played with the option off."""

from __future__ import annotations

from engine.actions import (
    AnswerRevealWindow,
    AskPrescience,
    CallTraitor,
    ChooseBtAttack,
    Revive,
    SubmitBattlePlan,
    UseKarama,
)
from engine.checks.invariants import violations
from engine.game import apply
from engine.ids import Faction
from engine.model import BattleState, Phase, PromptKind
from engine.phases.battle_plans import kwisatz_haderach_available
from engine.secrecy.views import view
from tests.conftest import apply_all, enter_phase, let_reveal_stand, prompt_of, refused
from tests.helpers.positions.battle import FLAT, arena, give, plan, put
from tests.helpers.positions.optional_combat import event, switch_on

A, G, H, BT = Faction.ATREIDES, Faction.GUILD, Faction.HARKONNEN, Faction.BENE_TLEILAXU
ATREIDES_LEADERS = ["thufir_hawat", "lady_jessica", "gurney_halleck", "duncan_idaho", "dr_wellington_yueh"]


def kh_plan(leader, dial, weapon=None, defense=None, kwisatz_haderach=True):
    return SubmitBattlePlan(faction=A, leader=leader, dial=dial, weapon=weapon, defense=defense,
                            kwisatz_haderach=kwisatz_haderach)


def atreides_battle(on: bool, active: bool = True, factions=(A, H, G), atreides=5):
    """Harkonnen (the aggressor: storm order H, G, A) against the Atreides on The Great Flat."""
    state = arena(factions)
    if on:
        switch_on(state, character_advantages=True)
    state.kwisatz_haderach.active = active
    put(state, A, FLAT, atreides)
    put(state, H, FLAT, 5)
    return no_prescience(enter_phase(state, Phase.BATTLE)[0])


def no_prescience(state):
    """The Atreides ask no prescience question; both plans are then asked for."""
    return apply(state, AskPrescience(faction=A))[0]


def no_calls():
    return [CallTraitor(faction=H, call=False), CallTraitor(faction=A, call=False)]


def test_a_15_the_kwisatz_haderach_awakens_after_7_atreides_tokens_are_lost_in_battle():
    state = atreides_battle(True, active=False, atreides=7)
    assert prompt_of(state, A, PromptKind.BATTLE_PLAN).detail["kwisatz_haderach"] is False
    state, events = apply_all(state, plan(H, "feyd_rautha", 1), plan(A, "duncan_idaho", 0), *no_calls())
    assert state.faction(A).tanks == 7
    awake = event(events, "kwisatz_haderach_activated")
    assert awake.public and awake.data["losses"] == 7
    assert state.kwisatz_haderach.active and view(state, None).kwisatz_haderach.battle_losses == 7
    base = atreides_battle(False, active=False, atreides=7)
    base, events = apply_all(base, plan(H, "feyd_rautha", 1), plan(A, "duncan_idaho", 0), *no_calls())
    assert not base.kwisatz_haderach.active and base.kwisatz_haderach.battle_losses == 0
    assert not [e for e in events if e.type == "kwisatz_haderach_activated"]


def test_a_15_losses_as_the_winner_count_toward_the_awakening():
    state = atreides_battle(True, active=False, atreides=6)
    state.kwisatz_haderach.battle_losses = 3
    state, events = apply_all(state, plan(H, "umman_kudu", 0), kh_plan("thufir_hawat", 4, kwisatz_haderach=False),
                              *no_calls())
    assert event(events, "battle_won").data["winner"] == "atreides"
    assert state.kwisatz_haderach.battle_losses == 7 and state.kwisatz_haderach.active


def test_a_13_the_kwisatz_haderach_adds_2_to_the_leader_he_accompanies():
    """Thufir 5 + 2 + the Haderach's 2 = 9 beats Feyd-Rautha 6 + 2; without the option 7 loses to 8."""
    state = atreides_battle(True)
    assert prompt_of(state, A, PromptKind.BATTLE_PLAN).detail["kwisatz_haderach"] is True
    assert prompt_of(state, H, PromptKind.BATTLE_PLAN).detail["kwisatz_haderach"] is False
    state, events = apply_all(state, plan(H, "feyd_rautha", 2), kh_plan("thufir_hawat", 2), *no_calls())
    won = event(events, "battle_won")
    assert won.data["winner"] == "atreides" and won.data["totals"] == {"harkonnen": 8, "atreides": 9}
    assert "with the Kwisatz Haderach" in event(events, "plans_revealed").message
    base = atreides_battle(False)
    assert prompt_of(base, A, PromptKind.BATTLE_PLAN).detail["kwisatz_haderach"] is False
    assert refused(base, kh_plan("thufir_hawat", 2)).rule == "1979 rules: Battles"
    base, events = apply_all(base, plan(H, "feyd_rautha", 2), plan(A, "thufir_hawat", 2), *no_calls())
    assert event(events, "battle_won").data["winner"] == "harkonnen"


def test_a_15_the_kwisatz_haderach_goes_only_with_a_leader():
    state = atreides_battle(True)
    give(state, A, "cheap_hero_1")
    hero_with_kh = SubmitBattlePlan(faction=A, cheap_hero="cheap_hero_1", dial=1, kwisatz_haderach=True)
    assert "never a cheap hero" in str(refused(state, hero_with_kh))


def test_a_15_no_traitor_can_be_called_against_the_leader_he_accompanies():
    state = atreides_battle(True)
    state.faction(H).traitors = ["thufir_hawat"]
    state, _ = apply_all(state, plan(H, "feyd_rautha", 2), kh_plan("thufir_hawat", 2))
    assert refused(state, CallTraitor(faction=H, call=True)).rule == "A-15"
    base = atreides_battle(True)
    base.faction(H).traitors = ["thufir_hawat"]
    base, events = apply_all(base, plan(H, "feyd_rautha", 2), kh_plan("thufir_hawat", 2, kwisatz_haderach=False),
                             CallTraitor(faction=H, call=True), CallTraitor(faction=A, call=False))
    assert event(events, "traitor_called").data["winner"] == "harkonnen"


def test_a_15_a_weapon_kills_his_leader_but_not_him_and_he_then_adds_nothing():
    state = atreides_battle(True)
    give(state, H, "crysknife")
    state, events = apply_all(state, plan(H, "feyd_rautha", 0, weapon="crysknife"), kh_plan("thufir_hawat", 2),
                              *no_calls())
    assert "thufir_hawat" in state.faction(A).leaders_in_tanks and not state.kwisatz_haderach.dead
    assert event(events, "battle_won").data["totals"] == {"harkonnen": 6, "atreides": 2}


def test_a_15_the_kwisatz_haderach_dies_only_in_a_lasgun_shield_explosion():
    state = atreides_battle(True)
    give(state, H, "lasgun")
    give(state, A, "shield_1")
    state, events = apply_all(state, plan(H, "feyd_rautha", 0, weapon="lasgun"),
                              kh_plan("thufir_hawat", 2, defense="shield_1"), *no_calls())
    assert state.kwisatz_haderach.dead and event(events, "kwisatz_haderach_killed").public
    assert not kwisatz_haderach_available(state, A, FLAT) and violations(state) == []


def test_a_15_he_fights_in_one_territory_a_turn():
    state = switch_on(arena((A, H, G)), character_advantages=True)
    state.kwisatz_haderach.active = True
    state.battle = BattleState(kwisatz_haderach_territory="Arrakeen")
    assert kwisatz_haderach_available(state, A, "Arrakeen")
    assert not kwisatz_haderach_available(state, A, "The Great Flat")


def kh_revival(all_leaders_dead: bool):
    state = switch_on(arena((A, H, G)), character_advantages=True)
    state.kwisatz_haderach.active = state.kwisatz_haderach.dead = True
    state.faction(A).leaders_in_tanks = list(ATREIDES_LEADERS if all_leaders_dead else ATREIDES_LEADERS[:4])
    state.faction(A).spice = 10
    state.faction(A).reserves -= 1
    state.faction(A).tanks = 1
    return enter_phase(state, Phase.MOVEMENT)[0]


def test_a_15_the_dead_kwisatz_haderach_is_revived_like_a_leader():
    """factions.json: revived like a leader (A-7: when all five leaders are dead, one a turn), for 2 spice."""
    state = kh_revival(True)
    assert prompt_of(state, A, PromptKind.REVIVAL).detail["kwisatz_haderach_cost"] == 2
    refused(state, Revive(faction=A, leader="thufir_hawat", kwisatz_haderach=True), rule="A-7")
    state, events = apply(state, Revive(faction=A, kwisatz_haderach=True))
    assert not state.kwisatz_haderach.dead and state.faction(A).spice == 8
    assert event(events, "revived").data["kwisatz_haderach"] is True
    early = kh_revival(False)
    assert prompt_of(early, A, PromptKind.REVIVAL).detail["kwisatz_haderach_cost"] is None
    refused(early, Revive(faction=A, kwisatz_haderach=True), rule="A-15")


def bt_after_atreides_win(kh: bool, marked: bool = False):
    """The Atreides (Thufir Hawat, with the Haderach when `kh`) beat the Harkonnen on The Great Flat; the BT
    hold a lasgun, and may have marked Thufir."""
    state = switch_on(arena((A, H, G, BT)), character_advantages=True)
    state.traps = {}
    state.kwisatz_haderach.active = True
    if marked:
        state.bt.marked = ["thufir_hawat"]
    give(state, BT, "lasgun")
    give(state, A, "shield_1")
    put(state, A, FLAT, 5)
    put(state, H, FLAT, 5)
    state = no_prescience(enter_phase(state, Phase.BATTLE)[0])
    state, _ = apply_all(state, plan(H, "feyd_rautha", 0), kh_plan("thufir_hawat", 3, kwisatz_haderach=kh),
                         *no_calls())
    return state


def test_r_5_r_37_a_leader_with_the_kwisatz_haderach_may_be_attacked_and_he_changes_nothing():
    state = bt_after_atreides_win(kh=True)
    state, _ = apply(state, AnswerRevealWindow(faction=BT))
    assert "thufir_hawat" in prompt_of(state, BT, PromptKind.BT_ATTACK).options
    state = no_prescience(apply(state, ChooseBtAttack(faction=BT, leader="thufir_hawat"))[0])  # BT-13
    spice = state.faction(BT).spice
    state, events = apply_all(state, SubmitBattlePlan(faction=BT, weapon="lasgun"),
                              SubmitBattlePlan(faction=A, leader="thufir_hawat", defense="shield_1"))
    resolved = event(events, "bt_attack_resolved")
    assert resolved.data["killed"] and resolved.data["explosion"]
    assert "thufir_hawat" in state.faction(A).leaders_in_tanks and state.faction(BT).spice == spice + 5
    assert not state.kwisatz_haderach.dead  # he takes no part in the attack; its explosion does not reach him
    assert violations(state) == []


def test_r_37_a_karama_trap_kills_the_leader_and_the_tokens_never_the_kwisatz_haderach():
    """R-37 (BT-50, R-16): the active Kwisatz Haderach takes no part in a trap. The Atreides' 4 tokens sprang a
    Karama trap on Carthag; it strikes Duncan Idaho, whose plan cannot take the Haderach; the trap kills Duncan and
    every token there, and the Haderach lives."""
    state = switch_on(arena((A, H, G, BT), forces={"Carthag#10": {"atreides": 4}},
                            traps={"Carthag": {"card": "karama_2", "triggered_by": "atreides", "triggered_turn": 2}},
                            draws={"trap_leader": ["duncan_idaho"]}), character_advantages=True)
    state.kwisatz_haderach.active = True
    state, _ = enter_phase(state, Phase.BATTLE)
    assert prompt_of(state, A, PromptKind.BATTLE_PLAN).detail["kwisatz_haderach"] is False
    refused(state, kh_plan("duncan_idaho", 0))
    state, events = apply(state, SubmitBattlePlan(faction=A, leader="duncan_idaho"))
    resolved = event(events, "bt_trap_resolved")
    assert resolved.data["killed"] and resolved.data["explosion"]
    assert "duncan_idaho" in state.faction(A).leaders_in_tanks and state.tokens_at("Carthag#10", A) == 0
    assert not state.kwisatz_haderach.dead and state.kwisatz_haderach.active
    assert not any(e.type == "kwisatz_haderach_killed" for e in events)
    assert violations(state) == []


def test_r_19_a_bt_reveal_of_a_leader_who_fought_beside_the_kwisatz_haderach_has_no_effect_there():
    state = bt_after_atreides_win(kh=True, marked=True)
    state, events = apply(state, AnswerRevealWindow(faction=BT, leader="thufir_hawat"))
    revealed = event(events, "bt_traitor_revealed")
    assert revealed.public and revealed.data["effect"] is False and "R-19" in revealed.message
    assert state.tokens_at(FLAT, A) == 2 and "thufir_hawat" not in state.faction(A).leaders_in_tanks
    assert state.bt.marked == []  # the mark is used up
    base = bt_after_atreides_win(kh=False, marked=True)
    base, events = apply(base, AnswerRevealWindow(faction=BT, leader="thufir_hawat"))
    assert event(events, "bt_traitor_revealed").data["effect"] is True
    base, _ = let_reveal_stand(base)  # BT-51: nobody cancels it with Karama
    assert base.tokens_at(FLAT, A) == 0


def test_a_14_karama_keeps_the_kwisatz_haderach_from_one_battle():
    """A-14: Karama cancels the Haderach's use: no +2, and a traitor works against his leader again."""
    state = switch_on(arena((A, H, G)), character_advantages=True)
    state.kwisatz_haderach.active = True
    put(state, A, FLAT, 5)
    put(state, H, FLAT, 5)
    give(state, H, "karama_1")
    state, _ = apply(state, UseKarama(faction=H, card="karama_1", against=A, advantage="kwisatz_haderach"))
    state = no_prescience(enter_phase(state, Phase.BATTLE)[0])
    state, events = apply_all(state, plan(H, "feyd_rautha", 2), kh_plan("thufir_hawat", 2), *no_calls())
    assert event(events, "karama_played").data["advantage"] == "kwisatz_haderach"
    won = event(events, "battle_won")
    assert won.data["winner"] == "harkonnen" and won.data["totals"] == {"harkonnen": 8, "atreides": 7}
    assert state.battle is None or state.battle.kwisatz_haderach_territory is None
