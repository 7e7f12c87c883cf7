"""The special Treachery cards played outside battle plans (engine/rules/cards.py): Weather Control and Family
Atomics in the storm window (base-game digest §5), Hajr (§10), Tleilaxu Ghola (§9), Truthtrance, and a
Karama readied against prescience (A-14). Positions are built exactly from a ready game."""

from __future__ import annotations

import pytest

from engine.actions import (
    AnswerTruthtrance,
    ForceDefault,
    Move,
    PlayGhola,
    PlayHajr,
    PlayStormCards,
    PlayTruthtrance,
    Revive,
    SkipMove,
    UseKarama,
)
from engine.checks.invariants import violations
from engine.errors import ViolationCode
from engine.flow import SAMPLERS, STEP_RUNNERS
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.rng import Rng
from engine.rules.cards import (
    FAMILY_ATOMICS,
    GHOLA,
    HAJR,
    PASS,
    RULE_FA,
    RULE_GHOLA,
    RULE_HAJR,
    RULE_STORM_CARDS,
    RULE_TRUTHTRANCE,
    RULE_WC,
    WEATHER_CONTROL,
)
from engine.secrecy.views import view
from tests.conftest import ALL_SEVEN, BG, BT, A, E, F, G, H, enter_phase, prompt_of, refused
from tests.helpers.positions.cards import (
    TRUTHTRANCE,
    _stop_after_storm_and_movement,
    dial,
    movement_round,
    position,
    storm_round,
)
from tests.helpers.positions.movement import answer_defaults_until

_stop_after_storm_and_movement = _stop_after_storm_and_movement  # autouse: one round per test


@pytest.fixture
def no_battles(monkeypatch):
    monkeypatch.delitem(STEP_RUNNERS, Phase.BATTLE, raising=False)


# --- building positions ----------------------------------------------------------------------


def answer_window(state, plays=None):
    """Every faction answers the storm window: `plays` faction -> PlayStormCards keywords; others pass."""
    events = []
    for prompt in [p for p in state.prompts if p.kind == PromptKind.STORM_CARDS]:
        action = PlayStormCards(faction=prompt.faction, **(plays or {}).get(prompt.faction, {}))
        state, new = apply(state, action)
        events += new
    return state, events


def played(events, card):
    return [e for e in events if e.type == "card_played" and e.data.get("card") == card]


# --- the storm window ------------------------------------------------------------------------


def test_after_the_dials_every_faction_is_asked_in_secret_before_the_storm_moves():
    """Digest §5: the storm cards come after the distance is known and before the storm moves; every faction
    is asked, whatever it holds.
    1979 rules: Storm cards."""
    state = storm_round(position(hands={E: [WEATHER_CONTROL]}))
    state, events = dial(state, 2, 1)
    assert state.phase == Phase.STORM and state.storm_sector == 1
    window = [p for p in state.prompts if p.kind == PromptKind.STORM_CARDS]
    assert {p.faction for p in window} == set(ALL_SEVEN)
    assert all(p.secret for p in window)
    announced = next(e for e in events if e.type == "storm_cards_window")
    assert announced.public and "3 sectors" in announced.message
    assert "Weather Control" not in announced.message  # card names in public text would hint at hands


def test_the_window_options_differ_only_in_each_factions_own_view():
    state = storm_round(position(hands={E: [WEATHER_CONTROL], H: [FAMILY_ATOMICS]},
                                 forces={"Gara Kulon#7": {H: 2}}))
    state, _ = dial(state)
    assert prompt_of(state, E, PromptKind.STORM_CARDS).options == [PASS, WEATHER_CONTROL]
    assert prompt_of(state, H, PromptKind.STORM_CARDS).options == [PASS, FAMILY_ATOMICS]
    assert prompt_of(state, BT, PromptKind.STORM_CARDS).options == [PASS]
    table = view(state, None)
    assert table.own_prompts == []
    assert sorted(a.faction for a in table.awaiting) == sorted(ALL_SEVEN)
    assert all(a.kind == PromptKind.STORM_CARDS and a.secret for a in table.awaiting)
    assert [p.options for p in view(state, A).own_prompts] == [[PASS]]
    assert view(state, A).own_prompts[0].detail == view(state, E).own_prompts[0].detail  # same shape for all
    assert [p.options for p in view(state, E).own_prompts] == [[PASS, WEATHER_CONTROL]]


