"""Issue 23: running games survive upgrades and rules changes. What each version of a game showed is kept as it
was shown (its events, with the version of Mentat that applied it, and the snapshot it applied to), so /game log,
the readers' exports and /admin undo give what the table saw even after a rules fix makes a replay of the same
actions differ. Actions stored before that (Mentat 0.1.0, no events or snapshot kept) are rebuilt by a replay,
checked against the next stored snapshot: when the rules changed, the log says those versions cannot be shown and
undo refuses past them plainly."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta

import pytest

import engine
from bot.app.ports import GameRecordRow, GameStatus
from bot.app.service import GameService, NotAllowed
from bot.store.memory import MemoryGameStore
from bot.store.postgres import MIGRATIONS as POSTGRES_MIGRATIONS
from bot.store.postgres import PostgresGameStore
from bot.store.sqlite import MIGRATIONS, SqliteGameStore, apply_migrations
from engine import flow
from engine.actions import SetStorm
from engine.checks.autoplay import play_prompt
from engine.errors import ReplayMismatch
from engine.events import EventType
from engine.game import new_game, state_hash
from engine.ids import Faction
from engine.model import GameState, Phase
from engine.options import GameOptions, GameSetup
from engine.phases import setup as engine_setup
from engine.record import GameRecord, verify
from engine.rng import Rng
from tests.conftest import store_running_game

A, H, BG, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_GESSERIT, Faction.BENE_TLEILAXU
SEATS = {A: 1, H: 2, BG: 3, BT: 4}
SETUP = GameSetup(factions=tuple(SEATS), options=GameOptions(turns=2), seed=1)
READERS = [None, *SEATS]
FIXED = "Under the fixed rule, this is told too."


@pytest.fixture
def change_the_rules(monkeypatch):
    """A rules fix, as a later Mentat ships one: the opening and every action tell one more thing, and every action
    moves one more spice from the bank to the first faction. Call it to install the fix: replaying a game's
    actions then gives other events and another state."""

    def change() -> None:
        create_state = engine_setup.create_state

        def fixed_opening(setup, log):
            state = create_state(setup, log)
            log.public(EventType.DECISION_MADE, FIXED)  # a type the enum lists, with new words
            return state

        monkeypatch.setattr(engine_setup, "create_state", fixed_opening)
        for name, handler in list(flow.HANDLERS.items()):
            def fixed(state, action, log, handler=handler):
                handler(state, action, log)
                state.factions[state.setup.factions[0]].spice += 1
                state.spice_outside_bank += 1
                log.public(EventType.DECISION_MADE, FIXED)  # a type the enum lists, with new words

            monkeypatch.setitem(flow.HANDLERS, name, fixed)

    return change


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def service(request, tmp_path):
    if request.param == "memory":
        store = MemoryGameStore()
    elif request.param == "sqlite":
        store = await SqliteGameStore.open(tmp_path / "mentat.db")
    else:
        store = await PostgresGameStore.open(request.getfixturevalue("postgres_url"))
    yield GameService(store)
    await store.close()


async def open_game(service: GameService, channel_id: int = 1) -> str:
    row = await service.create_game(1, channel_id, list(SEATS), SETUP.options, SETUP.seed)
    for faction, user in SEATS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    return row.game_id


async def play(service: GameService, game_id: str, rng: Rng, actions: int | None = None) -> list[GameState]:
    """Automatic players' answers through the service, until the game ends (or `actions` were taken): the state
    before each."""
    before = []
    while actions is None or len(before) < actions:
        state = await service.state_of(game_id)
        if state.phase == Phase.ENDED:
            break
        prompt = rng.choice(state.prompts)
        action, _ = play_prompt(state, prompt, rng)
        await service.submit(game_id, SEATS[action.faction], action, prompt_id=prompt.id)
        before.append(state)
    return before


async def what_readers_get(service: GameService, game_id: str) -> tuple[list[str], dict]:
    return (await service.public_log(game_id, 500),
            {reader: json.loads(await service.export_for(game_id, reader)) for reader in READERS})


async def test_after_a_rules_change_the_log_exports_and_undo_are_what_the_table_saw(service, change_the_rules):
    game = await open_game(service)
    before = await play(service, game, Rng.from_seed(1))
    assert (await service.store.load_game(game)).status == GameStatus.ENDED and len(before) > 30
    log, exports = await what_readers_get(service, game)
    ending = json.loads(await service.export(game))
    last_action = (await service.store.actions(game))[-1]

    change_the_rules()
    with pytest.raises(ReplayMismatch):  # the fix is real: the same actions now make another game
        verify(GameRecord.model_validate(ending))

    assert await what_readers_get(service, game) == (log, exports)
    assert json.loads(await service.export(game)) == ending and ending["engine_version"] == engine.__version__

    assert await service.undo(game, 1, force=True) == len(before) - 1
    row = await service.store.load_game(game)
    assert row.status == GameStatus.RUNNING  # the action that ended it is taken back: it runs again
    assert state_hash(GameState.model_validate_json(row.state_json)) == state_hash(before[-1])
    assert (await service.public_log(game, 500))[:-1] == [entry for entry in log if not entry.startswith(
        f"v{len(before)} ")]  # the undone version's entry went, and the undo's notice came
    again = await service.submit(game, last_action.actor, engine.parse_action(last_action.action_json))
    assert FIXED in [event.message for event in again.events]  # it plays on, under the rules installed now
    assert (await service.store.load_game(game)).status == GameStatus.ENDED


async def test_undoing_the_action_that_ended_a_game_runs_it_again_and_it_plays_on():
    """A game put one action from its end (a position no replay of its setup reaches): the ending action undone,
    the game is running again at that very position, and the same action ends it again."""
    states, actions = [], []
    state, _ = new_game(SETUP)
    rng = Rng.from_seed(1)
    while state.phase != Phase.ENDED:
        states.append(state)
        action, (state, _) = play_prompt(state, rng.choice(state.prompts), rng)
        actions.append(action)
    service = GameService(MemoryGameStore())
    game = await store_running_game(service.store, states[-1], SEATS, channel_id=60)
    await service.submit(game, SEATS[actions[-1].faction], actions[-1])
    assert (await service.store.load_game(game)).status == GameStatus.ENDED
    with pytest.raises(NotAllowed, match="already seen"):  # the end revealed every secret
        await service.undo(game, 1)

    assert await service.undo(game, 1, force=True, by="mod", reason="misclick") == 0
    row = await service.store.load_game(game)
    assert row.status == GameStatus.RUNNING and state_hash(await service.state_of(game)) == state_hash(states[-1])
    assert (await service.public_log(game))[-1] == (
        "v0 Admin mod undid the last 1 action(s) (misclick); the game is back at version 0 and running again.")
    assert (await service.submit(game, SEATS[actions[-1].faction], actions[-1])).seq == 1
    assert (await service.store.load_game(game)).status == GameStatus.ENDED


async def store_as_mentat_0_1_0(service: GameService, channel_id: int, rng: Rng, actions: int) -> tuple[str, list]:
    """A running game as Mentat 0.1.0 stored it: its opening's events, and each action's events and the snapshot it
    applied to, not kept. Returns its id and the state before each action."""
    state, _ = new_game(SETUP)
    row = GameRecordRow(game_id=f"g{channel_id}", guild_id=1, channel_id=channel_id, status=GameStatus.RUNNING,
                        setup_json=SETUP.model_dump_json(), state_json=state.model_dump_json(), seq=0,
                        seats={faction.value: user for faction, user in SEATS.items()}, engine_version="0.1.0")
    await service.store.create_game(row, [])
    await service.store.set_status(row.game_id, GameStatus.RUNNING)  # its start: when its opening was told
    before = []
    for seq in range(actions):
        before.append(state)
        action, (state, _) = play_prompt(state, rng.choice(state.prompts), rng)
        await service.store.commit_action(row.game_id, seq, SEATS[action.faction], action.model_dump_json(),
                                          state.model_dump_json(), [], engine_version="0.1.0")
    return row.game_id, before


async def test_a_game_stored_before_history_was_kept_is_replayed_while_the_rules_hold(service):
    """Its log and exports, rebuilt by replay, read as those of the same game played now; undo replays too."""
    old, before = await store_as_mentat_0_1_0(service, 2, Rng.from_seed(4), 30)
    now = await open_game(service, channel_id=3)
    await play(service, now, Rng.from_seed(4), 30)
    old_log, old_exports = await what_readers_get(service, old)
    new_log, new_exports = await what_readers_get(service, now)
    assert [entry for entry in old_log if "Admin" not in entry] == [entry for entry in new_log if "Admin" not in entry]
    assert {reader: export["log"] for reader, export in old_exports.items()} == {
        reader: export["log"] for reader, export in new_exports.items()}
    assert await service.undo(old, 3, force=True) == 27
    assert state_hash(await service.state_of(old)) == state_hash(before[27])


async def test_a_game_stored_before_history_was_kept_refuses_an_undo_past_it_once_the_rules_changed(
        service, change_the_rules):
    """Mentat 0.1.0 played versions 1 to 20; this Mentat 10 more, keeping what they showed. After a rules fix the
    kept versions are told and undone as they were, and the old ones plainly cannot be."""
    game, _ = await store_as_mentat_0_1_0(service, 2, Rng.from_seed(5), 20)
    kept = await play(service, game, Rng.from_seed(6), 10)
    log = await service.public_log(game, 500)
    change_the_rules()

    changed = await service.public_log(game, 500)
    assert changed[0] == (
        "v0-v20 Versions 0 to 20 of this game cannot be shown: Mentat 0.1.0 played them without keeping what it "
        f"showed, and this Mentat ({engine.__version__}) plays some rules differently, so a replay would not tell "
        "them as they happened.")
    assert changed[1:] == [entry for entry in log if int(entry[1:].split(" ")[0]) > 20]  # as the table saw them
    export = json.loads(await service.export_for(game, A))
    assert export["log"][0] == {"versions": [0, 20], "not_shown": changed[0].removeprefix("v0-v20 ")}
    assert [entry["version"] for entry in export["log"][1:]] == [*range(21, 31)][:len(export["log"]) - 1]

    assert await service.undo(game, 10, force=True) == 20  # back to the first kept snapshot: as stored
    assert state_hash(await service.state_of(game)) == state_hash(kept[0])
    refusal = (f"This game's history up to version 20 was recorded by Mentat 0.1.0, and this Mentat "
               f"({engine.__version__}) plays some rules differently: replayed, it no longer gives the game as it "
               "was, so the game cannot be undone past version 20.")
    with pytest.raises(NotAllowed) as refused:
        await service.undo(game, 1, force=True)
    assert str(refused.value) == refusal
    assert (await service.store.load_game(game)).seq == 20 and len(await service.store.actions(game)) == 20


async def test_a_rules_change_that_refuses_an_old_action_refuses_the_undo_plainly(service, monkeypatch):
    game, _ = await store_as_mentat_0_1_0(service, 2, Rng.from_seed(5), 5)
    first = engine.parse_action((await service.store.actions(game))[0].action_json)

    def refuse(state, action, log):
        raise engine.RuleViolation("not_allowed", "Fixed", "This is no longer allowed.")

    monkeypatch.setitem(flow.HANDLERS, first.type, refuse)
    with pytest.raises(NotAllowed, match="cannot be undone past version 5"):
        await service.undo(game, 1, force=True)
    assert (await service.public_log(game, 500))[0].startswith("v0-v5 Versions 0 to 5 of this game cannot be shown")


async def test_an_imported_game_keeps_what_its_replay_showed(change_the_rules):
    """An import is verified by a replay under the rules installed then: what that replay showed is kept, so a
    later rules fix changes neither its log nor its undo within what was kept."""
    service = GameService(MemoryGameStore())
    game = await open_game(service)
    await play(service, game, Rng.from_seed(2), 40)
    imported = await service.import_game(1, 77, await service.record(game))
    log = await service.public_log(imported.game_id, 500)
    assert (await service.store.load_game(imported.game_id)).engine_version == engine.__version__
    assert all(a.events_json is not None and a.engine_version == engine.__version__
               for a in await service.store.actions(imported.game_id))
    change_the_rules()
    assert await service.public_log(imported.game_id, 500) == log
    with pytest.raises(NotAllowed, match="cannot be undone past version 40"):  # no snapshot kept in a file
        await service.undo(imported.game_id, 1, force=True)


def as_kept(events) -> list[dict]:
    return [{"type": e.type, "message": e.message, "audience": None if e.public else [f.value for f in e.audience]}
            for e in events]


async def test_each_submit_keeps_its_version_its_events_and_the_snapshot_it_applied_to(service):
    game = await open_game(service)
    row = await service.store.load_game(game)
    assert row.engine_version == engine.__version__
    assert json.loads(await service.store.opening_events(game)) == as_kept(new_game(SETUP).events)
    accepted = await service.submit(game, 0, SetStorm(admin="mod", reason="table error", sector=9), admin=True)
    [stored] = await service.store.actions(game)
    assert stored.engine_version == engine.__version__
    assert json.loads(stored.events_json) == as_kept(accepted.events) and accepted.events
    assert await service.store.snapshot_from(game, 0) == (0, row.state_json)


# --- a database made by the first schema --------------------------------------------------------------------------

PLAYED = 12  # the actions of the running game written with the first schema's columns
LONG_AGO = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)


def first_schema_game() -> tuple[GameState, list[tuple[int, str, str]], list[GameState]]:
    """A game created and played a few actions by the engine: its state now, its actions (actor, action JSON,
    created_at) and the state before each."""
    state, _ = new_game(SETUP)
    rng = Rng.from_seed(7)
    actions, before = [], []
    for seq in range(1, PLAYED + 1):
        before.append(state)
        action, (state, _) = play_prompt(state, rng.choice(state.prompts), rng)
        actions.append((SEATS[action.faction], action.model_dump_json(),
                        LONG_AGO.replace(minute=seq).isoformat(timespec="microseconds")))
    return state, actions, before


def only_first_migration(tmp_path, migrations) -> object:
    directory = tmp_path / "first-schema"
    directory.mkdir()
    shutil.copy(migrations / "0001_init.sql", directory)
    return directory


async def write_sqlite_first_schema(tmp_path) -> str:
    path = tmp_path / "mentat.db"
    state, actions, _ = first_schema_game()
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        assert apply_migrations(db, only_first_migration(tmp_path, MIGRATIONS)) == [1]
        db.execute("INSERT INTO games (game_id, guild_id, channel_id, status, setup_json, state_json, seq, created_at)"
                   " VALUES ('g1', 1, 1, 'running', ?, ?, ?, ?)", (SETUP.model_dump_json(), state.model_dump_json(),
                                                                   PLAYED, LONG_AGO.isoformat(timespec="microseconds")))
        db.executemany("INSERT INTO seats (game_id, faction, user_id) VALUES ('g1', ?, ?)",
                       [(faction.value, user) for faction, user in SEATS.items()])
        db.executemany("INSERT INTO actions (game_id, seq, actor, action_json, created_at) VALUES ('g1', ?, ?, ?, ?)",
                       [(seq, *action) for seq, action in enumerate(actions, start=1)])
    return str(path)


async def write_postgres_first_schema(tmp_path, url: str) -> str:
    import asyncpg

    state, actions, _ = first_schema_game()
    await (await PostgresGameStore.open(url, migrations=only_first_migration(tmp_path, POSTGRES_MIGRATIONS))).close()
    db = await asyncpg.connect(url)
    try:
        await db.execute("INSERT INTO games (game_id, guild_id, channel_id, status, setup_json, state_json, seq,"
                         " created_at) VALUES ('g1', 1, 1, 'running', $1, $2, $3, $4)",
                         SETUP.model_dump_json(), state.model_dump_json(), PLAYED, LONG_AGO)
        await db.executemany("INSERT INTO seats (game_id, faction, user_id) VALUES ('g1', $1, $2)",
                             [(faction.value, user) for faction, user in SEATS.items()])
        await db.executemany("INSERT INTO actions (game_id, seq, actor, action_json, created_at)"
                             " VALUES ('g1', $1, $2, $3, $4)",
                             [(seq, actor, action_json, datetime.fromisoformat(created_at))
                              for seq, (actor, action_json, created_at) in enumerate(actions, start=1)])
    finally:
        await db.close()
    return url


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_a_database_of_the_first_schema_upgrades_at_open_and_its_running_game_plays_on(request, tmp_path, kind):
    """A database made by migration 0001 alone, holding a running game whose rows have that schema's columns only,
    is brought up to date when the store opens it; its game then reads, plays and undoes through the service as if
    it had been played now."""
    if kind == "sqlite":
        store = await SqliteGameStore.open(await write_sqlite_first_schema(tmp_path))
    else:
        url = await write_postgres_first_schema(tmp_path, request.getfixturevalue("postgres_url"))
        store = await PostgresGameStore.open(url)
    _, _, before = first_schema_game()
    played_now = GameService(MemoryGameStore())
    same = await open_game(played_now)
    await play(played_now, same, Rng.from_seed(7), PLAYED)
    try:
        service = GameService(store)
        row = await store.load_game("g1")
        assert (row.seq, row.status, row.engine_version, row.settings) == (PLAYED, GameStatus.RUNNING, "0.1.0", {})
        assert await store.games_due(datetime.now(UTC)) == ["g1"]  # running when due times came in: looked at once
        await service.tick()
        assert await store.games_due(datetime.now(UTC) + timedelta(days=365)) == []  # it has no deadline
        assert {a.engine_version for a in await store.actions("g1")} == {"0.1.0"}
        assert await service.public_log("g1", 500) == [entry for entry in await played_now.public_log(same, 500)
                                                       if "Admin" not in entry]
        assert json.loads(await service.export_for("g1", A))["log"] == json.loads(
            await played_now.export_for(same, A))["log"]

        [next_state] = await play(service, "g1", Rng.from_seed(8), 1)  # plays on, keeping what it showed
        newest = (await store.actions("g1"))[-1]
        assert (newest.seq, newest.engine_version) == (PLAYED + 1, engine.__version__) and newest.events_json
        assert await service.undo("g1", 1, force=True) == PLAYED  # from the kept snapshot
        assert state_hash(await service.state_of("g1")) == state_hash(next_state)
        assert await service.undo("g1", 2, force=True) == PLAYED - 2  # replayed: the rules have not changed
        assert state_hash(await service.state_of("g1")) == state_hash(before[PLAYED - 2])
        await play(service, "g1", Rng.from_seed(9), 3)
        assert (await store.load_game("g1")).seq == PLAYED + 1
    finally:
        await store.close()
