"""Random games run to their end with every invariant holding after every action (the autoplay command)."""

from __future__ import annotations

import json

import pytest

from engine.__main__ import main
from engine.checks.autoplay import play_game
from engine.checks.invariants import violations
from engine.ids import BASE_FACTIONS, Faction
from engine.options import GameOptions, GameSetup


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_random_games_finish_without_violations(count):
    factions = BASE_FACTIONS[:count] if count > 2 else (Faction.ATREIDES, Faction.HARKONNEN)
    for number in range(2):
        seed = 1000 * count + number
        result = play_game(GameSetup(factions=factions, options=GameOptions(), seed=seed), seed, check=violations)
        assert result.violations == []
        assert result.finished, f"game {seed} stalled on turn {result.turns} after {result.actions} actions"


def test_autoplay_prints_one_json_summary(capsys):
    assert main(["autoplay", "--games", "2", "--seed", "3", "--factions", "atreides,harkonnen,fremen"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["games"] == summary["finished"] == 2
    assert summary["stalled"] == summary["violations"] == 0
    assert set(summary) >= {"winners", "turns_mean", "actions", "seconds", "events"}
    assert summary["events"]["phase_started"] > 0
