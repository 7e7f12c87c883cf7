"""The Bene Tleilaxu's traitors made from revived leaders, BT control of territories, Karama against a reveal
and the BT alliance revival (bene-tleilaxu.md: BT-20..BT-26, BT-60; R-6, R-7, R-8, R-14, R-23, R-25, R-26,
R-30, R-31, R-32). Positions are built exactly, then played through the real phases."""

from __future__ import annotations

import pytest

from bot.app.anytime_words import panel_text
from engine.actions import (
    AnswerRevealKarama,
    BtAllyRevive,
    ChooseBtAttack,
    ForceDefault,
    MarkBtTraitor,
    Move,
    PlayGhola,
    RevealBtTraitor,
    Revive,
    Ship,
    UseKarama,
)
from engine.checks.invariants import violations
from engine.errors import ViolationCode
from engine.events import visible_events
from engine.flow import DEFAULTS, SAMPLERS
from engine.game import apply
from engine.model import BattleVictory, Phase, PromptKind
from engine.phases.end_of_turn import fremen_condition
from engine.rng import Rng
from engine.rules.anytime import AnytimeKind, anytime_choice, anytime_choices
from engine.rules.board import controller
from engine.rules.economy import place_spice
from engine.rules.karama import Advantage
from engine.secrecy.report import table_report
from engine.secrecy.views import view
from tests.conftest import (
    BT,
    A,
    E,
    F,
    H,
    apply_all,
    enter_phase,
    let_reveal_stand,
    prompt_of,
    refused,
)
from tests.helpers.positions.bt_traitors import (
    ARRAKEEN,
    ATREIDES,
    BASIN,
    CARTHAG,
    DUNCAN,
    FLAT,
    GHOLA,
    KARAMA,
    TABR,
    at,
    battle_won_by_duncan,
    drive,
    position,
    public,
    revival_position,
    stronghold_won,
)

# --- building positions ----------------------------------------------------------------------


def window(state):
    windows = [p for p in state.prompts if p.kind == PromptKind.BT_MARK]
    assert len(windows) <= 1
    return windows[0] if windows else None


# --- BT-20, BT-21: marking revived leaders ----------------------------------------------------


def test_bt_20_a_paid_revival_opens_a_secret_non_blocking_mark_window():
    state = revival_position()
    state, events = apply(state, Revive(faction=A, leader=DUNCAN))
    prompt = window(state)
    assert prompt is not None and prompt.faction == BT and prompt.secret and not prompt.blocking
    assert prompt.options == [DUNCAN, "no"] and prompt.detail["revived"] == [DUNCAN]
    # BT-21: the game did not wait: the shipments have begun with the window open.
    assert prompt_of(state, A, PromptKind.SHIPMENT)
    state, events = apply(state, MarkBtTraitor(faction=BT, leader=DUNCAN))
    assert state.bt.marked == [DUNCAN] and state.bt.last_mark_turn == state.turn
    [marked] = [e for e in events if e.type == "bt_traitor_marked"]
    assert marked.audience == (BT,) and public(events) == []
    assert view(state, BT).own.bt_marked == [DUNCAN]
    assert all(view(state, f).own.bt_marked == [] for f in (A, E, H))


def test_bt_20_a_tleilaxu_ghola_revival_opens_a_mark_window():
    state = at(position(dead={H: ["feyd_rautha"]}, hands={H: [GHOLA]}), Phase.MOVEMENT)
    state, _ = apply(state, PlayGhola(faction=H, leader="feyd_rautha"))
    assert window(state).options == ["feyd_rautha", "no"]
    state, _ = apply(state, MarkBtTraitor(faction=BT, leader="feyd_rautha"))
    assert state.bt.marked == ["feyd_rautha"]


def test_bt_20_bt_60_an_alliance_revival_of_two_leaders_opens_one_window_for_both():
    """BT-60: 'two leaders (one may be made a traitor)'."""
    state = revival_position(dead={A: ["thufir_hawat", DUNCAN]}, alliances=[[A, BT]], ally_revival="grant")
    state, _ = apply(state, BtAllyRevive(faction=A, leaders=["thufir_hawat", DUNCAN]))
    assert window(state).options == ["thufir_hawat", DUNCAN, "no"]
    state, _ = apply(state, MarkBtTraitor(faction=BT, leader="thufir_hawat"))
    assert state.bt.marked == ["thufir_hawat"]


