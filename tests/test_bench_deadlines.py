"""The bench's deadline figures measure what they say: a tick reads only the games due however many are stored,
and a whole game at a pace is played to its end on the virtual clock, its days all counted in some phase."""

from __future__ import annotations

import asyncio

import pytest

from bench.days_figures import play_at_pace
from bench.tick_figures import WAITING, tick_figures
from bot.app.paces import Pace


def test_a_tick_among_more_stored_games_reads_only_the_games_due(tmp_path):
    figures = tick_figures({"sqlite": str(tmp_path / "tick.sqlite")}, seed=1, stored_sizes=(150, 400), ticks=2,
                           log=lambda line: None)
    runs = figures["stores"]["sqlite"]
    assert list(runs) == ["150", "400"]
    # each game due is read twice: its absences and troubles (GameService._absences_and_trouble), its reminders
    assert all(run["games_read_per_tick"] == [2 * WAITING] and run["n"] == 2 for run in runs.values())


@pytest.mark.parametrize("pace", [Pace.FAST, Pace.DAILY])
def test_a_whole_game_at_a_pace_ends_and_its_days_are_those_of_its_phases(pace):
    played = asyncio.run(play_at_pace(pace, seed=1))
    assert played["finished"]
    assert sum(played["days_by_phase"].values()) == pytest.approx(played["days"])
    assert played["defaults"] > 0  # a tenth of the decisions are never answered
    if pace == Pace.DAILY:
        assert played["answered"] > played["defaults"] and played["days"] > 30  # a look in a day: months
    else:
        assert played["days"] < 1  # minutes a decision: everything defaults, within the day
