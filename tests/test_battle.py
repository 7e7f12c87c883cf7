"""Battles (1979 rules: Battles; A-13, A-18, A-26): exact scenarios with rigged hands and positions."""

from __future__ import annotations

import pytest

from engine.actions import (
    AnswerPrescience,
    AskPrescience,
    CallTraitor,
    ChooseBattle,
    SetTraitorOrder,
    UseKarama,
    UseVoice,
)
from engine.checks.invariants import violations
from engine.data import load_game_data
from engine.errors import RuleViolation
from engine.game import apply
from engine.ids import Faction
from engine.model import Phase, PromptKind
from engine.phases.battle import meeting_groups, pending_battles
from engine.secrecy.views import view
from tests.conftest import apply_all, enter_phase, prompt_of, snapshot
from tests.helpers.positions.battle import FLAT, arena, duel, give, no_traitors, plan, put

A, BG, E, F, G, H = (
    Faction.ATREIDES, Faction.BENE_GESSERIT, Faction.EMPEROR, Faction.FREMEN, Faction.GUILD, Faction.HARKONNEN,
)
DATA = load_game_data()


@pytest.fixture
def flat():
    """Emperor 6 tokens and Harkonnen 5 on The Great Flat."""
    return arena(forces={FLAT: {"emperor": 6, "harkonnen": 5}})


def test_the_higher_total_wins(flat):
    """Total = dial + leader (A-13); the loser's tokens go to the tanks, the winner loses his dial.
    1979 rules: Battles."""
    state, events = duel(flat, plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2))
    assert state.tokens_at(FLAT, H) == 0 and state.faction(H).tanks == 5
    assert state.tokens_at(FLAT, E) == 3 and state.faction(E).tanks == 3
    won = next(e for e in events if e.type == "battle_won")
    assert won.data["winner"] == "emperor" and won.data["totals"] == {"emperor": 9, "harkonnen": 8}
    assert state.phase != Phase.BATTLE and violations(state) == []


def test_a_tie_goes_to_the_aggressor(flat):
    """A-13: Emperor (first in storm order) is the aggressor.
    1979 rules: Battles."""
    state, events = duel(flat, plan(E, "hasimir_fenring", 2), plan(H, "feyd_rautha", 2))
    won = next(e for e in events if e.type == "battle_won")
    assert won.data["winner"] == "emperor" and "aggressor wins ties" in won.message


def test_a_13_the_table_reads_what_each_side_loses_no_cards_nor_tokens_it_did_not_lose(flat):
    """A-13: the loser loses its tokens there and the cards it played; the winner the number it dialed. A side
    that played no card, or dialed 0, is not told to lose what it never put in."""
    state, events = duel(flat, plan(E, "hasimir_fenring", 0), plan(H, "feyd_rautha", 0))
    won = next(e for e in events if e.type == "battle_won")
    assert won.data["winner"] == "emperor"
    assert won.message.startswith("The Emperor wins in The Great Flat, 6 to 6")  # one grammar (issue 25 item 12)
    assert "The Harkonnen lose 5 tokens; the Emperor loses no tokens (a dial of 0)." in won.message
    assert "cards" not in won.message and state.tokens_at(FLAT, E) == 6

    give(flat, E, "crysknife")
    give(flat, H, "shield_1")
    state, events = duel(flat, plan(E, "hasimir_fenring", 1, weapon="crysknife"),
                         plan(H, "feyd_rautha", 2, defense="shield_1"))
    won = next(e for e in events if e.type == "battle_won")
    assert "The Emperor loses 6 tokens and the cards played; the Harkonnen lose the 2 tokens dialed" in won.message


def test_a_shield_stops_a_projectile(flat):
    give(flat, E, "crysknife")
    give(flat, H, "shield_1")
    state, events = duel(flat, plan(E, "hasimir_fenring", 1, weapon="crysknife"),
                         plan(H, "feyd_rautha", 2, defense="shield_1"))
    assert "feyd_rautha" not in state.faction(H).leaders_in_tanks
    won = next(e for e in events if e.type == "battle_won")
    assert won.data["winner"] == "harkonnen" and won.data["killed"] == []
    assert "shield_1" in state.faction(H).hand  # the winner keeps his defense
    assert "crysknife" in state.treachery_discard  # the loser discards what he played


