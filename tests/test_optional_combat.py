"""The 1979 optional combat rules (A-15): Sardaukar and Fedaykin and Harkonnen leader capture
(`character_advantages`), and spice dialing (`advanced_combat`). Each scenario is also played with the option
off, to show the option changes what it should and only that."""

from __future__ import annotations

import pytest

from engine.actions import (
    AnswerRevealWindow,
    CallTraitor,
    CaptureLeader,
    ChooseBtAttack,
    Revive,
    SubmitBattlePlan,
    UseKarama,
)
from engine.checks.invariants import violations
from engine.events import EventLog
from engine.factions.elites import elites_at, elites_in_reserves
from engine.game import apply
from engine.ids import Faction
from engine.model import Phase, PromptKind
from engine.phases.battle_plans import available_leaders
from engine.rules.forces import from_reserves, move_tokens, wipe_out
from engine.secrecy.views import view
from tests.conftest import apply_all, enter_phase, let_reveal_stand, prompt_of, refused
from tests.helpers.positions.battle import FLAT, arena, duel, give, plan, put
from tests.helpers.positions.bt_attacks import bt_arena, fought
from tests.helpers.positions.optional_combat import event, harkonnen_win, put_elites, ready_karama, switch_on

A, E, F, G, H, BT = (Faction.ATREIDES, Faction.EMPEROR, Faction.FREMEN, Faction.GUILD, Faction.HARKONNEN,
                     Faction.BENE_TLEILAXU)
ARRAKEEN = "Arrakeen#9"


# --- Sardaukar and Fedaykin --------------------------------------------------------------------


def sardaukar_duel(on: bool):
    """Emperor 5 tokens on The Great Flat (2 Sardaukar when the option is on) against Harkonnen 5."""
    state = arena()
    if on:
        switch_on(state, character_advantages=True)
        put_elites(state, E, FLAT, 5, 2)
    else:
        put(state, E, FLAT, 5)
    put(state, H, FLAT, 5)
    return enter_phase(state, Phase.BATTLE)[0]


