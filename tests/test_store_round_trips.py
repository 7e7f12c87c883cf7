"""What makes a submit cheap on SQLite, and what must not change because of it: the store runs each operation
as one call on its connection's thread and keeps the rows it last loaded or committed; the service keeps the
snapshot it last parsed or made. Each test would fail if a cache served a row or state the database no longer
holds."""

from __future__ import annotations

import asyncio

import pytest

from bot.app import service as service_module
from bot.app.ports import GameRecordRow, GameStatus, OutgoingMessage, Recipient, VersionConflict
from bot.app.service import GameService, NotAllowed
from bot.store.sqlite import SqliteGameStore
from engine.checks.autoplay import play_prompt
from engine.ids import Faction
from engine.rng import Rng

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
USERS = {A: 101, H: 102, F: 103}


def _to_channel(text: str) -> OutgoingMessage:
    return OutgoingMessage(recipient=Recipient(channel=True), text=text)


async def _from_disk(path) -> GameRecordRow:
    """The game as a fresh store reads it from the file (its cache is empty)."""
    fresh = await SqliteGameStore.open(path)
    try:
        return await fresh.load_game("g1")
    finally:
        await fresh.close()


def _count_trips(store: SqliteGameStore, monkeypatch) -> list[object]:
    """Every call handed to the connection's thread, from now on."""
    trips: list[object] = []
    handover = store._on_thread

    async def counted(call, *args):
        trips.append(call)
        return await handover(call, *args)

    monkeypatch.setattr(store, "_on_thread", counted)
    return trips


@pytest.fixture
async def running(tmp_path):
    store = await SqliteGameStore.open(tmp_path / "mentat.db")
    try:  # closed whatever happens: an open connection's thread would keep pytest from exiting
        service = GameService(store)
        row = await service.create_game(guild_id=1, channel_id=1, factions=list(USERS), seed=7)
        for faction, user in USERS.items():
            await service.seat(row.game_id, faction, user)
        await service.start(row.game_id)
        yield service, row.game_id
    finally:
        await store.close()


async def _play_one(service: GameService, game_id: str, rng: Rng):
    state = await service.state_of(game_id)
    prompt = state.prompts[0]
    action, _ = play_prompt(state, prompt, rng)
    return action, prompt.id, await service.submit(game_id, USERS[action.faction], action, prompt_id=prompt.id)


async def test_a_submit_is_one_trip_to_the_database_thread_once_its_game_was_read(running, monkeypatch):
    service, game_id = running
    rng = Rng.from_seed(3)
    await _play_one(service, game_id, rng)  # the first submit reads the game; later ones find it kept
    state = await service.state_of(game_id)
    prompt = state.prompts[0]
    action, _ = play_prompt(state, prompt, rng)
    trips = _count_trips(service.store, monkeypatch)
    accepted = await service.submit(game_id, USERS[action.faction], action, prompt_id=prompt.id)
    assert len(trips) == 1  # the commit: action, snapshot and messages in one transaction
    assert (await service.store.load_game(game_id)).seq == accepted.seq == state.seq + 1
    assert [stored.seq for stored in await service.store.actions(game_id)] == list(range(1, accepted.seq + 1))


async def test_the_kept_row_is_the_stored_one_after_every_kind_of_write(tmp_path):
    path = tmp_path / "mentat.db"
    store = await SqliteGameStore.open(path)
    try:
        await store.create_game(GameRecordRow(game_id="g1", guild_id=1, channel_id=1, status=GameStatus.OPEN,
                                              setup_json="{}", state_json='{"seq": 0}', seq=0), [])
        steps = [
            lambda: store.set_seat("g1", "atreides", 11, was=None),
            lambda: store.set_status("g1", GameStatus.RUNNING),
            lambda: store.set_settings("g1", {"deadlines": {"*": 60}}),
            lambda: store.commit_action("g1", 0, 11, '{"a": 1}', '{"seq": 1}', [_to_channel("one")]),
            lambda: store.commit_action("g1", 1, 11, '{"a": 2}', '{"seq": 2}', [], status=GameStatus.ENDED),
            lambda: store.replace_history("g1", 1, '{"seq": 1}', [_to_channel("undone")]),
            lambda: store.commit_action("g1", 1, 11, '{"a": 2}', '{"seq": 2}', [], status=GameStatus.ENDED),
            lambda: store.replace_history("g1", 1, '{"seq": 1}', [], status=GameStatus.RUNNING),
            lambda: store.set_seat("g1", "atreides", None, was=11),
        ]
        for step in steps:
            await store.load_game("g1")  # kept before the write
            await step()
            assert await store.load_game("g1") == await _from_disk(path)
        loaded = await store.load_game("g1")
        assert (loaded.seq, loaded.state_json, loaded.status, loaded.seats) == (1, '{"seq": 1}', "running", {})
    finally:
        await store.close()


