"""Collection (A-12) and the end of a turn: victories (A-9, A-10, A-11, A-25)."""

from __future__ import annotations

import pytest

from engine.data import load_game_data
from engine.model import Phase, Prediction
from engine.options import FixedSetup
from engine.phases.end_of_turn import earliest_team
from engine.rules.economy import total_spice_outside_bank
from tests.conftest import BG, BT, A, E, F, G, H, enter_phase, ready_game, tokens_back_to_reserves

DOTS = {A: 18, BG: 3, E: 6, F: 9, G: 12, H: 15}
BOARD = load_game_data().board


def _cleared(factions=(A, BG, E, F, G, H, BT), **options):
    """A game after setup with every token back in reserves, so each test places exactly what it needs."""
    state = ready_game(factions, fixed=FixedSetup(dots={f: d for f, d in DOTS.items() if f in factions}), **options)
    assert state.phase == Phase.STORM and state.turn == 1 and not state.spice_on_board
    state.storm_sector = 1
    tokens_back_to_reserves(state)
    return state


def _put(state, faction, location, count):
    state.add_tokens(location, faction, count)
    state.faction(faction).reserves -= count


def _spice(state, location, amount):
    state.spice_on_board[location] = state.spice_on_board.get(location, 0) + amount
    state.spice_outside_bank += amount


# --- collection ---------------------------------------------------------------------------


def test_two_spice_per_token_up_to_what_is_there():
    """A-12.
    1979 rules: Collection."""
    state = _cleared()
    _put(state, E, "The Great Flat#14", 3)
    _spice(state, "The Great Flat#14", 10)
    before = state.faction(E).spice
    state, events = enter_phase(state, Phase.COLLECTION)
    assert state.faction(E).spice == before + 6
    assert state.spice_on_board["The Great Flat#14"] == 4
    assert any(e.type == "spice_collected" and e.public for e in events)
    assert total_spice_outside_bank(state) == state.spice_outside_bank


def test_three_per_token_with_a_city_and_capped_by_the_spice():
    """A-12: 3 per token for a faction in Arrakeen or Carthag.
    1979 rules: Collection."""
    state = _cleared()
    _put(state, H, "Carthag#10", 1)
    _put(state, H, "The Great Flat#14", 3)
    _spice(state, "The Great Flat#14", 8)
    before = state.faction(H).spice
    state, _ = enter_phase(state, Phase.COLLECTION)
    assert state.faction(H).spice == before + 8
    assert "The Great Flat#14" not in state.spice_on_board


def test_tokens_anywhere_in_the_territory_collect_but_not_under_the_storm():
    """A-12: the whole territory collects, except sectors under the storm.
    1979 rules: Collection."""
    state = _cleared()
    _put(state, E, "South Mesa#3", 1)
    _put(state, F, "South Mesa#5", 2)
    _spice(state, "South Mesa#4", 10)
    state.storm_sector = 5
    e_before, f_before = state.faction(E).spice, state.faction(F).spice
    state, _ = enter_phase(state, Phase.COLLECTION)
    assert state.faction(E).spice == e_before + 2
    assert state.faction(F).spice == f_before


# --- victory ------------------------------------------------------------------------------


def _end_turn(state):
    return enter_phase(state, Phase.COLLECTION)


def test_three_strongholds_alone_win_at_the_end_of_the_turn():
    """A-9, A-11."""
    state = _cleared()
    for stronghold in ("Arrakeen", "Carthag", "Tuek's Sietch"):
        _put(state, E, BOARD.default_location(stronghold), 2)
    state, events = _end_turn(state)
    assert state.phase == Phase.ENDED and state.winners == [E]
    assert any(e.type == "game_over" for e in events)


