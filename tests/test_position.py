"""Positions as data (engine/positions/documents.py, docs/positions.md): a hand-written position loads into the state it
describes and is written back unchanged; an impossible one is refused with the reason; the position of a live
game, loaded again, plays on exactly as the game does."""

from __future__ import annotations

import json

import pytest

from engine.__main__ import main
from engine.actions import (
    CallTraitor,
    PlayStormCards,
    SetAdvisorOrder,
    SetGuildTimingOrder,
    SetNexusOrder,
    SetOutbidOrder,
    SetRevivalOrder,
    SetStormCardOrder,
    SubmitBattlePlan,
)
from engine.checks.autoplay import play_prompt, spontaneous_action
from engine.data import load_game_data
from engine.errors import RuleViolation
from engine.game import apply, new_game
from engine.ids import BASE_FACTIONS
from engine.model import Phase, PromptKind
from engine.options import GameOptions, GameSetup
from engine.positions.documents import FORMAT, InvalidPosition, begin, load, write
from engine.record import load_record, verify
from engine.rng import Rng
from engine.rules.economy import total_spice_outside_bank
from engine.secrecy.views import view
from tests.conftest import BG, BT, A, E, F, G, H, apply_all, begin_position, prompt_of, ready_game

DATA = load_game_data()
FLAT = "The Great Flat#14"

MINIMAL = {"format": FORMAT, "factions": ["emperor", "harkonnen"]}

# BT-32 as a catalogue entry: the Harkonnen sprang the trap on Carthag; it strikes Beast Rabban.
TRAP_SPRUNG = {
    "format": FORMAT,
    "factions": ["emperor", "harkonnen", "guild", "bene_tleilaxu"],
    "turn": 2,
    "phase": "battle",
    "storm": 1,
    "forces": {"Carthag#10": {"harkonnen": 4}},
    "traps": {"Carthag": {"card": "crysknife", "triggered_by": "harkonnen", "triggered_turn": 2}},
    "draws": {"trap_leader": ["beast_rabban"]},
}

# A battle on The Great Flat, mid-game, with hands, traitors, dead leaders, alliances and a prediction stated.
MID_GAME = {
    "format": FORMAT,
    "factions": ["atreides", "bene_gesserit", "emperor", "harkonnen"],
    "options": {"character_advantages": True},
    "seed": 7,
    "turn": 4,
    "phase": "battle",
    "storm": 1,
    "forces": {FLAT: {"emperor": 6, "harkonnen": 5}, "Arrakeen#9": {"atreides": 8}, "Polar Sink": {"bene_gesserit": 3}},
    "elites": {FLAT: {"emperor": 2}},
    "spice_on_board": {"The Great Flat#14": 10},
    "dots": {"atreides": 12, "bene_gesserit": 15, "emperor": 3, "harkonnen": 6},
    "spice": {"emperor": 4, "harkonnen": 17},
    "tanks": {"atreides": 5},
    "dead_leaders": {"atreides": ["duncan_idaho"]},
    "hands": {"emperor": ["crysknife", "shield_1"], "harkonnen": ["lasgun", "chaumas", "karama_1"]},
    "traitors": {"emperor": ["feyd_rautha"], "harkonnen": ["caid", "alia", "thufir_hawat", "mother_ramallo"]},
    "treachery_deck": ["hajr", "baliset"],
    "treachery_discard": ["slip_tip"],
    "spice_discard": ["spice_old_gap"],
    "prediction": {"faction": "harkonnen", "turn": 5},
    "alliances": [["atreides", "bene_gesserit"]],
    "karama_orders": [{"faction": "harkonnen", "card": "karama_1", "advantage": "prescience"}],
}

# The storm's dials already made (A-1): the position waits on nothing, and the storm moves 2 + 3.
STORM_DIALED = {
    "format": FORMAT,
    "factions": ["emperor", "harkonnen"],
    "turn": 3,
    "step": "dialing",
    "storm": 5,
    "storm_dials": {"emperor": 2, "harkonnen": 3},
}

