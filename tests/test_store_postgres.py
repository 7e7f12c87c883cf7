"""What only the PostgreSQL store promises, on the test run's own server: its migrations, atomic commits, and
two bot processes on one database (each a GameService with its own connection pool): raced on one game,
every action is applied once and every outbox row delivered once; sharded, each delivers and times only
the games of its own shards."""

from __future__ import annotations

import asyncio
import shutil
from collections import Counter
from datetime import timedelta

import asyncpg
import pytest

from bot.app.ports import ALL_SHARDS, GameExists, GameRecordRow, GameStatus, OutgoingMessage, Recipient, Shards
from bot.app.service import GameService, NotAllowed
from bot.store.common import migration_files
from bot.store.postgres import MIGRATIONS, PostgresGameStore, apply_migrations
from engine.actions import parse_action
from engine.checks.autoplay import play_prompt
from engine.game import state_hash
from engine.ids import Faction
from engine.model import GameState
from engine.options import GameSetup
from engine.record import replay
from engine.rng import Rng

FACTIONS = [Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN, Faction.EMPEROR, Faction.BENE_TLEILAXU]
USERS = {faction: 100 + number for number, faction in enumerate(FACTIONS)}


def record(game_id: str = "g1", channel_id: int = 1000) -> GameRecordRow:
    return GameRecordRow(game_id=game_id, guild_id=1, channel_id=channel_id, status=GameStatus.RUNNING,
                         setup_json="{}", state_json='{"seq": 0}', seq=0)


async def schema_versions(url: str) -> list[int]:
    db = await asyncpg.connect(url)
    try:
        return [row["version"] for row in await db.fetch("SELECT version FROM schema_version ORDER BY version")]
    finally:
        await db.close()


# --- migrations and atomicity ---


async def test_processes_starting_together_migrate_once(postgres_url):
    stores = await asyncio.gather(*(PostgresGameStore.open(postgres_url) for _ in range(3)))
    for store in stores:
        await store.close()
    assert await schema_versions(postgres_url) == [number for number, _ in migration_files(MIGRATIONS)]
    db = await asyncpg.connect(postgres_url)
    try:
        assert await apply_migrations(db) == []
    finally:
        await db.close()


def real_migrations_plus(tmp_path, name: str, sql: str):
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in MIGRATIONS.glob("*.sql"):
        shutil.copy(path, directory)
    number = max(int(path.stem.partition("_")[0]) for path in MIGRATIONS.glob("*.sql")) + 1
    (directory / f"{number:04d}_{name}.sql").write_text(sql)
    return directory, number


async def test_a_newer_migration_upgrades_keeping_the_data_and_older_code_then_refuses(postgres_url, tmp_path):
    store = await PostgresGameStore.open(postgres_url)
    await store.create_game(record(), [])
    await store.close()
    newer, number = real_migrations_plus(tmp_path, "notes",
                                         "ALTER TABLE games ADD COLUMN notes TEXT NOT NULL DEFAULT '';\n"
                                         "CREATE TABLE audit (id BIGINT PRIMARY KEY);\n")
    upgraded = await PostgresGameStore.open(postgres_url, migrations=newer)
    await upgraded.close()
    assert await schema_versions(postgres_url) == [*(known for known, _ in migration_files(MIGRATIONS)), number]
    db = await asyncpg.connect(postgres_url)
    try:
        assert [tuple(row) for row in await db.fetch("SELECT game_id, notes FROM games")] == [("g1", "")]
    finally:
        await db.close()
    with pytest.raises(RuntimeError, match="newer"):  # older code must not write to a newer schema
        await PostgresGameStore.open(postgres_url)


async def test_a_database_from_before_games_per_channel_keeps_its_games_and_takes_a_new_one(postgres_url, tmp_path):
    before = tmp_path / "before"
    before.mkdir()
    for number, migration in migration_files(MIGRATIONS):
        if number < 6:
            shutil.copy(migration, before)
    await (await PostgresGameStore.open(postgres_url, migrations=before)).close()
    db = await asyncpg.connect(postgres_url)
    try:
        await db.execute("INSERT INTO games (game_id, guild_id, channel_id, status, setup_json, state_json, seq,"
                         " moderator_role_id, created_at) VALUES ('g1', 1, 1000, 'ended', '{}', '{}', 0, NULL, now())")
        await db.execute("INSERT INTO seats (game_id, faction, user_id) VALUES ('g1', 'atreides', 101)")
    finally:
        await db.close()

    store = await PostgresGameStore.open(postgres_url)
    try:
        assert (await store.load_game("g1")).seats == {"atreides": 101}
        await store.create_game(record("g1-2"), [])
        assert [game.game_id for game in await store.games_in_channel(1000)] == ["g1-2", "g1"]
        with pytest.raises(GameExists):
            await store.create_game(record("g1-3"), [])  # g1-2 is running
    finally:
        await store.close()


