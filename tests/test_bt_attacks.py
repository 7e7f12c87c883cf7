"""The BT leader attack (BT-11..BT-17, BT-50, R-4, R-5, R-15..R-18, R-28, R-29, R-34) and trap attacks
(BT-32..BT-34, R-13, R-22)."""

from __future__ import annotations

import pytest

from bot.app.render import action_messages, decision_card
from engine.actions import (
    AnswerRevealWindow,
    AskPrescience,
    CallTraitor,
    ChooseBtAttack,
    Move,
    Ship,
    SubmitBattlePlan,
    UseKarama,
    UseVoice,
)
from engine.errors import RuleViolation
from engine.game import apply
from engine.ids import Faction
from engine.invariants import violations
from engine.model import Phase, PromptKind
from engine.views import view
from tests.conftest import apply_all, enter_phase, prompt_of, snapshot
from tests.test_battle import FLAT, arena, give, plan, put

A, BG, E, G, H, BT = (
    Faction.ATREIDES, Faction.BENE_GESSERIT, Faction.EMPEROR, Faction.GUILD, Faction.HARKONNEN,
    Faction.BENE_TLEILAXU,
)


def bt_arena(factions=(E, H, G, BT), **position):
    """The arena of tests/test_battle.py with the Bene Tleilaxu: no traps, unless `position` lays some."""
    return arena(factions, **position)


def fought(state):
    """Emperor (Hasimir Fenring) beat Harkonnen (Feyd-Rautha) on The Great Flat; both leaders survive."""
    put(state, E, FLAT, 6)
    put(state, H, FLAT, 5)
    state, _ = enter_phase(state, Phase.BATTLE)
    state, events = apply_all(state, plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2),
                              CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
    # the BT may betray the open-field winner before the round goes on; they let it pass here.
    assert prompt_of(state, BT, PromptKind.BT_REVEAL_WINDOW).options == ["pass"]
    state, more = apply(state, AnswerRevealWindow(faction=BT))
    return state, events + more


def bt_plan(weapon=None, defense=None, impair=None):
    return SubmitBattlePlan(faction=BT, weapon=weapon, defense=defense, impair=impair)


def defend(leader, defense=None, worthless=None, faction=H):
    return SubmitBattlePlan(faction=faction, leader=leader, defense=defense, weapon=worthless)


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


# --- traps -------------------------------------------------------------------------------------


def trapped(card, victim=H, factions=(E, H, G, BT), **position):
    """The trap on Carthag holds `card`; `victim`, with 4 tokens there, sprang it this turn (BT-30)."""
    return bt_arena(factions, forces={"Carthag#10": {victim.value: 4}},
                    traps={"Carthag": {"card": card, "triggered_by": victim.value, "triggered_turn": 2}}, **position)


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