def test_poison_kills_through_a_shield_and_the_winner_is_paid(flat):
    """A-18: the winner is paid the strength of every leader killed."""
    give(flat, E, "chaumas")
    give(flat, H, "shield_1")
    spice = flat.faction(E).spice
    state, events = duel(flat, plan(E, "hasimir_fenring", 1, weapon="chaumas"),
                         plan(H, "feyd_rautha", 2, defense="shield_1"))
    assert "feyd_rautha" in state.faction(H).leaders_in_tanks
    assert state.faction(E).spice == spice + 6
    assert "chaumas" in state.faction(E).hand and "shield_1" in state.treachery_discard


def test_a_lasgun_kills_through_a_snooper(flat):
    give(flat, E, "lasgun")
    give(flat, H, "snooper_1")
    state, _ = duel(flat, plan(E, "bashar", 0, weapon="lasgun"), plan(H, "feyd_rautha", 5, defense="snooper_1"))
    assert "feyd_rautha" in state.faction(H).leaders_in_tanks


def test_both_leaders_killed_the_winner_is_paid_for_both(flat):
    """A-18: his own leader included."""
    give(flat, E, "crysknife")
    give(flat, H, "gom_jabbar")
    spice = flat.faction(E).spice
    state, _ = duel(flat, plan(E, "hasimir_fenring", 4, weapon="crysknife"),
                    plan(H, "feyd_rautha", 3, weapon="gom_jabbar"))
    assert state.faction(E).spice == spice + 12
    assert "hasimir_fenring" in state.faction(E).leaders_in_tanks


def test_lasgun_and_shield_destroy_everything_in_the_territory(flat):
    """1979 rules: lasgun + shield: every token (a third faction's too), all spice, both leaders; no payment."""
    give(flat, E, "lasgun")
    give(flat, H, "shield_2")
    put(flat, G, FLAT, 2)
    flat.spice_on_board[FLAT] = 10
    flat.spice_outside_bank += 10
    state, _ = enter_phase(flat, Phase.BATTLE)
    # Three factions there: the aggressor picks his opponent (1979 rules: Battles).
    assert set(prompt_of(state, E, PromptKind.BATTLE_CHOICE).options) == {"The Great Flat|harkonnen",
                                                                           "The Great Flat|guild"}
    state, _ = apply(state, ChooseBattle(faction=E, territory="The Great Flat", opponent=H))
    spice = {f: state.faction(f).spice for f in (E, H)}
    state, events = apply_all(state, plan(E, "bashar", 0, weapon="lasgun"),
                              plan(H, "feyd_rautha", 1, defense="shield_2"), *no_traitors(E, H))
    assert state.forces.get(FLAT) is None and FLAT not in state.spice_on_board
    assert state.faction(G).tanks == 2
    assert {"bashar"} <= set(state.faction(E).leaders_in_tanks) and "feyd_rautha" in state.faction(H).leaders_in_tanks
    assert {f: state.faction(f).spice for f in (E, H)} == spice
    assert any(e.type == "explosion" for e in events)
    assert {"lasgun", "shield_2"} <= set(state.treachery_discard)
    assert violations(state) == []


def test_a_traitor_call_wins_outright(flat):
    """A-13 / 1979 rules: the caller wins, loses nothing, is paid the traitor's strength."""
    flat.faction(H).traitors = ["hasimir_fenring"]
    give(flat, E, "crysknife")
    give(flat, H, "snooper_1")
    spice = flat.faction(H).spice
    state, events = duel(flat, plan(E, "hasimir_fenring", 6, weapon="crysknife"),
                         plan(H, "beast_rabban", 1, defense="snooper_1"),
                         calls=[CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=True)])
    assert state.tokens_at(FLAT, H) == 5 and state.tokens_at(FLAT, E) == 0
    assert "hasimir_fenring" in state.faction(E).leaders_in_tanks
    assert state.faction(H).spice == spice + 6
    assert "snooper_1" in state.faction(H).hand and "crysknife" in state.treachery_discard
    called = next(e for e in events if e.type == "traitor_called" and e.public)
    assert called.message == ("The Harkonnen reveal Hasimir Fenring as a traitor! The Harkonnen win in The Great "
                              "Flat; the Emperor loses 6 tokens and the cards played; the Harkonnen receive 6 spice.")


def test_double_traitors_both_lose_everything(flat):
    """A-13: both leaders traitors: both sides lose everything there and nobody is paid."""
    flat.faction(H).traitors = ["hasimir_fenring"]
    flat.faction(E).traitors = ["feyd_rautha"]
    spice = {f: flat.faction(f).spice for f in (E, H)}
    state, events = duel(flat, plan(E, "hasimir_fenring", 6), plan(H, "feyd_rautha", 1),
                         calls=[CallTraitor(faction=E, call=True), CallTraitor(faction=H, call=True)])
    assert state.forces.get(FLAT) is None
    assert {f: state.faction(f).spice for f in (E, H)} == spice
    [news] = [e for e in events if e.type == "double_traitor"]
    # each call reveals its caller's traitor, as a single call does: the table reads both
    assert news.public and news.data["traitors"] == {"emperor": "feyd_rautha", "harkonnen": "hasimir_fenring"}
    assert "the Emperor reveals Feyd-Rautha" in news.message and "the Harkonnen reveal Hasimir Fenring" in news.message


