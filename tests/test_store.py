"""The GameStore contract, run against the three stores (memory, SQLite, and PostgreSQL on the test run's own
server), then what only the SQLite store promises (durability, migrations, rollback, WAL); what only the
PostgreSQL store promises is in test_store_postgres.py."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from bot.app.ports import (
    GameExists,
    GameRecordRow,
    GameStatus,
    OutgoingMessage,
    Recipient,
    SeatChanged,
    Shards,
    StoredAction,
    UnknownGame,
    VersionConflict,
)
from bot.store.common import DUE_AT_ONCE, migration_files
from bot.store.memory import MemoryGameStore
from bot.store.postgres import PostgresGameStore
from bot.store.sqlite import MIGRATIONS, SqliteGameStore, apply_migrations
from engine import Faction, GameSetup, new_game, parse_action, state_hash
from engine.checks.autoplay import play_prompt
from engine.model import GameState
from engine.record import replay
from engine.rng import Rng

NOON = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
GUILD, OTHER_GUILD = 100, 200
ALICE, BOB, CAROL = 11, 12, 13


def fixed_clock() -> datetime:
    return NOON


def record(game_id: str = "g1", channel_id: int = 1000, guild_id: int = GUILD, **fields) -> GameRecordRow:
    defaults = {"status": GameStatus.OPEN, "setup_json": "{}", "state_json": '{"seq": 0}', "seq": 0}
    return GameRecordRow(game_id=game_id, guild_id=guild_id, channel_id=channel_id, **defaults | fields)


def to_channel(text: str) -> OutgoingMessage:
    return OutgoingMessage(recipient=Recipient(channel=True), text=text)


def to_faction(faction: str, text: str) -> OutgoingMessage:
    return OutgoingMessage(recipient=Recipient(faction=faction), text=text, prompt_id=f"{faction}-prompt")


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(request, tmp_path):
    if request.param == "memory":
        opened = MemoryGameStore(clock=fixed_clock)
    elif request.param == "sqlite":
        opened = await SqliteGameStore.open(tmp_path / "mentat.db", clock=fixed_clock)
    else:
        opened = await PostgresGameStore.open(request.getfixturevalue("postgres_url"), clock=fixed_clock)
    yield opened
    await opened.close()


async def texts(store) -> list[str]:
    return [row.message.text for row in await store.pending_outbox()]


# --- the contract: every store ---


async def test_a_created_game_loads_back_with_its_seats_and_engine_json(store):
    setup = GameSetup(factions=(Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN), seed=3)
    state = new_game(setup).state
    game = GameRecordRow(game_id="dune-1", guild_id=GUILD, channel_id=1000, status=GameStatus.OPEN,
                         setup_json=setup.model_dump_json(), state_json=state.model_dump_json(), seq=state.seq,
                         seats={"atreides": ALICE, "harkonnen": BOB})

    await store.create_game(game, [to_channel("A new game of Dune")])

    loaded = await store.load_game("dune-1")
    assert loaded == game.model_copy(update={"created_at": NOON})
    assert GameSetup.model_validate_json(loaded.setup_json) == setup
    assert state_hash(GameState.model_validate_json(loaded.state_json)) == state_hash(state)
    assert await store.load_game("no-such-game") is None
    [queued] = await store.pending_outbox()
    assert (queued.game_id, queued.seq, queued.message.text) == ("dune-1", 0, "A new game of Dune")


async def test_timestamps_are_kept_in_utc(store):
    in_paris = datetime(2026, 3, 1, 13, 0, tzinfo=timezone(timedelta(hours=1)))
    await store.create_game(record(created_at=in_paris), [])

    created_at = (await store.load_game("g1")).created_at
    assert created_at == NOON and created_at.utcoffset() == timedelta(0)
    await store.commit_action("g1", 0, ALICE, "{}", "{}", [])
    assert (await store.actions("g1"))[0].created_at == NOON


async def test_games_are_found_by_channel_and_listed_by_guild_in_creation_order(store):
    await store.create_game(record("g1", channel_id=1001, created_at=NOON + timedelta(minutes=1)), [])
    await store.create_game(record("g2", channel_id=1002, created_at=NOON), [])
    await store.create_game(record("g3", channel_id=1003, guild_id=OTHER_GUILD), [])

    assert (await store.game_in_channel(1002)).game_id == "g2"
    assert await store.game_in_channel(9999) is None
    assert [game.game_id for game in await store.list_games(GUILD)] == ["g2", "g1"]
    assert [game.game_id for game in await store.list_games()] == ["g2", "g3", "g1"]  # g3 ties g2: created later
    assert await store.list_games(guild_id=12345) == []


async def test_a_second_game_with_the_same_id_or_in_a_channel_whose_game_goes_on_is_refused_and_queues_nothing(store):
    await store.create_game(record("g1", channel_id=1000), [])

    with pytest.raises(GameExists):
        await store.create_game(record("g1", channel_id=2000), [to_channel("duplicate id")])
    for status in (GameStatus.OPEN, GameStatus.RUNNING, GameStatus.PAUSED):
        await store.set_status("g1", status)
        with pytest.raises(GameExists):
            await store.create_game(record("g2", channel_id=1000), [to_channel("the channel's game goes on")])
    assert [game.game_id for game in await store.list_games()] == ["g1"]
    assert await store.pending_outbox() == []


async def test_a_channel_takes_a_new_game_once_its_game_has_ended_and_keeps_the_old_one(store):
    await store.create_game(record("g1", channel_id=1000, seats={"atreides": ALICE}), [])
    await store.commit_action("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', [], status=GameStatus.ENDED)

    await store.create_game(record("g1-2", channel_id=1000, created_at=NOON + timedelta(minutes=1)),
                            [to_channel("a new lobby")])
    assert (await store.game_in_channel(1000)).game_id == "g1-2"
    assert [game.game_id for game in await store.games_in_channel(1000)] == ["g1-2", "g1"]  # newest first
    with pytest.raises(GameExists):  # the new game goes on: one at a time
        await store.create_game(record("g1-3", channel_id=1000), [])
    old = await store.load_game("g1")
    assert (old.status, old.seats, len(await store.actions("g1"))) == (GameStatus.ENDED, {"atreides": ALICE}, 1)
    assert await store.games_in_channel(9999) == []


async def test_the_channels_game_is_the_one_going_on_else_the_newest(store):
    await store.create_game(record("going", channel_id=1000, created_at=NOON), [])
    await store.create_game(record("older", channel_id=1000, status=GameStatus.ENDED,
                                   created_at=NOON - timedelta(days=1)), [])
    await store.create_game(record("imported", channel_id=1000, status=GameStatus.ENDED,
                                   created_at=NOON + timedelta(minutes=1)), [])

    assert (await store.game_in_channel(1000)).game_id == "going"
    assert [game.game_id for game in await store.games_in_channel(1000)] == ["imported", "going", "older"]
    await store.set_status("going", GameStatus.ENDED)
    assert (await store.game_in_channel(1000)).game_id == "imported"


async def test_seats_are_taken_changed_and_freed(store):
    await store.create_game(record(seats={"atreides": ALICE}), [])

    await store.set_seat("g1", "harkonnen", BOB, was=None)
    await store.set_seat("g1", "atreides", BOB, was=ALICE)
    assert (await store.load_game("g1")).seats == {"atreides": BOB, "harkonnen": BOB}
    await store.set_seat("g1", "atreides", None, was=BOB)
    await store.set_seat("g1", "fremen", None, was=None)  # freeing an empty seat is harmless
    assert (await store.load_game("g1")).seats == {"harkonnen": BOB}


async def test_a_seat_changed_since_it_was_read_is_refused_and_nothing_is_written(store):
    """Two processes giving one seat to two newcomers: the second finds it no longer where it read it, and writes
    neither the seat, nor the settings, nor what it would have told (the seat's secrets, to the wrong player)."""
    await store.create_game(record(seats={"atreides": ALICE}), [])
    await store.set_seat("g1", "atreides", BOB, [to_channel("Bob plays the Atreides")], was=ALICE,
                         settings={"seat_calls": {}})
    with pytest.raises(SeatChanged):
        await store.set_seat("g1", "atreides", CAROL, [to_channel("Carol plays the Atreides")], was=ALICE,
                             settings={"seat_calls": {}, "other": 1})
    game = await store.load_game("g1")
    assert game.seats == {"atreides": BOB} and game.settings == {"seat_calls": {}}
    assert [row.message.text for row in await store.pending_outbox()] == ["Bob plays the Atreides"]
    with pytest.raises(SeatChanged):
        await store.set_seat("g1", "fremen", CAROL, was=ALICE)  # a free seat is held by nobody
    assert (await store.load_game("g1")).seats == {"atreides": BOB}


async def test_a_seat_and_its_announcement_are_stored_together(store):
    await store.create_game(record(), [])
    await store.commit_action("g1", 0, ALICE, "{}", "{}", [])

    await store.set_seat("g1", "atreides", BOB, [to_channel("Bob plays the Atreides")], was=None)
    assert (await store.load_game("g1")).seats == {"atreides": BOB}
    assert [(row.seq, row.message.text) for row in await store.pending_outbox()] == [(1, "Bob plays the Atreides")]


async def test_an_imported_game_is_created_with_its_actions(store):
    """/game import: the game and its whole history in one transaction; the history must be versions 1..seq."""
    played = [StoredAction(seq=1, actor=ALICE, action_json='{"a": 1}', created_at=NOON - timedelta(days=2)),
              StoredAction(seq=2, actor=BOB, action_json='{"a": 2}')]
    await store.create_game(record(seq=2, state_json='{"seq": 2}'), [to_channel("imported")], played)
    assert [(a.seq, a.actor, a.action_json, a.created_at) for a in await store.actions("g1")] == [
        (1, ALICE, '{"a": 1}', NOON - timedelta(days=2)), (2, BOB, '{"a": 2}', NOON)]  # unstamped: now
    assert [(row.seq, row.message.text) for row in await store.pending_outbox()] == [(2, "imported")]
    assert await store.commit_action("g1", 2, ALICE, "{}", "{}", []) == 3
    for wrong in ([played[1]], played[:1], [played[1], played[0]]):  # a gap, too few, out of order
        with pytest.raises(ValueError, match="numbered 1..2"):
            await store.create_game(record("g2", channel_id=2000, seq=2), [to_channel("lost")], wrong)
    assert await store.load_game("g2") is None and await store.actions("g2") == []


async def test_logged_channel_messages_are_the_games_notes_whatever_their_delivery(store):
    await store.create_game(record("g1", channel_id=1001), [])
    await store.create_game(record("g2", channel_id=1002), [])
    logged = OutgoingMessage(recipient=Recipient(channel=True), text="Admin mod paused the game.", logged=True)
    await store.queue("g1", [to_channel("not a note"), logged])
    await store.commit_action("g1", 0, ALICE, "{}", "{}", [logged.model_copy(update={"text": "later"})])
    await store.queue("g2", [logged.model_copy(update={"text": "other game"})])
    for row in await store.pending_outbox():
        await store.mark_outbox(row.id, "sent")

    notes = await store.log_notes("g1")
    assert [(note.seq, note.text, note.created_at) for note in notes] == [
        (0, "Admin mod paused the game.", NOON), (1, "later", NOON)]
    with pytest.raises(UnknownGame):
        await store.log_notes("nope")


async def test_a_status_can_come_with_new_settings_in_the_same_transaction(store):
    await store.create_game(record(status=GameStatus.RUNNING, settings={"pace": "daily"}), [])

    await store.set_status("g1", GameStatus.ENDED, [to_channel("cancelled")],
                           settings={"pace": "daily", "cancelled": {"by": "mod", "reason": "nobody plays"}})
    game = await store.load_game("g1")
    assert (game.status, game.settings["cancelled"]) == (GameStatus.ENDED, {"by": "mod", "reason": "nobody plays"})
    assert await texts(store) == ["cancelled"]
    await store.set_status("g1", GameStatus.PAUSED)  # without settings: they stay
    assert (await store.load_game("g1")).settings["cancelled"]["by"] == "mod"


async def test_each_server_keeps_its_own_moderator_role(store):
    assert await store.moderator_role(GUILD) is None
    await store.set_moderator_role(GUILD, 77)
    await store.set_moderator_role(OTHER_GUILD, 88)
    await store.set_moderator_role(GUILD, 78)  # replaced
    assert (await store.moderator_role(GUILD), await store.moderator_role(OTHER_GUILD)) == (78, 88)
    await store.set_moderator_role(GUILD, None)
    assert (await store.moderator_role(GUILD), await store.moderator_role(OTHER_GUILD)) == (None, 88)


async def test_set_status(store):
    await store.create_game(record(), [])

    await store.set_status("g1", GameStatus.RUNNING)
    assert (await store.load_game("g1")).status == GameStatus.RUNNING
    await store.set_status("g1", GameStatus.ENDED)
    assert (await store.load_game("g1")).status == GameStatus.ENDED


async def test_the_first_start_is_recorded_and_kept_through_pauses(store):
    await store.create_game(record(), [])
    assert (await store.load_game("g1")).started_at is None

    await store.set_status("g1", GameStatus.PAUSED)
    assert (await store.load_game("g1")).started_at is None
    await store.set_status("g1", GameStatus.RUNNING, [to_channel("started")])
    started = await store.load_game("g1")
    assert started.started_at == NOON and started.started_at.utcoffset() == timedelta(0)
    assert await texts(store) == ["started"]
    store._clock = lambda: NOON + timedelta(hours=1)  # a later resume does not move the start
    await store.set_status("g1", GameStatus.PAUSED)
    await store.set_status("g1", GameStatus.RUNNING)
    assert (await store.load_game("g1")).started_at == NOON


async def test_settings_are_stored_replaced_and_copied(store):
    await store.create_game(record(settings={"deadlines": {"*": 60}}), [])
    assert (await store.load_game("g1")).settings == {"deadlines": {"*": 60}}

    settings = {"deadlines": {"*": 3600, "bid": 600}, "reminded": ["p1"]}
    await store.set_settings("g1", settings)
    settings["reminded"].append("p2")  # the caller's dict is not the stored one
    loaded = await store.load_game("g1")
    assert loaded.settings == {"deadlines": {"*": 3600, "bid": 600}, "reminded": ["p1"]}
    loaded.settings["deadlines"].clear()
    assert (await store.load_game("g1")).settings["deadlines"] == {"*": 3600, "bid": 600}
    await store.set_settings("g1", {})
    assert (await store.load_game("g1")).settings == {}
    with pytest.raises(UnknownGame):
        await store.set_settings("nope", {"deadlines": {}})


@pytest.mark.parametrize("operation", [
    lambda store: store.commit_action("nope", 0, ALICE, "{}", "{}", []),
    lambda store: store.replace_history("nope", 0, "{}", []),
    lambda store: store.set_seat("nope", "atreides", ALICE, was=None),
    lambda store: store.set_seat("nope", "atreides", None, was=None),
    lambda store: store.set_status("nope", GameStatus.RUNNING),
    lambda store: store.queue("nope", [to_channel("lost")]),
    lambda store: store.set_settings("nope", {}),
], ids=["commit_action", "replace_history", "set_seat", "free_seat", "set_status", "queue", "set_settings"])
async def test_an_unknown_game_is_refused(store, operation):
    with pytest.raises(UnknownGame):
        await operation(store)
    assert await store.actions("nope") == []
    assert await store.pending_outbox() == []


async def test_commit_action_stores_the_action_snapshot_and_messages_and_returns_the_new_seq(store):
    await store.create_game(record(), [])

    assert await store.commit_action("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', [to_channel("one")]) == 1
    assert await store.commit_action("g1", 1, BOB, '{"a": 2}', '{"seq": 2}',
                                     [to_channel("two"), to_faction("atreides", "secret")]) == 2

    game = await store.load_game("g1")
    assert (game.seq, game.state_json) == (2, '{"seq": 2}')
    assert [(a.seq, a.actor, a.action_json) for a in await store.actions("g1")] == [
        (1, ALICE, '{"a": 1}'), (2, BOB, '{"a": 2}')]
    rows = await store.pending_outbox()
    assert [(row.seq, row.message) for row in rows] == [
        (1, to_channel("one")), (2, to_channel("two")), (2, to_faction("atreides", "secret"))]
    assert all(row.attempts == 0 and row.status == "pending" for row in rows)


async def test_the_action_that_ends_the_game_ends_it_in_the_same_commit(store):
    await store.create_game(record(), [])
    await store.set_status("g1", GameStatus.RUNNING)
    await store.commit_action("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', [])
    assert (await store.load_game("g1")).status == GameStatus.RUNNING
    await store.commit_action("g1", 1, ALICE, '{"a": 2}', '{"seq": 2}', [to_channel("over")], status=GameStatus.ENDED)
    assert (await store.load_game("g1")).status == GameStatus.ENDED


async def test_a_stale_commit_is_refused_and_changes_nothing(store):
    await store.create_game(record(), [])
    await store.commit_action("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', [to_channel("one")])

    for stale in (0, 2):
        with pytest.raises(VersionConflict):
            await store.commit_action("g1", stale, BOB, '{"b": 1}', '{"wrong": true}', [to_channel("wrong")])

    game = await store.load_game("g1")
    assert (game.seq, game.state_json) == (1, '{"seq": 1}')
    assert [a.action_json for a in await store.actions("g1")] == ['{"a": 1}']
    assert await texts(store) == ["one"]


async def test_a_double_click_applies_once(store):
    await store.create_game(record(), [])
    click = ("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', [to_channel("done")])

    results = await asyncio.gather(store.commit_action(*click), store.commit_action(*click), return_exceptions=True)

    # either click may be the one taken (on PostgreSQL two connections race); the other is refused
    refused = [result for result in results if isinstance(result, VersionConflict)]
    assert len(refused) == 1 and [result for result in results if result not in refused] == [1]
    assert len(await store.actions("g1")) == 1
    assert await texts(store) == ["done"]


async def test_an_action_is_kept_with_its_idempotency_key_and_the_key_is_taken_once(store):
    """Issue 15: a submission's key (its interaction) is stored with the action; the same key again, even at the
    next version, is refused, and the first action is found by its key."""
    await store.create_game(record(), [])
    assert await store.commit_action("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', [], key="i-42") == 1
    with pytest.raises(VersionConflict):
        await store.commit_action("g1", 1, ALICE, '{"a": 1}', '{"seq": 2}', [to_channel("twice")], key="i-42")
    found = await store.action_with_key("g1", "i-42")
    assert found is not None and (found.seq, found.action_json, found.key) == (1, '{"a": 1}', "i-42")
    assert await store.action_with_key("g1", "i-43") is None
    assert [a.seq for a in await store.actions("g1")] == [1] and await texts(store) == []


async def test_settings_and_their_announcement_are_stored_together(store):
    """Issue 15: a reminder and the record that it was sent are one transaction (a crash between the two used
    to send it again)."""
    await store.create_game(record(), [])
    await store.set_settings("g1", {"reminded": ["p3"]}, [to_faction("atreides", "Reminder: your bid.")])
    assert (await store.load_game("g1")).settings == {"reminded": ["p3"]}
    [reminder] = await store.pending_outbox()
    assert reminder.message.text == "Reminder: your bid." and reminder.seq == 0


async def test_messages_kept_under_a_name_are_found_once_sent(store):
    """A decision card's place is kept (its key) once it is sent, for its closing edit."""
    await store.create_game(record(), [])
    await store.queue("g1", [to_channel("card").model_copy(update={"key": "card:p3"}), to_channel("plain")])
    card, plain = await store.pending_outbox()
    assert await store.message_ref("g1", "card:p3") is None
    await store.mark_outbox(card.id, "sent", "55:777")
    await store.mark_outbox(plain.id, "sent", "55:778")
    assert await store.message_ref("g1", "card:p3") == "55:777" and await store.message_ref("g1", "plain") is None


async def test_undo_drops_later_actions_and_play_continues_from_the_kept_seq(store):
    await store.create_game(record(), [])
    for seq in range(3):
        await store.commit_action("g1", seq, ALICE, f'{{"a": {seq + 1}}}', f'{{"seq": {seq + 1}}}', [])

    await store.replace_history("g1", 1, '{"seq": 1, "replayed": true}', [to_channel("undone to 1")])

    game = await store.load_game("g1")
    assert (game.seq, game.state_json) == (1, '{"seq": 1, "replayed": true}')
    assert [a.seq for a in await store.actions("g1")] == [1]
    [undo_notice] = await store.pending_outbox()
    assert (undo_notice.seq, undo_notice.message.text) == (1, "undone to 1")
    with pytest.raises(VersionConflict):  # a button from before the undo
        await store.commit_action("g1", 3, ALICE, "{}", "{}", [])
    assert await store.commit_action("g1", 1, BOB, '{"b": 2}', '{"seq": 2}', []) == 2
    assert [(a.seq, a.actor) for a in await store.actions("g1")] == [(1, ALICE), (2, BOB)]


async def test_an_action_is_kept_with_its_version_its_events_and_the_snapshot_it_was_applied_to(store):
    """Issue 23: what the table was shown is kept as it was shown, and undo restores a stored snapshot."""
    await store.create_game(record(), [])
    events = '[{"type": "storm_moved", "message": "The storm moves 3 sectors.", "audience": null}]'
    await store.commit_action("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', [], key="i-1", engine_version="0.2.0",
                              events_json=events, state_before_json='{"seq": 0}')
    await store.commit_action("g1", 1, BOB, '{"a": 2}', '{"seq": 2}', [], state_before_json='{"seq": 1}')

    first, second = await store.actions("g1")
    assert (first.engine_version, first.events_json, second.engine_version, second.events_json) == (
        "0.2.0", events, None, None)  # an older caller's: no version, no events
    assert await store.action_with_key("g1", "i-1") == first
    assert [await store.snapshot_from("g1", version) for version in (0, 1, 2, 5)] == [
        (0, '{"seq": 0}'), (1, '{"seq": 1}'), (2, '{"seq": 2}'), (2, '{"seq": 2}')]
    with pytest.raises(UnknownGame):
        await store.snapshot_from("nope", 0)


async def test_snapshots_read_back_until_an_action_stored_without_one(store):
    """A kept snapshot reads back from the one after it (SQL stores keep it as its difference from that one): an
    action stored without a snapshot, as before snapshots were kept, ends the walk back."""
    await store.create_game(record(), [])
    await store.commit_action("g1", 0, ALICE, "{}", '{"seq": 1}', [], state_before_json='{"seq": 0}')
    await store.commit_action("g1", 1, ALICE, "{}", '{"seq": 2}', [])
    await store.commit_action("g1", 2, ALICE, "{}", '{"seq": 3}', [], state_before_json='{"seq": 2}')
    assert await store.snapshot_from("g1", 0) == (2, '{"seq": 2}')


async def test_a_refused_commit_keeps_no_snapshot(store):
    await store.create_game(record(), [])
    await store.commit_action("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', [], state_before_json='{"seq": 0}')
    with pytest.raises(VersionConflict):
        await store.commit_action("g1", 0, BOB, '{"b": 1}', '{"wrong": 1}', [], state_before_json='{"wrong": 0}')
    assert await store.snapshot_from("g1", 0) == (0, '{"seq": 0}')


async def test_a_game_is_created_with_its_version_and_opening_events_and_an_import_with_its_actions_events(store):
    opening = '[{"type": "cards_dealt", "message": "Cards dealt.", "audience": null}]'
    played = [StoredAction(seq=1, actor=ALICE, action_json='{"a": 1}', engine_version="0.2.0", events_json="[]")]
    await store.create_game(record(seq=1, state_json='{"seq": 1}', engine_version="0.2.0"), [], played, opening)
    assert (await store.load_game("g1")).engine_version == "0.2.0"
    assert await store.opening_events("g1") == opening
    assert [(a.engine_version, a.events_json) for a in await store.actions("g1")] == [("0.2.0", "[]")]
    assert await store.snapshot_from("g1", 0) == (1, '{"seq": 1}')  # an import keeps no snapshots: files have none
    await store.create_game(record("g2", channel_id=2000), [])
    assert await store.opening_events("g2") is None
    with pytest.raises(UnknownGame):
        await store.opening_events("nope")


async def test_undo_drops_the_snapshots_of_what_it_takes_back(store):
    await store.create_game(record(), [])
    for seq in range(3):
        await store.commit_action("g1", seq, ALICE, "{}", f'{{"seq": {seq + 1}}}', [],
                                  state_before_json=f'{{"seq": {seq}}}')
    await store.replace_history("g1", 1, '{"seq": 1}', [])  # back to the snapshot stored for version 1
    assert await store.snapshot_from("g1", 0) == (0, '{"seq": 0}')
    await store.commit_action("g1", 1, BOB, "{}", '{"seq": 2, "again": true}', [], state_before_json='{"seq": 1}')
    assert [await store.snapshot_from("g1", version) for version in (0, 1, 2)] == [
        (0, '{"seq": 0}'), (1, '{"seq": 1}'), (2, '{"seq": 2, "again": true}')]


async def test_undo_to_another_snapshot_than_the_stored_one_ends_the_walk_back_there(store):
    await store.create_game(record(), [])
    for seq in range(2):
        await store.commit_action("g1", seq, ALICE, "{}", f'{{"seq": {seq + 1}}}', [],
                                  state_before_json=f'{{"seq": {seq}}}')
    await store.replace_history("g1", 1, '{"seq": 1, "rebuilt": true}', [])
    assert await store.snapshot_from("g1", 0) == (1, '{"seq": 1, "rebuilt": true}')


async def test_undoing_the_end_of_a_game_runs_it_again_in_the_same_transaction(store):
    """Issue 23: a game ended by its last action is running again when that action is undone."""
    await store.create_game(record(), [])
    await store.set_status("g1", GameStatus.RUNNING)
    await store.commit_action("g1", 0, ALICE, "{}", '{"seq": 1}', [], status=GameStatus.ENDED)
    await store.replace_history("g1", 0, '{"seq": 0}', [to_channel("undone")], status=GameStatus.RUNNING)
    game = await store.load_game("g1")
    assert (game.seq, game.status) == (0, GameStatus.RUNNING)
    await store.commit_action("g1", 0, ALICE, "{}", '{"seq": 1}', [])
    await store.set_status("g1", GameStatus.PAUSED)
    await store.replace_history("g1", 0, '{"seq": 0}', [])  # no status given: the status stays
    assert (await store.load_game("g1")).status == GameStatus.PAUSED


@pytest.mark.parametrize("keep", [-1, 2])
async def test_undo_cannot_go_forward_or_before_the_start(store, keep):
    await store.create_game(record(), [])
    await store.commit_action("g1", 0, ALICE, "{}", '{"seq": 1}', [])

    with pytest.raises(ValueError):
        await store.replace_history("g1", keep, "{}", [to_channel("bad undo")])
    assert (await store.load_game("g1")).state_json == '{"seq": 1}'
    assert len(await store.actions("g1")) == 1
    assert await store.pending_outbox() == []


async def test_outbox_rows_wait_in_order_until_sent_or_undeliverable(store):
    await store.create_game(record("g1", channel_id=1001), [to_channel("g1 created")])
    await store.create_game(record("g2", channel_id=1002), [to_channel("g2 created")])
    await store.commit_action("g1", 0, ALICE, "{}", "{}", [to_channel("public"), to_faction("atreides", "dm")])
    first, second, public, dm = await store.pending_outbox()
    assert [row.message.text for row in (first, second, public, dm)] == ["g1 created", "g2 created", "public", "dm"]
    assert first.id < second.id < public.id < dm.id
    assert [row.id for row in await store.pending_outbox(limit=2)] == [first.id, second.id]

    await store.mark_outbox(first.id, "sent")
    await store.mark_outbox(dm.id, "pending")  # a retry: it stays queued, in its place
    await store.mark_outbox(dm.id, "pending")
    await store.mark_outbox(second.id, "undeliverable")

    still_pending = await store.pending_outbox()
    assert [(row.message.text, row.attempts) for row in still_pending] == [("public", 0), ("dm", 2)]
    await store.mark_outbox(dm.id, "undeliverable")
    await store.mark_outbox(public.id, "sent")
    assert await store.pending_outbox() == []


async def test_messages_queued_outside_an_action_carry_the_games_current_seq(store):
    await store.create_game(record(), [to_channel("created")])
    await store.commit_action("g1", 0, ALICE, "{}", "{}", [to_channel("moved")])

    await store.queue("g1", [to_channel("notice"), to_faction("atreides", "your turn")])

    rows = await store.pending_outbox()
    assert [(row.seq, row.message.text) for row in rows] == [(0, "created"), (1, "moved"), (1, "notice"),
                                                             (1, "your turn")]


async def test_marking_an_unknown_outbox_row_or_with_an_unknown_status_is_refused(store):
    await store.create_game(record(), [to_channel("hello")])
    [row] = await store.pending_outbox()

    with pytest.raises(KeyError):
        await store.mark_outbox(row.id + 100, "sent")
    with pytest.raises(ValueError):
        await store.mark_outbox(row.id, "lost")
    assert [(r.id, r.attempts) for r in await store.pending_outbox()] == [(row.id, 0)]


async def test_rows_handed_out_are_copies(store):
    message = to_channel("hello")
    await store.create_game(record(seats={"atreides": ALICE}), [message])
    message.text = "changed by the caller"

    loaded = await store.load_game("g1")
    loaded.seats["harkonnen"] = BOB
    loaded.seq = 99
    assert await store.load_game("g1") == loaded.model_copy(update={"seats": {"atreides": ALICE}, "seq": 0})
    assert await texts(store) == ["hello"]


async def test_the_bots_own_values_are_kept_by_name_and_replaced(store):
    """The hash of the command tree last synced (bot/discord/command_sync.py) lives here, apart from any game."""
    assert await store.get_value("commands_synced") is None  # never set
    await store.set_value("commands_synced", "abc123")
    await store.set_value("other", "kept apart")
    assert await store.get_value("commands_synced") == "abc123"
    await store.set_value("commands_synced", "def456")  # a later sync replaces it
    assert (await store.get_value("commands_synced"), await store.get_value("other")) == ("def456", "kept apart")
    assert await store.list_games() == [] and await store.pending_outbox() == []  # no game, no message


async def test_a_real_games_stored_actions_replay_to_the_stored_snapshot(store):
    setup = GameSetup(factions=(Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN), seed=3)
    state = new_game(setup).state
    await store.create_game(record(setup_json=setup.model_dump_json(), state_json=state.model_dump_json()), [])
    rng = Rng.from_seed(1)
    for _ in range(3):
        action, (state, _) = play_prompt(state, state.prompts[0], rng)
        await store.commit_action("g1", state.seq - 1, ALICE, action.model_dump_json(), state.model_dump_json(), [])

    game = await store.load_game("g1")
    stored_actions = [parse_action(stored.action_json) for stored in await store.actions("g1")]
    replayed, _ = replay(GameSetup.model_validate_json(game.setup_json), stored_actions)
    assert state_hash(replayed) == state_hash(GameState.model_validate_json(game.state_json)) == state_hash(state)


# --- the index of due times (GameService.tick reads only the games whose time has come) ---


async def test_the_games_due_are_those_whose_due_time_has_come_earliest_first(store):
    await store.create_game(record("late", channel_id=1001, status=GameStatus.RUNNING,
                                   due_at=NOON + timedelta(hours=2)), [])
    await store.create_game(record("early", channel_id=1002, status=GameStatus.RUNNING,
                                   due_at=NOON + timedelta(hours=1)), [])
    await store.create_game(record("never", channel_id=1003, status=GameStatus.RUNNING), [])

    assert await store.games_due(NOON) == []
    assert await store.games_due(NOON + timedelta(hours=1)) == ["early"]  # at its due time, not only after
    assert await store.games_due(NOON + timedelta(days=30)) == ["early", "late"]
    assert (await store.load_game("late")).due_at == NOON + timedelta(hours=2)


async def test_each_write_of_a_games_state_or_settings_sets_its_due_time(store):
    await store.create_game(record(status=GameStatus.RUNNING), [])
    later = NOON + timedelta(hours=3)

    await store.commit_action("g1", 0, ALICE, "{}", '{"seq": 1}', [], due_at=later)
    assert await store.games_due(later - timedelta(seconds=1)) == [] and await store.games_due(later) == ["g1"]
    await store.set_settings("g1", {"deadlines": {"*": 60}}, due_at=None)
    assert await store.games_due(later) == [] and (await store.load_game("g1")).due_at is None
    await store.set_status("g1", GameStatus.PAUSED, due_at=later)
    assert await store.games_due(later) == ["g1"]
    await store.replace_history("g1", 0, '{"seq": 0}', [], due_at=None)
    assert await store.games_due(later) == []


async def test_a_write_that_does_not_say_the_due_time_makes_the_game_due_at_once(store):
    """Another writer of the settings (a delivery notice) that does not work the due time out costs one look at the
    next tick, never a missed deadline."""
    await store.create_game(record(status=GameStatus.RUNNING), [])
    for write in (lambda: store.set_settings("g1", {"unreachable": ["fremen"]}),
                  lambda: store.set_status("g1", GameStatus.RUNNING),
                  lambda: store.commit_action("g1", 0, ALICE, "{}", '{"seq": 1}', []),
                  lambda: store.replace_history("g1", 0, '{"seq": 0}', [])):
        await store.set_settings("g1", {}, due_at=None)
        await write()
        assert await store.games_due(NOON) == ["g1"]
        assert (await store.load_game("g1")).due_at == DUE_AT_ONCE


async def test_the_games_due_are_those_of_the_shards_asked(store):
    for number in range(4):  # game n in guild n << 22: shard n % 2 of 2 (Discord's formula)
        await store.create_game(record(f"g{number}", channel_id=1000 + number, guild_id=number << 22,
                                       status=GameStatus.RUNNING, due_at=NOON), [])
    assert await store.games_due(NOON, Shards(frozenset({1}), 2)) == ["g1", "g3"]
    assert await store.games_due(NOON, Shards(frozenset({0}), 2)) == ["g0", "g2"]
    assert await store.games_due(NOON, Shards(frozenset({0, 1}), 2)) == ["g0", "g1", "g2", "g3"]


async def test_action_times_are_the_times_of_the_versions_asked_only(store):
    clock = {"now": NOON}
    store._clock = lambda: clock["now"]  # each action an hour after the last
    await store.create_game(record(status=GameStatus.RUNNING), [])
    for seq in range(4):
        clock["now"] = NOON + timedelta(hours=seq + 1)
        await store.commit_action("g1", seq, ALICE, "{}", f'{{"seq": {seq + 1}}}', [])
    assert await store.action_times("g1", {2, 4, 9}) == {2: NOON + timedelta(hours=2), 4: NOON + timedelta(hours=4)}
    assert await store.action_times("g1", set()) == {}
    assert await store.action_times("no-such-game", {1}) == {}


# --- SQLite only ---


async def test_sqlite_data_survives_closing_and_reopening(tmp_path):
    path = tmp_path / "mentat.db"
    store = await SqliteGameStore.open(path, clock=fixed_clock)
    await store.create_game(record(seats={"atreides": ALICE}), [to_channel("created")])
    await store.commit_action("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', [to_faction("atreides", "dm")])
    await store.mark_outbox((await store.pending_outbox())[0].id, "sent")
    await store.set_status("g1", GameStatus.RUNNING)
    await store.set_value("commands_synced", "abc123")
    before = (await store.load_game("g1"), await store.actions("g1"), await store.pending_outbox())
    await store.close()

    reopened = await SqliteGameStore.open(path)
    try:
        assert (await reopened.load_game("g1"), await reopened.actions("g1"), await reopened.pending_outbox()) == before
        assert await reopened.get_value("commands_synced") == "abc123"
    finally:
        await reopened.close()


async def test_sqlite_runs_in_wal_mode_with_full_sync_and_foreign_keys(tmp_path):
    path = tmp_path / "mentat.db"
    store = await SqliteGameStore.open(path)
    try:
        def pragma(name: str):  # the pragmas other than journal_mode are per connection: the store's own
            return store._db.execute(f"PRAGMA {name}").fetchone()[0]

        assert (await store._on_thread(pragma, "synchronous"), await store._on_thread(pragma, "foreign_keys")) == (
            2, 1)  # synchronous 2 is FULL
    finally:
        await store.close()

    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)  # WAL is recorded in the file


async def test_sqlite_a_commit_failing_midway_leaves_nothing_behind(tmp_path, monkeypatch):
    store = await SqliteGameStore.open(tmp_path / "mentat.db")
    try:
        await store.create_game(record(), [])

        def fail_after_the_action_and_snapshot(*args):  # the outbox insert runs on the connection's thread
            raise RuntimeError("disk full")

        monkeypatch.setattr(store, "_queue", fail_after_the_action_and_snapshot)
        with pytest.raises(RuntimeError, match="disk full"):
            await store.commit_action("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', [to_channel("lost")])
        monkeypatch.undo()

        game = await store.load_game("g1")
        assert (game.seq, game.state_json) == (0, '{"seq": 0}')
        assert await store.actions("g1") == []
        assert await store.pending_outbox() == []
        assert await store.commit_action("g1", 0, ALICE, '{"a": 1}', '{"seq": 1}', []) == 1  # the store still works
    finally:
        await store.close()


async def test_sqlite_keeps_a_snapshot_packed_at_under_a_tenth_of_its_json(tmp_path):
    """A real 7-faction game's snapshot, kept with the action applied to it, is stored compressed with the next
    snapshot as zlib's dictionary (measured over a whole game: 7.2 KiB of JSON as some 130 bytes; 2.2 KiB without
    the dictionary) and read back unchanged."""
    setup = GameSetup(factions=tuple(Faction), seed=5)
    state = new_game(setup).state
    rng = Rng.from_seed(5)
    for _ in range(20):
        _, (state, _) = play_prompt(state, state.prompts[0], rng)
    before = state.model_dump_json()
    after = play_prompt(state, state.prompts[0], rng)[1].state.model_dump_json()
    path = tmp_path / "mentat.db"
    store = await SqliteGameStore.open(path)
    try:
        await store.create_game(record(state_json=before), [])
        await store.commit_action("g1", 0, ALICE, "{}", after, [], state_before_json=before)
        assert await store.snapshot_from("g1", 0) == (0, before)
    finally:
        await store.close()
    with connect(path) as db:
        [(stored,)] = db.execute("SELECT length(state_before) FROM actions").fetchall()
    assert stored < len(before) / 10


def schema_versions(db: sqlite3.Connection) -> list[int]:
    return [row[0] for row in db.execute("SELECT version FROM schema_version ORDER BY version")]


def connect(path: Path) -> closing[sqlite3.Connection]:
    """A connection of our own to the store's file, in autocommit mode as apply_migrations wants it."""
    return closing(sqlite3.connect(path, isolation_level=None))


async def test_sqlite_migrations_run_once(tmp_path):
    path = tmp_path / "mentat.db"
    for _ in range(2):
        await (await SqliteGameStore.open(path)).close()

    with connect(path) as db:
        assert schema_versions(db) == [number for number, _ in migration_files(MIGRATIONS)]
        assert apply_migrations(db) == []


async def test_sqlite_a_version_1_database_is_upgraded_to_2_keeping_its_games(tmp_path):
    path = tmp_path / "mentat.db"
    first = tmp_path / "migrations"
    first.mkdir()
    shutil.copy(MIGRATIONS / "0001_init.sql", first)
    with connect(path) as db:
        assert apply_migrations(db, first) == [1]
        db.execute(
            "INSERT INTO games (game_id, guild_id, channel_id, status, setup_json, state_json, seq, created_at)"
            " VALUES ('g1', 100, 1000, 'running', '{}', '{}', 0, ?)", (NOON.isoformat(timespec="microseconds"),))

    store = await SqliteGameStore.open(path, clock=fixed_clock)
    try:
        game = await store.load_game("g1")
        assert (game.status, game.created_at, game.settings, game.started_at) == (GameStatus.RUNNING, NOON, {}, None)
        assert game.due_at == DUE_AT_ONCE  # running when due times came in: the next tick works its due time out
        await store.set_settings("g1", {"deadlines": {"*": 60}})
        assert (await store.load_game("g1")).settings == {"deadlines": {"*": 60}}
    finally:
        await store.close()
    with connect(path) as db:
        assert schema_versions(db) == [number for number, _ in migration_files(MIGRATIONS)]


def real_migrations_plus(tmp_path, name: str, sql: str) -> tuple[Path, int]:
    """A copy of the real migrations with one more after them; returns the directory and its number."""
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in MIGRATIONS.glob("*.sql"):
        shutil.copy(path, directory)
    number = max(int(path.stem.partition("_")[0]) for path in MIGRATIONS.glob("*.sql")) + 1
    (directory / f"{number:04d}_{name}.sql").write_text(sql)
    return directory, number


async def test_sqlite_a_database_at_an_older_version_is_upgraded_keeping_its_data(tmp_path):
    path = tmp_path / "mentat.db"
    store = await SqliteGameStore.open(path)
    await store.create_game(record(), [])
    await store.close()
    newer, number = real_migrations_plus(
        tmp_path, "notes",
        "ALTER TABLE games ADD COLUMN notes TEXT NOT NULL DEFAULT '';\nCREATE TABLE audit (id INTEGER PRIMARY KEY);\n")

    with connect(path) as db:
        assert apply_migrations(db, newer) == [number]
        assert apply_migrations(db, newer) == []
        assert schema_versions(db) == [*(known for known, _ in migration_files(MIGRATIONS)), number]
        assert db.execute("SELECT game_id, notes FROM games").fetchall() == [("g1", "")]

    with pytest.raises(RuntimeError, match="newer"):  # older code must not write to a newer schema
        await SqliteGameStore.open(path)


async def test_sqlite_a_failing_migration_leaves_the_previous_version(tmp_path):
    path = tmp_path / "mentat.db"
    await (await SqliteGameStore.open(path)).close()
    broken, number = real_migrations_plus(tmp_path, "broken",
                                          "CREATE TABLE audit (id INTEGER PRIMARY KEY);\nNOT SQL AT ALL;\n")

    with connect(path) as db:
        with pytest.raises(sqlite3.OperationalError):
            apply_migrations(db, broken)
        assert schema_versions(db) == [known for known, _ in migration_files(MIGRATIONS)]
        assert db.execute("SELECT name FROM sqlite_master WHERE name = 'audit'").fetchall() == []


async def test_sqlite_rebuilding_the_games_table_keeps_every_seat_action_outbox_row_and_message_reference(tmp_path):
    """Migration 7 rebuilds `games` (SQLite cannot drop the UNIQUE on its channel). With foreign keys on, dropping
    the old table would delete every seat, action, outbox row and message reference of every game (ON DELETE
    CASCADE): the runner turns them off around it and checks them before the commit."""
    path = tmp_path / "mentat.db"
    before = tmp_path / "before"
    before.mkdir()
    for number, migration in migration_files(MIGRATIONS):
        if number < 7:
            shutil.copy(migration, before)
    now = NOON.isoformat(timespec="microseconds")
    with connect(path) as db:
        db.execute("PRAGMA foreign_keys = ON")  # as the store runs
        apply_migrations(db, before)
        for game_id, channel, status in (("g1000", 1000, "ended"), ("g2000", 2000, "running")):
            db.execute("INSERT INTO games (game_id, guild_id, channel_id, status, setup_json, state_json, seq,"
                             " moderator_role_id, created_at, settings_json, started_at)"
                             " VALUES (?, 100, ?, ?, '{}', '{\"seq\": 1}', 1, NULL, ?, '{\"pace\": \"daily\"}', ?)",
                             (game_id, channel, status, now, now))
            db.execute("INSERT INTO seats (game_id, faction, user_id) VALUES (?, 'atreides', ?)",
                             (game_id, ALICE))
            db.execute("INSERT INTO actions (game_id, seq, actor, action_json, created_at, idempotency_key)"
                             " VALUES (?, 1, ?, '{\"a\": 1}', ?, 'click-1')", (game_id, ALICE, now))
            db.execute("INSERT INTO outbox (game_id, seq, message_json, status, created_at)"
                             " VALUES (?, 1, ?, 'sent', ?)", (game_id, to_channel(f"{game_id} lobby").model_dump_json(),
                                                              now))
            db.execute("INSERT INTO outbox (game_id, seq, message_json, created_at) VALUES (?, 1, ?, ?)",
                             (game_id, to_channel(f"{game_id} news").model_dump_json(), now))
            db.execute("INSERT INTO message_refs (game_id, key, ref) VALUES (?, 'lobby', ?)",
                             (game_id, f"{channel}:5"))

    store = await SqliteGameStore.open(path, clock=fixed_clock)
    try:
        for game_id, channel, status in (("g1000", 1000, GameStatus.ENDED), ("g2000", 2000, GameStatus.RUNNING)):
            game = await store.load_game(game_id)
            assert (game.channel_id, game.status, game.seats, game.settings, game.started_at) == (
                channel, status, {"atreides": ALICE}, {"pace": "daily"}, NOON)
            assert [(a.seq, a.action_json, a.key) for a in await store.actions(game_id)] == [(1, '{"a": 1}', "click-1")]
            assert await store.message_ref(game_id, "lobby") == f"{channel}:5"
        assert await texts(store) == ["g1000 news", "g2000 news"]
        await store.create_game(record("g1000-2", channel_id=1000), [])  # its game ended: the channel takes another
        with pytest.raises(GameExists):
            await store.create_game(record("g2000-2", channel_id=2000), [])  # its game goes on
    finally:
        await store.close()
    with closing(sqlite3.connect(path)) as db:  # the other tables' foreign keys point at the new table
        assert {row[2] for table in ("seats", "actions", "outbox", "message_refs")
                for row in db.execute(f"PRAGMA foreign_key_list({table})")} == {"games"}
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []


async def test_sqlite_a_migration_that_leaves_rows_without_their_game_is_rolled_back(tmp_path):
    path = tmp_path / "mentat.db"
    store = await SqliteGameStore.open(path)
    await store.create_game(record(seats={"atreides": ALICE}), [to_channel("created")])
    await store.close()
    orphaning, number = real_migrations_plus(tmp_path, "orphans", "DELETE FROM games;\n")

    with connect(path) as db:
        db.execute("PRAGMA foreign_keys = ON")
        with pytest.raises(RuntimeError, match="leaves rows whose parent is gone"):
            apply_migrations(db, orphaning)
        assert schema_versions(db) == [version for version, _ in migration_files(MIGRATIONS)]
        assert db.execute("SELECT game_id FROM games").fetchall() == [("g1",)]
        assert db.execute("PRAGMA foreign_keys").fetchall() == [(1,)]  # on again


async def test_pending_rows_per_lane_leave_room_for_every_lane_and_keep_the_shards(store):
    """Issue 24 item 4: a drain takes at most `per_lane` rows of each lane (a game's channel, a player's DMs in
    it), so that a channel with many rows waiting does not hide the others; the shards still choose the games."""
    elsewhere = 1 << 22  # a guild of shard 1 of two, GUILD's being 0 (Discord: (guild_id >> 22) % shards)
    await store.create_game(record("g1"), [to_channel(f"table {n}") for n in range(4)]
                            + [to_faction("atreides", "a 0"), to_faction("fremen", "f 0")])
    await store.create_game(record("g2", channel_id=2000), [to_channel("other table 0"), to_faction("atreides", "a 1")])
    await store.create_game(record("g3", channel_id=3000, guild_id=elsewhere), [to_channel("elsewhere")])
    await store.queue("g1", [to_faction("atreides", "a 2"), to_channel("table 4")])
    lanes = [(row.game_id, row.message.text) for row in await store.pending_outbox(per_lane=2)]
    assert lanes == [("g1", "table 0"), ("g1", "table 1"), ("g1", "a 0"), ("g1", "f 0"), ("g2", "other table 0"),
                     ("g2", "a 1"), ("g3", "elsewhere"), ("g1", "a 2")]
    mine = Shards(frozenset({0}), 2)
    assert [text for game, text in lanes if game != "g3"] == [
        row.message.text for row in await store.pending_outbox(shards=mine, per_lane=2)]
    assert len(await store.pending_outbox(limit=3, per_lane=2)) == 3
    assert len(await store.pending_outbox()) == 11  # without per_lane: every pending row