def test_there_is_no_window_on_turn_one():
    """Turn 1: the storm is placed, not moved, so the storm cards do not apply (card text: after turn 1).
    1979 rules: Storm cards."""
    state = position(hands={E: [WEATHER_CONTROL]})
    state, _ = enter_phase(state, Phase.STORM, turn=1, storm_sector=18)
    state, _ = dial(state, 2, 3)
    assert state.storm_sector == 5 and state.phase == Phase.SPICE_BLOW
    assert not any(p.kind == PromptKind.STORM_CARDS for p in state.prompts)


def test_there_is_no_window_once_both_storm_cards_are_in_the_discard_pile():
    state = storm_round(position(discard=(WEATHER_CONTROL, FAMILY_ATOMICS)))
    state, _ = dial(state, 1, 2)
    assert state.storm_sector == 4 and state.phase == Phase.SPICE_BLOW and state.prompts == []


def test_the_window_opens_even_when_nobody_holds_a_storm_card():
    """Asking depends only on public facts (the discard pile), never on hands."""
    state = storm_round(position())
    state, _ = dial(state)
    window = [p for p in state.prompts if p.kind == PromptKind.STORM_CARDS]
    assert len(window) == len(ALL_SEVEN) and all(p.options == [PASS] for p in window)
    state, _ = answer_window(state)
    assert state.storm_sector == 3 and state.phase == Phase.SPICE_BLOW


def test_a_choice_stays_secret_until_every_faction_has_answered():
    state = storm_round(position(hands={E: [WEATHER_CONTROL]}))
    state, _ = dial(state)
    chose, chose_events = apply(state, PlayStormCards(faction=E, weather_control=7))
    passed, pass_events = apply(state, PlayStormCards(faction=E))
    for viewer in (None, A, BG, F, G, H, BT):
        assert view(chose, viewer) == view(passed, viewer)
    assert [e.message for e in chose_events if e.public] == [e.message for e in pass_events if e.public]
    assert any(e.audience == (E,) and "7" in e.message for e in chose_events)
    assert WEATHER_CONTROL in chose.faction(E).hand  # played only when the window closes


@pytest.mark.parametrize(("number", "sector"), [(0, 1), (10, 11)])
def test_weather_control_replaces_the_dialed_distance(number, sector):
    """Weather Control: the storm moves 0-10 sectors instead of the dials, sweeping what it enters (A-2).
    1979 rules: Treachery: Weather Control."""
    forces = {"Cielago East#2": {G: 3}, "Hagga Basin#11": {BG: 1}, "Tsimpo#12": {E: 1}}
    state = storm_round(position(hands={E: [WEATHER_CONTROL]}, forces=forces))
    state, _ = dial(state, 2, 2)
    state, events = answer_window(state, {E: {"weather_control": number}})
    assert state.storm_sector == sector
    assert state.tokens_at("Cielago East#2", G) == (3 if number == 0 else 0)
    assert state.tokens_at("Hagga Basin#11", BG) == (0 if number == 10 else 1)
    assert state.tokens_at("Tsimpo#12", E) == 1
    assert WEATHER_CONTROL in state.treachery_discard and WEATHER_CONTROL not in state.faction(E).hand
    [event] = played(events, WEATHER_CONTROL)
    assert event.public and "Emperor" in event.message and f"{number} sectors instead of 4" in event.message
    assert state.phase == Phase.SPICE_BLOW and violations(state) == []


@pytest.mark.parametrize("number", [-1, 11])
def test_a_weather_control_number_outside_zero_to_ten_is_refused(number):
    """1979 rules: Treachery: Weather Control: a move of 0 to 10 sectors only."""
    state = storm_round(position(hands={E: [WEATHER_CONTROL]}))
    state, _ = dial(state)
    refused(state, PlayStormCards(faction=E, weather_control=number), RULE_WC, ViolationCode.ILLEGAL_CHOICE)


def test_weather_control_is_refused_when_not_held():
    state = storm_round(position(hands={E: [WEATHER_CONTROL]}))
    state, _ = dial(state)
    refused(state, PlayStormCards(faction=A, weather_control=4), RULE_WC, ViolationCode.NOT_ALLOWED)