def test_bt_20_at_most_one_mark_a_turn():
    """A second window this turn still opens (nothing visible may tell that the BT marked), but offers only no."""
    state = revival_position(dead={A: ATREIDES, H: ["feyd_rautha"]}, hands={H: [GHOLA]})
    state, _ = apply(state, Revive(faction=A, leader=DUNCAN))
    state, _ = apply(state, MarkBtTraitor(faction=BT, leader=DUNCAN))
    state, _ = apply(state, PlayGhola(faction=H, leader="feyd_rautha"))
    assert window(state).options == ["no"]
    refused(state, MarkBtTraitor(faction=BT, leader="feyd_rautha"), "BT-20", ViolationCode.NOT_ALLOWED)
    state, _ = apply(state, MarkBtTraitor(faction=BT, leader=None))
    assert state.bt.marked == [DUNCAN]


def test_bt_20_a_new_turn_allows_a_new_mark():
    state = revival_position(dead={A: ATREIDES, H: ["feyd_rautha"]}, hands={H: [GHOLA]})
    state.bt.last_mark_turn = state.turn - 1  # a mark made last turn does not count this turn
    state, _ = apply(state, Revive(faction=A, leader=DUNCAN))
    assert window(state).options == [DUNCAN, "no"]


def test_bt_21_the_window_closes_at_the_next_leader_revival():
    state = revival_position(dead={A: ATREIDES, H: ["feyd_rautha"]}, hands={H: [GHOLA]})
    state, _ = apply(state, Revive(faction=A, leader=DUNCAN))
    state, events = apply(state, PlayGhola(faction=H, leader="feyd_rautha"))
    [closed] = [e for e in events if e.type == "bt_mark_window_closed"]
    assert closed.audience == (BT,)
    assert window(state).detail["revived"] == ["feyd_rautha"]
    # BT-21: the BT cannot go back to the leader they skipped.
    refusal = refused(state, MarkBtTraitor(faction=BT, leader=DUNCAN), "BT-21", ViolationCode.ILLEGAL_CHOICE)
    assert "cannot go back" in refusal.message
    assert state.bt.marked == []


def test_bt_21_the_game_never_waits_and_the_window_closes_at_the_end_of_the_turn():
    state = revival_position()
    state, _ = apply(state, Revive(faction=A, leader=DUNCAN))
    assert window(state) is not None
    state, _ = drive(state, lambda s: s.turn == 3 and s.phase == Phase.STORM)  # the whole turn went by
    assert window(state) is None and state.bt.marked == []
    refused(state, MarkBtTraitor(faction=BT, leader=DUNCAN), "BT-21", ViolationCode.NO_OPEN_DECISION)


def test_bt_21_the_default_and_the_sampler():
    """The default answer is no; automatic players mark nine times in ten."""
    state = revival_position()
    state, _ = apply(state, Revive(faction=A, leader=DUNCAN))
    prompt = window(state)
    assert DEFAULTS[PromptKind.BT_MARK](state, prompt) == MarkBtTraitor(faction=BT, leader=None)
    samples = [SAMPLERS[PromptKind.BT_MARK](state, prompt, Rng.from_seed(seed)).leader for seed in range(40)]
    assert 30 <= samples.count(DUNCAN) < 40 and set(samples) == {DUNCAN, None}
    state, _ = apply(state, ForceDefault(admin="mod", reason="deadline", prompt_id=prompt.id))
    assert window(state) is None and state.bt.marked == []


def test_bt_22_a_mark_dies_with_its_leader_and_he_may_be_marked_again():
    state = at(position(marked=[DUNCAN], hands={A: [GHOLA]}), Phase.MOVEMENT)
    state.faction(A).leaders_in_tanks.append(DUNCAN)  # he dies (any death: battle, attack, explosion)
    assert view(state, BT).own.bt_marked == []
    refused(state, RevealBtTraitor(faction=BT, leader=DUNCAN), "R-25")
    state, _ = apply(state, PlayGhola(faction=A, leader=DUNCAN))
    assert state.bt.marked == [] and window(state).options == [DUNCAN, "no"]
    state, _ = apply(state, MarkBtTraitor(faction=BT, leader=DUNCAN))
    assert state.bt.marked == [DUNCAN]