def test_a_15_sardaukar_count_double_in_the_dial():
    """Each Sardaukar is worth 2 in the dial: 5 tokens with 2 Sardaukar dial up to 7 (5 without the option)."""
    on, off = sardaukar_duel(True), sardaukar_duel(False)
    assert prompt_of(on, E, PromptKind.BATTLE_PLAN).detail["max_dial"] == 7
    assert prompt_of(off, E, PromptKind.BATTLE_PLAN).detail["max_dial"] == 5
    refused(off, plan(E, "bashar", 7))
    # The same fight at full strength: 7 + 2 beats Feyd-Rautha 6 + 2; without Sardaukar 5 + 2 loses to it.
    on, events = apply_all(on, plan(E, "bashar", 7), plan(H, "feyd_rautha", 2),
                           CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
    assert event(events, "battle_won").data["winner"] == "emperor"
    assert event(events, "elite_tokens_fight").data == {"faction": "emperor", "elites": 2, "worth": 2,
                                                         "territory": "The Great Flat"}
    off, events = apply_all(off, plan(E, "bashar", 5), plan(H, "feyd_rautha", 2),
                            CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
    assert event(events, "battle_won").data["winner"] == "harkonnen"
    assert not [e for e in events if e.type == "elite_tokens_fight"]
    assert violations(on) == [] and violations(off) == []


def test_a_15_an_elite_absorbs_two_losses():
    """The winner loses the number dialed: regular tokens first, then each elite covers 2."""
    state = switch_on(arena(), character_advantages=True)
    put_elites(state, E, FLAT, 4, 2)
    put(state, H, FLAT, 5)
    state, events = duel(state, plan(E, "hasimir_fenring", 4), plan(H, "feyd_rautha", 0))
    # 2 regular tokens cover 2 of the dial, one Sardaukar the other 2: one Sardaukar is left.
    assert state.tokens_at(FLAT, E) == 1 and elites_at(state, FLAT, E) == 1
    assert state.faction(E).tanks == 3 and state.faction(E).elite_tanks == 1
    assert event(events, "battle_won").data["elites_lost"] == 1
    assert violations(state) == []
    base = arena()
    put(base, E, FLAT, 4)
    put(base, H, FLAT, 5)
    base, _ = duel(base, plan(E, "hasimir_fenring", 4), plan(H, "feyd_rautha", 0))
    assert base.tokens_at(FLAT, E) == 0 and base.faction(E).tanks == 4


def test_a_15_sardaukar_count_single_against_the_fremen_and_fedaykin_count_double():
    state = switch_on(arena((E, F, H)), character_advantages=True)
    put_elites(state, E, FLAT, 3, 2)
    put_elites(state, F, FLAT, 3, 2)
    state, _ = enter_phase(state, Phase.BATTLE)
    assert prompt_of(state, E, PromptKind.BATTLE_PLAN).detail["max_dial"] == 3  # Sardaukar single
    assert prompt_of(state, F, PromptKind.BATTLE_PLAN).detail["max_dial"] == 5  # Fedaykin double
    state, events = apply_all(state, plan(E, "bashar", 3), plan(F, "jamis", 5),
                              CallTraitor(faction=E, call=False), CallTraitor(faction=F, call=False))
    fights = {e.data["faction"]: e.data["worth"] for e in events if e.type == "elite_tokens_fight"}
    assert fights == {"emperor": 1, "fremen": 2}
    # The Fremen win 7 to 5 and pay their dial of 5: 1 regular token, then 2 Fedaykin (the last covers 2 of 4).
    assert event(events, "battle_won").data["winner"] == "fremen"
    assert state.tokens_at(FLAT, F) == 0 and state.faction(F).elite_tanks == 2
    assert state.faction(E).elite_tanks == 2 and violations(state) == []


def test_a_15_elites_ship_first_move_with_their_group_and_die_with_it():
    """Our reading (engine/factions/elites.py): shipped and moving groups take their elites along first."""
    state = switch_on(arena((E, H, G)), character_advantages=True)
    log = EventLog()
    from_reserves(state, E, ARRAKEEN, 3, log)
    assert elites_at(state, ARRAKEEN, E) == 3 and elites_in_reserves(state, E) == 2
    move_tokens(state, E, {ARRAKEEN: 2}, FLAT, log)
    assert elites_at(state, FLAT, E) == 2 and elites_at(state, ARRAKEEN, E) == 1
    wipe_out(state, FLAT, E)
    assert state.faction(E).elite_tanks == 2 and FLAT not in state.elites
    assert violations(state) == [] and view(state, None).elites == {ARRAKEEN: {E: 1}}
    assert next(f for f in view(state, None).factions if f.faction == E).elites_in_tanks == 2
    off = arena((E, H, G))
    from_reserves(off, E, ARRAKEEN, 3, log)
    assert off.elites == {} and off.tokens_at(ARRAKEEN, E) == 3


def revival_with_elites_in_tanks(on: bool):
    state = arena((E, H, G))
    if on:
        switch_on(state, character_advantages=True)
        state.faction(E).elite_tanks = 2
    state.faction(E).reserves -= 3
    state.faction(E).tanks = 3
    state.faction(E).spice = 10
    return enter_phase(state, Phase.MOVEMENT)[0]


def test_a_15_only_one_elite_token_is_revived_a_turn():
    state = revival_with_elites_in_tanks(True)
    assert prompt_of(state, E, PromptKind.REVIVAL).detail["max_tokens"] == 2  # 1 regular + 1 Sardaukar
    refused(state, Revive(faction=E, tokens=3), rule="A-15")
    state, events = apply(state, Revive(faction=E, tokens=2))
    assert state.faction(E).tanks == 1 and state.faction(E).elite_tanks == 1
    assert event(events, "revived").data["elites"] == 1 and "1 of them Sardaukar" in event(events, "revived").message
    assert violations(state) == []
    base = revival_with_elites_in_tanks(False)
    assert prompt_of(base, E, PromptKind.REVIVAL).detail["max_tokens"] == 3
    base, _ = apply(base, Revive(faction=E, tokens=3))
    assert base.faction(E).tanks == 0


# --- advanced combat -------------------------------------------------------------------------


def spice_duel(on: bool):
    state = arena()
    if on:
        switch_on(state, advanced_combat=True)
    put(state, E, FLAT, 6)
    put(state, H, FLAT, 5)
    for faction in (E, H):
        state.faction(faction).spice = 10
    return state


def spice_plan(faction, leader, dial, spice):
    return SubmitBattlePlan(faction=faction, leader=leader, dial=dial, spice=spice)


def test_a_15_advanced_combat_unbacked_tokens_count_half():
    """Fenring 6 + 3 unbacked tokens (1.5) loses to Feyd-Rautha 6 + 2 backed; without the option 9 beats 8."""
    state, events = duel(spice_duel(True), spice_plan(E, "hasimir_fenring", 3, 0), spice_plan(H, "feyd_rautha", 2, 2))
    won = event(events, "battle_won")
    assert won.data["winner"] == "harkonnen" and won.data["totals"] == {"emperor": 7.5, "harkonnen": 8}
    base, events = duel(spice_duel(False), plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2))
    assert event(events, "battle_won").data["totals"] == {"emperor": 9, "harkonnen": 8}


def test_a_15_the_spice_dialed_is_paid_to_the_bank_after_the_battle_by_both_sides():
    state = spice_duel(True)
    bank_out = state.spice_outside_bank
    state, events = duel(state, spice_plan(E, "hasimir_fenring", 3, 1), spice_plan(H, "feyd_rautha", 2, 2))
    assert event(events, "battle_won").data["totals"] == {"emperor": 8, "harkonnen": 8}  # tie: the aggressor
    assert state.faction(E).spice == 9 and state.faction(H).spice == 8
    assert state.spice_outside_bank == bank_out - 3
    assert {e.data["faction"]: e.data["spice"] for e in events if e.type == "combat_spice_paid"} == \
        {"emperor": 1, "harkonnen": 2}
    assert violations(state) == []


def test_a_15_a_traitor_revealer_keeps_the_spice_he_dialed():
    state = spice_duel(True)
    state.faction(H).traitors = ["hasimir_fenring"]
    state, events = duel(state, spice_plan(E, "hasimir_fenring", 3, 3), spice_plan(H, "feyd_rautha", 2, 2),
                         calls=[CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=True)])
    assert state.faction(H).spice == 10 + 6  # his 2 kept, Fenring's 6 paid to him
    assert state.faction(E).spice == 7  # the betrayed side pays