def test_an_answer_outside_the_window_is_refused():
    state = storm_round(position(hands={E: [WEATHER_CONTROL]}))
    refused(state, PlayStormCards(faction=E, weather_control=4), RULE_STORM_CARDS, ViolationCode.WRONG_PHASE)
    state, _ = dial(state)
    state, _ = apply(state, PlayStormCards(faction=E))
    refused(state, PlayStormCards(faction=E, weather_control=4), code=ViolationCode.NO_OPEN_DECISION)


def test_a_forced_storm_window_answer_passes():
    state = storm_round(position(hands={E: [WEATHER_CONTROL]}))
    state, _ = dial(state, 1, 1)
    prompt = prompt_of(state, E, PromptKind.STORM_CARDS)
    state, _ = apply(state, ForceDefault(admin="mod", reason="away", prompt_id=prompt.id))
    state, _ = answer_window(state)
    assert state.storm_sector == 3 and WEATHER_CONTROL in state.faction(E).hand


def test_family_atomics_destroys_every_token_on_the_shield_wall():
    """Family Atomics: all tokens on the Shield Wall (the player's own too) go to the tanks, and the Shield
    Wall no longer protects Imperial Basin, Arrakeen and Carthag.
    1979 rules: Treachery: Family Atomics."""
    forces = {"Shield Wall#7": {H: 3, A: 2}, "Shield Wall#8": {E: 4}, "Gara Kulon#7": {F: 1}}
    state = storm_round(position(hands={H: [FAMILY_ATOMICS]}, forces=forces))
    state, _ = dial(state)
    state, events = answer_window(state, {H: {"family_atomics": True}})
    assert state.shield_wall_destroyed
    assert not any(loc.startswith("Shield Wall") for loc in state.forces)
    assert (state.faction(H).tanks, state.faction(A).tanks, state.faction(E).tanks) == (3, 2, 4)
    assert state.tokens_at("Gara Kulon#7", F) == 1
    assert FAMILY_ATOMICS in state.removed_cards and not state.faction(H).hand  # removed from the game
    [event] = played(events, FAMILY_ATOMICS)
    assert event.public and "Harkonnen" in event.message
    assert violations(state) == []


def test_after_family_atomics_the_storm_kills_in_imperial_basin_arrakeen_and_carthag():
    """The protected territories lose their protection for the rest of the game: the storm passing later
    (here on the next turn) kills there, where the same storm spared them before."""
    forces = {"Gara Kulon#7": {H: 1}, "Imperial Basin#9": {E: 2}, "Arrakeen#9": {A: 3}, "Carthag#10": {G: 4}}
    before = position(hands={H: [FAMILY_ATOMICS]}, forces=forces)
    # Without Family Atomics, a storm from 7 to 10 spares them all.
    spared = storm_round(before, turn=3, storm=7)
    spared, _ = dial(spared, 1, 2)
    spared, _ = answer_window(spared)
    assert spared.storm_sector == 10
    assert (spared.faction(E).tanks, spared.faction(A).tanks, spared.faction(G).tanks) == (0, 0, 0)
    # Turn 2: Family Atomics, with the storm moving far away from them (1 -> 3).
    state = storm_round(before, turn=2, storm=1)
    state, _ = dial(state)
    state, _ = answer_window(state, {H: {"family_atomics": True}})
    assert state.storm_sector == 3 and state.tokens_at("Imperial Basin#9", E) == 2
    # Turn 3: the same storm from 7 to 10 now kills in all three.
    state = storm_round(state, turn=3, storm=7)
    state, _ = dial(state, 1, 2)
    state, _ = answer_window(state)
    assert state.storm_sector == 10
    assert (state.faction(E).tanks, state.faction(A).tanks, state.faction(G).tanks) == (2, 3, 4)
    assert violations(state) == []