def test_bt_22_the_end_of_the_turn_drops_the_marks_of_dead_leaders():
    state = position(marked=[DUNCAN, "feyd_rautha"], dead={A: [DUNCAN]})
    state = at(state, Phase.COLLECTION)
    assert state.turn == 3 and state.bt.marked == ["feyd_rautha"]


# --- BT-23 and the reveal ----------------------------------------------------------------------


def test_bt_23_a_reveal_betrays_the_leader_and_his_tokens_and_gives_the_bt_the_territory():
    state = at(position(forces={ARRAKEEN: {A: 7}, FLAT: {A: 2}}, marked=[DUNCAN], victories=[stronghold_won()],
                        spice={BT: 5}), Phase.MOVEMENT)
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    [event] = [e for e in events if e.type == "bt_traitor_revealed"]
    assert event.public and event.data["effect"] and "Duncan Idaho" in event.message
    state, events = let_reveal_stand(state)  # BT-51: nobody cancels it with Karama
    assert DUNCAN in state.faction(A).leaders_in_tanks
    assert state.tokens_at(ARRAKEEN, A) == 0 and state.faction(A).tanks == 7
    assert state.tokens_at(FLAT, A) == 2  # tokens elsewhere are not betrayed
    assert state.bt.controlled == ["Arrakeen"] and controller(state, "Arrakeen") == BT
    assert state.faction(BT).spice == 5  # BT-23: no spice for the traitor
    assert state.bt.marked == [] and state.victories == []
    [event] = [e for e in events if e.type == "bt_betrayal"]
    assert event.public and event.data["tokens"] == 7 and "Duncan Idaho" in event.message
    assert view(state, None).bt_controlled == ["Arrakeen"]
    assert violations(state) == []


def test_r_23_every_token_of_that_faction_in_the_territory_is_betrayed():
    """R-23: all tokens of that faction in the territory at the reveal, whatever their sector."""
    record = BattleVictory(territory=BASIN, faction=A, leader=DUNCAN, stronghold=False)
    state = position(forces={"Imperial Basin#8": {A: 3}, "Imperial Basin#10": {A: 4}}, marked=[DUNCAN],
                     victories=[record])
    state, _ = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    state, _ = let_reveal_stand(state)
    assert state.faction(A).tanks == 7 and state.bt.controlled == [BASIN]


def test_r_8_a_reveal_without_effect_is_public_removes_the_mark_and_does_nothing_else():
    state = position(forces={ARRAKEEN: {A: 7}}, marked=[DUNCAN, "feyd_rautha"])
    before = state.model_copy(deep=True)
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    [event] = [e for e in events if e.type == "bt_traitor_revealed"]
    assert event.public and not event.data["effect"] and "R-8" in event.message
    assert state.bt.marked == ["feyd_rautha"]
    assert state.forces == before.forces and state.faction(A) == before.faction(A)
    assert state.bt.controlled == []


def test_r_8_a_reveal_whose_tokens_are_gone_has_no_effect():
    state = position(forces={FLAT: {A: 2}}, marked=[DUNCAN], victories=[stronghold_won()])
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    assert not next(e for e in events if e.type == "bt_traitor_revealed").data["effect"]
    assert DUNCAN not in state.faction(A).leaders_in_tanks and state.bt.controlled == []


def test_r_25_naming_a_leader_who_is_not_a_bt_traitor_is_refused():
    state = position(forces={ARRAKEEN: {A: 7}}, marked=["feyd_rautha"], victories=[stronghold_won()])
    refusal = refused(state, RevealBtTraitor(faction=BT, leader=DUNCAN), "R-25", ViolationCode.ILLEGAL_CHOICE)
    assert "not one of your traitors" in refusal.message
    refused(state, RevealBtTraitor(faction=BT, leader="nobody_at_all"), "R-25")
    refused(state, RevealBtTraitor(faction=H, leader="feyd_rautha"), "BT-23", ViolationCode.NOT_ALLOWED)