def test_a_call_without_the_traitor_card_is_refused_privately(flat):
    state, _ = enter_phase(flat, Phase.BATTLE)
    state, _ = apply_all(state, plan(E, "hasimir_fenring", 1), plan(H, "feyd_rautha", 1))
    assert {p.faction for p in state.prompts if p.kind == PromptKind.TRAITOR_CALL} == {E, H}
    before = snapshot(state)
    with pytest.raises(RuleViolation) as refusal:
        apply(state, CallTraitor(faction=E, call=True))
    assert refusal.value.rule == "A-13" and snapshot(state) == before


def test_a_standing_traitor_order_answers_at_once(flat):
    flat.faction(H).traitors = ["hasimir_fenring"]
    state, _ = apply(flat, SetTraitorOrder(faction=H, auto=True))
    state, _ = enter_phase(state, Phase.BATTLE)
    state, events = apply_all(state, plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 0),
                              CallTraitor(faction=E, call=False))
    assert any(e.type == "traitor_called" for e in events)


def test_a_cheap_hero_leads_with_strength_zero_and_is_discarded(flat):
    give(flat, E, "cheap_hero_1")
    state, events = duel(flat, plan(E, cheap_hero="cheap_hero_1", dial=6), plan(H, "feyd_rautha", 0))
    won = next(e for e in events if e.type == "battle_won")
    assert won.data["totals"] == {"emperor": 6, "harkonnen": 6} and won.data["winner"] == "emperor"
    assert "cheap_hero_1" in state.treachery_discard


def test_with_no_leader_and_no_cheap_hero_only_the_dial_fights(flat):
    """A-13: such a side plays no Treachery card."""
    flat.faction(E).leaders_in_tanks = [leader.id for leader in DATA.factions[E].leaders]
    flat.faction(E).tanks = 0
    give(flat, E, "crysknife")
    state, _ = enter_phase(flat, Phase.BATTLE)
    with pytest.raises(RuleViolation) as refusal:
        apply(state, plan(E, dial=3, weapon="crysknife"))
    assert "A-13" in str(refusal.value)
    state, _ = apply_all(state, plan(E, dial=6), plan(H, "umman_kudu", 4), *no_traitors(E, H))
    assert state.tokens_at(FLAT, E) == 0  # 6 against 5


@pytest.mark.parametrize(
    ("bad_plan", "words"),
    [
        (plan(E, "hasimir_fenring", 7), "6 tokens"),
        (plan(E, "feyd_rautha", 1), "cannot fight here"),
        (plan(E, None, 1), "must be in the plan"),
        (plan(E, "hasimir_fenring", 1, weapon="shield_1"), "weapon slot"),
        (plan(E, "hasimir_fenring", 1, weapon="chaumas"), "weapon slot"),
    ],
)
def test_illegal_plans_are_refused_and_change_nothing(flat, bad_plan, words):
    give(flat, E, "shield_1")
    state, _ = enter_phase(flat, Phase.BATTLE)
    before = snapshot(state)
    with pytest.raises(RuleViolation) as refusal:
        apply(state, bad_plan)
    assert words in str(refusal.value) and snapshot(state) == before


def test_a_dead_leader_cannot_fight(flat):
    flat.faction(E).leaders_in_tanks = ["hasimir_fenring"]
    state, _ = enter_phase(flat, Phase.BATTLE)
    with pytest.raises(RuleViolation):
        apply(state, plan(E, "hasimir_fenring", 1))


def test_a_leader_fights_in_one_territory_per_turn():
    state = arena()
    put(state, E, FLAT, 3)
    put(state, H, FLAT, 3)
    put(state, E, "Funeral Plain#14", 3)
    put(state, G, "Funeral Plain#14", 3)
    state, _ = enter_phase(state, Phase.BATTLE)
    choice = prompt_of(state, E, PromptKind.BATTLE_CHOICE)
    assert set(choice.options) == {"The Great Flat|harkonnen", "Funeral Plain|guild"}
    state, _ = apply_all(state, ChooseBattle(faction=E, territory="The Great Flat", opponent=H),
                         plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 0), *no_traitors(E, H))
    with pytest.raises(RuleViolation) as refusal:
        apply(state, plan(E, "hasimir_fenring", 1))
    assert "fought elsewhere" in str(refusal.value)
    apply(state, plan(E, "caid", 1))


