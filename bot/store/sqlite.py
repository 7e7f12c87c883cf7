"""The SQLite GameStore: one database file, WAL journal, numbered migrations, one transaction per operation.

Concurrency: one bot process owns the database through one aiosqlite connection. aiosqlite runs its
statements in order on one thread, but coroutines sharing the connection could still interleave the
statements of different operations (a read landing inside another operation's open transaction, or a
second BEGIN), so every operation holds `self._lock` from its BEGIN to its COMMIT. Ordering the actions of
one game is the service's per-game lock's job; the seq check here is what makes a lost race harmless.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import aiosqlite

from bot.app.ports import (
    GameExists,
    GameRecordRow,
    GameStatus,
    LogNote,
    OutboxRow,
    OutgoingMessage,
    StoredAction,
    UnknownGame,
    VersionConflict,
)
from bot.store.common import Clock, as_utc, check_imported_actions, check_keep, check_outbox_status, utc_now

MIGRATIONS = Path(__file__).parent / "migrations"

CONNECTION_PRAGMAS = (
    # Readers never block the writer nor the writer readers, so a backup or a sqlite3 shell can read while
    # the bot runs; a commit appends to the log instead of rewriting pages.
    "PRAGMA journal_mode = WAL",
    # FULL, not NORMAL: with WAL, NORMAL never corrupts the database, but a power cut or OS crash may undo
    # the last commits. Here a commit is followed by messages telling players their move was taken, so an
    # acknowledged action must survive; one fsync per action costs nothing at play-by-post speed.
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = ON",  # off by default in SQLite, and per connection
    "PRAGMA busy_timeout = 5000",  # wait for another connection (a backup, a shell) instead of failing at once
)

_GAME_COLUMNS = ("game_id, guild_id, channel_id, status, setup_json, state_json, seq, moderator_role_id, created_at,"
                 " settings_json, started_at")


def _timestamp(moment: datetime) -> str:
    # A fixed width (microseconds always shown) so that text order is time order.
    return as_utc(moment).isoformat(timespec="microseconds")


def _migration_files(directory: Path) -> list[tuple[int, Path]]:
    files = []
    for path in directory.glob("*.sql"):
        number = path.stem.partition("_")[0]
        if not number.isdigit():
            raise ValueError(f"migration {path.name} must start with its number, as in 0001_init.sql")
        files.append((int(number), path))
    numbers = [number for number, _ in files]
    if len(set(numbers)) != len(numbers):
        raise ValueError(f"two migrations in {directory} share a number")
    return sorted(files)


async def apply_migrations(db: aiosqlite.Connection, directory: Path = MIGRATIONS) -> list[int]:
    """Bring the schema up to date and return the versions applied (none when it already was).

    Each numbered file newer than the recorded version runs in its own transaction together with its
    schema_version row, so a failing migration leaves the database at the previous version. Migration files
    must not contain BEGIN or COMMIT. The connection must be in autocommit mode (isolation_level=None).
    """
    await db.execute(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    async with db.execute("SELECT coalesce(max(version), 0) FROM schema_version") as cursor:
        (current,) = await cursor.fetchone()
    migrations = _migration_files(directory)
    known = migrations[-1][0] if migrations else 0
    if current > known:
        raise RuntimeError(f"the database is at schema version {current}, newer than this code knows ({known})")
    applied = []
    for version, path in migrations:
        if version <= current:
            continue
        try:
            # executescript, because a file may hold several statements (splitting on ";" would break
            # triggers). In autocommit mode it leaves the script's transaction open for the version row.
            await db.executescript(f"BEGIN IMMEDIATE;\n{path.read_text()}")
            await db.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                             (version, _timestamp(utc_now())))
            await db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                await db.execute("ROLLBACK")
            raise
        applied.append(version)
    return applied


class SqliteGameStore:
    """Create with `await SqliteGameStore.open(path)`; close with `await store.close()`."""

    def __init__(self, db: aiosqlite.Connection, clock: Clock) -> None:
        self._db = db
        self._clock = clock
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | os.PathLike[str], clock: Clock = utc_now) -> SqliteGameStore:
        # isolation_level=None: the sqlite3 module opens no transactions of its own; this class writes them.
        db = await aiosqlite.connect(path, isolation_level=None)
        try:
            db.row_factory = aiosqlite.Row
            for pragma in CONNECTION_PRAGMAS:
                await db.execute(pragma)
            await apply_migrations(db)
        except BaseException:
            await db.close()
            raise
        return cls(db, clock)

    async def close(self) -> None:
        async with self._lock:
            await self._db.close()

    async def create_game(self, game: GameRecordRow, outbox: list[OutgoingMessage],
                          actions: list[StoredAction] = ()) -> None:
        check_imported_actions(game.game_id, game.seq, list(actions))
        created_at = _timestamp(game.created_at or self._clock())
        settings_json = json.dumps(game.settings)
        async with self._transaction(write=True) as db:
            async with db.execute("SELECT game_id, channel_id FROM games WHERE game_id = ? OR channel_id = ?",
                                  (game.game_id, game.channel_id)) as cursor:
                clash = await cursor.fetchone()
            if clash is not None:
                what = f"game {game.game_id}" if clash["game_id"] == game.game_id else f"channel {game.channel_id}"
                raise GameExists(f"{what} already has a stored game")
            await db.execute(
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game.game_id, game.guild_id, game.channel_id, game.status.value, game.setup_json, game.state_json,
                 game.seq, game.moderator_role_id, created_at, settings_json,
                 _timestamp(game.started_at) if game.started_at else None))
            await db.executemany("INSERT INTO seats (game_id, faction, user_id) VALUES (?, ?, ?)",
                                 [(game.game_id, faction, user_id) for faction, user_id in game.seats.items()])
            await db.executemany(
                "INSERT INTO actions (game_id, seq, actor, action_json, created_at) VALUES (?, ?, ?, ?, ?)",
                [(game.game_id, action.seq, action.actor, action.action_json,
                  _timestamp(action.created_at) if action.created_at else created_at) for action in actions])
            await self._queue(db, game.game_id, game.seq, outbox)

    async def load_game(self, game_id: str) -> GameRecordRow | None:
        games = await self._select_games("game_id = :game_id", {"game_id": game_id})
        return games[0] if games else None

    async def game_in_channel(self, channel_id: int) -> GameRecordRow | None:
        games = await self._select_games("channel_id = :channel_id", {"channel_id": channel_id})
        return games[0] if games else None

    async def list_games(self, guild_id: int | None = None) -> list[GameRecordRow]:
        return await self._select_games(":guild_id IS NULL OR guild_id = :guild_id", {"guild_id": guild_id})

    async def commit_action(self, game_id: str, expected_seq: int, actor: int, action_json: str,
                            state_json: str, outbox: list[OutgoingMessage], status: GameStatus | None = None) -> int:
        async with self._transaction(write=True) as db:
            seq = await self._current_seq(db, game_id)
            if seq != expected_seq:
                raise VersionConflict(f"game {game_id} is at seq {seq}, not {expected_seq}")
            new_seq = expected_seq + 1
            await db.execute(
                "INSERT INTO actions (game_id, seq, actor, action_json, created_at) VALUES (?, ?, ?, ?, ?)",
                (game_id, new_seq, actor, action_json, _timestamp(self._clock())))
            await self._store_snapshot(db, game_id, new_seq, state_json)
            await self._queue(db, game_id, new_seq, outbox)
            if status is not None:
                await db.execute("UPDATE games SET status = ? WHERE game_id = ?", (GameStatus(status).value, game_id))
        return new_seq

    async def replace_history(self, game_id: str, keep: int, state_json: str, outbox: list[OutgoingMessage]) -> None:
        async with self._transaction(write=True) as db:
            check_keep(game_id, keep, await self._current_seq(db, game_id))
            await db.execute("DELETE FROM actions WHERE game_id = ? AND seq > ?", (game_id, keep))
            await self._store_snapshot(db, game_id, keep, state_json)
            await self._queue(db, game_id, keep, outbox)

    async def actions(self, game_id: str) -> list[StoredAction]:
        async with self._transaction(write=False) as db:
            rows = await db.execute_fetchall(
                "SELECT seq, actor, action_json, created_at FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
        return [StoredAction(seq=row["seq"], actor=row["actor"], action_json=row["action_json"],
                             created_at=datetime.fromisoformat(row["created_at"])) for row in rows]

    async def set_seat(self, game_id: str, faction: str, user_id: int | None,
                       outbox: list[OutgoingMessage] = ()) -> None:
        async with self._transaction(write=True) as db:
            seq = await self._current_seq(db, game_id)  # refuses an unknown game, which a DELETE would not notice
            if user_id is None:
                await db.execute("DELETE FROM seats WHERE game_id = ? AND faction = ?", (game_id, faction))
            else:
                await db.execute(
                    "INSERT INTO seats (game_id, faction, user_id) VALUES (?, ?, ?)"
                    " ON CONFLICT (game_id, faction) DO UPDATE SET user_id = excluded.user_id",
                    (game_id, faction, user_id))
            await self._queue(db, game_id, seq, list(outbox))

    async def set_status(self, game_id: str, status: GameStatus, outbox: list[OutgoingMessage] = ()) -> None:
        async with self._transaction(write=True) as db:
            status = GameStatus(status)
            cursor = await db.execute(
                "UPDATE games SET status = :status, started_at = CASE WHEN :status = 'running'"
                " THEN coalesce(started_at, :now) ELSE started_at END WHERE game_id = :game_id",
                {"status": status.value, "now": _timestamp(self._clock()), "game_id": game_id})
            if cursor.rowcount == 0:
                raise UnknownGame(game_id)
            if outbox:
                await self._queue(db, game_id, await self._current_seq(db, game_id), list(outbox))

    async def set_settings(self, game_id: str, settings: dict[str, Any]) -> None:
        settings_json = json.dumps(settings)
        async with self._transaction(write=True) as db:
            cursor = await db.execute("UPDATE games SET settings_json = ? WHERE game_id = ?", (settings_json, game_id))
            if cursor.rowcount == 0:
                raise UnknownGame(game_id)

    async def queue(self, game_id: str, outbox: list[OutgoingMessage]) -> None:
        async with self._transaction(write=True) as db:
            await self._queue(db, game_id, await self._current_seq(db, game_id), outbox)

    async def pending_outbox(self, limit: int = 100) -> list[OutboxRow]:
        async with self._transaction(write=False) as db:
            rows = await db.execute_fetchall(
                "SELECT id, game_id, seq, message_json, attempts, status, created_at FROM outbox"
                " WHERE status = 'pending' ORDER BY id LIMIT ?", (limit,))
        return [OutboxRow(id=row["id"], game_id=row["game_id"], seq=row["seq"], attempts=row["attempts"],
                          status=row["status"], message=OutgoingMessage.model_validate_json(row["message_json"]),
                          created_at=datetime.fromisoformat(row["created_at"])) for row in rows]

    async def log_notes(self, game_id: str) -> list[LogNote]:
        async with self._transaction(write=False) as db:
            await self._current_seq(db, game_id)
            rows = await db.execute_fetchall(
                "SELECT seq, message_json, created_at FROM outbox WHERE game_id = ?"
                " AND json_extract(message_json, '$.logged') ORDER BY id", (game_id,))
        return [LogNote(seq=row["seq"], text=OutgoingMessage.model_validate_json(row["message_json"]).text,
                        created_at=datetime.fromisoformat(row["created_at"])) for row in rows]

    async def mark_outbox(self, outbox_id: int, status: str) -> None:
        check_outbox_status(status)
        async with self._transaction(write=True) as db:
            cursor = await db.execute(
                "UPDATE outbox SET status = :status,"
                " attempts = attempts + CASE WHEN :status = 'pending' THEN 1 ELSE 0 END WHERE id = :id",
                {"status": status, "id": outbox_id})
            if cursor.rowcount == 0:
                raise KeyError(f"no outbox row {outbox_id}")

    @asynccontextmanager
    async def _transaction(self, write: bool) -> AsyncIterator[aiosqlite.Connection]:
        """One transaction under the store's lock, rolled back if anything inside raises. A write takes
        SQLite's write lock at BEGIN (IMMEDIATE), so a seq it checks cannot change before it writes; a read
        sees one consistent snapshot across its queries."""
        async with self._lock:
            await self._db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield self._db
                await self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    await self._db.execute("ROLLBACK")
                raise

    async def _select_games(self, condition: str, params: dict[str, Any]) -> list[GameRecordRow]:
        """The games matching `condition` (a fixed SQL fragment with named parameters), with their seats."""
        async with self._transaction(write=False) as db:
            games = await db.execute_fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE {condition} ORDER BY created_at, rowid", params)
            seats = await db.execute_fetchall(
                "SELECT game_id, faction, user_id FROM seats"
                f" WHERE game_id IN (SELECT game_id FROM games WHERE {condition}) ORDER BY faction", params)
        seats_by_game: dict[str, dict[str, int]] = {}
        for seat in seats:
            seats_by_game.setdefault(seat["game_id"], {})[seat["faction"]] = seat["user_id"]
        return [GameRecordRow(game_id=row["game_id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
                              status=row["status"], setup_json=row["setup_json"], state_json=row["state_json"],
                              seq=row["seq"], seats=seats_by_game.get(row["game_id"], {}),
                              moderator_role_id=row["moderator_role_id"],
                              created_at=datetime.fromisoformat(row["created_at"]),
                              settings=json.loads(row["settings_json"]),
                              started_at=datetime.fromisoformat(row["started_at"]) if row["started_at"] else None)
                for row in games]

    async def _current_seq(self, db: aiosqlite.Connection, game_id: str) -> int:
        async with db.execute("SELECT seq FROM games WHERE game_id = ?", (game_id,)) as cursor:
            row = await cursor.fetchone()
        if row is None:
            raise UnknownGame(game_id)
        return row["seq"]

    async def _store_snapshot(self, db: aiosqlite.Connection, game_id: str, seq: int, state_json: str) -> None:
        await db.execute("UPDATE games SET state_json = ?, seq = ? WHERE game_id = ?", (state_json, seq, game_id))

    async def _queue(self, db: aiosqlite.Connection, game_id: str, seq: int, outbox: list[OutgoingMessage]) -> None:
        created_at = _timestamp(self._clock())
        await db.executemany(
            "INSERT INTO outbox (game_id, seq, message_json, created_at) VALUES (?, ?, ?, ?)",
            [(game_id, seq, message.model_dump_json(), created_at) for message in outbox])