def test_bt_26_r_31_a_readied_karama_cancels_a_reveal_and_the_mark():
    """BT-51: the leader returns to his faction, the tokens stay; R-31: the mark is removed. A Karama readied
    against the reveal (A-14) answers the window (tests/test_bt_reveal_karama.py) for its holder."""
    state = position(forces={ARRAKEEN: {A: 7}}, marked=[DUNCAN], victories=[stronghold_won()], hands={E: [KARAMA]})
    state, _ = apply(state, UseKarama(faction=E, card=KARAMA, against=BT, advantage=Advantage.BT_TRAITOR_REVEAL))
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    assert [e.type for e in public(events)] == ["bt_traitor_revealed", "bt_karama_window"]
    state, events = apply_all(state, AnswerRevealKarama(faction=A), AnswerRevealKarama(faction=H))  # E's order
    assert [e.type for e in public(events)] == ["karama_played"]
    assert DUNCAN not in state.faction(A).leaders_in_tanks and state.tokens_at(ARRAKEEN, A) == 7
    assert state.bt.marked == [] and state.bt.controlled == [] and KARAMA in state.treachery_discard
    assert "BT-26" in public(events)[0].message


def test_bt_23_no_reveal_while_his_faction_is_fighting_a_battle():
    """Our reading of 'at any time': his plan may be on the wheel, so the reveal waits for the resolution."""
    state = position(forces={ARRAKEEN: {A: 7}, FLAT: {A: 3, H: 3}}, marked=[DUNCAN], victories=[stronghold_won()])
    state = at(state, Phase.BATTLE)
    assert state.battle.current.territory == "The Great Flat"
    refused(state, RevealBtTraitor(faction=BT, leader=DUNCAN), "BT-23", ViolationCode.WRONG_PHASE)


# --- BT-25, R-6, R-7, R-23: how long a betrayal may wait ------------------------------------------


def betrayal_waiting(**changes):
    """Turn 2's movement round, Atreides to ship first: Duncan Idaho won Arrakeen for 7 Atreides tokens."""
    base = dict(forces={ARRAKEEN: {A: 7}, CARTHAG: {H: 3}}, marked=[DUNCAN], victories=[stronghold_won()])
    base.update(changes)
    return at(position(**base), Phase.MOVEMENT)


def test_bt_25_a_stronghold_betrayal_waits_across_turns():
    state = betrayal_waiting()
    state, _ = drive(state, lambda s: s.turn == 3 and s.phase == Phase.MOVEMENT)
    assert state.victories == [stronghold_won()]
    state, _ = let_reveal_stand(apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN)).state)
    assert state.bt.controlled == ["Arrakeen"]


@pytest.mark.parametrize("shipper", [H, A])
def test_bt_25_r_6_a_shipment_into_the_stronghold_ends_the_wait(shipper):
    """R-23: by any faction, the betrayed one included; R-6: a reveal after it has no effect."""
    state = betrayal_waiting()
    state, _ = drive(state, lambda s: any(p.faction == shipper and p.kind == PromptKind.SHIPMENT for p in s.prompts))
    effective, _ = let_reveal_stand(apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN)).state)  # in time
    assert effective.bt.controlled == ["Arrakeen"]
    state, _ = apply(state, Ship(faction=shipper, to_location=ARRAKEEN, tokens=1))
    assert state.victories == []
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    assert not next(e for e in events if e.type == "bt_traitor_revealed").data["effect"]
    assert state.tokens_at(ARRAKEEN, A) == 7 + (shipper == A) and state.bt.controlled == []


def test_r_6_a_reveal_too_late_to_take_effect_tells_the_table_the_true_reason():
    """Issue 25 item 10, in part: after the Harkonnen shipped onto Arrakeen, a reveal of Duncan Idaho told the table
    that he "has not just won a territory", which is untrue: he won it, and the shipment ended the wait (R-6)."""
    state = betrayal_waiting()
    state, _ = drive(state, lambda s: any(p.faction == H and p.kind == PromptKind.SHIPMENT for p in s.prompts))
    state, _ = apply(state, Ship(faction=H, to_location=ARRAKEEN, tokens=1))
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    [told] = [e.message for e in events if e.type == "bt_traitor_revealed"]
    assert "has not just won" not in told
    assert "no territory he won is open to betrayal now" in told and "R-6" in told