def test_a_15_spice_backs_at_most_the_dial_and_what_is_held_and_only_in_advanced_combat():
    state, _ = enter_phase(spice_duel(True), Phase.BATTLE)
    assert prompt_of(state, E, PromptKind.BATTLE_PLAN).detail["max_spice"] == 6
    refused(state, spice_plan(E, "hasimir_fenring", 2, 3))
    state.faction(E).spice = 1
    refused(state, spice_plan(E, "hasimir_fenring", 2, 2))
    base, _ = enter_phase(spice_duel(False), Phase.BATTLE)
    assert prompt_of(base, E, PromptKind.BATTLE_PLAN).detail["max_spice"] == 0
    assert "only in advanced combat" in str(refused(base, spice_plan(E, "hasimir_fenring", 2, 1)))


# --- Harkonnen leader capture -----------------------------------------------------------------


def test_a_15_the_harkonnen_capture_a_leader_after_a_win_and_keep_him():
    state, events = harkonnen_win(True)
    captured = event(events, "leader_captured")
    assert captured.public and captured.data == {"leader": "burseg", "faction": "emperor"}
    prompt = prompt_of(state, H, PromptKind.LEADER_CAPTURE)
    assert not prompt.secret and prompt.options == ["keep", "kill", "release"]
    refused(state, CaptureLeader(faction=E, choice="keep"))
    state, events = apply(state, CaptureLeader(faction=H, choice="keep"))
    assert state.captured == {"burseg": H} and view(state, None).captured == {"burseg": H}
    assert "burseg" in available_leaders(state, H, FLAT) and "burseg" not in available_leaders(state, E, FLAT)
    assert violations(state) == []
    base, events = harkonnen_win(False)
    assert base.captured == {} and not [e for e in events if e.type == "leader_captured"]
    assert not [p for p in base.prompts if p.kind == PromptKind.LEADER_CAPTURE]


