"""Whole games with the combat options on (A-15: `character_advantages` in battle, `advanced_combat`), played by
automatic players: invariants hold, and each option's effect shows in the events."""

from __future__ import annotations

from collections import Counter

from engine.checks.autoplay import play_game
from engine.checks.invariants import violations
from engine.ids import BASE_FACTIONS, Faction
from engine.options import GameOptions, GameSetup

FACTIONS = (*BASE_FACTIONS, Faction.BENE_TLEILAXU)
COMBAT = GameOptions(character_advantages=True, advanced_combat=True, turns=8)

# One event type each combat option makes and no game without it does.
OPTION_EVENTS = {
    "elite_tokens_fight": "character_advantages",  # Sardaukar and Fedaykin
    "leader_captured": "character_advantages",  # Harkonnen capture
    "kwisatz_haderach_activated": "character_advantages",
    "combat_spice_paid": "advanced_combat",
}


MAX_GAMES = 12  # random games are played until every option has shown (a rare event may need several)


def test_games_with_the_combat_options_finish_clean_and_show_each_option():
    events: Counter = Counter()
    for seed in range(1, MAX_GAMES + 1):
        result = play_game(GameSetup(factions=FACTIONS, options=COMBAT, seed=seed), seed, check=violations)
        assert result.violations == [] and result.finished, result.violations
        events.update(result.event_counts)
        if all(events[kind] for kind in OPTION_EVENTS):
            break
    assert [kind for kind in OPTION_EVENTS if not events[kind]] == []


def test_without_the_combat_options_none_of_their_events_happen():
    result = play_game(GameSetup(factions=FACTIONS, options=GameOptions(turns=8), seed=1), 1, check=violations)
    assert result.violations == [] and result.finished
    assert [kind for kind in OPTION_EVENTS if result.event_counts[kind]] == []