def test_a_shared_stronghold_is_controlled_by_nobody():
    """A-11."""
    state = _cleared()
    for stronghold in ("Arrakeen", "Carthag", "Tuek's Sietch"):
        _put(state, E, BOARD.default_location(stronghold), 2)
    _put(state, G, BOARD.default_location("Carthag"), 1)
    state, _ = _end_turn(state)
    assert state.phase == Phase.STORM and state.turn == 2


def test_allies_need_four_strongholds_together():
    """A-8, A-9: the alliance threshold is 4 (option), and allies share the win."""
    state = _cleared()
    state.alliances = [[E, G]]
    _put(state, E, BOARD.default_location("Arrakeen"), 1)
    _put(state, E, BOARD.default_location("Carthag"), 1)
    _put(state, G, BOARD.default_location("Tuek's Sietch"), 1)
    ended, _ = _end_turn(state)
    assert ended.phase == Phase.STORM
    _put(state, G, BOARD.default_location("Sietch Tabr"), 1)
    ended, _ = _end_turn(state)
    assert ended.phase == Phase.ENDED and sorted(ended.winners) == sorted([E, G])


def test_simultaneous_winners_the_earliest_in_storm_order_wins():
    """A-9. Two stronghold wins cannot coexist on five strongholds, so the tie-break is checked directly
    (it decides between a stronghold win and the BT spice win of the BT issue)."""
    state = _cleared()  # storm at 1: Bene Gesserit (dot 3) come first, Atreides (dot 18) last
    assert earliest_team(state, [[A], [BG, H]]) == [BG, H]
    assert earliest_team(state, [[A, E], [G]]) == [A, E]
    assert earliest_team(state, []) == []


def test_the_bg_prediction_takes_the_win():
    """A-25: the predicted faction wins on the predicted turn: the Bene Gesserit win alone."""
    state = _cleared()
    state.bg_prediction = Prediction(faction=E, turn=1)
    for stronghold in ("Arrakeen", "Carthag", "Tuek's Sietch"):
        _put(state, E, BOARD.default_location(stronghold), 2)
    ended, events = _end_turn(state)
    assert ended.winners == [BG]
    assert "A-25" in next(e.message for e in events if e.type == "game_over")
    state.bg_prediction = Prediction(faction=E, turn=2)
    ended, _ = _end_turn(state)
    assert ended.winners == [E]


@pytest.mark.parametrize(
    ("placements", "winners"),
    [
        ({}, [F]),  # Fremen condition holds with nobody in the sietches
        ({(H, "Tuek's Sietch"): 1}, [G]),  # Harkonnen in Tuek's Sietch break it: the Guild
        ({(E, "Sietch Tabr"): 1}, [G]),
    ],
)
def test_the_last_turn_fremen_then_guild(placements, winners):
    """A-10."""
    state = _cleared(turns=1)
    for (faction, stronghold), count in placements.items():
        _put(state, faction, BOARD.default_location(stronghold), count)
    ended, _ = _end_turn(state)
    assert ended.phase == Phase.ENDED and ended.winners == winners


def test_the_last_turn_without_fremen_or_guild_most_strongholds_or_nobody():
    """A-10: the most strongholds wins; a tie means nobody does."""
    state = _cleared((A, H, E), turns=1)
    _put(state, A, BOARD.default_location("Arrakeen"), 1)
    _put(state, A, BOARD.default_location("Sietch Tabr"), 1)
    _put(state, H, BOARD.default_location("Carthag"), 1)
    ended, _ = _end_turn(state)
    assert ended.winners == [A]
    _put(state, H, BOARD.default_location("Habbanya Sietch"), 1)
    ended, events = _end_turn(state)
    assert ended.phase == Phase.ENDED and ended.winners == []
    assert "No winner" in next(e.message for e in events if e.type == "game_over")


def test_the_turn_advances_to_the_next_storm():
    state = _cleared()
    ended, events = _end_turn(state)
    assert (ended.turn, ended.phase) == (2, Phase.STORM)
    assert any(e.type == "phase_started" and e.data["phase"] == "storm" for e in events)