def test_a_15_a_captured_leader_killed_earns_the_harkonnen_2_spice():
    state, _ = harkonnen_win(True)
    spice = state.faction(H).spice
    state, events = apply(state, CaptureLeader(faction=H, choice="kill"))
    assert "burseg" in state.faction(E).leaders_in_tanks and state.captured == {}
    assert state.faction(H).spice == spice + 2 and event(events, "captured_leader_killed").public
    assert violations(state) == []


def captive_battle(traitor_for_emperor: bool = False):
    """Burseg, captured by the Harkonnen, leads them against the Emperor."""
    state = switch_on(arena(), character_advantages=True)
    state.captured = {"burseg": H}
    if traitor_for_emperor:
        state.faction(E).traitors = ["burseg"]
    put(state, E, FLAT, 3)
    put(state, H, FLAT, 5)
    state, _ = enter_phase(state, Phase.BATTLE)
    assert "burseg" in prompt_of(state, H, PromptKind.BATTLE_PLAN).detail["leaders"]
    assert "burseg" not in prompt_of(state, E, PromptKind.BATTLE_PLAN).detail["leaders"]
    return state


def test_a_15_a_captive_who_survives_a_battle_goes_home_when_the_round_ends():
    state = captive_battle()
    state, events = apply_all(state, plan(E, "bashar", 0), plan(H, "burseg", 1),
                              CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
    assert event(events, "battle_won").data["winner"] == "harkonnen"
    drawn = prompt_of(state, H, PromptKind.LEADER_CAPTURE).detail["leader"]  # this win captures another one
    state, more = apply(state, CaptureLeader(faction=H, choice="keep"))
    assert state.phase != Phase.BATTLE and state.captured == {drawn: H}  # he did not fight: he stays
    assert [e.data["leader"] for e in events + more if e.type == "captive_returned"] == ["burseg"]


def test_a_15_a_captive_killed_in_battle_dies_into_his_own_factions_tanks():
    state = captive_battle()
    give(state, E, "crysknife")
    state, _ = apply_all(state, plan(E, "bashar", 3, weapon="crysknife"), plan(H, "burseg", 0),
                         CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
    assert "burseg" in state.faction(E).leaders_in_tanks and "burseg" not in state.faction(H).leaders_in_tanks
    assert state.captured == {} and violations(state) == []


def test_a_15_a_traitor_card_still_works_against_a_captured_leader():
    state = captive_battle(traitor_for_emperor=True)
    spice = state.faction(E).spice
    state, events = apply_all(state, plan(E, "bashar", 0), plan(H, "burseg", 5),
                              CallTraitor(faction=E, call=True), CallTraitor(faction=H, call=False))
    assert event(events, "traitor_called").data["winner"] == "emperor"
    assert "burseg" in state.faction(E).leaders_in_tanks and state.faction(E).spice == spice + 3
    assert state.captured == {} and violations(state) == []


def test_a_15_item_7_a_bt_mark_on_a_captured_leader_stays_and_betrays_his_captors():
    """Issue 8 item 7, BT-22, BT-23: the mark stays while he is held; he now wins for the Harkonnen, so a
    reveal betrays the Harkonnen tokens, and he dies into the Emperor's tanks."""
    state = switch_on(arena((E, H, G, BT)), character_advantages=True)
    state.traps = {}
    state.captured = {"burseg": H}
    state.bt.marked = ["burseg"]
    put(state, E, FLAT, 3)
    put(state, H, FLAT, 5)
    state, _ = duel(state, plan(E, "bashar", 0), plan(H, "burseg", 1))
    window = prompt_of(state, BT, PromptKind.BT_REVEAL_WINDOW)
    assert "burseg" in window.options
    state, events = apply(state, AnswerRevealWindow(faction=BT, leader="burseg"))
    revealed = event(events, "bt_traitor_revealed")
    assert revealed.data["effect"] and revealed.data["faction"] == "harkonnen"
    state, _ = let_reveal_stand(state)  # BT-51: nobody cancels it with Karama
    assert state.tokens_at(FLAT, H) == 0 and "The Great Flat" in state.bt.controlled
    assert "burseg" in state.faction(E).leaders_in_tanks and "burseg" not in state.captured
    assert violations(state) == []


def test_a_15_no_capture_without_a_harkonnen_win():
    state = switch_on(arena(), character_advantages=True)
    put(state, E, FLAT, 6)
    put(state, H, FLAT, 5)
    state, events = duel(state, plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2))
    assert event(events, "battle_won").data["winner"] == "emperor"
    assert state.captured == {} and not [e for e in events if e.type == "leader_captured"]


def test_a_15_the_harkonnen_choice_is_checked():
    state, _ = harkonnen_win(True)
    with pytest.raises(ValueError):
        CaptureLeader(faction=H, choice="eat")
    assert refused(state, CaptureLeader(faction=G, choice="keep")).rule == "A-15"


# --- Karama against the optional advantages (A-14: `karama_can_block` "(optional)") -------------


def test_a_14_karama_makes_the_sardaukar_count_single_in_one_battle():
    state = switch_on(arena(), character_advantages=True)
    put_elites(state, E, FLAT, 5, 2)
    put(state, H, FLAT, 5)
    state = ready_karama(state, H, E, "sardaukar")
    state, events = enter_phase(state, Phase.BATTLE)
    assert prompt_of(state, E, PromptKind.BATTLE_PLAN).detail["max_dial"] == 5
    assert event(events, "karama_played").data["advantage"] == "sardaukar"
    assert "karama_1" in state.treachery_discard


def test_a_14_karama_stops_a_leader_capture():
    state = switch_on(arena(), character_advantages=True)
    state.faction(E).leaders_in_tanks = ["hasimir_fenring", "captain_aramsham", "caid"]
    put(state, E, FLAT, 3)
    put(state, H, FLAT, 5)
    state = ready_karama(state, E, H, "leader_capture")
    state, events = duel(state, plan(E, "bashar", 0), plan(H, "feyd_rautha", 1))
    assert event(events, "karama_played").data["advantage"] == "leader_capture"
    assert state.captured == {} and not [p for p in state.prompts if p.kind == PromptKind.LEADER_CAPTURE]


def test_a_15_karama_against_an_optional_advantage_needs_the_option():
    state = arena()
    give(state, H, "karama_1")
    assert refused(state, UseKarama(faction=H, card="karama_1", against=E, advantage="sardaukar")).rule == "A-15"


def test_a_15_advanced_combat_changes_nothing_in_a_bt_attack_which_has_no_dial():
    """Issue 8 item 7: BT attacks and traps use no dial, so no spice backs anything there."""
    state = switch_on(bt_arena(), advanced_combat=True)
    give(state, BT, "crysknife")
    state, _ = fought(state)
    state, _ = apply(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"))
    assert prompt_of(state, H, PromptKind.BATTLE_PLAN).detail["max_dial"] == 0
    refused(state, SubmitBattlePlan(faction=H, leader="feyd_rautha", spice=1))
    state, events = apply_all(state, SubmitBattlePlan(faction=BT, weapon="crysknife"),
                              SubmitBattlePlan(faction=H, leader="feyd_rautha"))
    assert "feyd_rautha" in state.faction(H).leaders_in_tanks
    assert not [e for e in events if e.type == "combat_spice_paid"]