def test_family_atomics_is_refused_without_tokens_on_or_next_to_the_shield_wall():
    """1979 rules: Treachery: Family Atomics: only with tokens on or next to the Shield Wall."""
    state = storm_round(position(hands={H: [FAMILY_ATOMICS]}, forces={"Imperial Basin#9": {H: 3},
                                                                       "Old Gap#9": {H: 1}}))
    state, _ = dial(state)
    # Imperial Basin is next to the Shield Wall: allowed there; remove those tokens and it is refused.
    assert FAMILY_ATOMICS in prompt_of(state, H, PromptKind.STORM_CARDS).options
    far = position(hands={H: [FAMILY_ATOMICS]}, forces={"Old Gap#9": {H: 1}, "Polar Sink": {H: 2}})
    far = storm_round(far)
    far, _ = dial(far)
    assert prompt_of(far, H, PromptKind.STORM_CARDS).options == [PASS]
    refused(far, PlayStormCards(faction=H, family_atomics=True), RULE_FA, ViolationCode.NOT_ALLOWED)


def test_family_atomics_is_refused_when_not_held():
    state = storm_round(position(forces={"Shield Wall#7": {H: 3}}))
    state, _ = dial(state)
    refused(state, PlayStormCards(faction=H, family_atomics=True), RULE_FA, ViolationCode.NOT_ALLOWED)


def test_family_atomics_resolves_before_the_weather_control_move():
    """Both cards in one window: the Shield Wall falls first, then the storm moves by the Weather Control
    number, so it already kills in the newly exposed Imperial Basin and Arrakeen."""
    forces = {"Shield Wall#8": {F: 2}, "Imperial Basin#8": {E: 2}, "Arrakeen#9": {A: 3}, "Carthag#10": {G: 1}}
    state = storm_round(position(hands={F: [FAMILY_ATOMICS], E: [WEATHER_CONTROL]}, forces=forces))
    state, _ = dial(state, 1, 1)
    state, events = answer_window(state, {F: {"family_atomics": True}, E: {"weather_control": 8}})
    assert state.storm_sector == 9
    assert (state.faction(F).tanks, state.faction(E).tanks, state.faction(A).tanks) == (2, 2, 3)
    assert state.tokens_at("Carthag#10", G) == 1
    kinds = [e.data.get("card") or e.type for e in events if e.public]
    assert kinds.index(FAMILY_ATOMICS) < kinds.index(WEATHER_CONTROL) < kinds.index("storm_moved")
    assert WEATHER_CONTROL in state.treachery_discard and FAMILY_ATOMICS in state.removed_cards
    assert violations(state) == []


def test_one_faction_may_play_both_storm_cards():
    state = storm_round(position(hands={H: [FAMILY_ATOMICS, WEATHER_CONTROL]}, forces={"Gara Kulon#7": {H: 1}}))
    state, _ = dial(state)
    assert prompt_of(state, H, PromptKind.STORM_CARDS).options == [PASS, WEATHER_CONTROL, FAMILY_ATOMICS]
    state, _ = answer_window(state, {H: {"family_atomics": True, "weather_control": 0}})
    assert state.shield_wall_destroyed and state.storm_sector == 1 and state.faction(H).hand == []


def test_after_family_atomics_the_storm_catches_the_sector_it_sits_on():
    """Our reading: with the storm on sector 9 when the Shield Wall falls, Arrakeen's tokens are in the storm."""
    forces = {"Gara Kulon#7": {H: 1}, "Arrakeen#9": {A: 3}}
    state = storm_round(position(hands={H: [FAMILY_ATOMICS, WEATHER_CONTROL]}, forces=forces), storm=9)
    state, _ = dial(state)
    state, _ = answer_window(state, {H: {"family_atomics": True, "weather_control": 0}})
    assert state.storm_sector == 9 and state.faction(A).tanks == 3 and violations(state) == []


def test_automatic_players_sometimes_play_their_storm_cards_and_always_legally():
    state = storm_round(position(hands={H: [FAMILY_ATOMICS, WEATHER_CONTROL]}, forces={"Gara Kulon#7": {H: 1}}))
    state, _ = dial(state)
    prompt = prompt_of(state, H, PromptKind.STORM_CARDS)
    samples = [SAMPLERS[PromptKind.STORM_CARDS](state, prompt, Rng.from_seed(seed)) for seed in range(40)]
    assert any(s.weather_control is not None for s in samples) and any(s.family_atomics for s in samples)
    assert any(s.weather_control is None and not s.family_atomics for s in samples)
    for sample in samples:
        apply(state, sample)  # never refused


# --- Hajr ------------------------------------------------------------------------------------


