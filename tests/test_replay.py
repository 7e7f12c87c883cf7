"""The log is the game: export, import, replay and verify; an altered log is caught."""

from __future__ import annotations

import json

import pytest

from engine.__main__ import main
from engine.actions import ChooseTraitor
from engine.checks.autoplay import play_until_stuck
from engine.errors import ReplayMismatch, RuleViolation
from engine.game import new_game, state_hash
from engine.ids import Faction
from engine.model import Phase
from engine.record import GameRecord, load_record, record_game, replay, save_record, verify
from engine.rng import Rng
from tests.conftest import make_setup


@pytest.fixture
def played():
    setup = make_setup(seed=21)
    state, _ = new_game(setup)
    state, actions, _ = play_until_stuck(state, Rng.from_seed(21), while_=lambda s: s.phase == Phase.SETUP)
    return setup, actions, state


def test_a_game_round_trips_through_its_file(played, tmp_path):
    setup, actions, state = played
    path = tmp_path / "game.json"
    save_record(record_game(setup, actions, state), path)
    record = load_record(path)
    assert record.setup == setup and record.actions == actions
    assert state_hash(verify(record)) == state_hash(state)
    assert replay(setup, actions)[0] == state


def _altered(record: GameRecord) -> GameRecord:
    """Swap the first traitor choice for another of the same prompt's options: still legal, another game."""
    state, _ = new_game(record.setup)
    actions = list(record.actions)
    for i, action in enumerate(actions):
        if isinstance(action, ChooseTraitor):
            options = next(p.options for p in state.prompts if p.faction == action.faction)
            other = next(o for o in options if o != action.leader)
            actions[i] = ChooseTraitor(faction=action.faction, leader=other)
            return record.model_copy(update={"actions": actions})
    raise AssertionError("no traitor choice in the record")


def test_an_altered_legal_action_is_caught_by_the_state_hash(played):
    record = record_game(*played)
    with pytest.raises(ReplayMismatch, match="differs from the recorded one"):
        verify(_altered(record))


def test_an_altered_illegal_action_is_caught_on_replay(played):
    record = record_game(*played)
    actions = list(record.actions)
    index = next(i for i, a in enumerate(actions) if isinstance(a, ChooseTraitor))
    actions[index] = ChooseTraitor(faction=actions[index].faction, leader="nobody_at_all")
    with pytest.raises(ReplayMismatch, match=f"action {index + 1} \\(choose_traitor\\) is refused"):
        verify(record.model_copy(update={"actions": actions}))


def test_cli_replay_prints_a_summary_and_exits_zero(played, tmp_path, capsys):
    path = tmp_path / "game.json"
    save_record(record_game(*played), path)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"replay OK: {len(played[1])} actions, seed 21" in out
    assert "Bene Tleilaxu" in out and "turn 1, phase storm" in out


def test_cli_replay_of_an_edited_file_exits_nonzero_with_a_clear_message(played, tmp_path, capsys):
    path = tmp_path / "game.json"
    save_record(_altered(record_game(*played)), path)
    assert main(["replay", str(path)]) == 1
    assert "replay FAILED" in capsys.readouterr().err


@pytest.mark.parametrize("content", ["not json", '{"format": "mentat-game/1"}', '{"format": "other"}'])
def test_cli_replay_of_a_broken_file_exits_nonzero(tmp_path, capsys, content):
    path = tmp_path / "game.json"
    path.write_text(content)
    assert main(["replay", str(path)]) == 1
    assert "is not a valid game record" in capsys.readouterr().err


def test_the_file_is_plain_json_with_setup_and_actions(played, tmp_path):
    path = tmp_path / "game.json"
    save_record(record_game(*played), path)
    raw = json.loads(path.read_text())
    assert raw["format"] == "mentat-game/1"
    assert raw["setup"]["factions"] == [f.value for f in Faction]
    assert all("type" in a for a in raw["actions"])


def test_demo_prints_the_public_setup_report_of_seven_factions(tmp_path, capsys):
    export = tmp_path / "demo.json"
    assert main(["demo", "--seed", "3", "--export", str(export)]) == 0
    out = capsys.readouterr().out
    for name in ("Atreides", "Bene Gesserit", "Emperor", "Fremen", "Spacing Guild", "Harkonnen", "Bene Tleilaxu"):
        assert name in out
    assert "Setup is complete" in out and "Turn order:" in out
    assert main(["replay", str(export)]) == 0


def test_a_whole_random_game_with_the_bt_replays_to_the_same_state(tmp_path):
    """The log is the game: every action of a finished 7-faction game, any-time plays included, replays."""
    from engine.checks.autoplay import play_prompt, spontaneous_action
    from engine.game import apply
    from engine.model import Phase as P

    setup = make_setup(seed=33)
    rng = Rng.from_seed(33)
    state, _ = new_game(setup)
    actions = []
    while state.phase != P.ENDED and state.prompts:
        extra = spontaneous_action(state, rng)
        if extra is not None:
            try:
                state, _ = apply(state, extra)
                actions.append(extra)
                continue
            except RuleViolation:  # a refused any-time play is simply not made
                pass
        action, (state, _) = play_prompt(state, rng.choice(state.prompts), rng)
        actions.append(action)
    assert state.phase == P.ENDED and len(actions) > 200
    path = tmp_path / "game.json"
    save_record(record_game(setup, actions, state), path)
    assert state_hash(verify(load_record(path))) == state_hash(state)


def test_a_game_file_carries_the_version_of_mentat_that_made_it(played, tmp_path):
    import engine

    path = tmp_path / "game.json"
    save_record(record_game(*played), path)
    assert json.loads(path.read_text())["engine_version"] == engine.__version__
    assert load_record(path).engine_version == engine.__version__


@pytest.mark.parametrize("made_by", ["0.1.0", None])
def test_cli_replay_of_a_file_from_another_version_that_fails_says_so(played, tmp_path, capsys, made_by):
    """A file another Mentat made may fail only because the rules changed between the two versions: the failure
    names both versions (None: a file from before files recorded their version)."""
    import engine

    path = tmp_path / "game.json"
    save_record(_altered(record_game(*played)).model_copy(update={"engine_version": made_by}), path)
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    made = f"Mentat {made_by}" if made_by else "a Mentat from before 0.2.0"
    assert "replay FAILED: the replayed state" in err
    assert f"This file was made by {made}" in err
    assert f"and this is Mentat {engine.__version__}: the rules may have changed between them" in err


def test_a_file_of_this_version_that_fails_blames_no_version(played):
    with pytest.raises(ReplayMismatch) as failed:
        verify(_altered(record_game(*played)))
    assert str(failed.value).endswith("the actions or the setup were altered")


def test_a_refused_action_in_a_file_from_another_version_says_so(played):
    record = record_game(*played).model_copy(update={"engine_version": "0.1.0"})
    actions = list(record.actions)
    index = next(i for i, a in enumerate(actions) if isinstance(a, ChooseTraitor))
    actions[index] = ChooseTraitor(faction=actions[index].faction, leader="nobody_at_all")
    with pytest.raises(ReplayMismatch, match=r"is refused on replay: .*This file was made by Mentat 0\.1\.0"):
        verify(record.model_copy(update={"actions": actions}))


def test_verify_history_gives_each_versions_events_as_the_game_made_them(played):
    from engine.game import apply
    from engine.record import verify_history

    setup, actions, state = played
    before, made = new_game(setup)
    told = [made]
    for action in actions:
        before, made = apply(before, action)
        told.append(made)
    verified, events = verify_history(record_game(setup, actions, state))
    assert state_hash(verified) == state_hash(state) and events == told and len(events) == len(actions) + 1