DOCUMENTS = [MINIMAL, TRAP_SPRUNG, MID_GAME, STORM_DIALED]


# --- hand-written positions ------------------------------------------------------------------


@pytest.mark.parametrize("doc", DOCUMENTS, ids=["minimal", "trap_sprung", "mid_game", "storm_dialed"])
def test_a_hand_written_position_is_written_back_unchanged(doc):
    assert write(load(doc)) == doc


def test_what_a_position_leaves_out_takes_its_default():
    """Turn 1 at the storm, seated at the first dots, starting spice, empty hands, 20 tokens in reserve, the
    whole decks shuffled by the seed, the generator after those shuffles."""
    state = load(MINIMAL)
    assert (state.turn, state.phase, state.step, state.storm_sector) == (1, Phase.STORM, "", 18)
    assert [state.faction(f).dot for f in (E, H)] == [18, 3]
    assert [state.faction(f).spice for f in (E, H)] == [10, 10] and state.spice_outside_bank == 20
    assert all(fs.reserves == 20 and fs.hand == [] and fs.traitors == [] for fs in state.factions.values())
    assert sorted(state.treachery_deck) == sorted(c.id for c in DATA.treachery_cards)
    assert state.traitor_deck_unused == list(DATA.traitor_deck((E, H)))
    assert state.prompts == [] and state.next_prompt_number == 1 and state.seq == 0


def test_reserves_and_the_spice_ledger_follow_from_the_board():
    state = load(MID_GAME)
    assert state.faction(E).reserves == 14 and state.faction(H).reserves == 15
    assert state.faction(A).reserves == 20 - 8 - 5 and state.faction(BG).reserves == 17
    assert state.spice_outside_bank == total_spice_outside_bank(state) == 4 + 17 + 10 + 5 + 10


def test_the_decks_hold_the_cards_found_nowhere_else_with_the_stated_top_first():
    state = load(MID_GAME)
    placed = {"crysknife", "shield_1", "lasgun", "chaumas", "karama_1", "slip_tip"}
    assert state.treachery_deck[:2] == ["hajr", "baliset"]
    assert set(state.treachery_deck) == {c.id for c in DATA.treachery_cards} - placed
    assert "spice_old_gap" not in state.spice_deck and len(state.spice_deck) == len(DATA.spice_cards) - 1
    other_seed = load({**MID_GAME, "seed": 8})
    assert other_seed.treachery_deck[:2] == ["hajr", "baliset"]
    assert other_seed.treachery_deck != state.treachery_deck and load(MID_GAME) == state


def test_a_position_at_the_start_of_a_step_begins_with_that_steps_decisions():
    state, events = begin_position({**MID_GAME, "forces": {FLAT: {"emperor": 6, "harkonnen": 5}}})
    assert {(p.faction, p.kind) for p in state.prompts} == {(E, PromptKind.BATTLE_PLAN), (H, PromptKind.BATTLE_PLAN)}
    assert state.battle.current.territory == "The Great Flat" and state.battle.current.aggressor == E
    assert [(e.type, e.public) for e in events] == [("battle_started", True)]


def test_bt_32_a_scenario_fixes_the_leader_a_sprung_trap_strikes():
    state, events = begin_position(TRAP_SPRUNG)
    attack = next(e for e in events if e.type == "trap_attack")
    assert attack.data["leader"] == "beast_rabban" and attack.public
    assert state.rng.scripted == {} and [p.kind for p in state.prompts_for(H)] == [PromptKind.BATTLE_PLAN]
    state, _ = apply(state, SubmitBattlePlan(faction=H, leader="beast_rabban"))
    assert "beast_rabban" in state.faction(H).leaders_in_tanks and "crysknife" in state.treachery_discard