def test_hajr_gives_a_second_move_in_the_same_turn(no_battles):
    """Hajr (digest §10): one extra move, played during the faction's own movement decision.
    1979 rules: Treachery: Hajr."""
    state = movement_round(position(hands={A: [HAJR]}, forces={"The Great Flat#14": {A: 4}}))
    state = answer_defaults_until(state, A, PromptKind.MOVEMENT)
    state, events = apply(state, PlayHajr(faction=A))
    [event] = played(events, HAJR)
    assert event.public and HAJR in state.treachery_discard and state.faction(A).hand == []
    state, _ = apply(state, Move(faction=A, from_location="The Great Flat#14", to_location="Funeral Plain#14",
                                 tokens=4))
    again = prompt_of(state, A, PromptKind.MOVEMENT)  # the Hajr move, still in the Atreides turn
    assert "Funeral Plain#14" in again.options and state.movement.order[state.movement.index] == A
    state, _ = apply(state, Move(faction=A, from_location="Funeral Plain#14", to_location="Bight Of The Cliff#14",
                                 tokens=3))
    assert state.tokens_at("Bight Of The Cliff#14", A) == 3 and state.tokens_at("Funeral Plain#14", A) == 1
    assert not any(p.faction == A and p.kind == PromptKind.MOVEMENT for p in state.prompts)
    assert violations(state) == []


def test_the_hajr_move_follows_the_normal_rules(no_battles):
    """The second move is checked like any move: range (A-22) and the storm (1979 rules: Storm)."""
    state = movement_round(position(hands={A: [HAJR]}, forces={"The Great Flat#14": {A: 4}}), storm=13)
    state = answer_defaults_until(state, A, PromptKind.MOVEMENT)
    state, _ = apply(state, PlayHajr(faction=A))
    state, _ = apply(state, SkipMove(faction=A))  # a skipped first move still leaves the Hajr move
    prompt_of(state, A, PromptKind.MOVEMENT)
    too_far = refused(state, Move(faction=A, from_location="The Great Flat#14", to_location="Bight Of The Cliff#14",
                                  tokens=1))
    assert too_far.rule == "A-22"
    storm = refused(state, Move(faction=A, from_location="The Great Flat#14", to_location="Plastic Basin#13",
                                tokens=1))
    assert storm.rule == "1979 rules: Storm"


def test_hajr_is_refused_without_the_card(no_battles):
    state = movement_round(position(hands={BG: [HAJR]}, forces={"The Great Flat#14": {A: 4}}))
    state = answer_defaults_until(state, A, PromptKind.MOVEMENT)
    refused(state, PlayHajr(faction=A), RULE_HAJR, ViolationCode.NOT_ALLOWED)


def test_hajr_is_refused_outside_the_factions_own_movement_decision(no_battles):
    """1979 rules: Treachery: Hajr: in its player's own movement turn only."""
    state = movement_round(position(hands={BG: [HAJR]}, forces={"The Great Flat#14": {A: 4},
                                                                 "Funeral Plain#14": {BG: 1}}))
    refused(state, PlayHajr(faction=BG), RULE_HAJR, ViolationCode.WRONG_PHASE)  # shipment, Atreides' turn
    state = answer_defaults_until(state, A, PromptKind.MOVEMENT)
    refused(state, PlayHajr(faction=BG), RULE_HAJR, ViolationCode.WRONG_PHASE)  # the Atreides move
    storm = storm_round(position(hands={BG: [HAJR]}))
    refused(storm, PlayHajr(faction=BG), RULE_HAJR, ViolationCode.WRONG_PHASE)


def test_automatic_players_sometimes_play_hajr(no_battles):
    state = movement_round(position(hands={A: [HAJR]}, forces={"The Great Flat#14": {A: 4}}))
    state = answer_defaults_until(state, A, PromptKind.MOVEMENT)
    prompt = prompt_of(state, A, PromptKind.MOVEMENT)
    samples = [SAMPLERS[PromptKind.MOVEMENT](state, prompt, Rng.from_seed(seed)) for seed in range(30)]
    assert any(isinstance(s, PlayHajr) for s in samples) and any(not isinstance(s, PlayHajr) for s in samples)


# --- Tleilaxu Ghola --------------------------------------------------------------------------


