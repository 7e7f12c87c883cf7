"""Whole games with every option on (A-15, A-14, the BT options), played by automatic players: invariants and
secrets hold, and each option shows in the events (`python -m engine autoplay --options all` at small scale)."""

from __future__ import annotations

from collections import Counter

from engine.checks.autoplay import play_game
from engine.checks.invariants import violations
from engine.ids import BASE_FACTIONS, Faction
from engine.options import GameOptions, GameSetup

EVERYTHING = GameOptions.all_on().model_copy(update={"turns": 8})
FACTIONS = (*BASE_FACTIONS, Faction.BENE_TLEILAXU)

# One event type each option (non-combat) makes and no game without it does.
OPTION_EVENTS = {
    "fremen_half_storm_losses": "character_advantages",
    "worm_placement_offered": "character_advantages",
    "guild_waits": "character_advantages",
    "bg_coexist": "character_advantages",
    "storm_forecast": "weather",
    "second_spice_blow": "double_spice_blow",
    "stronghold_income": "increased_spice_flow",
    "special_karama": "special_karama_powers",
}


MAX_GAMES = 12  # random games are played until every option has shown (a rare event may need several)


def test_games_with_every_option_finish_clean_and_show_each_option():
    events: Counter = Counter()
    for seed in range(MAX_GAMES):
        result = play_game(GameSetup(factions=FACTIONS, options=EVERYTHING, seed=seed), seed, check=violations)
        assert result.violations == [] and result.finished, result.violations
        events.update(result.event_counts)
        if all(events[kind] for kind in OPTION_EVENTS):
            break
    missing = [kind for kind in OPTION_EVENTS if not events[kind]]
    assert missing == []


def test_without_the_options_none_of_their_events_happen():
    result = play_game(GameSetup(factions=FACTIONS, options=GameOptions(turns=8), seed=0), 0, check=violations)
    assert result.violations == []
    assert [kind for kind in OPTION_EVENTS if result.event_counts[kind]] == []


def test_a_game_with_every_option_keeps_every_secret():
    setup = GameSetup(factions=FACTIONS, options=EVERYTHING.model_copy(update={"turns": 4}), seed=11)
    result = play_game(setup, 11, check=violations, leaks=True)
    assert result.violations == [] and result.finished