def test_a_15_a_scenario_fixes_the_leader_the_harkonnen_capture():
    doc = {
        "format": FORMAT, "factions": ["emperor", "harkonnen"], "options": {"character_advantages": True},
        "turn": 2, "phase": "battle", "storm": 1, "forces": {FLAT: {"emperor": 2, "harkonnen": 8}},
        "draws": {"captured_leader": ["bashar"]},
    }
    state, _ = begin_position(doc)
    state, events = apply_all(state, SubmitBattlePlan(faction=E, leader="caid"),
                              SubmitBattlePlan(faction=H, leader="feyd_rautha", dial=5),
                              CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))
    captured = next(e for e in events if e.type == "leader_captured")
    assert captured.data["leader"] == "bashar" and state.captured == {"bashar": H}
    assert prompt_of(state, H, PromptKind.LEADER_CAPTURE).detail["leader"] == "bashar"


def test_a_1_storm_dials_stated_in_a_position_move_the_storm():
    state, _ = begin(STORM_DIALED)
    assert {p.kind for p in state.prompts} == {PromptKind.STORM_CARDS}  # asked of everyone, as in any storm
    state, events = apply_all(state, PlayStormCards(faction=E), PlayStormCards(faction=H))
    moved = next(e for e in events if e.type == "storm_moved")
    assert moved.data["distance"] == 5 and state.storm_sector == 10 and state.phase != Phase.STORM


def test_standing_orders_given_in_a_game_are_written_and_read_back():
    """The revival (A-7), Guild timing (A-15), spiritual advisor and Nexus (A-8) orders as their owners gave them,
    beside the storm-card order: the position keeps each, and only where it was given."""
    state, _ = apply_all(ready_game(character_advantages=True), SetRevivalOrder(faction=A, free_tokens=True),
                         SetRevivalOrder(faction=F, free_tokens=True),
                         SetGuildTimingOrder(faction=G, storm_order=True), SetAdvisorOrder(faction=BG, order="never"),
                         SetStormCardOrder(faction=H, never=True), SetNexusOrder(faction=E, done_at_once=True))
    doc = write(state)
    assert (doc["revive_free_tokens"], doc["guild_timing_in_storm_order"], doc["advisor_order"]) == (
        ["atreides", "fremen"], True, "never")
    read = load(doc)
    assert [f for f, fs in read.factions.items() if fs.revive_free_tokens] == [A, F]
    assert [f for f, fs in read.factions.items() if fs.guild_timing_in_storm_order] == [G]
    assert doc["nexus_done_at_once"] == ["emperor"]
    assert [f for f, fs in read.factions.items() if fs.nexus_done_at_once] == [E]
    assert {f: fs.advisor_order for f, fs in read.factions.items() if fs.advisor_order != "ask"} == {BG: "never"}
    assert read.factions == state.factions and write(read) == doc
    cleared, _ = apply_all(state, SetRevivalOrder(faction=A, free_tokens=False),
                           SetAdvisorOrder(faction=BG, order="ask"))
    assert write(cleared)["revive_free_tokens"] == ["fremen"] and "advisor_order" not in write(cleared)


def test_a_6_the_outbid_order_is_written_and_read_back():
    """The order to pass on a bid the faction cannot outbid (A-6), given by any faction, the BT too: the position
    keeps it for exactly those who gave it, and not once cleared."""
    state, _ = apply_all(ready_game(), SetOutbidOrder(faction=BT, pass_when_outbid=True),
                         SetOutbidOrder(faction=E, pass_when_outbid=True))
    doc = write(state)
    assert doc["pass_when_outbid"] == ["emperor", "bene_tleilaxu"]
    read = load(doc)
    assert [f for f, fs in read.factions.items() if fs.pass_when_outbid] == [E, BT]
    assert read.factions == state.factions and write(read) == doc
    cleared, _ = apply_all(state, SetOutbidOrder(faction=BT, pass_when_outbid=False),
                           SetOutbidOrder(faction=E, pass_when_outbid=False))
    assert "pass_when_outbid" not in write(cleared)


# --- impossible positions ----------------------------------------------------------------------


def _with(**changes):
    return {**MID_GAME, **changes}