def test_the_ghola_revives_a_leader_whatever_the_all_five_dead_rule(no_battles):
    """Digest §9: one leader free, beyond normal revival; A-7 would need all five dead.
    1979 rules: Treachery: Tleilaxu Ghola."""
    state = position(hands={A: [GHOLA]}, dead_leaders={A: ["duncan_idaho"]}, tanks={A: 2})
    spice = state.faction(A).spice
    state, events = apply(state, PlayGhola(faction=A, leader="duncan_idaho"))
    assert state.faction(A).leaders_in_tanks == [] and state.faction(A).spice == spice
    assert state.faction(A).tanks == 2
    [event] = played(events, GHOLA)
    assert event.public and "Duncan Idaho" in event.message
    assert GHOLA in state.treachery_discard and violations(state) == []


@pytest.mark.parametrize("tokens", [1, 5])
def test_the_ghola_revives_up_to_five_tokens_free(tokens, no_battles):
    """1979 rules: Treachery: Tleilaxu Ghola: or up to 5 tokens free."""
    state = position(hands={A: [GHOLA]}, tanks={A: 7})
    spice, reserves = state.faction(A).spice, state.faction(A).reserves
    state, _ = apply(state, PlayGhola(faction=A, tokens=tokens))
    fs = state.faction(A)
    assert (fs.tanks, fs.reserves, fs.spice) == (7 - tokens, reserves + tokens, spice)
    assert violations(state) == []


@pytest.mark.parametrize(("tokens", "leader"), [(6, None), (4, None), (0, None), (2, "duncan_idaho"),
                                                (0, "thufir_hawat")])
def test_a_ghola_outside_its_limits_is_refused(tokens, leader):
    """More than 5, more than the tanks hold, nothing, both, or a leader who is alive."""
    state = position(hands={A: [GHOLA]}, tanks={A: 3}, dead_leaders={A: ["duncan_idaho"]})
    refused(state, PlayGhola(faction=A, tokens=tokens, leader=leader), RULE_GHOLA, ViolationCode.ILLEGAL_CHOICE)


def test_the_ghola_is_refused_without_the_card():
    state = position(hands={BG: [GHOLA]}, tanks={A: 3})
    refused(state, PlayGhola(faction=A, tokens=3), RULE_GHOLA, ViolationCode.NOT_ALLOWED)


def test_the_ghola_is_refused_during_a_battle():
    state = position(hands={H: [GHOLA]}, tanks={H: 3}, forces={"The Great Flat#14": {A: 3, H: 3}})
    state, _ = enter_phase(state, Phase.BATTLE, storm_sector=1)
    assert state.battle.current is not None
    refused(state, PlayGhola(faction=H, tokens=3), RULE_GHOLA, ViolationCode.WRONG_PHASE)


def test_the_ghola_comes_on_top_of_normal_revival(no_battles):
    """Played while the revival decision is open, the Ghola leaves normal revival intact: the open prompt is
    brought up to date and its default stays legal."""
    state = movement_round(position(hands={A: [GHOLA]}, tanks={A: 7}))
    state, _ = apply(state, PlayGhola(faction=A, tokens=5))
    prompt = prompt_of(state, A, PromptKind.REVIVAL)
    assert prompt.detail["max_tokens"] == 2 and prompt.detail["free_tokens"] == 2
    state, _ = apply(state, Revive(faction=A, tokens=2))
    assert state.faction(A).tanks == 0 and state.faction(A).reserves == 20
    assert violations(state) == []


def test_automatic_players_sometimes_play_the_ghola_at_revival(no_battles):
    state = movement_round(position(hands={A: [GHOLA]}, tanks={A: 7}, dead_leaders={A: ["duncan_idaho"]}))
    prompt = prompt_of(state, A, PromptKind.REVIVAL)
    samples = [SAMPLERS[PromptKind.REVIVAL](state, prompt, Rng.from_seed(seed)) for seed in range(30)]
    gholas = [s for s in samples if isinstance(s, PlayGhola)]
    assert gholas and len(gholas) < len(samples)
    for sample in gholas:
        apply(state, sample)  # never refused


# --- Truthtrance -----------------------------------------------------------------------------