def test_r_6_a_reveal_that_can_only_fail_is_not_offered():
    """Issue 25 item 10: after the Harkonnen shipped onto Arrakeen, `/me act` still offered "Reveal a traitor" for
    Duncan Idaho, whose reveal could then have no effect: the BT lost a secret for nothing. The panel offers a
    reveal only while it takes effect (the autocomplete of `/bt reveal` reads the same list)."""
    state = betrayal_waiting()
    state, _ = drive(state, lambda s: any(p.faction == H and p.kind == PromptKind.SHIPMENT for p in s.prompts))

    def panel(state):
        return panel_text(view(state, BT), anytime_choices(state, BT))

    assert "- Reveal a traitor (rule BT-23)" in panel(state)
    assert anytime_choice(state, BT, AnytimeKind.BT_REVEAL).part("leader").options == [DUNCAN]
    state, _ = apply(state, Ship(faction=H, to_location=ARRAKEEN, tokens=1))
    assert "Reveal a traitor" not in panel(state)
    assert anytime_choice(state, BT, AnytimeKind.BT_REVEAL) is None
    assert state.bt.marked == [DUNCAN]  # still his secret, for a territory he may win later


def test_r_23_a_move_of_the_betrayed_tokens_out_of_the_stronghold_ends_the_wait():
    state = betrayal_waiting()
    state, _ = drive(state, lambda s: any(p.faction == A and p.kind == PromptKind.MOVEMENT for p in s.prompts))
    state, _ = apply(state, Move(faction=A, from_location=ARRAKEEN, to_location="Imperial Basin#9", tokens=1))
    assert state.victories == []
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    assert not next(e for e in events if e.type == "bt_traitor_revealed").data["effect"]
    assert state.tokens_at(ARRAKEEN, A) == 6


def test_bt_25_moves_elsewhere_do_not_end_the_wait():
    state = betrayal_waiting(forces={ARRAKEEN: {A: 7}, CARTHAG: {H: 3}, FLAT: {A: 2}})
    state, _ = drive(state, lambda s: any(p.faction == A and p.kind == PromptKind.MOVEMENT for p in s.prompts))
    to = prompt_of(state, A, PromptKind.MOVEMENT).detail["destinations"][FLAT][0]
    state, _ = apply(state, Move(faction=A, from_location=FLAT, to_location=to, tokens=2))
    assert state.victories == [stronghold_won()]


# --- the battle round: R-7, R-32 --------------------------------------------------------------


def test_r_32_the_bt_mark_a_leader_after_he_fought_and_won_and_reveal_him():
    state = battle_won_by_duncan(ARRAKEEN)
    assert window(state).options == [DUNCAN, "no"]  # still open: no other leader was revived this turn
    state, _ = apply(state, MarkBtTraitor(faction=BT, leader=DUNCAN))
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    assert next(e for e in events if e.type == "bt_traitor_revealed").data["effect"]
    state, _ = let_reveal_stand(state)
    assert state.tokens_at(ARRAKEEN, A) == 0 and DUNCAN in state.faction(A).leaders_in_tanks
    assert state.bt.controlled == ["Arrakeen"]
    state, _ = apply(state, ChooseBtAttack(faction=BT, leader=None))
    assert violations(state) == []


def test_r_7_outside_a_stronghold_the_reveal_must_come_before_the_attack_decision():
    state, _ = apply(battle_won_by_duncan(FLAT), MarkBtTraitor(faction=BT, leader=DUNCAN))
    in_time, _ = let_reveal_stand(apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN)).state)
    assert in_time.bt.controlled == ["The Great Flat"] and in_time.tokens_at(FLAT, A) == 0
    late, _ = apply(state, ChooseBtAttack(faction=BT, leader=None))
    late, events = apply(late, RevealBtTraitor(faction=BT, leader=DUNCAN))
    assert not next(e for e in events if e.type == "bt_traitor_revealed").data["effect"]
    assert late.tokens_at(FLAT, A) == 7 and late.bt.controlled == []