IMPOSSIBLE = [
    ("21 tokens", _with(tanks={"emperor": 15}),
     "emperor has 21 tokens on the board and in the tanks; a faction has 20"),
    ("hand and discard", _with(treachery_discard=["crysknife"]),
     "crysknife is in two places: the emperor hand and the treachery discard"),
    ("two hands", _with(hands={"emperor": ["lasgun"], "harkonnen": ["lasgun", "karama_1"]}),
     "lasgun is in two places: the emperor hand and the harkonnen hand"),
    ("hand and deck", _with(treachery_deck=["shield_1"]),
     "shield_1 is in two places: the emperor hand and the treachery deck"),
    ("hand and trap", {**TRAP_SPRUNG, "hands": {"bene_tleilaxu": ["crysknife"]}},
     "crysknife is in two places: the bene_tleilaxu hand and the trap on Carthag"),
    ("spice card twice", _with(spice_deck=["spice_old_gap"]),
     "spice_old_gap is in two places: the spice discard and the spice deck"),
    ("unknown card", _with(hands={"emperor": ["death_ray"], "harkonnen": ["karama_1"]}),
     "unknown Treachery card 'death_ray' in the emperor hand"),
    ("unknown territory", _with(forces={"Giedi Prime#1": {"emperor": 1}}), "forces: unknown territory 'Giedi Prime'"),
    ("sector not in the territory", _with(forces={"Arrakeen#3": {"atreides": 1}}),
     "forces: sector 3 is not in Arrakeen (its sectors: 9)"),
    ("no sector", _with(spice_on_board={"The Great Flat": 6}),
     "spice_on_board: 'The Great Flat' needs its sector: write 'The Great Flat#14'"),
    ("dead leader captured", _with(captured={"duncan_idaho": "harkonnen"}),
     "duncan_idaho is in the tanks and held captive by the harkonnen"),
    ("another faction's dead leader", _with(dead_leaders={"emperor": ["duncan_idaho"]}),
     "dead_leaders: duncan_idaho is a leader of the atreides, not of the emperor"),
    ("dead leader in a battle plan", _with(dead_leaders={"atreides": ["duncan_idaho"], "emperor": ["caid"]}, battle={
        "current": {"territory": "The Great Flat", "locations": [FLAT], "aggressor": "emperor",
                    "defender": "harkonnen", "step": "plans", "plans": {"emperor": {"leader": "caid", "dial": 2}}}}),
     "the position breaks an invariant: emperor plans with the dead leader caid"),
    ("faction not in the game", _with(hands={"fremen": ["kulon"]}), "hands names fremen, which is not in this game"),
    ("BT tokens", {**TRAP_SPRUNG, "forces": {"Carthag#10": {"harkonnen": 4, "bene_tleilaxu": 1}}},
     "BT-1: the Bene Tleilaxu have no tokens"),
    ("BT dot", {**TRAP_SPRUNG, "dots": {"emperor": 3, "harkonnen": 6, "guild": 9, "bene_tleilaxu": 12}},
     "BT-1: the Bene Tleilaxu have no player dot"),
    ("some dots", _with(dots={"emperor": 3}), "dots: state every faction's dot or none; missing atreides"),
    ("one dot twice", _with(dots={"atreides": 12, "bene_gesserit": 15, "emperor": 3, "harkonnen": 3}),
     "dots: two factions sit at sector 3"),
    ("traitor in two hands", _with(traitors={"emperor": ["caid"], "harkonnen": ["caid", "alia", "bashar", "burseg"]}),
     "traitor card caid is in two places"),
    ("prediction of oneself", _with(prediction={"faction": "bene_gesserit", "turn": 3}),
     "the Bene Gesserit predict another faction's win"),
    ("trap off a stronghold", {**TRAP_SPRUNG, "traps": {"The Great Flat": {"card": "crysknife"}}},
     "traps: 'The Great Flat' is not a stronghold"),
    ("trap without the BT", _with(traps={"Carthag": {"card": "kulon"}}), "traps are laid by the Bene Tleilaxu"),
    ("two alliances", _with(alliances=[["atreides", "bene_gesserit"], ["bene_gesserit", "emperor"]]),
     "bene_gesserit is in two alliances"),
    ("over the hand limit", _with(hands={"emperor": ["kulon", "hajr", "lasgun", "chaumas", "stunner"]}),
     "emperor holds 5 Treachery cards; its hand limit is 4"),
    ("unknown step", _with(step="fight"), "step 'fight' is not a step of the battle phase (its steps: '', 'traps'"),
    ("karama order without the card", _with(hands={"harkonnen": ["lasgun"]}),
     "a Karama order of the harkonnen names karama_1, which is not in their hand"),
    ("unknown marked leader", {**TRAP_SPRUNG, "bt": {"marked": ["paul"]}}, "bt.marked: unknown leader 'paul'"),
    ("dials out of their step", _with(storm_dials={"emperor": 2}), "storm_dials are read in the storm phase"),
    ("unknown draw", _with(draws={"storm": ["3"]}), "draws: no random draw is named 'storm'"),
    ("elites without the option", _with(options={}), "elite tokens need the option character_advantages"),
    ("negative spice", _with(spice={"emperor": -1}), "spice.emperor: Input should be greater than or equal to 0"),
    ("unknown key", _with(reserves={"emperor": 3}), "reserves: Extra inputs are not permitted"),
    ("a faction twice", {**MINIMAL, "factions": ["emperor", "harkonnen", "emperor"]}, "a faction is listed twice"),
    ("BT in a game of two", {**MINIMAL, "factions": ["harkonnen", "bene_tleilaxu"]},
     "BT-2: the Bene Tleilaxu join games of 3 to 7 players"),
    ("tokens under the storm", {**MINIMAL, "turn": 2, "storm": 14, "forces": {FLAT: {"emperor": 3}}},
     "the position breaks an invariant: tokens in sand under the storm"),
    ("outbid order of a stranger", _with(pass_when_outbid=["fremen"]),
     "pass_when_outbid names fremen, which is not in this game"),
    ("revival order of a stranger", _with(revive_free_tokens=["fremen"]),
     "revive_free_tokens names fremen, which is not in this game"),
    ("revival order of the BT", {**TRAP_SPRUNG, "revive_free_tokens": ["bene_tleilaxu"]},
     "revive_free_tokens names the Bene Tleilaxu, who have nothing to revive (BT-1)"),
    ("Guild timing order without the option", {**TRAP_SPRUNG, "guild_timing_in_storm_order": True},
     "guild_timing_in_storm_order is the Spacing Guild's order, with the option character_advantages (A-15)"),
    ("advisor order without the BG", {**MINIMAL, "advisor_order": "polar_sink"},
     "advisor_order is the Bene Gesserit's, and they are not in this game"),
]


