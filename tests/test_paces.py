"""Paces (bot/app/paces.py) and the lobby (bot/app/lobby.py) through the service: a new game's deadlines come
from its pace, its lobby is the one post that announces it and is edited as seats fill and at the start."""

from __future__ import annotations

import pytest

from bot.app.lobby import LOBBY_KEY
from bot.app.paces import (
    ANY_KIND,
    BIDS,
    MOVES,
    PACES,
    PLANS,
    WINDOWS,
    Pace,
    duration,
    kind_words,
    pace_deadlines,
    settings_pace_text,
)
from bot.app.ports import GameStatus, OutgoingMessage
from bot.app.service import GameService, NotAllowed
from bot.store.memory import MemoryGameStore
from engine.ids import Faction
from engine.model import PromptKind
from engine.options import GameOptions

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
USERS = {A: 101, H: 102, F: 103}
CREATOR = 101


async def pending(service: GameService) -> list[OutgoingMessage]:
    rows = await service.store.pending_outbox(limit=1000)
    for row in rows:
        await service.store.mark_outbox(row.id, "sent")
    return [row.message for row in rows]


@pytest.fixture
async def lobby():
    service = GameService(MemoryGameStore())
    row = await service.create_game(1, 55, [A, H, F], GameOptions(weather=True), seed=7, pace=Pace.DAILY,
                                     creator=CREATOR)
    return service, row.game_id


# --- the paces --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("pace", [Pace.FAST, Pace.DAILY, Pace.WEEKLY])
def test_each_pace_gives_every_kind_a_deadline_and_windows_and_bids_less_time_than_battle_plans(pace):
    deadlines = pace_deadlines(pace)
    assert all(deadlines.get(kind.value, deadlines[ANY_KIND]) > 0 for kind in PromptKind)
    times = PACES[pace]
    assert times.windows < times.plans and times.bids < times.plans and times.picks < times.plans
    storm_dial = deadlines.get(PromptKind.STORM_DIAL.value, deadlines[ANY_KIND])  # a quick secret pick
    assert storm_dial < deadlines[PromptKind.BATTLE_PLAN.value]
    assert {kind.value for kind in (*WINDOWS, *BIDS, *MOVES, *PLANS)} == set(deadlines) - {ANY_KIND}


def test_fast_is_minutes_daily_is_at_most_a_day_and_none_has_no_deadline():
    assert max(pace_deadlines(Pace.FAST).values()) <= 10 * 60  # a live evening
    assert pace_deadlines(Pace.FAST)[PromptKind.BID.value] <= 60  # bids go round the table quickly
    assert max(pace_deadlines(Pace.DAILY).values()) <= 24 * 3600
    assert min(pace_deadlines(Pace.WEEKLY).values()) > max(pace_deadlines(Pace.FAST).values())
    assert pace_deadlines(Pace.NONE) == {}


def test_durations_read_in_their_largest_unit():
    assert [duration(s) for s in (45, 60, 90, 3600, 5400, 86400, 3 * 86400, 36 * 3600)] == \
        ["45 s", "1 min", "1.5 min", "1 h", "1.5 h", "1 day", "3 days", "36 h"]


def test_status_names_the_pace_and_what_a_moderator_changed():
    settings = {"pace": "daily", "deadlines": pace_deadlines(Pace.DAILY)}
    assert settings_pace_text(settings) == (
        "Pace: daily (a look in every day): 4 h for a yes or no asked of everyone (a storm card, a traitor call), 8 h "
        "for a small choice (the storm dial, a prescience question), 6 h for a bid, 1 day for revival, shipment and "
        "movement, 1 day for battle plans, alliances and the setup's choices.")
    changed = {"pace": "daily", "deadlines": {**pace_deadlines(Pace.DAILY), "bid": 7200}}
    assert settings_pace_text(changed).endswith("Changed by a moderator: bid decisions: 2 h.")
    assert settings_pace_text({}) == "Pace: none (no deadlines)."  # a game created before paces
    replaced = {"pace": "daily", "deadlines": {"*": 7200}}  # /admin deadline without a kind
    assert settings_pace_text(replaced).endswith("Deadlines set by a moderator since: every decision: 2 h.")
    cleared = {"pace": "fast", "deadlines": {}}
    assert settings_pace_text(cleared).endswith("Deadlines set by a moderator since: none.")
    set_on_none = {"pace": "none", "deadlines": {"*": 60, "bid": 30}}
    assert settings_pace_text(set_on_none) == ("Pace: none (no deadlines). Deadlines set by a moderator since: "
                                               "other decisions: 1 min; bid decisions: 30 s.")


# --- a new game and its lobby -----------------------------------------------------------------------------


async def test_a_new_game_keeps_its_paces_deadlines_and_its_creator(lobby):
    service, game = lobby
    settings = (await service.store.load_game(game)).settings
    assert settings == {"pace": "daily", "deadlines": pace_deadlines(Pace.DAILY), "creator": CREATOR}