async def test_a_refused_or_failed_commit_leaves_the_kept_row_as_stored(tmp_path, monkeypatch):
    path = tmp_path / "mentat.db"
    store = await SqliteGameStore.open(path)
    try:
        await store.create_game(GameRecordRow(game_id="g1", guild_id=1, channel_id=1, status=GameStatus.RUNNING,
                                              setup_json="{}", state_json='{"seq": 0}', seq=0), [])
        await store.load_game("g1")
        with pytest.raises(VersionConflict):
            await store.commit_action("g1", 5, 11, '{"a": 1}', '{"seq": 6}', [])

        def disk_full(*args):
            raise OSError("disk full")

        monkeypatch.setattr(store, "_queue", disk_full)  # after the action and the snapshot were written
        with pytest.raises(OSError, match="disk full"):
            await store.commit_action("g1", 0, 11, '{"a": 1}', '{"seq": 1}', [_to_channel("lost")])
        monkeypatch.undo()
        assert (await store.load_game("g1")).seq == (await _from_disk(path)).seq == 0
        assert await store.commit_action("g1", 0, 11, '{"a": 1}', '{"seq": 1}', []) == 1
        assert (await store.load_game("g1")).state_json == (await _from_disk(path)).state_json == '{"seq": 1}'
    finally:
        await store.close()


async def test_reads_racing_writes_never_keep_an_old_row(tmp_path):
    """Loads and commits of several games at once (no service lock in the way): every load returns a version
    at least as new as the last commit that had returned when it was called, and what is kept at the end is
    what is stored."""
    path = tmp_path / "mentat.db"
    store = await SqliteGameStore.open(path)
    games = [f"g{n}" for n in range(1, 5)]
    committed = dict.fromkeys(games, 0)
    try:
        for number, game_id in enumerate(games, start=1):
            await store.create_game(GameRecordRow(game_id=game_id, guild_id=1, channel_id=number,
                                                  status=GameStatus.RUNNING, setup_json="{}",
                                                  state_json='{"seq": 0}', seq=0), [])

        async def play(game_id: str) -> None:
            for seq in range(20):
                assert await store.commit_action(game_id, seq, 1, "{}", f'{{"seq": {seq + 1}}}', []) == seq + 1
                committed[game_id] = seq + 1

        async def read(game_id: str) -> None:
            for _ in range(40):
                known = committed[game_id]
                row = await store.load_game(game_id)
                assert row.seq >= known and row.state_json == f'{{"seq": {row.seq}}}'
                await asyncio.sleep(0)

        await asyncio.gather(*(play(g) for g in games), *(read(g) for g in games for _ in range(2)))
        for game_id in games:
            fresh = await SqliteGameStore.open(path)
            try:
                assert await store.load_game(game_id) == await fresh.load_game(game_id)
            finally:
                await fresh.close()
    finally:
        await store.close()


async def test_submit_parses_a_snapshot_only_when_it_did_not_make_it(running, monkeypatch):
    service, game_id = running
    rng = Rng.from_seed(3)
    parsed: list[str] = []
    parse = service_module._state
    monkeypatch.setattr(service_module, "_state", lambda row: parsed.append(row.state_json) or parse(row))
    await _play_one(service, game_id, rng)
    assert len(parsed) == 2  # state_of, and the first submit: the stored snapshot was not made by this service
    state = await service.state_of(game_id)
    action, _ = play_prompt(state, state.prompts[0], rng)
    parsed.clear()
    accepted = await service.submit(game_id, USERS[action.faction], action, prompt_id=state.prompts[0].id)
    assert parsed == []  # it used the snapshot the first submit made
    assert accepted.seq == state.seq + 1


async def test_after_an_undo_submit_acts_on_the_restored_snapshot(running):
    service, game_id = running
    rng = Rng.from_seed(3)
    action, prompt_id, accepted = await _play_one(service, game_id, rng)
    with pytest.raises(NotAllowed, match="already closed"):
        await service.submit(game_id, USERS[action.faction], action, prompt_id=prompt_id)
    assert await service.undo(game_id, 1, force=True) == accepted.seq - 1
    again = await service.submit(game_id, USERS[action.faction], action, prompt_id=prompt_id)  # open again
    assert again.seq == accepted.seq
    assert [e.message for e in again.events] == [e.message for e in accepted.events]