async def test_a_failing_migration_leaves_the_previous_version(postgres_url, tmp_path):
    await (await PostgresGameStore.open(postgres_url)).close()
    broken, number = real_migrations_plus(tmp_path, "broken",
                                          "CREATE TABLE audit (id BIGINT PRIMARY KEY);\nNOT SQL AT ALL;\n")
    with pytest.raises(asyncpg.PostgresSyntaxError):
        await PostgresGameStore.open(postgres_url, migrations=broken)
    assert await schema_versions(postgres_url) == [known for known, _ in migration_files(MIGRATIONS)]
    db = await asyncpg.connect(postgres_url)
    try:
        assert await db.fetchval("SELECT to_regclass('audit')") is None
    finally:
        await db.close()


async def test_a_commit_failing_midway_leaves_nothing_behind(postgres_url):
    store = await PostgresGameStore.open(postgres_url)
    try:
        await store.create_game(record(), [])
        # PostgreSQL's text refuses a NUL character: the action's INSERT fails after the game's UPDATE ran.
        with pytest.raises(asyncpg.exceptions.CharacterNotInRepertoireError):
            await store.commit_action("g1", 0, 11, '{"a": "\x00"}', '{"seq": 1}',
                                      [OutgoingMessage(recipient=Recipient(channel=True), text="lost")])
        game = await store.load_game("g1")
        assert (game.seq, game.state_json) == (0, '{"seq": 0}')
        assert await store.actions("g1") == [] and await store.pending_outbox() == []
        assert await store.commit_action("g1", 0, 11, '{"a": 1}', '{"seq": 1}', []) == 1
    finally:
        await store.close()


async def test_a_connection_given_back_sends_no_reset_query_and_keeps_no_delivery_lock(postgres_url, monkeypatch):
    """A pooled connection is given back without asyncpg's reset query (a round trip per statement, half a
    submit's), yet no delivery turn's advisory lock outlives the turn, even one left by an error."""
    resets = []
    original = asyncpg.Connection.reset

    async def counted_reset(self, **options):
        resets.append(self)
        await original(self, **options)

    monkeypatch.setattr(asyncpg.Connection, "reset", counted_reset)
    store = await PostgresGameStore.open(postgres_url)
    watcher = await asyncpg.connect(postgres_url)
    advisory = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
    try:
        await store.create_game(record(), [])
        assert await store.commit_action("g1", 0, 11, '{"a": 1}', '{"seq": 1}', []) == 1
        assert (await store.load_game("g1")).seq == 1
        async with store.delivery_turn(ALL_SHARDS) as mine:
            assert mine.ids and await watcher.fetchval(advisory) == len(mine.ids)
        assert await watcher.fetchval(advisory) == 0
        with pytest.raises(RuntimeError):
            async with store.delivery_turn(ALL_SHARDS):
                raise RuntimeError("a delivery failed")
        assert await watcher.fetchval(advisory) == 0
        assert resets == []
    finally:
        await watcher.close()
        await store.close()


# --- two processes on one database ---


class RecordingGateway:
    """Records each delivery's outbox id and game; yields to the event loop mid-delivery, as a real send
    does, so that two drains interleave."""

    def __init__(self) -> None:
        self.delivered: list[int] = []
        self.games: list[str] = []

    async def deliver(self, game, message, then=()):
        await asyncio.sleep(0)
        for part in (message, *then):  # a merged edit: each of its rows
            self.delivered.append(part.outbox_id)
            self.games.append(game.game_id)
        return f"message-{message.outbox_id}"  # where it went: a closed decision's card is edited there

    async def find(self, game, message, since, then=()):
        return None

    async def tell_moderators(self, game, moderator_role, text):
        raise AssertionError(f"no channel refuses the bot here: {text}")

    async def can_dm(self, game, faction):
        return True


@pytest.fixture
async def two_processes(postgres_url):
    """Two GameServices, each with its own store (its own pool of connections), on one database."""
    first, second = PostgresGameStore.open(postgres_url), PostgresGameStore.open(postgres_url)
    stores = await asyncio.gather(first, second)
    try:
        yield stores
    finally:
        for store in stores:
            await store.close()


async def open_game(service: GameService, guild_id: int, channel_id: int, seed: int = 3) -> str:
    row = await service.create_game(guild_id, channel_id, FACTIONS, seed=seed)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    return row.game_id


async def submit_until_taken(service: GameService, game_id: str, action, prompt_id: str) -> str:
    """A player who, told the game moved on, looks again and retries, until the action is taken or its
    decision is closed. Returns what happened."""
    while True:
        try:
            await service.submit(game_id, USERS[action.faction], action, prompt_id=prompt_id)
            return "taken"
        except NotAllowed as refusal:
            if "moved on" in str(refusal):
                continue
            assert "already closed" in str(refusal), refusal
            return "closed"


async def drain_until_empty(services, gateways) -> None:
    """Both processes drain at once, again and again, until nothing is pending."""
    while await services[0].store.pending_outbox(limit=1):
        await asyncio.gather(*(service.deliver(gateway) for service, gateway in zip(services, gateways,
                                                                                    strict=True)))