@pytest.mark.parametrize(("doc", "words"), [(doc, words) for _, doc, words in IMPOSSIBLE],
                         ids=[name for name, _, _ in IMPOSSIBLE])
def test_an_impossible_position_is_refused_with_its_reason(doc, words):
    with pytest.raises(InvalidPosition) as refusal:
        load(doc)
    assert any(words in problem for problem in refusal.value.problems), refusal.value.problems
    assert isinstance(refusal.value, ValueError)


def test_every_problem_of_the_document_is_named_at_once():
    with pytest.raises(InvalidPosition) as refusal:
        load(_with(tanks={"emperor": 15}, dots={"emperor": 3}, prediction={"faction": "fremen", "turn": 2}))
    assert refusal.value.problems == [
        "prediction names fremen, which is not in this game",
        "emperor has 21 tokens on the board and in the tanks; a faction has 20",
        "dots: state every faction's dot or none; missing atreides, bene_gesserit, harkonnen",
    ]
    assert str(refusal.value).startswith("impossible position: prediction names fremen")


# --- the positions of live games -----------------------------------------------------------------


def _random_game(setup: GameSetup, player_seed: int, max_actions: int = 3000):
    """A game of automatic players (engine/checks/autoplay.py): every (action, state after it, its events)."""
    rng = Rng.from_seed(player_seed)
    state, events = new_game(setup)
    steps = [(None, state, events)]
    while state.phase != Phase.ENDED and state.prompts and len(steps) < max_actions:
        action = spontaneous_action(state, rng)
        try:
            transition = apply(state, action) if action else None
        except RuleViolation:
            transition = None  # the moment did not allow it
        if transition is None or not transition.events:
            action, transition = play_prompt(state, rng.choice(state.prompts), rng)
        state = transition.state
        steps.append((action, state, transition.events))
    return steps