def test_r_7_outside_a_stronghold_the_reveal_has_no_effect_once_the_next_battle_starts():
    record = BattleVictory(territory="The Great Flat", faction=A, leader=DUNCAN, stronghold=False)
    state = position(forces={FLAT: {A: 5}, CARTHAG: {E: 2, H: 3}}, marked=[DUNCAN], victories=[record])
    state = at(state, Phase.BATTLE)
    assert state.battle.current.territory == "Carthag" and state.victories == []
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    assert not next(e for e in events if e.type == "bt_traitor_revealed").data["effect"]
    assert state.tokens_at(FLAT, A) == 5


def test_r_7_open_field_betrayals_end_with_the_turn():
    record = BattleVictory(territory="The Great Flat", faction=A, leader=DUNCAN, stronghold=False)
    state = at(position(forces={FLAT: {A: 5}}, marked=[DUNCAN], victories=[record, stronghold_won(CARTHAG, H,
                                                                                                  "feyd_rautha")]),
               Phase.COLLECTION)
    assert state.turn == 3 and [v.territory for v in state.victories] == ["Carthag"]


# --- BT-24, R-26, R-30: territories the BT control --------------------------------------------------


def test_bt_24_r_30_the_bt_collect_all_the_spice_of_a_territory_they_control_every_round():
    state = position(controlled=["The Great Flat"], spice={BT: 5})
    place_spice(state, FLAT, 12)
    state, events = enter_phase(state, Phase.COLLECTION)
    assert state.faction(BT).spice == 17 and FLAT not in state.spice_on_board
    [collected] = [e for e in events if e.type == "spice_collected"]
    assert collected.public and collected.data == {"faction": "bene_tleilaxu", "location": FLAT, "spice": 12}
    place_spice(state, FLAT, 6)  # spice that blows there later is theirs too
    state, _ = enter_phase(state, Phase.COLLECTION)
    assert state.faction(BT).spice == 23 and violations(state) == []


def test_bt_24_control_ends_the_moment_any_tokens_move_in():
    state = at(position(forces={"Imperial Basin#9": {A: 4}}, controlled=["Arrakeen"]), Phase.MOVEMENT)
    state, _ = drive(state, lambda s: any(p.faction == A and p.kind == PromptKind.MOVEMENT for p in s.prompts))
    assert controller(state, "Arrakeen") == BT
    state, events = apply(state, Move(faction=A, from_location="Imperial Basin#9", to_location=ARRAKEEN, tokens=1))
    assert state.bt.controlled == [] and controller(state, "Arrakeen") == A
    [ended] = [e for e in events if e.type == "bt_control_ended"]
    assert ended.public and "BT-24" in ended.message
    assert view(state, None).bt_controlled == []


def test_bt_24_three_strongholds_controlled_win_the_game_for_the_bt():
    state = position(controlled=["Arrakeen", "Carthag", "Tuek's Sietch"], forces={FLAT: {A: 3}})
    state, events = enter_phase(state, Phase.COLLECTION)
    assert state.phase == Phase.ENDED and state.winners == [BT]


def test_bt_24_two_controlled_strongholds_do_not_win():
    state = position(controlled=["Arrakeen", "Carthag"])
    state, _ = enter_phase(state, Phase.COLLECTION)
    assert state.phase != Phase.ENDED and state.turn == 3


def test_r_26_bt_control_puts_nobody_in_a_sietch_for_the_fremen_condition():
    state = position((F, H, BT), forces={TABR: {F: 3}}, controlled=["Habbanya Sietch", "Tuek's Sietch"])
    assert fremen_condition(state)
    state.bt.controlled.append("Sietch Tabr")
    state.add_tokens(TABR, F, -3)
    assert fremen_condition(state) and controller(state, "Sietch Tabr") == BT


# --- BT-60, R-14: the alliance revival ----------------------------------------------------------------


