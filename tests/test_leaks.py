"""Secrets over whole random games: after every action, no faction's view and nothing shown to the table
holds another faction's hand, traitors, prediction, spice, BT marks, trap cards or unrevealed plans (the
secrets table of bene-tleilaxu.md and the 1979 shields). `python -m engine autoplay --leaks` runs the same
checks over many more games."""

from __future__ import annotations

import pytest

from engine.autoplay import play_game
from engine.ids import Faction
from engine.leaks import LeakChecker
from engine.model import Battle, BattlePlan, BattleState
from tests.conftest import make_setup, ready_game


@pytest.mark.parametrize("seed", [2, 5, 8])
def test_no_secret_leaks_in_a_whole_random_seven_faction_game(seed):
    result = play_game(make_setup(seed=seed), seed, leaks=True)
    assert result.violations == [] and result.finished
    assert result.event_counts["plans_revealed"] > 0


def test_the_checker_catches_a_leaked_card_and_an_unrevealed_plan():
    """The checks can fail: a hand card named in a public event, a plan seen before the reveal."""
    from engine.events import Event

    state = ready_game()
    card = state.faction(Faction.HARKONNEN).hand[0]
    leak = Event(type="oops", message="-", data={"card": card})
    assert LeakChecker().check(state, [leak], views=False)
    plan = BattlePlan(leader="feyd_rautha")
    state.battle = BattleState(current=Battle(territory="Carthag", locations=["Carthag#10"],
                                              aggressor=Faction.HARKONNEN, defender=Faction.ATREIDES, step="plans",
                                              plans={Faction.HARKONNEN: plan}))
    state.faction(Faction.HARKONNEN).leaders_in_tanks = ["feyd_rautha"]  # a public field that names him
    assert any("unrevealed plan" in v for v in LeakChecker().check(state, []))