async def test_the_lobby_is_the_one_post_that_announces_the_game(lobby):
    service, _ = lobby
    [post] = await pending(service)
    assert post.recipient.channel and post.key == LOBBY_KEY and post.edit_of is None
    assert post.text.splitlines() == [
        "**A game of Dune is open: Atreides, Harkonnen, Fremen.**",
        "Options: bt_traps, bt_worthless_impairers, bt_give_cards, pass_is_final, weather on, the others off; "
        "max_alliance_size=2, alliance_strongholds_to_win=4, turns=15.",
        "Pace: daily (a look in every day): 4 h for a yes or no asked of everyone (a storm card, a traitor call), 8 h "
        "for a small choice (the storm dial, a prescience question), 6 h for a bid, 1 day for revival, shipment and "
        "movement, 1 day for battle plans, alliances and the setup's choices.",
        "A player away (/me away): their deadlines wait (at most 7 days of absence in any 28).",
        "- Atreides: free", "- Harkonnen: free", "- Fremen: free",
        "Take a free seat with its button (or /game join).",
    ]


async def test_each_seat_edits_the_lobby_in_place_and_the_start_closes_it(lobby):
    service, game = lobby
    await pending(service)
    await service.seat(game, A, USERS[A])
    [edit] = await pending(service)
    assert (edit.edit_of, edit.replace, edit.key) == (LOBBY_KEY, True, None)
    assert "- Atreides: <@101>" in edit.text and "- Harkonnen: free" in edit.text
    await service.seat(game, H, USERS[H])
    await service.seat(game, F, USERS[F])
    last = (await pending(service))[-1]
    assert "- Fremen: <@103>" in last.text and last.text.endswith(
        "Every seat is taken: the game's creator or a moderator starts it with Start (or /game start); each player "
        "gets a welcome DM then.")
    await service.start(game)
    [closing] = [m for m in await pending(service) if m.edit_of == LOBBY_KEY]
    assert closing.replace and closing.text.startswith("**A game of Dune has started: Atreides, Harkonnen, Fremen.**")
    assert "Take a free seat" not in closing.text and "- Harkonnen: <@102>" in closing.text


async def test_one_seat_each_a_taken_seat_is_refused_and_an_admin_may_seat_anyone(lobby):
    service, game = lobby
    await service.seat(game, A, USERS[A])
    with pytest.raises(NotAllowed, match="You already play Atreides"):
        await service.seat(game, H, USERS[A])
    with pytest.raises(NotAllowed, match="taken"):
        await service.seat(game, A, USERS[H])
    await service.seat(game, A, USERS[A])  # taking one's own seat again changes nothing
    await service.seat(game, H, USERS[A], admin=True, by="mod")  # a moderator's hot seat
    assert (await service.store.load_game(game)).seats == {"atreides": USERS[A], "harkonnen": USERS[A]}


async def test_a_reseat_after_the_start_does_not_touch_the_lobby(lobby):
    service, game = lobby
    for faction, user in USERS.items():
        await service.seat(game, faction, user)
    await service.start(game)
    await pending(service)
    await service.seat(game, H, 555, admin=True, by="mod", reason="bob left")
    [told] = await pending(service)
    assert told.edit_of is None and told.text == "Admin mod seated <@555> as Harkonnen (bob left)."
    assert (await service.store.load_game(game)).status == GameStatus.RUNNING


async def test_a_game_without_a_pace_has_no_deadline_and_its_cards_none():
    service = GameService(MemoryGameStore())
    row = await service.create_game(1, 77, [A, H], seed=7)
    assert (await service.store.load_game(row.game_id)).settings == {"pace": "none"}
    for faction in (A, H):
        await service.seat(row.game_id, faction, USERS[faction])
    await service.start(row.game_id)
    assert not any("Answer by" in m.text for m in await pending(service))


async def test_a_paced_games_decision_cards_show_their_deadline(lobby):
    service, game = lobby
    for faction, user in USERS.items():
        await service.seat(game, faction, user)
    await service.start(game)
    cards = [m for m in await pending(service) if m.prompt_id is not None]
    assert cards and all("Answer by <t:" in m.text for m in cards)



def test_every_deadline_kind_reads_as_words_not_as_a_code_name():
    """Issue 25 item 12: a deadline's kind is told as the table reads it ("Bene Tleilaxu trap and gift decisions"),
    never as the key a moderator types ("bt traps and gifts", "nexus", "guild timing")."""
    proper = ("Nexus", "Guild", "Voice", "Truthtrance", "Karama", "Bene Tleilaxu", "Bene Gesserit", "Harkonnen")
    for kind in PromptKind:
        words = kind_words(kind.value)
        assert words.endswith(" decisions") and "_" not in words, words
        assert not {"bt", "bg"} & set(words.lower().split()), words
        assert all(name in words for name in proper if name.lower() in words.lower()), words
    assert kind_words("bt_traps_and_gifts") == "Bene Tleilaxu trap and gift decisions"
    assert kind_words("nexus") == "Nexus alliance decisions"
    assert kind_words("guild_timing") == "Guild timing decisions"
    assert kind_words("battle_plan") == "battle plan decisions"
    assert kind_words(ANY_KIND) == "other decisions"
