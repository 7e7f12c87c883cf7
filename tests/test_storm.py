"""The storm round: A-1 (dialers and ranges), A-2 (sweeping sand), A-4 (order), BT-3 (the BT never dial)."""

from __future__ import annotations

import pytest

from engine.actions import DialStorm, ForceDefault
from engine.errors import RuleViolation, ViolationCode
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.options import FixedSetup
from engine.rules.economy import total_spice_outside_bank
from engine.secrecy.views import view
from tests.conftest import BG, BT, A, E, F, G, H, apply_all, enter_phase, prompt_of, ready_game, snapshot

DOTS = {A: 18, BG: 3, E: 6, F: 9, G: 12, H: 15}


@pytest.fixture
def turn_one():
    # The first spice blow lands on The Great Flat, away from what these tests look at.
    return ready_game(fixed=FixedSetup(dots=DOTS, spice_deck=("spice_the_great_flat",)))


def test_turn_one_dialers_are_the_first_and_last_dots_in_storm_order(turn_one):
    """A-1 with A-4: storm at 18, order Atreides .. Harkonnen; BT-3: the BT never dial."""
    assert turn_one.phase == Phase.STORM
    dialers = {p.faction for p in turn_one.prompts if p.kind == PromptKind.STORM_DIAL}
    assert dialers == {A, H}
    assert all(p.secret for p in turn_one.prompts)
    assert prompt_of(turn_one, A, PromptKind.STORM_DIAL).options == [str(v) for v in range(21)]


def test_the_storm_moves_by_the_sum_and_sweeps_sand_only(turn_one):
    """A-2: tokens in sand sectors entered die, spice there is removed; rock and strongholds are safe."""
    state = turn_one.model_copy(deep=True)
    state.add_tokens("South Mesa#4", E, 3)  # sand, entered
    state.faction(E).reserves -= 3
    state.add_tokens("False Wall East#5", E, 2)  # rock, entered
    state.faction(E).reserves -= 2
    state.add_tokens("Arsunt#11", E, 1)  # sand, beyond the storm's stop
    state.faction(E).reserves -= 1
    state.spice_on_board["Cielago South#1"] = 12
    state.spice_outside_bank += 12
    state, events = apply_all(state, DialStorm(faction=A, value=5), DialStorm(faction=H, value=4))
    assert state.storm_sector == 9
    assert state.tokens_at("South Mesa#4", E) == 0 and state.faction(E).tanks == 3
    assert state.tokens_at("False Wall East#5", E) == 2
    assert state.tokens_at("Arsunt#11", E) == 1
    assert "Cielago South#1" not in state.spice_on_board
    assert "The storm destroys 12 spice in Cielago South (sector 1)." in [e.message for e in events]
    assert total_spice_outside_bank(state) == state.spice_outside_bank
    assert state.phase not in (Phase.SETUP, Phase.STORM)
    moved = next(e for e in events if e.type == "storm_moved")
    assert moved.public and "Atreides 5" in moved.message and "Harkonnen 4" in moved.message


def test_the_start_sector_is_not_swept_again(turn_one):
    """A-2: the sector the storm starts its move in is not swept."""
    state = turn_one.model_copy(deep=True)
    state.add_tokens("Meridian#18", E, 4)
    state.faction(E).reserves -= 4
    state, _ = apply_all(state, DialStorm(faction=A, value=1), DialStorm(faction=H, value=0))
    assert state.storm_sector == 1 and state.tokens_at("Meridian#18", E) == 4


def test_the_storm_wraps_past_sector_eighteen():
    state = ready_game(fixed=FixedSetup(dots=DOTS))
    state, _ = apply_all(state, DialStorm(faction=A, value=20), DialStorm(faction=H, value=20))
    assert state.storm_sector == 40 % 18


@pytest.mark.parametrize("value", [-1, 21])
def test_turn_one_dials_outside_zero_to_twenty_are_refused(turn_one, value):
    before = snapshot(turn_one)
    with pytest.raises(RuleViolation) as refusal:
        apply(turn_one, DialStorm(faction=A, value=value))
    assert refusal.value.rule == "A-1" and refusal.value.code == ViolationCode.ILLEGAL_CHOICE
    assert snapshot(turn_one) == before


def test_later_turns_dial_one_to_three(turn_one):
    """A-1: after turn 1 each dialer dials 1-3."""
    state, _ = enter_phase(turn_one, Phase.STORM, turn=2, storm_sector=5)
    dialers = sorted(p.faction for p in state.prompts)
    assert prompt_of(state, dialers[0], PromptKind.STORM_DIAL).options == ["1", "2", "3"]
    with pytest.raises(RuleViolation):
        apply(state, DialStorm(faction=dialers[0], value=0))
    with pytest.raises(RuleViolation):
        apply(state, DialStorm(faction=dialers[0], value=4))


def test_later_dialers_follow_the_storm_order(turn_one):
    """A-1 and A-4: with the storm at 5, Emperor (dot 6) is first and Bene Gesserit (dot 3) last."""
    state, _ = enter_phase(turn_one, Phase.STORM, turn=2, storm_sector=5)
    assert {p.faction for p in state.prompts} == {E, BG}


def test_a_faction_that_does_not_dial_is_refused(turn_one):
    with pytest.raises(RuleViolation) as refusal:
        apply(turn_one, DialStorm(faction=F, value=3))
    assert refusal.value.code == ViolationCode.NOT_ALLOWED and refusal.value.rule == "A-1"


def test_dials_stay_secret_until_both_are_in(turn_one):
    state, events = apply(turn_one, DialStorm(faction=A, value=13))
    other, _ = apply(turn_one, DialStorm(faction=A, value=2))
    for viewer in (None, H, BG, BT):
        assert view(state, viewer) == view(other, viewer)
    assert [e.message for e in events if e.public] == ["The Atreides dialed the storm."]
    assert any(e.audience == (A,) and "13" in e.message for e in events)


def test_a_fixed_storm_skips_the_first_dial():
    state = ready_game(fixed=FixedSetup(storm_sector=7))
    assert state.storm_sector == 7 and state.phase != Phase.STORM


def test_a_forced_dial_is_in_range(turn_one):
    prompt = prompt_of(turn_one, A, PromptKind.STORM_DIAL)
    state, _ = apply(turn_one, ForceDefault(admin="mod", reason="asleep", prompt_id=prompt.id))
    assert 0 <= state.storm_dials[A] <= 20
