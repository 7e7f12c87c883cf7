"""The PostgreSQL GameStore: one database shared by several bot processes, through a pool of asyncpg
connections per process; numbered migrations (postgres_migrations/); one transaction per operation.

Several writers: each process runs some Discord shards and so, normally, alone acts on the games of their
guilds; but nothing here relies on that. Every write that depends on a game's version locks the game's row
first (an UPDATE ... WHERE seq = expected, or SELECT ... FOR UPDATE), so two processes acting on one game
are serialised by PostgreSQL and the second finds the version moved on (VersionConflict). An action's commit
is a single statement (its UPDATE, the action's INSERT and the outbox's, as data-modifying CTEs): atomic,
and one round trip. Delivery takes a per-shard advisory lock (`delivery_turn`), so two processes never
deliver the same outbox row at once. Nothing is cached between operations: another process may have
written since.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg

from bot.app.ports import (
    ALL_SHARDS,
    RECHECK,
    DueAt,
    GameExists,
    GameRecordRow,
    GameStatus,
    LogNote,
    OutboxRow,
    OutgoingMessage,
    SeatChanged,
    Shards,
    StoredAction,
    UnknownGame,
    VersionConflict,
)
from bot.store.common import (
    Clock,
    as_utc,
    check_imported_actions,
    check_keep,
    check_outbox_status,
    migration_files,
    pack_snapshot,
    stored_due,
    unpack_snapshots,
    utc_now,
)

MIGRATIONS = Path(__file__).parent / "postgres_migrations"
# Advisory lock keys, in the database's one space of them: the migrations' (one 64-bit key), and each shard's
# delivery turn (a pair of 32-bit keys: this class, the shard). Every process must use the same shard count.
MIGRATION_LOCK = zlib.crc32(b"mentat migrations")
DELIVERY_LOCK_CLASS = zlib.crc32(b"mentat delivery") & 0x7FFFFFFF
POOL_SIZE = 10  # connections per process: a submit holds one for a single round trip
CONNECT_TIMEOUT = 10.0  # seconds to reach the server before giving up (asyncpg's default is a minute)

_GAME_COLUMNS = ("game_id, guild_id, channel_id, status, setup_json, state_json, seq, created_at, settings_json,"
                 " started_at, engine_version, due_at")
_ACTION_COLUMNS = "seq, actor, action_json, created_at, idempotency_key, engine_version, events_json"
# The game's seats as one JSON object, read in the same statement (one snapshot) as the game.
_SEATS = ("coalesce((SELECT json_object_agg(faction, user_id ORDER BY faction) FROM seats"
          " WHERE seats.game_id = games.game_id), '{}') AS seats")

# The action (with its version, its events and the snapshot it applied to), the new snapshot, the status and the
# messages in one statement. The UPDATE takes the game's row
# lock and refuses unless the stored seq is still $2: a second writer waits for the first to commit, then
# finds the row changed and updates nothing (PostgreSQL re-checks the WHERE on the new row version), so the
# INSERTs, which read from its RETURNING, insert nothing either. The last SELECT reads the snapshot the
# statement started from: NULL when there is no such game.
_COMMIT_ACTION = """
WITH game AS (
    UPDATE games SET state_json = $4, seq = $2 + 1, status = coalesce($6, status), due_at = $14
    WHERE game_id = $1 AND seq = $2
    RETURNING game_id
), action AS (
    INSERT INTO actions (game_id, seq, actor, action_json, created_at, idempotency_key, engine_version, events_json,
                         state_before)
    SELECT game_id, $2 + 1, $3, $5, $7, $10, $11, $12, $13 FROM game
), messages AS (
    INSERT INTO outbox (game_id, seq, message_json, logged, created_at)
    SELECT game.game_id, $2 + 1, message.json, message.logged, $7
    FROM game, unnest($8::text[], $9::boolean[]) WITH ORDINALITY AS message (json, logged, position)
    ORDER BY message.position
)
SELECT (SELECT count(*) FROM game) AS committed, (SELECT seq FROM games WHERE game_id = $1) AS seq_before
"""

_QUEUE = """
INSERT INTO outbox (game_id, seq, message_json, logged, created_at)
SELECT $1, $2, message.json, message.logged, $3
FROM unnest($4::text[], $5::boolean[]) WITH ORDINALITY AS message (json, logged, position)
ORDER BY message.position
"""

_OUTBOX_COLUMNS = ("outbox.id, outbox.game_id, outbox.seq, message_json, attempts, outbox.status, outbox.created_at,"
                   " sending_since")


async def apply_migrations(db: asyncpg.Connection, directory: Path = MIGRATIONS) -> list[int]:
    """Bring the schema up to date and return the versions applied (none when it already was).

    Each numbered file newer than the recorded version runs in its own transaction together with its
    schema_version row (PostgreSQL's DDL is transactional), so a failing migration leaves the database at the
    previous version. An advisory lock held by each transaction makes processes starting together apply each
    migration once: the second waits, then finds it applied."""
    migrations = migration_files(directory)
    known = migrations[-1][0] if migrations else 0
    applied: list[int] = []
    while True:
        async with db.transaction():
            await db.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await db.execute("CREATE TABLE IF NOT EXISTS schema_version"
                             " (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)")
            current = await db.fetchval("SELECT coalesce(max(version), 0) FROM schema_version")
            if current > known:
                raise RuntimeError(f"the database is at schema version {current}, newer than this code knows"
                                   f" ({known})")
            later = [(version, path) for version, path in migrations if version > current]
            if not later:
                return applied
            version, path = later[0]
            await db.execute(path.read_text())  # several statements: the simple protocol runs them all
            await db.execute("INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)", version, utc_now())
        applied.append(version)


class PostgresGameStore:
    """Create with `await PostgresGameStore.open(url)`; close with `await store.close()`."""

    def __init__(self, pool: asyncpg.Pool, clock: Clock) -> None:
        self._pool = pool
        self._clock = clock

    @classmethod
    async def open(cls, url: str, clock: Clock = utc_now, *, pool_size: int = POOL_SIZE,
                   migrations: Path = MIGRATIONS) -> PostgresGameStore:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size, timeout=CONNECT_TIMEOUT,
                                         reset=_keep_session)
        try:
            async with pool.acquire() as db:
                await apply_migrations(db, migrations)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, clock)

    async def close(self) -> None:
        await self._pool.close()  # waits for the connections in use to be released

    async def create_game(self, game: GameRecordRow, outbox: list[OutgoingMessage],
                          actions: Sequence[StoredAction] = (), opening_events_json: str | None = None) -> None:
        check_imported_actions(game.game_id, game.seq, list(actions))
        created_at = as_utc(game.created_at or self._clock())
        messages, logged = _outbox_columns(outbox)
        async with self._pool.acquire() as db, db.transaction():
            try:
                await db.execute(
                    f"INSERT INTO games ({_GAME_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                    game.game_id, game.guild_id, game.channel_id, GameStatus(game.status).value, game.setup_json,
                    game.state_json, game.seq, created_at, json.dumps(game.settings),
                    as_utc(game.started_at) if game.started_at else None, game.engine_version,
                    stored_due(game.due_at))
            except asyncpg.UniqueViolationError as clash:
                what = (f"channel {game.channel_id} has a game that has not ended"
                        if clash.constraint_name == "games_live_in_channel"
                        else f"game {game.game_id} is already stored")
                raise GameExists(what) from None
            if opening_events_json is not None:
                await db.execute("INSERT INTO game_openings (game_id, events_json) VALUES ($1, $2)", game.game_id,
                                 opening_events_json)
            await db.executemany("INSERT INTO seats (game_id, faction, user_id) VALUES ($1, $2, $3)",
                                 [(game.game_id, faction, user_id) for faction, user_id in game.seats.items()])
            await db.executemany(
                "INSERT INTO actions (game_id, seq, actor, action_json, created_at, engine_version, events_json)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [(game.game_id, action.seq, action.actor, action.action_json,
                  as_utc(action.created_at) if action.created_at else created_at, action.engine_version,
                  action.events_json) for action in actions])
            await db.execute(_QUEUE, game.game_id, game.seq, created_at, messages, logged)

    async def load_game(self, game_id: str) -> GameRecordRow | None:
        games = await self._select_games("game_id = $1", game_id)
        return games[0] if games else None

    async def game_in_channel(self, channel_id: int) -> GameRecordRow | None:
        games = await self._select_games(
            "game_id = (SELECT game_id FROM games WHERE channel_id = $1"
            " ORDER BY status = 'ended', created_at DESC, number DESC LIMIT 1)", channel_id)
        return games[0] if games else None

    async def games_in_channel(self, channel_id: int) -> list[GameRecordRow]:
        return (await self._select_games("channel_id = $1", channel_id))[::-1]

    async def list_games(self, guild_id: int | None = None) -> list[GameRecordRow]:
        return await self._select_games("$1::bigint IS NULL OR guild_id = $1", guild_id)

    async def games_due(self, now: datetime, shards: Shards = ALL_SHARDS) -> list[str]:
        # The partial index games_due_at answers `due_at <= $1` (a comparison implies NOT NULL).
        if shards.everything:
            rows = await self._pool.fetch("SELECT game_id FROM games WHERE due_at <= $1 ORDER BY due_at, number",
                                          as_utc(now))
        else:
            rows = await self._pool.fetch("SELECT game_id FROM games WHERE due_at <= $1 AND (guild_id >> 22) % $2"
                                          " = ANY($3::integer[]) ORDER BY due_at, number",
                                          as_utc(now), shards.count, sorted(shards.ids))
        return [row["game_id"] for row in rows]

    async def action_times(self, game_id: str, seqs: set[int]) -> dict[int, datetime]:
        rows = await self._pool.fetch("SELECT seq, created_at FROM actions WHERE game_id = $1 AND seq = ANY($2)",
                                      game_id, sorted(seqs))
        return {row["seq"]: row["created_at"] for row in rows}

    async def commit_action(self, game_id: str, expected_seq: int, actor: int, action_json: str,
                            state_json: str, outbox: list[OutgoingMessage], status: GameStatus | None = None,
                            key: str | None = None, *, engine_version: str | None = None,
                            events_json: str | None = None, state_before_json: str | None = None,
                            due_at: DueAt = RECHECK) -> int:
        messages, logged = _outbox_columns(outbox)
        new_status = GameStatus(status).value if status is not None else None
        state_before = pack_snapshot(state_before_json, state_json) if state_before_json is not None else None
        try:
            committed, seq_before = await self._pool.fetchrow(
                _COMMIT_ACTION, game_id, expected_seq, actor, state_json, action_json, new_status,
                as_utc(self._clock()), messages, logged, key, engine_version, events_json, state_before,
                stored_due(due_at))
        except asyncpg.UniqueViolationError:  # the key was taken already: the first submission stands
            raise VersionConflict(f"game {game_id} already took the action of {key}") from None
        if not committed:
            if seq_before is None:
                raise UnknownGame(game_id)
            raise VersionConflict(f"game {game_id} is no longer at seq {expected_seq}")
        return expected_seq + 1

    async def opening_events(self, game_id: str) -> str | None:
        row = await self._pool.fetchrow("SELECT (SELECT events_json FROM game_openings WHERE game_id = $1) AS events"
                                        " FROM games WHERE game_id = $1", game_id)
        if row is None:
            raise UnknownGame(game_id)
        return row["events"]

    async def snapshot_from(self, game_id: str, version: int) -> tuple[int, str]:
        row = await self._pool.fetchrow(  # one statement: the game and its kept snapshots from one database snapshot
            "SELECT seq, state_json, ARRAY(SELECT ROW(actions.seq, state_before) FROM actions WHERE actions.game_id"
            " = games.game_id AND actions.seq > $2 ORDER BY actions.seq DESC) AS packed FROM games WHERE game_id = $1",
            game_id, version)
        if row is None:
            raise UnknownGame(game_id)
        return unpack_snapshots((row["seq"], row["state_json"]), [tuple(kept) for kept in row["packed"]])

    async def replace_history(self, game_id: str, keep: int, state_json: str, outbox: list[OutgoingMessage],
                              status: GameStatus | None = None, *, due_at: DueAt = RECHECK) -> None:
        new_status = GameStatus(status).value if status is not None else None
        async with self._pool.acquire() as db, db.transaction():
            check_keep(game_id, keep, await _lock_game(db, game_id))
            await db.execute("DELETE FROM actions WHERE game_id = $1 AND seq > $2", game_id, keep)
            await db.execute("UPDATE games SET state_json = $2, seq = $3, status = coalesce($4, status), due_at = $5"
                             " WHERE game_id = $1", game_id, state_json, keep, new_status, stored_due(due_at))
            await self._queue(db, game_id, keep, outbox)

    async def actions(self, game_id: str) -> list[StoredAction]:
        rows = await self._pool.fetch(f"SELECT {_ACTION_COLUMNS} FROM actions WHERE game_id = $1 ORDER BY seq",
                                      game_id)
        return [_stored_action(row) for row in rows]

    async def action_with_key(self, game_id: str, key: str) -> StoredAction | None:
        row = await self._pool.fetchrow(f"SELECT {_ACTION_COLUMNS} FROM actions"
                                        " WHERE game_id = $1 AND idempotency_key = $2", game_id, key)
        return _stored_action(row) if row is not None else None

    async def set_seat(self, game_id: str, faction: str, user_id: int | None,
                       outbox: Sequence[OutgoingMessage] = (), *, was: int | None,
                       settings: dict[str, Any] | None = None) -> None:
        async with self._pool.acquire() as db, db.transaction():
            seq = await _lock_game(db, game_id)  # refuses an unknown game, which a DELETE would not notice
            held = await db.fetchval("SELECT user_id FROM seats WHERE game_id = $1 AND faction = $2", game_id, faction)
            if held != was:
                raise SeatChanged(faction)
            if settings is not None:
                await db.execute("UPDATE games SET settings_json = $2 WHERE game_id = $1", game_id,
                                 json.dumps(settings))
            if user_id is None:
                await db.execute("DELETE FROM seats WHERE game_id = $1 AND faction = $2", game_id, faction)
            else:
                await db.execute("INSERT INTO seats (game_id, faction, user_id) VALUES ($1, $2, $3)"
                                 " ON CONFLICT (game_id, faction) DO UPDATE SET user_id = excluded.user_id",
                                 game_id, faction, user_id)
            await self._queue(db, game_id, seq, outbox)

    async def set_status(self, game_id: str, status: GameStatus, outbox: Sequence[OutgoingMessage] = (),
                         settings: dict[str, Any] | None = None, *, due_at: DueAt = RECHECK) -> None:
        status = GameStatus(status)
        settings_json = json.dumps(settings) if settings is not None else None
        async with self._pool.acquire() as db, db.transaction():
            seq = await db.fetchval(
                "UPDATE games SET status = $2, started_at = CASE WHEN $2 = 'running'"
                " THEN coalesce(started_at, $3) ELSE started_at END, settings_json = coalesce($4, settings_json),"
                " due_at = $5 WHERE game_id = $1 RETURNING seq",
                game_id, status.value, as_utc(self._clock()), settings_json, stored_due(due_at))
            if seq is None:
                raise UnknownGame(game_id)
            await self._queue(db, game_id, seq, outbox)

    async def set_settings(self, game_id: str, settings: dict[str, Any], outbox: Sequence[OutgoingMessage] = (), *,
                           due_at: DueAt = RECHECK) -> None:
        async with self._pool.acquire() as db, db.transaction():
            seq = await db.fetchval("UPDATE games SET settings_json = $2, due_at = $3 WHERE game_id = $1 RETURNING seq",
                                    game_id, json.dumps(settings), stored_due(due_at))
            if seq is None:
                raise UnknownGame(game_id)
            await self._queue(db, game_id, seq, outbox)

    async def queue(self, game_id: str, outbox: list[OutgoingMessage]) -> None:
        async with self._pool.acquire() as db, db.transaction():
            await self._queue(db, game_id, await _lock_game(db, game_id), outbox)

    @asynccontextmanager
    async def delivery_turn(self, shards: Shards) -> AsyncIterator[Shards]:
        """Each shard's turn is a session advisory lock, tried (never waited for) on one connection held for
        the whole drain. A process that dies mid-drain loses its connection and so its locks: the next drain
        delivers what it left pending."""
        async with self._pool.acquire() as db:
            held = [shard for shard in sorted(shards.ids)
                    if await db.fetchval("SELECT pg_try_advisory_lock($1, $2)", DELIVERY_LOCK_CLASS, shard)]
            try:
                yield Shards(frozenset(held), shards.count)
            finally:
                try:
                    for shard in held:
                        await db.execute("SELECT pg_advisory_unlock($1, $2)", DELIVERY_LOCK_CLASS, shard)
                except BaseException:
                    db.terminate()  # a lock must not stay with a pooled connection (see _keep_session)
                    raise

    async def pending_outbox(self, limit: int = 100, shards: Shards = ALL_SHARDS,
                             per_lane: int | None = None) -> list[OutboxRow]:
        if per_lane is not None:  # each row's place in its lane (game, recipient faction), oldest first
            owned = "" if shards.everything else (
                " AND game_id IN (SELECT game_id FROM games WHERE (guild_id >> 22) % $3 = ANY($4::integer[]))")
            rows = await self._pool.fetch(
                f"SELECT * FROM (SELECT {_OUTBOX_COLUMNS}, ROW_NUMBER() OVER (PARTITION BY game_id,"
                " message_json::jsonb #>> '{recipient,faction}' ORDER BY id) AS place FROM outbox"
                f" WHERE status = 'pending'{owned}) AS lanes WHERE place <= $1 ORDER BY id LIMIT $2",
                per_lane, limit, *(() if shards.everything else (shards.count, sorted(shards.ids))))
        elif shards.everything:
            rows = await self._pool.fetch(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE status = 'pending'"
                                          " ORDER BY id LIMIT $1", limit)
        else:
            rows = await self._pool.fetch(
                f"SELECT {_OUTBOX_COLUMNS} FROM outbox JOIN games USING (game_id) WHERE outbox.status = 'pending'"
                " AND (guild_id >> 22) % $2 = ANY($3::integer[]) ORDER BY outbox.id LIMIT $1",
                limit, shards.count, sorted(shards.ids))
        return [OutboxRow(id=row["id"], game_id=row["game_id"], seq=row["seq"], attempts=row["attempts"],
                          status=row["status"], message=OutgoingMessage.model_validate_json(row["message_json"]),
                          created_at=row["created_at"], sending_since=row["sending_since"]) for row in rows]

    async def mark_sending(self, outbox_id: int) -> None:
        found = await self._pool.fetchval("UPDATE outbox SET sending_since = $2 WHERE id = $1 RETURNING 1",
                                          outbox_id, as_utc(self._clock()))
        if found is None:
            raise KeyError(f"no outbox row {outbox_id}")

    async def mark_outbox(self, outbox_id: int, status: str, ref: str | None = None) -> None:
        check_outbox_status(status)
        async with self._pool.acquire() as db, db.transaction():
            found = await db.fetchrow(
                "UPDATE outbox SET status = $2, attempts = attempts + CASE WHEN $2 = 'pending' THEN 1 ELSE 0 END"
                " WHERE id = $1 RETURNING game_id, message_json", outbox_id, status)
            if found is None:
                raise KeyError(f"no outbox row {outbox_id}")
            key = OutgoingMessage.model_validate_json(found["message_json"]).key if ref is not None else None
            if status == "sent" and key is not None:
                await db.execute("INSERT INTO message_refs (game_id, key, ref) VALUES ($1, $2, $3)"
                                 " ON CONFLICT (game_id, key) DO UPDATE SET ref = EXCLUDED.ref",
                                 found["game_id"], key, ref)

    async def message_ref(self, game_id: str, key: str) -> str | None:
        return await self._pool.fetchval("SELECT ref FROM message_refs WHERE game_id = $1 AND key = $2",
                                         game_id, key)

    async def moderator_role(self, guild_id: int) -> int | None:
        return await self._pool.fetchval("SELECT moderator_role_id FROM server_settings WHERE guild_id = $1",
                                         guild_id)

    async def set_moderator_role(self, guild_id: int, role_id: int | None) -> None:
        await self._pool.execute("INSERT INTO server_settings (guild_id, moderator_role_id) VALUES ($1, $2)"
                                 " ON CONFLICT (guild_id) DO UPDATE SET moderator_role_id = EXCLUDED.moderator_role_id",
                                 guild_id, role_id)

    async def log_notes(self, game_id: str) -> list[LogNote]:
        async with self._pool.acquire() as db, db.transaction(isolation="repeatable_read", readonly=True):
            if await db.fetchval("SELECT 1 FROM games WHERE game_id = $1", game_id) is None:
                raise UnknownGame(game_id)
            rows = await db.fetch("SELECT seq, message_json, created_at FROM outbox WHERE game_id = $1 AND logged"
                                  " ORDER BY id", game_id)
        return [LogNote(seq=row["seq"], text=OutgoingMessage.model_validate_json(row["message_json"]).text,
                        created_at=row["created_at"]) for row in rows]

    async def get_value(self, key: str) -> str | None:
        return await self._pool.fetchval("SELECT value FROM bot_values WHERE key = $1", key)

    async def set_value(self, key: str, value: str) -> None:
        await self._pool.execute("INSERT INTO bot_values (key, value) VALUES ($1, $2)"
                                 " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", key, value)

    async def _select_games(self, condition: str, *params: Any) -> list[GameRecordRow]:
        """The games matching `condition` (a fixed SQL fragment with numbered parameters), with their seats."""
        rows = await self._pool.fetch(f"SELECT {_GAME_COLUMNS}, {_SEATS} FROM games WHERE {condition}"
                                      " ORDER BY created_at, number", *params)
        return [_game_row(row) for row in rows]

    async def _queue(self, db: asyncpg.Connection, game_id: str, seq: int, outbox: Iterable[OutgoingMessage]) -> None:
        """Insert outbox rows, inside the caller's transaction."""
        messages, logged = _outbox_columns(outbox)
        if messages:
            await db.execute(_QUEUE, game_id, seq, as_utc(self._clock()), messages, logged)


def _stored_action(row: asyncpg.Record) -> StoredAction:
    return StoredAction(seq=row["seq"], actor=row["actor"], action_json=row["action_json"],
                        created_at=row["created_at"], key=row["idempotency_key"], engine_version=row["engine_version"],
                        events_json=row["events_json"])


async def _keep_session(db: asyncpg.Connection) -> None:
    """What the pool does to a connection given back, instead of asyncpg's default reset: nothing more than
    asyncpg's own (an open transaction rolled back). The default sends a reset query (advisory locks, settings,
    LISTEN, cursors) on every release, a round trip that doubled a submit's; this store sets no session setting,
    listens to nothing, and takes session locks only in `delivery_turn`, which releases them or drops the
    connection."""


async def _lock_game(db: asyncpg.Connection, game_id: str) -> int:
    """Lock the game's row until the transaction ends (a writer acting on its version goes one at a time) and
    return its seq."""
    seq = await db.fetchval("SELECT seq FROM games WHERE game_id = $1 FOR UPDATE", game_id)
    if seq is None:
        raise UnknownGame(game_id)
    return seq


def _game_row(row: asyncpg.Record) -> GameRecordRow:
    return GameRecordRow(game_id=row["game_id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
                         status=row["status"], setup_json=row["setup_json"], state_json=row["state_json"],
                         seq=row["seq"], seats=json.loads(row["seats"]), created_at=row["created_at"],
                         settings=json.loads(row["settings_json"]), started_at=row["started_at"],
                         engine_version=row["engine_version"], due_at=row["due_at"])


def _outbox_columns(outbox: Iterable[OutgoingMessage]) -> tuple[list[str], list[bool]]:
    """The messages as stored (JSON) and their `logged` flags, serialised before the transaction."""
    messages = list(outbox)
    return [message.model_dump_json() for message in messages], [message.logged for message in messages]