def test_truthtrance_question_and_answer_are_public():
    """Truthtrance: the named faction must answer yes or no; question and answer are public.
    1979 rules: Treachery: Truthtrance."""
    state = storm_round(position(hands={A: [TRUTHTRANCE]}))
    question = "Do you hold a lasgun?"
    state, events = apply(state, PlayTruthtrance(faction=A, target=H, question=question))
    [event] = played(events, TRUTHTRANCE)
    assert event.public and question in event.message and "Harkonnen" in event.message
    prompt = prompt_of(state, H, PromptKind.TRUTHTRANCE)
    assert not prompt.secret and prompt.options == ["yes", "no"] and prompt.detail["question"] == question
    assert TRUTHTRANCE in state.treachery_discard
    state, events = apply(state, AnswerTruthtrance(faction=H, answer="yes"))
    [answer] = [e for e in events if e.type == "truthtrance_answered"]
    assert answer.public and question in answer.message and answer.data["answer"] == "yes"
    assert not any(p.kind == PromptKind.TRUTHTRANCE for p in state.prompts)
    assert violations(state) == []


def test_a_forced_truthtrance_answer_is_no():
    state = storm_round(position(hands={A: [TRUTHTRANCE]}))
    state, _ = apply(state, PlayTruthtrance(faction=A, target=H, question="Is it you?"))
    prompt = prompt_of(state, H, PromptKind.TRUTHTRANCE)
    state, events = apply(state, ForceDefault(admin="mod", reason="deadline", prompt_id=prompt.id))
    assert [e.data["answer"] for e in events if e.type == "truthtrance_answered"] == ["no"]
    assert any(e.type == "admin_forced_default" and e.public for e in events)


@pytest.mark.parametrize(("faction", "target", "question"), [
    (A, A, "Am I?"),  # another faction
    (A, H, ""),  # a question
    (A, H, "x" * 301),  # at most 300 characters
    (E, H, "Do you?"),  # not held
])
def test_a_wrong_truthtrance_is_refused(faction, target, question):
    """1979 rules: Treachery: Truthtrance: one other player, one yes/no question."""
    state = storm_round(position(hands={A: [TRUTHTRANCE]}))
    refused(state, PlayTruthtrance(faction=faction, target=target, question=question), RULE_TRUTHTRANCE)


def test_a_second_truthtrance_waits_for_the_first_answer():
    state = storm_round(position(hands={A: [TRUTHTRANCE, "truthtrance_2"]}))
    state, _ = apply(state, PlayTruthtrance(faction=A, target=H, question="One?"))
    refused(state, PlayTruthtrance(faction=A, target=H, question="Two?"), RULE_TRUTHTRANCE)
    state, _ = apply(state, AnswerTruthtrance(faction=H, answer="no"))
    state, _ = apply(state, PlayTruthtrance(faction=A, target=H, question="Two?"))
    assert {TRUTHTRANCE, "truthtrance_2"} <= set(state.treachery_discard)


def test_the_game_waits_for_a_truthtrance_answer():
    """Played while the storm is dialed, the answer is owed before the game goes on."""
    state = storm_round(position(hands={A: [TRUTHTRANCE]}), storm=1)
    state, _ = apply(state, PlayTruthtrance(faction=A, target=H, question="Will you attack?"))
    state, _ = dial(state, 1, 1)
    assert [p.kind for p in state.prompts] == [PromptKind.TRUTHTRANCE]  # no window yet: the game waits
    state, _ = apply(state, AnswerTruthtrance(faction=H, answer="no"))
    state, _ = answer_window(state)
    assert state.storm_sector == 3 and state.phase == Phase.SPICE_BLOW


# --- Karama against prescience (A-14) -------------------------------------------------------


@pytest.mark.parametrize("karama", [False, True])
def test_a_karama_readied_against_prescience_stops_the_question(karama):
    state = position(hands={H: ["karama_1"]}, forces={"The Great Flat#14": {A: 3, H: 3}})
    if karama:
        state, _ = apply(state, UseKarama(faction=H, card="karama_1", against=A, advantage="prescience"))
    state, events = enter_phase(state, Phase.BATTLE, storm_sector=1)
    kinds = {p.kind for p in state.prompts}
    assert (PromptKind.PRESCIENCE in kinds) is not karama
    if karama:
        assert kinds == {PromptKind.BATTLE_PLAN}
        assert any(e.type == "karama_played" and e.public for e in events)
        assert "karama_1" in state.treachery_discard and state.faction(H).hand == []
    assert violations(state) == []
