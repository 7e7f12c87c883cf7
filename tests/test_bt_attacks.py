"""The BT leader attack (BT-11..BT-17, BT-50, R-4, R-5, R-15..R-18, R-28, R-29, R-34) and trap attacks
(BT-32..BT-34, R-13, R-22)."""

from __future__ import annotations

import pytest

from bot.app.render import action_messages, decision_card
from engine.actions import (
    AnswerPrescience,
    AnswerRevealWindow,
    AskPrescience,
    CallTraitor,
    ChooseBtAttack,
    Move,
    Ship,
    UseKarama,
    UseVoice,
)
from engine.checks.invariants import violations
from engine.errors import RuleViolation
from engine.game import apply
from engine.ids import Faction
from engine.model import Phase, PromptKind
from engine.secrecy.views import view
from tests.conftest import apply_all, enter_phase, prompt_of, snapshot
from tests.helpers.positions.battle import FLAT, give, plan, put
from tests.helpers.positions.bt_attacks import bt_arena, bt_plan, defend, fought, trapped

A, BG, E, G, H, BT = (
    Faction.ATREIDES, Faction.BENE_GESSERIT, Faction.EMPEROR, Faction.GUILD, Faction.HARKONNEN,
    Faction.BENE_TLEILAXU,
)


def test_bt_11_the_bt_may_attack_a_leader_who_fought_and_survived():
    state = bt_arena()
    give(state, BT, "crysknife")
    state, _ = fought(state)
    prompt = prompt_of(state, BT, PromptKind.BT_ATTACK)
    assert prompt.secret and set(prompt.options) == {"feyd_rautha", "hasimir_fenring", "decline"}
    state, events = apply(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"))
    assert any(e.type == "bt_attack" and e.public for e in events)
    assert {p.faction for p in state.prompts if p.kind == PromptKind.BATTLE_PLAN} == {BT, H}


def test_bt_11_declining_ends_the_round_and_no_second_attack():
    """BT-11: one attack decision per battle round; declining ends the round with nobody attacked."""
    state = bt_arena()
    give(state, BT, "crysknife")
    state, _ = fought(state)
    state, events = apply(state, ChooseBtAttack(faction=BT))
    assert state.battle is None and state.phase != Phase.BATTLE
    assert not [p for p in state.prompts if p.kind == PromptKind.BT_ATTACK]
    assert any(e.type == "bt_attack_declined" for e in events)
    assert not any(e.type == "bt_attack" for e in events) and "crysknife" in state.faction(BT).hand


def test_bt_11_bt_12_the_bt_are_asked_even_without_a_card_for_the_weapon_slot():
    """BT-11 asks the BT after every battle round with a surviving leader; BT-12 needs a weapon, worthless or
    Karama card to attack. Asking only a BT who hold one would tell the table so: without one the BT are asked
    all the same, may only decline, and the table sees the same as when a BT holding a card declines."""
    told = []
    for card in ("shield_1", "crysknife"):  # a defense only, or a weapon: one card either way (hand sizes are public)
        state = bt_arena()
        give(state, BT, card)
        state, _ = fought(state)
        prompt = prompt_of(state, BT, PromptKind.BT_ATTACK)
        armed = card == "crysknife"
        assert prompt.options == (["feyd_rautha", "hasimir_fenring", "decline"] if armed else ["decline"])
        if not armed:
            with pytest.raises(RuleViolation) as refusal:
                apply(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"))
            assert refusal.value.rule == "BT-12"
        table = view(state, None).model_dump_json()
        state, events = apply(state, ChooseBtAttack(faction=BT))
        told.append((table, [e for e in events if e.public], view(state, None).model_dump_json()))
    assert told[0] == told[1]


def test_bt_11_a_leader_who_did_not_fight_cannot_be_attacked():
    state = bt_arena()
    give(state, BT, "crysknife")
    state, _ = fought(state)
    with pytest.raises(RuleViolation) as refusal:
        apply(state, ChooseBtAttack(faction=BT, leader="beast_rabban"))
    assert refusal.value.rule == "BT-11"


def test_bt_15_a_killed_leader_earns_the_bt_his_strength_and_r_4_card_fates():
    state = bt_arena()
    give(state, BT, "crysknife", "kulon")
    give(state, H, "snooper_1")
    state, _ = fought(state)
    spice = state.faction(BT).spice
    state, events = apply_all(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"),
                              bt_plan("crysknife", "kulon"), defend("feyd_rautha", "snooper_1"))
    assert "feyd_rautha" in state.faction(H).leaders_in_tanks
    assert state.faction(BT).spice == spice + 6
    assert {"crysknife", "kulon", "snooper_1"} <= set(state.treachery_discard)  # he died, he discards
    assert state.tokens_at(FLAT, E) == 3  # BT-14: tokens unharmed without an explosion
    assert violations(state) == []


def test_bt_12_a_shield_stops_a_projectile_and_the_defender_keeps_it():
    """BT-12, R-4, R-18: the defender keeps his defense when he lives, but always discards a worthless card."""
    state = bt_arena()
    give(state, BT, "stunner")
    give(state, H, "shield_1", "baliset")
    state, _ = fought(state)
    state, _ = apply_all(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"), bt_plan("stunner"),
                         defend("feyd_rautha", "shield_1", worthless="baliset"))
    assert "feyd_rautha" not in state.faction(H).leaders_in_tanks
    assert "shield_1" in state.faction(H).hand
    assert {"stunner", "baliset"} <= set(state.treachery_discard)


def test_bt_14_r_15_r_16_lasgun_against_shield_destroys_everything_and_pays_the_bt():
    state = bt_arena()
    give(state, BT, "lasgun")
    give(state, E, "shield_1")
    state, _ = fought(state)
    state.spice_on_board[FLAT] = 7
    state.spice_outside_bank += 7
    spice = state.faction(BT).spice
    state, events = apply_all(state, ChooseBtAttack(faction=BT, leader="hasimir_fenring"), bt_plan("lasgun"),
                              defend("hasimir_fenring", "shield_1", faction=E))
    assert state.forces.get(FLAT) is None and FLAT not in state.spice_on_board
    assert "hasimir_fenring" in state.faction(E).leaders_in_tanks
    assert state.faction(BT).spice == spice + 6
    assert violations(state) == []


def test_bt_50_a_karama_attacks_as_a_lasgun():
    state = bt_arena()
    give(state, BT, "karama_1")
    give(state, H, "snooper_1")
    state, _ = fought(state)
    state, _ = apply_all(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"), bt_plan("karama_1"),
                         defend("feyd_rautha", "snooper_1"))
    assert "feyd_rautha" in state.faction(H).leaders_in_tanks and "karama_1" in state.treachery_discard


def test_r_34_the_attack_plan_must_fill_its_weapon_slot():
    state = bt_arena()
    give(state, BT, "crysknife", "kulon")
    state, _ = fought(state)
    state, _ = apply(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"))
    before = snapshot(state)
    with pytest.raises(RuleViolation) as refusal:
        apply(state, bt_plan(None, "kulon"))
    assert "R-34" in str(refusal.value) and snapshot(state) == before


@pytest.mark.parametrize(("kind", "barred"), [("no_moving", "move"), ("no_shipping", "ship")])
def test_bt_16_r_17_a_worthless_card_impairs_the_defender_next_turn(kind, barred):
    state = bt_arena()
    give(state, BT, "kulon")
    state, _ = fought(state)
    state, events = apply_all(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"), bt_plan("kulon", impair=kind),
                              defend("feyd_rautha"))
    assert "feyd_rautha" not in state.faction(H).leaders_in_tanks
    assert any("BT-16" in e.message for e in events)
    assert state.bt.impairments[0].turn == state.turn  # the battle round's turn has ended: "next turn" is now
    nxt, _ = enter_phase(state, Phase.MOVEMENT, prompts=[])
    put(nxt, H, "Carthag#10", 2)
    nxt.movement.index = nxt.movement.order.index(H)
    action = Move(faction=H, from_location="Carthag#10", to_location="Arsunt#10", tokens=1) if barred == "move" \
        else Ship(faction=H, to_location="Carthag#10", tokens=1)
    kind_prompt = PromptKind.MOVEMENT if barred == "move" else PromptKind.SHIPMENT
    from engine.flow import open_prompt

    nxt.prompts = []
    open_prompt(nxt, kind_prompt, H, secret=False)
    with pytest.raises(RuleViolation) as refusal:
        apply(nxt, action)
    assert refusal.value.rule == "BT-16"


def test_bt_16_the_impairment_must_be_named_and_only_with_a_worthless_card():
    state = bt_arena()
    give(state, BT, "kulon", "crysknife")
    state, _ = fought(state)
    state, _ = apply(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"))
    with pytest.raises(RuleViolation):
        apply(state, bt_plan("kulon"))
    with pytest.raises(RuleViolation) as refusal:
        apply(state, bt_plan("crysknife", impair="no_moving"))
    assert refusal.value.rule == "R-17"


def test_bt_13_r_28_prescience_and_voice_serve_the_attacked_defender():
    state = bt_arena((E, H, A, BT))
    give(state, BT, "crysknife", "chaumas")
    state, _ = fought(state)
    state.alliances = [[H, A]]  # allied after the battle, so only the attack sees the Atreides help
    state, _ = apply(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"))
    assert prompt_of(state, A, PromptKind.PRESCIENCE).options == ["weapon", "defense", "none"]
    state, _ = apply(state, AskPrescience(faction=A, element="weapon"))
    assert prompt_of(state, BT, PromptKind.PRESCIENCE_ANSWER).detail["element"] == "weapon"


def test_bt_13_voice_on_the_bt():
    state = bt_arena((E, H, BG, BT))
    give(state, BT, "crysknife", "chaumas")
    state, _ = fought(state)
    state.alliances = [[H, BG]]
    state, _ = apply_all(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"),
                         UseVoice(faction=BG, command="not", category="projectile weapon"))
    with pytest.raises(RuleViolation):
        apply(state, bt_plan("crysknife"))
    apply(state, bt_plan("chaumas"))


def voiced_bt_attack(voice, *cards):
    """The BT, holding `cards`, attack Feyd-Rautha; the Bene Gesserit, allied to the Harkonnen, Voice the BT
    (BT-13) with `voice` ("not:lasgun", "play:lasgun")."""
    state = bt_arena((E, H, BG, BT))
    give(state, BT, *cards)
    state, _ = fought(state)
    state.alliances = [[H, BG]]
    command, kind = voice.split(":")
    state, _ = apply_all(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"),
                         UseVoice(faction=BG, command=command, category=kind))
    return state


def test_r_35_do_not_play_a_lasgun_forbids_the_bts_karama_as_a_lasgun():
    """R-35: a Karama the BT would play as a lasgun (BT-17, BT-50) is a lasgun for the Voice: under "do not play a
    lasgun" the BT's plan may not hold it, and their decision offers the other weapon only."""
    state = voiced_bt_attack("not:lasgun", "karama_1", "crysknife")
    shape = prompt_of(state, BT, PromptKind.BATTLE_PLAN).detail
    assert shape["voice_binds"] and shape["weapons"] == ["crysknife"]
    with pytest.raises(RuleViolation) as refusal:
        apply(state, bt_plan("karama_1"))
    assert "The Voice forbids you to play a lasgun" in str(refusal.value)
    state, _ = apply_all(state, bt_plan("crysknife"), defend("feyd_rautha"))
    assert "feyd_rautha" in state.faction(H).leaders_in_tanks and "karama_1" in state.faction(BT).hand


def test_r_35_r_34_do_not_play_a_lasgun_cannot_bind_a_bt_holding_only_a_karama():
    """R-35 with R-34: the attack must fill its weapon slot, so a Voice against the only card that can fill it cannot
    be obeyed and binds nothing (like any Voice that cannot be obeyed): the Karama still strikes as a lasgun."""
    state = voiced_bt_attack("not:lasgun", "karama_1")
    assert not prompt_of(state, BT, PromptKind.BATTLE_PLAN).detail["voice_binds"]
    state, _ = apply_all(state, bt_plan("karama_1"), defend("feyd_rautha"))
    assert "feyd_rautha" in state.faction(H).leaders_in_tanks


def test_r_35_play_a_lasgun_does_not_oblige_the_bt_to_turn_a_karama_into_one():
    """R-35: the BT hold no lasgun card, and the conversion is theirs to choose: "play a lasgun" binds nothing and
    their crysknife is accepted."""
    state = voiced_bt_attack("play:lasgun", "karama_1", "crysknife")
    shape = prompt_of(state, BT, PromptKind.BATTLE_PLAN).detail
    assert not shape["voice_binds"] and set(shape["weapons"]) == {"karama_1", "crysknife"}
    state, _ = apply_all(state, bt_plan("crysknife"), defend("feyd_rautha"))
    assert "karama_1" in state.faction(BT).hand


def test_r_35_r_28_prescience_asking_for_the_weapon_is_answered_karama():
    """R-35, R-28: the Atreides, allied to the attacked Harkonnen, ask for the BT's weapon; a BT holding only a
    Karama answer "Karama", and the plan is bound to it."""
    state = bt_arena((E, H, A, BT))
    give(state, BT, "karama_1")
    state, _ = fought(state)
    state.alliances = [[H, A]]
    state, _ = apply_all(state, ChooseBtAttack(faction=BT, leader="feyd_rautha"),
                         AskPrescience(faction=A, element="weapon"))
    assert prompt_of(state, BT, PromptKind.PRESCIENCE_ANSWER).options == ["karama_1"]
    state, events = apply(state, AnswerPrescience(faction=BT, answer="karama_1"))
    told = next(e for e in events if e.type == "prescience_answered")
    assert set(told.audience) == {A, BT} and "will play Karama as the weapon" in told.message


# --- traps -------------------------------------------------------------------------------------


def test_bt_32_a_sprung_trap_strikes_a_random_leader_before_any_battle():
    state = trapped("crysknife", draws={"trap_leader": ["piter_de_vries"]})  # the random draw, fixed
    state, events = enter_phase(state, Phase.BATTLE)
    attack = next(e for e in events if e.type == "trap_attack")
    assert attack.data["faction"] == "harkonnen" and "Carthag" not in state.traps
    assert attack.data["leader"] == "piter_de_vries"
    assert [p.faction for p in state.prompts] == [H]
    leader = attack.data["leader"]
    state, events = apply(state, defend(leader))
    assert leader in state.faction(H).leaders_in_tanks
    assert "crysknife" in state.treachery_discard and violations(state) == []


def test_r_13_a_trap_with_no_leader_to_strike_is_discarded():
    state = trapped("crysknife", dead_leaders={"harkonnen": ["feyd_rautha", "beast_rabban", "piter_de_vries",
                                                             "captain_iakin_nefud", "umman_kudu"]})
    state, events = enter_phase(state, Phase.BATTLE)
    [discarded] = [e for e in events if e.type == "trap_discarded"]
    assert "crysknife" in state.treachery_discard
    # the discard pile is face up: the news names the card, as the discard shows it (found by the 300-game
    # non-interference run: "discarded unseen" while the discard pile showed it)
    assert discarded.public and discarded.message.endswith("is discarded: it was Crysknife (R-13).")


def test_bt_33_a_trap_that_is_no_weapon_does_nothing():
    state = trapped("shield_1")
    state, events = enter_phase(state, Phase.BATTLE)
    leader = next(e for e in events if e.type == "trap_attack").data["leader"]
    state, _ = apply(state, defend(leader))
    assert leader not in state.faction(H).leaders_in_tanks and "shield_1" in state.treachery_discard


def test_bt_50_a_karama_trap_kills_and_sweeps_the_stronghold():
    state = trapped("karama_2")
    spice = state.faction(BT).spice
    state, events = enter_phase(state, Phase.BATTLE)
    leader = next(e for e in events if e.type == "trap_attack").data["leader"]
    state, _ = apply(state, defend(leader))
    assert leader in state.faction(H).leaders_in_tanks and state.tokens_at("Carthag#10", H) == 0
    assert state.faction(BT).spice > spice


def test_bt_34_r_22_no_voice_on_a_trap_and_the_atreides_see_a_trap_that_strikes_them():
    state = trapped("chaumas", victim=A, factions=(A, BG, H, BT), alliances=[["atreides", "bene_gesserit"]])
    state, events = enter_phase(state, Phase.BATTLE)
    assert not [p for p in state.prompts if p.kind in (PromptKind.VOICE, PromptKind.PRESCIENCE)]
    seen = next(e for e in events if e.type == "trap_seen")
    assert seen.audience == (A,) and "Chaumas" in seen.message
    other = trapped("chaumas", victim=H, factions=(A, BG, H, BT))
    _, events = enter_phase(other, Phase.BATTLE)
    assert not any(e.type == "trap_seen" for e in events)


def test_the_trap_card_stays_secret_until_it_strikes():
    state = bt_arena(traps={"Carthag": {"card": "chaumas"}})
    other = bt_arena(traps={"Carthag": {"card": "gom_jabbar"}})
    for viewer in (None, E, H, G):
        assert view(state, viewer) == view(other, viewer)


def test_r_29_a_trap_attack_and_the_leader_attack_in_one_round():
    state = bt_arena(forces={"Carthag#10": {"guild": 2}, FLAT: {"emperor": 6, "harkonnen": 5}},
                     traps={"Carthag": {"card": "crysknife", "triggered_by": "guild", "triggered_turn": 2}},
                     hands={"bene_tleilaxu": ["stunner"]})
    state, events = enter_phase(state, Phase.BATTLE)
    leader = next(e for e in events if e.type == "trap_attack").data["leader"]
    state, _ = apply_all(state, defend(leader, faction=G), plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2),
                         CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False),
                         AnswerRevealWindow(faction=BT))
    assert prompt_of(state, BT, PromptKind.BT_ATTACK)


def test_r_34_an_attack_whose_last_weapon_slot_card_was_spent_is_called_off():
    """R-34: the BT readied their only Karama against prescience; it fires when the Atreides would ask in
    the attack on their leader, so nothing is left for the weapon slot and the attack ends without a plan."""
    state = bt_arena((A, H, G, BT))
    give(state, BT, "karama_1")
    put(state, A, FLAT, 6)
    put(state, H, FLAT, 5)
    state, _ = enter_phase(state, Phase.BATTLE)
    state, _ = apply_all(state, AskPrescience(faction=A), plan(A, "duncan_idaho", 3),
                         plan(H, "feyd_rautha", 2), CallTraitor(faction=A, call=False),
                         CallTraitor(faction=H, call=False), AnswerRevealWindow(faction=BT),
                         UseKarama(faction=BT, card="karama_1", against=A, advantage="prescience"))
    state, events = apply(state, ChooseBtAttack(faction=BT, leader="duncan_idaho"))
    assert "karama_1" in state.treachery_discard and state.faction(BT).hand == []
    called_off = [e for e in events if e.type == "bt_attack_called_off"]
    assert len(called_off) == 1 and called_off[0].public and "R-34" in called_off[0].message
    assert not any(p.kind == PromptKind.BATTLE_PLAN for p in state.prompts)
    assert state.battle is None and "duncan_idaho" not in state.faction(A).leaders_in_tanks
    assert violations(state) == []


# --- a trap's victim fought no battle (BT-11, BT-32; 1979 rules: one territory a turn; A-15 capture) -------------


def caid_survives_a_trap(**position):
    """The Emperor's 4 tokens sprang the trap on Carthag (a shield: it does nothing, BT-33); it strikes Caid, who
    lives. The Emperor (6 tokens) and the Harkonnen (5) then meet on The Great Flat."""
    state = trapped("shield_1", victim=E, draws={"trap_leader": ["caid"]}, **position)
    put(state, E, FLAT, 6)
    put(state, H, FLAT, 5)
    state, events = enter_phase(state, Phase.BATTLE)
    assert next(e for e in events if e.type == "trap_attack").data["leader"] == "caid"
    state, _ = apply(state, defend("caid", faction=E))
    assert "caid" not in state.faction(E).leaders_in_tanks and prompt_of(state, E, PromptKind.BATTLE_PLAN)
    return state


def test_bt_11_a_leader_who_only_survived_a_trap_led_no_battle_and_cannot_be_attacked():
    """BT-11: the target must have led tokens in a battle this round. Caid met a trap in Carthag and fought no
    battle: the attack decision does not offer him and naming him is refused."""
    state = caid_survives_a_trap()
    give(state, BT, "crysknife")
    state, _ = apply_all(state, plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2),
                         CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False),
                         AnswerRevealWindow(faction=BT))
    attack = prompt_of(state, BT, PromptKind.BT_ATTACK)
    assert attack.options == ["feyd_rautha", "hasimir_fenring", "decline"]
    assert set(attack.detail["targets"]) == {"feyd_rautha", "hasimir_fenring"}
    with pytest.raises(RuleViolation) as refusal:
        apply(state, ChooseBtAttack(faction=BT, leader="caid"))
    assert refusal.value.rule == "BT-11"


def test_bt_32_a_leader_who_survived_a_trap_may_lead_his_factions_battle_elsewhere():
    """1979 rules (Battles): a leader fights in one territory a turn. A trap's attack in Carthag is no battle
    there (BT-32), so Caid may lead the Emperor's tokens on The Great Flat, and his strength counts."""
    state = caid_survives_a_trap()
    assert "caid" in prompt_of(state, E, PromptKind.BATTLE_PLAN).detail["leaders"]
    assert "caid" in view(state, None).battle.leaders[E]
    state, events = apply_all(state, plan(E, "caid", 3), plan(H, "feyd_rautha", 2),
                              CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
    won = next(e for e in events if e.type == "battle_won")
    assert won.data["totals"] == {"emperor": 6, "harkonnen": 8} and won.data["winner"] == "harkonnen"
    assert violations(state) == []


def test_a_15_the_harkonnen_may_capture_a_leader_who_only_survived_a_trap():
    """A-15 (Harkonnen capture): after a win the Harkonnen take a leader of the loser's who did not fight this turn.
    Caid met a trap and fought no battle; of the Emperor's others Bashar fought and three are dead: Caid is taken."""
    state = caid_survives_a_trap(options={"character_advantages": True},
                                 dead_leaders={"emperor": ["hasimir_fenring", "captain_aramsham", "burseg"]})
    state, events = apply_all(state, plan(E, "bashar", 0), plan(H, "feyd_rautha", 1),
                              CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
    assert next(e for e in events if e.type == "battle_won").data["winner"] == "harkonnen"
    captured = [e for e in events if e.type == "leader_captured"]
    assert len(captured) == 1 and captured[0].public and captured[0].data == {"leader": "caid", "faction": "emperor"}
    assert prompt_of(state, H, PromptKind.LEADER_CAPTURE).detail["leader"] == "caid"


def test_bt_11_the_attack_cards_are_headed_and_answered_as_an_attack_not_a_battle_plan():
    """Issue 25 item 12: the BT's attack card was headed "your battle plan" and answered "the battle plan: no
    leader, dial 0, weapon Crysknife"; it is an attack on a named leader (BT-11, BT-12)."""
    state = bt_arena()
    give(state, BT, "crysknife")
    give(state, H, "snooper_1")
    state, _ = apply(fought(state)[0], ChooseBtAttack(faction=BT, leader="feyd_rautha"))
    attack, defense = (prompt_of(state, f, PromptKind.BATTLE_PLAN) for f in (BT, H))
    assert decision_card(state, attack, None).text.startswith("**Your decision: your attack on a leader** (rule BT-11")
    assert decision_card(state, defense, None).text.startswith("**Your decision: your leader under attack** (rule "
                                                                "BT-11")
    for action, prompt, words in ((bt_plan("crysknife"), attack, "the attack: weapon Crysknife, no defense"),
                                  (defend("feyd_rautha", "snooper_1"), defense,
                                   "against the attack: Feyd-Rautha, defense Snooper")):
        after, events = apply(state, action)
        closing = [m.text for m in action_messages(events, state, action, after) if m.edit_of == f"card:{prompt.id}"]
        assert closing == [f"**You answered: {words}.**"]