def _views(state):
    return [view(state, viewer) for viewer in (*state.factions, None)]


ALL_ON = GameOptions.all_on().model_dump()
GAMES = [  # six turns each at most: 36 positions and more per game
    pytest.param((*BASE_FACTIONS, BT), GameOptions(turns=6), 11, id="seven-bt"),
    pytest.param((*BASE_FACTIONS, BT), GameOptions(**{**ALL_ON, "turns": 6}), 12, id="seven-bt-options-all"),
    pytest.param((A, H, F), GameOptions(**{**ALL_ON, "turns": 6}), 13, id="three-options-all"),
    pytest.param((E, G, BG, H), GameOptions(turns=6), 14, id="four"),
]


@pytest.mark.parametrize(("factions", "options", "seed"), GAMES)
def test_a_position_written_at_each_phase_plays_on_like_the_game(factions, options, seed):
    """At the start of every phase (and at the first decisions), the written position, loaded again, shows each
    faction and the table what the game shows them, and still does after the game's next 50 actions."""
    steps = _random_game(GameSetup(factions=factions, options=options, seed=seed), seed)
    checked = 0
    for index, (_, state, events) in enumerate(steps):
        if index and not any(e.type == "phase_started" for e in events):
            continue
        doc = json.loads(json.dumps(write(state)))
        loaded = load(doc)
        assert write(loaded) == doc
        assert _views(loaded) == _views(state), f"action {index}"
        later = steps[index + 1:index + 51]  # fewer when the game ends sooner
        for action, _, _ in later:
            loaded = apply(loaded, action).state
        original = later[-1][1] if later else state
        assert _views(loaded) == _views(original), f"50 actions after action {index}"
        assert loaded.model_dump(mode="json") == original.model_dump(mode="json")
        checked += 1
    assert checked > 6 * 3  # three turns at least, six phases each


def test_every_state_of_a_game_is_a_possible_position():
    """No check of `load` refuses a state the engine reaches (a hand over its limit mid-swap, say)."""
    steps = _random_game(GameSetup(factions=(A, H, F, BT), options=GameOptions(**{**ALL_ON, "turns": 4}), seed=17), 17)
    for index, (_, state, _) in enumerate(steps):
        assert load(write(state)).model_dump(mode="json") == state.model_dump(mode="json"), f"action {index}"
    assert len(steps) > 100


# --- the command line ----------------------------------------------------------------------------


def test_the_command_line_writes_a_saved_games_position_and_checks_positions(tmp_path, capsys):
    game, position, impossible = tmp_path / "game.json", tmp_path / "position.json", tmp_path / "bad.json"
    assert main(["demo", "--seed", "4", "--export", str(game)]) == 0
    capsys.readouterr()
    assert main(["position", str(game)]) == 0
    written = capsys.readouterr().out
    record = load_record(game)
    assert json.loads(written) == write(verify(record))
    position.write_text(written)
    assert main(["position", "--check", str(position)]) == 0
    assert capsys.readouterr().out == "position OK: turn 1, phase storm, step dialing, 2 open decisions\n"
    impossible.write_text(json.dumps({**MINIMAL, "tanks": {"emperor": 21}}))
    assert main(["position", "--check", str(impossible)]) == 1
    assert "emperor has 21 tokens on the board and in the tanks" in capsys.readouterr().err
