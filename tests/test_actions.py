"""Actions: typed, refused with the rule and what is allowed, never changing the state they were refused on."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.actions import ChooseTraitor, ForceDefault, PredictWinner, SetSpice, parse_action
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.game import apply
from engine.ids import Faction
from engine.model import PromptKind
from engine.rules.economy import total_spice_outside_bank
from tests.conftest import prompt_of, snapshot, start

A, BG, H, BT = Faction.ATREIDES, Faction.BENE_GESSERIT, Faction.HARKONNEN, Faction.BENE_TLEILAXU


def test_actions_parse_from_json_by_type():
    action = parse_action('{"type": "choose_traitor", "faction": "atreides", "leader": "stilgar"}')
    assert action == ChooseTraitor(faction=A, leader="stilgar")


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "choose_traitor", "faction": "atreides"},
        {"type": "choose_traitor", "faction": "sardaukar", "leader": "stilgar"},
        {"type": "fly_to_caladan", "faction": "atreides"},
        {"type": "predict_winner", "faction": "bene_gesserit", "predicted": "atreides", "turn": "soon"},
        {"type": "set_spice", "faction": "atreides", "amount": -1, "admin": "mod", "reason": "x"},
    ],
)
def test_malformed_actions_are_rejected_before_the_engine(raw):
    with pytest.raises(ValidationError):
        parse_action(raw)


def test_apply_never_changes_the_state_it_was_given(seven):
    before = snapshot(seven)
    prompt = prompt_of(seven, A, PromptKind.TRAITOR_PICK)
    after, _ = apply(seven, ChooseTraitor(faction=A, leader=prompt.options[0]))
    assert snapshot(seven) == before
    assert after.seq == seven.seq + 1


def test_a_traitor_not_dealt_is_refused_with_the_allowed_choices(seven):
    prompt = prompt_of(seven, A, PromptKind.TRAITOR_PICK)
    stranger = next(t for t in seven.traitor_deck_unused)
    before = snapshot(seven)
    with pytest.raises(RuleViolation) as refusal:
        apply(seven, ChooseTraitor(faction=A, leader=stranger))
    assert refusal.value.code == ViolationCode.ILLEGAL_CHOICE
    assert refusal.value.allowed == prompt.options
    assert load_game_data().leader(stranger).name in str(refusal.value)
    assert snapshot(seven) == before


def test_a_double_click_is_refused_the_second_time(seven):
    leader = prompt_of(seven, A, PromptKind.TRAITOR_PICK).options[0]
    once, _ = apply(seven, ChooseTraitor(faction=A, leader=leader))
    with pytest.raises(RuleViolation) as refusal:
        apply(once, ChooseTraitor(faction=A, leader=leader))
    assert refusal.value.code == ViolationCode.NO_OPEN_DECISION


def test_harkonnen_have_no_traitor_to_choose(seven):
    """1979 setup: the Harkonnen keep all four."""
    with pytest.raises(RuleViolation) as refusal:
        apply(seven, ChooseTraitor(faction=H, leader=seven.faction(H).traitors[0]))
    assert refusal.value.code == ViolationCode.NOT_ALLOWED and refusal.value.rule == "Setup: traitors"


def test_a_faction_not_in_the_game_cannot_act():
    state = start((A, H, Faction.FREMEN))
    with pytest.raises(RuleViolation) as refusal:
        apply(state, PredictWinner(faction=BG, predicted=A, turn=2))
    assert refusal.value.code == ViolationCode.NOT_IN_GAME


def test_admin_forces_a_default_traitor_the_strongest_enemy_leader(seven):
    data = load_game_data()
    prompt = prompt_of(seven, A, PromptKind.TRAITOR_PICK)
    state, events = apply(seven, ForceDefault(admin="mod", reason="away for a week", prompt_id=prompt.id))
    enemies = [t for t in prompt.options if data.leader(t).faction != A] or prompt.options
    kept = state.faction(A).traitors
    assert len(kept) == 1 and data.leader(kept[0]).strength == max(data.leader(t).strength for t in enemies)
    public = [e.message for e in events if e.public]
    assert "Admin mod applied the default to the Atreides' decision, their traitor (away for a week)." in public
    assert all(data.leader(kept[0]).name not in m for m in public)


def test_forcing_an_unknown_prompt_is_refused(seven):
    with pytest.raises(RuleViolation) as refusal:
        apply(seven, ForceDefault(admin="mod", reason="typo", prompt_id="p999"))
    assert refusal.value.code == ViolationCode.NO_OPEN_DECISION
    assert set(refusal.value.allowed) == {p.id for p in seven.prompts}


def test_admin_spice_correction_tells_the_table_but_not_the_amount(seven):
    state, events = apply(seven, SetSpice(admin="mod", reason="bank error", faction=A, amount=17))
    assert state.faction(A).spice == 17
    assert total_spice_outside_bank(state) == state.spice_outside_bank
    public = [e for e in events if e.public]
    assert len(public) == 1 and "17" not in public[0].message and "bank error" in public[0].message
    private = [e for e in events if not e.public]
    assert private[0].audience == (A,) and "17" in private[0].message


def test_events_of_a_secret_choice_are_private_to_the_chooser(seven):
    leader = prompt_of(seven, A, PromptKind.TRAITOR_PICK).options[1]
    _, events = apply(seven, ChooseTraitor(faction=A, leader=leader))
    for event in events:
        if leader in str(event.data) or load_game_data().leader(leader).name in event.message:
            assert event.audience == (A,)


def test_legal_choices_of_an_open_prompt_and_a_stale_one(seven):
    from engine import legal_choices

    prompt = prompt_of(seven, A, PromptKind.TRAITOR_PICK)
    assert legal_choices(seven, prompt.id).options == prompt.options
    after, _ = apply(seven, ChooseTraitor(faction=A, leader=prompt.options[0]))
    with pytest.raises(RuleViolation) as refusal:
        legal_choices(after, prompt.id)
    assert refusal.value.code == ViolationCode.NO_OPEN_DECISION