async def test_two_processes_racing_on_one_game_apply_every_action_once_and_deliver_every_row_once(two_processes,
                                                                                                 postgres_url):
    one, two = GameService(two_processes[0]), GameService(two_processes[1])
    gateways = [RecordingGateway(), RecordingGateway()]
    game_id = await open_game(one, guild_id=1, channel_id=1)
    rng = Rng.from_seed(5)
    submitted: list[str] = []
    outcomes: Counter[str] = Counter()
    for _ in range(6):  # rounds of the decisions open at once
        state = await one.state_of(game_id)
        choices = [(play_prompt(state, prompt, rng)[0], prompt.id) for prompt in state.prompts]
        if not choices:
            break
        # Each distinct action from one process, the first also from the other (a second click elsewhere);
        # both processes drain the outbox meanwhile.
        racers = [submit_until_taken((one, two)[n % 2], game_id, action, prompt_id)
                  for n, (action, prompt_id) in enumerate(choices)]
        racers.append(submit_until_taken(two, game_id, *choices[0]))
        results = await asyncio.gather(*racers, *(service.deliver(gateway) for service, gateway
                                                  in zip((one, two), gateways, strict=True)))
        outcomes.update(results[:len(racers)])
        submitted += [action.model_dump_json() for action, _ in choices]

    stored = await two.store.actions(game_id)
    assert Counter(action.action_json for action in stored) == Counter(submitted)  # each once, none lost
    assert outcomes["closed"] >= 6 and outcomes["taken"] == len(submitted)  # every second click was refused
    game = await one.store.load_game(game_id)
    assert game.seq == len(stored) == len(submitted)
    replayed, _ = replay(GameSetup.model_validate_json(game.setup_json), [parse_action(a.action_json)
                                                                          for a in stored])
    assert state_hash(replayed) == state_hash(GameState.model_validate_json(game.state_json))

    await drain_until_empty((one, two), gateways)
    delivered = gateways[0].delivered + gateways[1].delivered
    assert len(delivered) == len(set(delivered)), "an outbox row was delivered twice"
    db = await asyncpg.connect(postgres_url)
    try:
        rows = {row["id"]: row["status"] for row in await db.fetch("SELECT id, status FROM outbox")}
    finally:
        await db.close()
    assert sorted(delivered) == sorted(rows) and set(rows.values()) == {"sent"}

    # Which process wins each racing turn is timing (the loser skips, never waits): a process may win them all.
    # The turn is not kept, though: the other process, draining alone, takes it and delivers what is new.
    state = await one.state_of(game_id)
    action, prompt_id = play_prompt(state, state.prompts[0], rng)[0], state.prompts[0].id
    await one.submit(game_id, USERS[action.faction], action, prompt_id=prompt_id)
    before = len(gateways[1].delivered)
    await two.deliver(gateways[1])
    assert len(gateways[1].delivered) > before
    assert await one.store.pending_outbox(limit=1) == []


def guild_of_shard(shard: int, number: int = 0) -> int:
    """A Discord guild id whose shard (of any count dividing 4) is `shard`: (id >> 22) % count."""
    return ((shard + 4 * number) << 22) + 12345


async def test_two_processes_each_deliver_and_time_only_their_own_shards_games(two_processes):
    low, high = Shards(frozenset({0, 1}), 4), Shards(frozenset({2, 3}), 4)
    one, two = GameService(two_processes[0], shards=low), GameService(two_processes[1], shards=high)
    games = {shard: await open_game((one, two)[shard // 2], guild_of_shard(shard), channel_id=10 + shard)
             for shard in range(4)}
    gateways = [RecordingGateway(), RecordingGateway()]
    await drain_until_empty((one, two), gateways)
    assert set(gateways[0].games) == {games[0], games[1]} and set(gateways[1].games) == {games[2], games[3]}
    delivered = gateways[0].delivered + gateways[1].delivered
    assert len(delivered) == len(set(delivered))
    assert await one.store.pending_outbox(limit=1000, shards=ALL_SHARDS) == []

    for game_id in games.values():
        await one.set_deadline(game_id, None, 60)
    later = one.clock() + timedelta(hours=2)
    seqs = {shard: (await one.store.load_game(game_id)).seq for shard, game_id in games.items()}
    assert await one.tick(later) > 0
    after_one = {shard: (await one.store.load_game(game_id)).seq for shard, game_id in games.items()}
    assert [after_one[s] > seqs[s] for s in range(4)] == [True, True, False, False]  # the deadlines of its own
    assert await two.tick(later) > 0
    after_two = {shard: (await two.store.load_game(game_id)).seq for shard, game_id in games.items()}
    assert [after_two[s] > seqs[s] for s in range(4)] == [True, True, True, True]
    assert [after_two[s] == after_one[s] for s in range(4)] == [True, True, False, False]


def test_shards_follow_discords_formula():
    assert Shards(frozenset({1}), 4).owns(guild_of_shard(1, number=3))
    assert not Shards(frozenset({1}), 4).owns(guild_of_shard(2))
    assert ALL_SHARDS.owns(guild_of_shard(3)) and ALL_SHARDS.everything
    with pytest.raises(ValueError):
        Shards(frozenset({4}), 4)