def test_plans_stay_secret_until_both_are_in(flat):
    give(flat, E, "crysknife")
    state, _ = enter_phase(flat, Phase.BATTLE)
    one, events = apply(state, plan(E, "hasimir_fenring", 4, weapon="crysknife"))
    other, _ = apply(state, plan(E, "bashar", 1))
    for viewer in (None, H, G):
        assert view(one, viewer) == view(other, viewer)
    assert [e.message for e in events if e.public] == ["The Emperor submitted a battle plan."]


def test_the_reveal_shows_both_plans_together(flat):
    state, _ = enter_phase(flat, Phase.BATTLE)
    state, events = apply_all(state, plan(E, "hasimir_fenring", 4), plan(H, "feyd_rautha", 2))
    revealed = next(e for e in events if e.type == "plans_revealed")
    assert revealed.public and set(revealed.data["plans"]) == {"emperor", "harkonnen"}


def test_no_battle_between_allies_or_in_the_polar_sink():
    """1979 rules: Battles: none between allies, none in the Polar Sink."""
    state = arena()
    put(state, E, FLAT, 3)
    put(state, H, FLAT, 3)
    put(state, E, "Polar Sink", 3)
    put(state, G, "Polar Sink", 3)
    state.alliances = [[E, H]]
    assert pending_battles(state) == []


def test_the_storm_separates_a_territory():
    state = arena()
    state.storm_sector = 1
    assert meeting_groups(state, "Cielago North") == [["Cielago North#18"], ["Cielago North#1"], ["Cielago North#2"]]
    state.storm_sector = 9
    assert meeting_groups(state, "Cielago North") == [["Cielago North#18", "Cielago North#1", "Cielago North#2"]]


# --- prescience and Voice --------------------------------------------------------------------


@pytest.fixture
def atreides_flat():
    state = arena((E, H, A, BG))
    put(state, A, FLAT, 5)
    put(state, H, FLAT, 5)
    give(state, H, "crysknife", "shield_1")
    state.alliances = [[A, BG]]  # the Bene Gesserit Voice their ally's opponent
    return state


@pytest.mark.parametrize(
    ("element", "answer", "wrong"),
    [
        ("weapon", "crysknife", {"weapon": None}),
        ("defense", "shield_1", {"defense": None}),
        ("leader", "beast_rabban", {"leader": "feyd_rautha"}),
        ("dial", "3", {"dial": 2}),
    ],
)
def test_prescience_binds_the_answered_element(atreides_flat, element, answer, wrong):
    state, _ = enter_phase(atreides_flat, Phase.BATTLE)
    assert prompt_of(state, A, PromptKind.PRESCIENCE).detail["target"] == "harkonnen"
    state, events = apply_all(state, AskPrescience(faction=A, element=element))
    assert any(e.type == "prescience_asked" and e.public for e in events)
    state, events = apply(state, AnswerPrescience(faction=H, answer=answer))
    told = next(e for e in events if e.type == "prescience_answered")
    assert set(told.audience) == {A, H}
    good = {"leader": "beast_rabban", "dial": 3, "weapon": "crysknife", "defense": "shield_1"}
    state, _ = apply(state, UseVoice(faction=BG))
    with pytest.raises(RuleViolation) as refusal:
        apply(state, plan(H, **{**good, **wrong}))
    assert "Prescience binds" in str(refusal.value)
    apply(state, plan(H, **good))


def test_a_prescience_answer_must_be_true(atreides_flat):
    state, _ = enter_phase(atreides_flat, Phase.BATTLE)
    state, _ = apply(state, AskPrescience(faction=A, element="weapon"))
    with pytest.raises(RuleViolation):
        apply(state, AnswerPrescience(faction=H, answer="lasgun"))


@pytest.mark.parametrize(("answer", "words"), [
    ("crysknife", "Prescience: the Harkonnen will play Crysknife as the weapon."),
    ("none", "Prescience: the Harkonnen will play no weapon."),
])
def test_the_prescience_answer_is_told_in_plain_words(atreides_flat, answer, words):
    """Issue 25 item 12: "will play no defense as their defense"."""
    state, _ = enter_phase(atreides_flat, Phase.BATTLE)
    state, _ = apply(state, AskPrescience(faction=A, element="weapon"))
    _, events = apply(state, AnswerPrescience(faction=H, answer=answer))
    told = next(e for e in events if e.type == "prescience_answered")
    assert told.message == f"{words} The plan is bound to it."


