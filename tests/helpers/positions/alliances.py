"""Builders of game positions for the alliance tests: the Nexus with its alliances made or not."""

from __future__ import annotations

from tests.conftest import ALL_SEVEN
from tests.helpers.positions.spice_blow import GREAT_FLAT, OLD_GAP, SH1, at_blow, base_game


def in_nexus(factions=ALL_SEVEN, alliances=(), **options):
    """A game in the Nexus after a turn-2 worm (no Fremen in the devoured territory, so no ride to wait for)."""
    game = base_game(factions, deck=[SH1, OLD_GAP], **options)
    state, _ = at_blow(state=game, discard=[GREAT_FLAT], alliances=alliances)
    assert state.nexus is not None
    return state