def test_bt_60_r_14_an_ally_of_the_bt_revives_6_tokens_and_2_leaders_free():
    state = revival_position(dead={A: ["thufir_hawat", DUNCAN]}, tanks={A: 8}, alliances=[[A, BT]],
                             spice={A: 0, BT: 5}, ally_revival="grant")
    prompt = prompt_of(state, A, PromptKind.REVIVAL)
    assert prompt.options == ["thufir_hawat", DUNCAN]  # not all five need be dead
    assert (prompt.detail["max_tokens"], prompt.detail["free_tokens"], prompt.detail["max_leaders"]) == (6, 6, 2)
    assert prompt.detail["leader_costs"] == {"thufir_hawat": 0, DUNCAN: 0}
    refused(state, BtAllyRevive(faction=A, tokens=7), "BT-60")
    refused(state, BtAllyRevive(faction=A, leaders=["thufir_hawat", "thufir_hawat"]), "BT-60")
    refused(state, BtAllyRevive(faction=A, leaders=["lady_jessica"]), "BT-60")
    state, events = apply(state, BtAllyRevive(faction=A, tokens=6, leaders=["thufir_hawat", DUNCAN]))
    fs = state.faction(A)
    assert (fs.tanks, fs.reserves, fs.leaders_in_tanks, fs.spice) == (2, 18, [], 0)
    assert state.faction(BT).spice == 5  # it costs nothing, so nothing is paid to anyone
    [revived] = [e for e in public(events) if e.type == "revived"]
    assert "BT-60" in revived.message and violations(state) == []


def test_bt_60_r_14_revive_also_works_free_for_an_ally():
    state = revival_position(dead={A: [DUNCAN]}, tanks={A: 8}, alliances=[[A, BT]], spice={A: 0, BT: 5},
                             ally_revival="grant")
    refused(state, Revive(faction=A, tokens=7), "BT-60")
    state, events = apply(state, Revive(faction=A, tokens=6, leader=DUNCAN))
    assert state.faction(A).tanks == 2 and state.faction(A).spice == 0 and state.faction(BT).spice == 5
    assert window(state).options == [DUNCAN, "no"]
    assert next(e for e in public(events) if e.type == "revived").message == (
        "The Atreides revive 6 tokens and Duncan Idaho, free by the alliance with the Bene Tleilaxu (BT-60).")


def test_bt_60_only_an_ally_of_the_bt_revives_that_way():
    state = revival_position(dead={A: [DUNCAN]}, tanks={A: 8}, alliances=[[A, E]])
    assert prompt_of(state, A, PromptKind.REVIVAL).detail["max_tokens"] == 3
    refused(state, BtAllyRevive(faction=A, tokens=1), "BT-60", ViolationCode.NOT_ALLOWED)
    refused(state, Revive(faction=A, tokens=4), "A-7")


# --- secrets -----------------------------------------------------------------------------------


def test_nobody_else_can_tell_whether_the_bt_marked_a_leader():
    """BT-21: the table and every other faction see the same game whether the BT marked the leader or not, a
    second revival that turn included (its window offers the BT only "no" after a mark)."""
    state = revival_position(dead={A: ATREIDES, H: ["feyd_rautha"]}, hands={H: [GHOLA]})
    state, opening = apply(state, Revive(faction=A, leader=DUNCAN))
    games = []
    for answer in (DUNCAN, None):
        s, events = apply(state, MarkBtTraitor(faction=BT, leader=answer))
        s, more = apply(s, PlayGhola(faction=H, leader="feyd_rautha"))
        s, rest = drive(s, lambda st: st.turn == 3 and st.phase == Phase.BIDDING)
        games.append((s, opening + events + more + rest))
    (s1, e1), (s2, e2) = games

    def seen(s, e, viewer):
        return view(s, viewer).model_dump(mode="json"), [x.model_dump(mode="json") for x in visible_events(e, viewer)]

    assert seen(s1, e1, BT) != seen(s2, e2, BT)
    for viewer in (None, A, E, H):
        assert seen(s1, e1, viewer) == seen(s2, e2, viewer), f"{viewer} can tell the mark"
    assert table_report(view(s1, None), e1) == table_report(view(s2, None), e2)