def test_the_table_does_not_learn_the_prescience_answer(atreides_flat):
    state, _ = enter_phase(atreides_flat, Phase.BATTLE)
    state, _ = apply(state, AskPrescience(faction=A, element="weapon"))
    one, _ = apply(state, AnswerPrescience(faction=H, answer="crysknife"))
    other, _ = apply(state, AnswerPrescience(faction=H, answer="none"))
    for viewer in (None, E, BG):
        assert view(one, viewer) == view(other, viewer)


def test_karama_cancels_prescience(atreides_flat):
    give(atreides_flat, H, "karama_1")
    state, _ = apply(atreides_flat, UseKarama(faction=H, card="karama_1", against=A, advantage="prescience"))
    state, events = enter_phase(state, Phase.BATTLE)
    assert not [p for p in state.prompts if p.kind == PromptKind.PRESCIENCE]
    assert any(e.type == "karama_played" for e in events)
    assert "karama_1" in state.treachery_discard


def test_the_voice_must_be_obeyed_when_it_can(atreides_flat):
    state, _ = enter_phase(atreides_flat, Phase.BATTLE)
    state, _ = apply_all(state, AskPrescience(faction=A), UseVoice(faction=BG, command="play",
                                                                   category="projectile weapon"))
    with pytest.raises(RuleViolation) as refusal:
        apply(state, plan(H, "feyd_rautha", 1, defense="shield_1"))
    assert "Voice commands" in str(refusal.value)
    apply(state, plan(H, "feyd_rautha", 1, weapon="crysknife"))


def test_a_voice_that_cannot_be_obeyed_binds_nothing(atreides_flat):
    state, _ = enter_phase(atreides_flat, Phase.BATTLE)
    state, _ = apply_all(state, AskPrescience(faction=A), UseVoice(faction=BG, command="play",
                                                                   category="poison weapon"))
    apply(state, plan(H, "feyd_rautha", 1))


def test_the_voice_forbids_a_kind(atreides_flat):
    state, _ = enter_phase(atreides_flat, Phase.BATTLE)
    state, _ = apply_all(state, AskPrescience(faction=A), UseVoice(faction=BG, command="not", category="shield"))
    with pytest.raises(RuleViolation):
        apply(state, plan(H, "feyd_rautha", 1, defense="shield_1"))


def test_the_harkonnen_may_call_a_traitor_in_an_allys_battle(flat):
    """A-26."""
    state = arena((E, H, G))
    put(state, E, FLAT, 4)
    put(state, G, FLAT, 4)
    state.alliances = [[G, H]]
    state.faction(H).traitors = ["hasimir_fenring"]
    state, _ = enter_phase(state, Phase.BATTLE)
    state, _ = apply_all(state, plan(E, "hasimir_fenring", 4), plan(G, "staban_tuek", 0))
    assert {p.faction for p in state.prompts if p.kind == PromptKind.TRAITOR_CALL} == {E, G, H}
    state, events = apply_all(state, CallTraitor(faction=E, call=False), CallTraitor(faction=G, call=False),
                              CallTraitor(faction=H, call=True))
    called = next(e for e in events if e.type == "traitor_called")
    assert called.data["winner"] == "guild" and called.data["caller"] == "harkonnen"
    assert "the Emperor loses 4 tokens; the Harkonnen receive" in called.message  # the Emperor played no card
    assert state.tokens_at(FLAT, G) == 4


def test_forced_defaults_give_a_minimal_legal_plan(flat):
    from engine.actions import ForceDefault

    state, _ = enter_phase(flat, Phase.BATTLE)
    for faction in (E, H):
        prompt = prompt_of(state, faction, PromptKind.BATTLE_PLAN)
        state, _ = apply(state, ForceDefault(admin="mod", reason="deadline", prompt_id=prompt.id))
    assert {p.kind for p in state.prompts} == {PromptKind.TRAITOR_CALL}
    assert violations(state) == []


def test_a_prescience_answer_binds_before_a_voice_that_contradicts_it(atreides_flat):
    """The order of the steps is fixed: the binding answer comes first, so a Voice against it cannot be obeyed."""
    state, _ = enter_phase(atreides_flat, Phase.BATTLE)
    state, _ = apply_all(state, AskPrescience(faction=A, element="defense"),
                         AnswerPrescience(faction=H, answer="shield_1"),
                         UseVoice(faction=BG, command="not", category="shield"))
    apply(state, plan(H, "feyd_rautha", 1, defense="shield_1"))
