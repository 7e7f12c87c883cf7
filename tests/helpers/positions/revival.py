"""Constants of the revival tests."""

from __future__ import annotations

from engine.data import load_game_data
from tests.conftest import A

ATREIDES_LEADERS = [leader.id for leader in load_game_data().factions[A].leaders]
