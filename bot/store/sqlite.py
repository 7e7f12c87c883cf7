"""The SQLite GameStore: one database file, WAL journal, numbered migrations, one transaction per operation.

Concurrency: one bot process owns the database through one plain `sqlite3` connection, owned by a thread of its
own (a `ThreadPoolExecutor` with one worker), which runs the calls handed to it one at a time. Each operation is a
single such call (`loop.run_in_executor`): a plain function that runs its whole transaction, BEGIN to COMMIT (or
ROLLBACK), on that thread. So the statements of two operations never interleave (no lock is needed for that), an
operation costs one hand-over to the thread and back instead of one per statement, and the event loop never
waits on the disk. Only public APIs are used (sqlite3, concurrent.futures, asyncio); the connection is made on
its thread and used there alone (sqlite3's same-thread check stays on). Ordering the actions of one game is the
service's per-game lock's job; the seq check here is what makes a lost race harmless.

The store keeps the rows of the games it last loaded or committed (ROW_CACHE_SIZE at most), so a submit
reads its game without a trip to the thread. That is sound because this store is the database's only
writer (other connections may read: a backup, a sqlite3 shell), and the cache is changed only on the
thread, in the order of the transactions: right after a write's COMMIT (or failure), before the writer or
anyone queued behind it goes on, the game's row is replaced by the new one (an action, an undo) or
dropped (any other change, or a failure).
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

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
    SingleProcessTurn,
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

MIGRATIONS = Path(__file__).parent / "migrations"
T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]  # an operation's statements, run on the connection's thread

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

ROW_CACHE_SIZE = 1024  # games whose row is kept in memory: a few KiB each (the snapshot's JSON, mostly)

_GAME_COLUMNS = ("game_id, guild_id, channel_id, status, setup_json, state_json, seq, created_at, settings_json,"
                 " started_at, engine_version, due_at")
_ACTION_COLUMNS = "seq, actor, action_json, created_at, idempotency_key, engine_version, events_json"


def _timestamp(moment: datetime) -> str:
    # A fixed width (microseconds always shown) so that text order is time order.
    return as_utc(moment).isoformat(timespec="microseconds")


def _due_timestamp(due_at: DueAt) -> str | None:
    due = stored_due(due_at)
    return _timestamp(due) if due is not None else None


def apply_migrations(db: sqlite3.Connection, directory: Path = MIGRATIONS) -> list[int]:
    """Bring the schema up to date and return the versions applied (none when it already was).

    Each numbered file newer than the recorded version runs in its own transaction together with its
    schema_version row, so a failing migration leaves the database at the previous version. Migration files
    must not contain BEGIN or COMMIT. The connection must be in autocommit mode (isolation_level=None). A plain
    function: the store runs it on its connection's thread.
    """
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    (current,) = db.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
    migrations = migration_files(directory)
    known = migrations[-1][0] if migrations else 0
    if current > known:
        raise RuntimeError(f"the database is at schema version {current}, newer than this code knows ({known})")
    applied = []
    # Foreign keys off while migrating (SQLite ignores the pragma inside a transaction), so that a migration that
    # rebuilds a table (https://www.sqlite.org/lang_altertable.html, "Making Other Kinds Of Table Schema
    # Changes") deletes no row through ON DELETE CASCADE; each migration checks them before its commit.
    (enforced,) = db.execute("PRAGMA foreign_keys").fetchone()
    db.execute("PRAGMA foreign_keys = OFF")
    try:
        for version, path in migrations:
            if version <= current:
                continue
            try:
                # executescript, because a file may hold several statements (splitting on ";" would break
                # triggers). In autocommit mode it leaves the script's transaction open for the version row.
                db.executescript(f"BEGIN IMMEDIATE;\n{path.read_text()}")
                if broken := db.execute("PRAGMA foreign_key_check").fetchall():
                    raise RuntimeError(f"migration {path.name} leaves rows whose parent is gone: "
                                       f"{[tuple(row) for row in broken[:5]]}")
                db.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                           (version, _timestamp(utc_now())))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            applied.append(version)
    finally:
        db.execute(f"PRAGMA foreign_keys = {'ON' if enforced else 'OFF'}")
    return applied


class SqliteGameStore:
    """Create with `await SqliteGameStore.open(path)`; close with `await store.close()`."""

    def __init__(self, db: sqlite3.Connection, thread: ThreadPoolExecutor, clock: Clock) -> None:
        self._db = db  # used on `thread` alone
        self._thread = thread
        self._clock = clock
        # game_id -> (its row, its settings as JSON), oldest first; changed only on the connection's thread.
        self._rows: dict[str, tuple[GameRecordRow, str]] = {}
        self.delivery_turn = SingleProcessTurn()

    @classmethod
    async def open(cls, path: str | os.PathLike[str], clock: Clock = utc_now) -> SqliteGameStore:
        thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-store")
        try:
            db = await asyncio.get_running_loop().run_in_executor(thread, _connect, path)
        except BaseException:
            thread.shutdown()
            raise
        return cls(db, thread, clock)

    async def close(self) -> None:
        try:  # queued behind the operations already handed to the thread
            await self._on_thread(self._db.close)
        finally:
            self._thread.shutdown()

    async def create_game(self, game: GameRecordRow, outbox: list[OutgoingMessage],
                          actions: Sequence[StoredAction] = (), opening_events_json: str | None = None) -> None:
        check_imported_actions(game.game_id, game.seq, list(actions))
        created_at = _timestamp(game.created_at or self._clock())
        settings_json = json.dumps(game.settings)
        messages = _outbox_json(outbox)
        action_rows = [(game.game_id, action.seq, action.actor, action.action_json,
                        _timestamp(action.created_at) if action.created_at else created_at, action.engine_version,
                        action.events_json) for action in actions]

        def work(db: sqlite3.Connection) -> None:
            clash = db.execute(
                "SELECT game_id FROM games WHERE game_id = :game_id"
                " OR (:live AND channel_id = :channel_id AND status <> 'ended')",
                {"game_id": game.game_id, "channel_id": game.channel_id, "live": game.status != GameStatus.ENDED},
            ).fetchone()
            if clash is not None:
                what = (f"game {game.game_id} is already stored" if clash["game_id"] == game.game_id
                        else f"channel {game.channel_id} has a game that has not ended")
                raise GameExists(what)
            db.execute(
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game.game_id, game.guild_id, game.channel_id, game.status.value, game.setup_json, game.state_json,
                 game.seq, created_at, settings_json, _timestamp(game.started_at) if game.started_at else None,
                 game.engine_version, _due_timestamp(game.due_at)))
            if opening_events_json is not None:
                db.execute("INSERT INTO game_openings (game_id, events_json) VALUES (?, ?)",
                           (game.game_id, opening_events_json))
            db.executemany("INSERT INTO seats (game_id, faction, user_id) VALUES (?, ?, ?)",
                           [(game.game_id, faction, user_id) for faction, user_id in game.seats.items()])
            db.executemany(
                "INSERT INTO actions (game_id, seq, actor, action_json, created_at, engine_version, events_json)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)", action_rows)
            self._queue(db, game.game_id, game.seq, messages, created_at)

        await self._write(work)

    async def load_game(self, game_id: str) -> GameRecordRow | None:
        cached = self._rows.get(game_id)
        if cached is None:
            games = await self._select_games("game_id = :game_id", {"game_id": game_id}, remember=True)
            return games[0] if games else None
        return _copy(*cached)

    async def game_in_channel(self, channel_id: int) -> GameRecordRow | None:
        games = await self._select_games(
            "game_id = (SELECT game_id FROM games WHERE channel_id = :channel_id"
            " ORDER BY status = 'ended', created_at DESC, rowid DESC LIMIT 1)", {"channel_id": channel_id})
        return games[0] if games else None

    async def games_in_channel(self, channel_id: int) -> list[GameRecordRow]:
        return (await self._select_games("channel_id = :channel_id", {"channel_id": channel_id}))[::-1]

    async def list_games(self, guild_id: int | None = None) -> list[GameRecordRow]:
        return await self._select_games(":guild_id IS NULL OR guild_id = :guild_id", {"guild_id": guild_id})

    async def games_due(self, now: datetime, shards: Shards = ALL_SHARDS) -> list[str]:
        # The partial index games_due_at answers `due_at <= ?` (a comparison implies NOT NULL); the shards' test
        # reads only the rows it found.
        if shards.everything:
            rows = await self._read("SELECT game_id FROM games WHERE due_at <= ? ORDER BY due_at, rowid",
                                    (_timestamp(now),))
        else:
            rows = await self._read(
                "SELECT game_id FROM games WHERE due_at <= ? AND (guild_id >> 22) % ? IN"
                " (SELECT value FROM json_each(?)) ORDER BY due_at, rowid",
                (_timestamp(now), shards.count, json.dumps(sorted(shards.ids))))
        return [row["game_id"] for row in rows]

    async def action_times(self, game_id: str, seqs: set[int]) -> dict[int, datetime]:
        rows = await self._read("SELECT seq, created_at FROM actions WHERE game_id = ?"
                                " AND seq IN (SELECT value FROM json_each(?))", (game_id, json.dumps(sorted(seqs))))
        return {row["seq"]: datetime.fromisoformat(row["created_at"]) for row in rows}

    async def commit_action(self, game_id: str, expected_seq: int, actor: int, action_json: str,
                            state_json: str, outbox: list[OutgoingMessage], status: GameStatus | None = None,
                            key: str | None = None, *, engine_version: str | None = None,
                            events_json: str | None = None, state_before_json: str | None = None,
                            due_at: DueAt = RECHECK) -> int:
        new_seq = expected_seq + 1
        due = _due_timestamp(due_at)
        now = _timestamp(self._clock())
        messages = _outbox_json(outbox)
        new_status = GameStatus(status).value if status is not None else None

        def work(db: sqlite3.Connection) -> int:
            # Packed here, on the connection's thread: zlib lets the event loop run meanwhile.
            state_before = pack_snapshot(state_before_json, state_json) if state_before_json is not None else None
            seq = _current_seq(db, game_id)
            if seq != expected_seq:
                raise VersionConflict(f"game {game_id} is at seq {seq}, not {expected_seq}")
            try:
                db.execute("INSERT INTO actions (game_id, seq, actor, action_json, created_at, idempotency_key,"
                           " engine_version, events_json, state_before) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (game_id, new_seq, actor, action_json, now, key, engine_version, events_json,
                            state_before))
            except sqlite3.IntegrityError:  # the key was taken already: the first submission stands
                raise VersionConflict(f"game {game_id} already took the action of {key}") from None
            db.execute("UPDATE games SET state_json = ?, seq = ?, status = coalesce(?, status), due_at = ?"
                       " WHERE game_id = ?", (state_json, new_seq, new_status, due, game_id))
            self._queue(db, game_id, new_seq, messages, now)
            return new_seq

        update = {"seq": new_seq, "state_json": state_json, "due_at": stored_due(due_at)}
        if status is not None:
            update["status"] = GameStatus(status)
        return await self._write(work, game_id, lambda row: row.model_copy(update=update))

    async def opening_events(self, game_id: str) -> str | None:
        def work(db: sqlite3.Connection) -> str | None:
            _current_seq(db, game_id)
            row = db.execute("SELECT events_json FROM game_openings WHERE game_id = ?", (game_id,)).fetchone()
            return row["events_json"] if row is not None else None

        return await self._run(work)

    async def snapshot_from(self, game_id: str, version: int) -> tuple[int, str]:
        def work(db: sqlite3.Connection) -> tuple[int, str]:
            game = db.execute("SELECT seq, state_json FROM games WHERE game_id = ?", (game_id,)).fetchone()
            if game is None:
                raise UnknownGame(game_id)
            packed = db.execute("SELECT seq, state_before FROM actions WHERE game_id = ? AND seq > ?"
                                " ORDER BY seq DESC", (game_id, version)).fetchall()
            return unpack_snapshots((game["seq"], game["state_json"]), packed)  # on this thread: zlib frees the loop

        return await self._run(work)

    async def replace_history(self, game_id: str, keep: int, state_json: str, outbox: list[OutgoingMessage],
                              status: GameStatus | None = None, *, due_at: DueAt = RECHECK) -> None:
        now = _timestamp(self._clock())
        due = _due_timestamp(due_at)
        messages = _outbox_json(outbox)
        new_status = GameStatus(status).value if status is not None else None

        def work(db: sqlite3.Connection) -> None:
            check_keep(game_id, keep, _current_seq(db, game_id))
            db.execute("DELETE FROM actions WHERE game_id = ? AND seq > ?", (game_id, keep))
            db.execute("UPDATE games SET state_json = ?, seq = ?, status = coalesce(?, status), due_at = ?"
                       " WHERE game_id = ?", (state_json, keep, new_status, due, game_id))
            self._queue(db, game_id, keep, messages, now)

        update = {"seq": keep, "state_json": state_json, "due_at": stored_due(due_at)}
        if status is not None:
            update["status"] = GameStatus(status)
        await self._write(work, game_id, lambda row: row.model_copy(update=update))

    async def actions(self, game_id: str) -> list[StoredAction]:
        rows = await self._read(f"SELECT {_ACTION_COLUMNS} FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
        return [_stored_action(row) for row in rows]

    async def action_with_key(self, game_id: str, key: str) -> StoredAction | None:
        rows = await self._read(f"SELECT {_ACTION_COLUMNS} FROM actions WHERE game_id = ? AND idempotency_key = ?",
                                (game_id, key))
        return _stored_action(rows[0]) if rows else None

    async def set_seat(self, game_id: str, faction: str, user_id: int | None,
                       outbox: Sequence[OutgoingMessage] = (), *, was: int | None,
                       settings: dict[str, Any] | None = None) -> None:
        now = _timestamp(self._clock())
        messages = _outbox_json(outbox)
        settings_json = json.dumps(settings) if settings is not None else None

        def work(db: sqlite3.Connection) -> None:
            seq = _current_seq(db, game_id)  # refuses an unknown game, which a DELETE would not notice
            held = db.execute("SELECT user_id FROM seats WHERE game_id = ? AND faction = ?",
                              (game_id, faction)).fetchone()
            if (held["user_id"] if held is not None else None) != was:
                raise SeatChanged(faction)
            if settings_json is not None:
                db.execute("UPDATE games SET settings_json = ? WHERE game_id = ?", (settings_json, game_id))
            if user_id is None:
                db.execute("DELETE FROM seats WHERE game_id = ? AND faction = ?", (game_id, faction))
            else:
                db.execute("INSERT INTO seats (game_id, faction, user_id) VALUES (?, ?, ?)"
                           " ON CONFLICT (game_id, faction) DO UPDATE SET user_id = excluded.user_id",
                           (game_id, faction, user_id))
            self._queue(db, game_id, seq, messages, now)

        await self._write(work, game_id)

    async def set_status(self, game_id: str, status: GameStatus, outbox: Sequence[OutgoingMessage] = (),
                         settings: dict[str, Any] | None = None, *, due_at: DueAt = RECHECK) -> None:
        status = GameStatus(status)
        due = _due_timestamp(due_at)
        now = _timestamp(self._clock())
        messages = _outbox_json(outbox)
        settings_json = json.dumps(settings) if settings is not None else None

        def work(db: sqlite3.Connection) -> None:
            cursor = db.execute(
                "UPDATE games SET status = :status, started_at = CASE WHEN :status = 'running'"
                " THEN coalesce(started_at, :now) ELSE started_at END,"
                " settings_json = coalesce(:settings_json, settings_json), due_at = :due WHERE game_id = :game_id",
                {"status": status.value, "now": now, "settings_json": settings_json, "game_id": game_id, "due": due})
            if cursor.rowcount == 0:
                raise UnknownGame(game_id)
            if messages:
                self._queue(db, game_id, _current_seq(db, game_id), messages, now)

        await self._write(work, game_id)

    async def set_settings(self, game_id: str, settings: dict[str, Any], outbox: Sequence[OutgoingMessage] = (), *,
                           due_at: DueAt = RECHECK) -> None:
        settings_json = json.dumps(settings)
        due = _due_timestamp(due_at)
        now = _timestamp(self._clock())
        messages = _outbox_json(outbox)

        def work(db: sqlite3.Connection) -> None:
            cursor = db.execute("UPDATE games SET settings_json = ?, due_at = ? WHERE game_id = ?",
                                (settings_json, due, game_id))
            if cursor.rowcount == 0:
                raise UnknownGame(game_id)
            if messages:
                self._queue(db, game_id, _current_seq(db, game_id), messages, now)

        await self._write(work, game_id)

    async def queue(self, game_id: str, outbox: list[OutgoingMessage]) -> None:
        now = _timestamp(self._clock())
        messages = _outbox_json(outbox)
        await self._write(lambda db: self._queue(db, game_id, _current_seq(db, game_id), messages, now))

    async def pending_outbox(self, limit: int = 100, shards: Shards = ALL_SHARDS,
                             per_lane: int | None = None) -> list[OutboxRow]:
        if per_lane is not None:  # each row's place in its lane (game, recipient faction), oldest first
            owned = "" if shards.everything else (
                " AND game_id IN (SELECT game_id FROM games WHERE (guild_id >> 22) % ? IN (SELECT value FROM"
                " json_each(?)))")
            rows = await self._read(
                "SELECT * FROM (SELECT id, game_id, seq, message_json, attempts, status, created_at, sending_since,"
                " ROW_NUMBER() OVER (PARTITION BY game_id, json_extract(message_json, '$.recipient.faction')"
                f" ORDER BY id) AS place FROM outbox WHERE status = 'pending'{owned})"
                " WHERE place <= ? ORDER BY id LIMIT ?",
                ((shards.count, json.dumps(sorted(shards.ids))) if not shards.everything else ()) + (per_lane, limit))
        elif shards.everything:
            rows = await self._read("SELECT id, game_id, seq, message_json, attempts, status, created_at,"
                                    " sending_since FROM outbox WHERE status = 'pending' ORDER BY id LIMIT ?",
                                    (limit,))
        else:
            rows = await self._read(
                "SELECT id, game_id, seq, message_json, attempts, outbox.status, outbox.created_at, sending_since"
                " FROM outbox JOIN games USING (game_id) WHERE outbox.status = 'pending'"
                " AND (guild_id >> 22) % ? IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ?",
                (shards.count, json.dumps(sorted(shards.ids)), limit))
        return [OutboxRow(id=row["id"], game_id=row["game_id"], seq=row["seq"], attempts=row["attempts"],
                          status=row["status"], message=OutgoingMessage.model_validate_json(row["message_json"]),
                          created_at=datetime.fromisoformat(row["created_at"]),
                          sending_since=datetime.fromisoformat(row["sending_since"]) if row["sending_since"] else None)
                for row in rows]

    async def mark_sending(self, outbox_id: int) -> None:
        now = _timestamp(self._clock())

        def work(db: sqlite3.Connection) -> None:
            if db.execute("UPDATE outbox SET sending_since = ? WHERE id = ?", (now, outbox_id)).rowcount == 0:
                raise KeyError(f"no outbox row {outbox_id}")

        await self._write(work)

    async def log_notes(self, game_id: str) -> list[LogNote]:
        def work(db: sqlite3.Connection) -> list[sqlite3.Row]:
            _current_seq(db, game_id)
            return db.execute("SELECT seq, message_json, created_at FROM outbox WHERE game_id = ?"
                              " AND json_extract(message_json, '$.logged') ORDER BY id", (game_id,)).fetchall()

        rows = await self._run(work)
        return [LogNote(seq=row["seq"], text=OutgoingMessage.model_validate_json(row["message_json"]).text,
                        created_at=datetime.fromisoformat(row["created_at"])) for row in rows]

    async def mark_outbox(self, outbox_id: int, status: str, ref: str | None = None) -> None:
        check_outbox_status(status)

        def work(db: sqlite3.Connection) -> None:
            cursor = db.execute(
                "UPDATE outbox SET status = :status,"
                " attempts = attempts + CASE WHEN :status = 'pending' THEN 1 ELSE 0 END WHERE id = :id",
                {"status": status, "id": outbox_id})
            if cursor.rowcount == 0:
                raise KeyError(f"no outbox row {outbox_id}")
            if status == "sent" and ref is not None:
                db.execute("INSERT OR REPLACE INTO message_refs (game_id, key, ref)"
                           " SELECT game_id, json_extract(message_json, '$.key'), :ref FROM outbox"
                           " WHERE id = :id AND json_extract(message_json, '$.key') IS NOT NULL",
                           {"ref": ref, "id": outbox_id})

        await self._write(work)

    async def message_ref(self, game_id: str, key: str) -> str | None:
        rows = await self._read("SELECT ref FROM message_refs WHERE game_id = ? AND key = ?", (game_id, key))
        return rows[0]["ref"] if rows else None

    async def get_value(self, key: str) -> str | None:
        rows = await self._read("SELECT value FROM bot_values WHERE key = ?", (key,))
        return rows[0]["value"] if rows else None

    async def set_value(self, key: str, value: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO bot_values (key, value) VALUES (?, ?)"
                       " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

        await self._write(work)

    async def moderator_role(self, guild_id: int) -> int | None:
        rows = await self._read("SELECT moderator_role_id FROM server_settings WHERE guild_id = ?", (guild_id,))
        return rows[0]["moderator_role_id"] if rows else None

    async def set_moderator_role(self, guild_id: int, role_id: int | None) -> None:
        await self._write(lambda db: db.execute(
            "INSERT INTO server_settings (guild_id, moderator_role_id) VALUES (?, ?) ON CONFLICT (guild_id)"
            " DO UPDATE SET moderator_role_id = excluded.moderator_role_id", (guild_id, role_id)))

    async def _on_thread(self, call: Callable[..., T], *args: Any) -> T:
        """`call(*args)` on the connection's thread, queued behind the calls handed to it before: one hand-over
        there and back."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, call, *args)

    async def _run(self, work: Work[T], *, write: bool = False, settle: Callable[[bool], None] | None = None) -> T:
        """Run `work` as one transaction on the connection's thread, in one hand-over, then `settle(committed)`
        there. A write takes SQLite's write lock at BEGIN (IMMEDIATE), so a seq it checks cannot change before
        it writes; a read sees one consistent snapshot across its queries. Anything `work` raises rolls the
        transaction back and reaches the caller."""
        return await self._on_thread(_in_transaction, self._db, work, write, settle)

    async def _write(self, work: Work[T], game_id: str | None = None,
                     new_row: Callable[[GameRecordRow], GameRecordRow] | None = None) -> T:
        """A write transaction that may change the row of game `game_id`: once it committed, the cached row
        becomes `new_row(row)`, or is dropped without `new_row`. A failed write drops it too (the database
        is unchanged, but the cache assumes nothing it need not)."""
        if game_id is None:
            return await self._run(work, write=True)

        def settle(committed: bool) -> None:
            cached = self._rows.pop(game_id, None)
            if committed and cached is not None and new_row is not None:
                self._remember(game_id, new_row(cached[0]), cached[1])

        return await self._run(work, write=True, settle=settle)

    async def _read(self, sql: str, params: Sequence[Any]) -> list[sqlite3.Row]:
        """The rows of one query: a single statement reads one consistent snapshot without a BEGIN."""
        return await self._on_thread(lambda: self._db.execute(sql, params).fetchall())

    async def _select_games(self, condition: str, params: dict[str, Any], *,
                            remember: bool = False) -> list[GameRecordRow]:
        """The games matching `condition` (a fixed SQL fragment with named parameters), with their seats;
        with `remember`, kept in the row cache as well (on the thread, so in order with the writes)."""

        def work(db: sqlite3.Connection) -> list[GameRecordRow]:
            games = db.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE {condition} ORDER BY created_at, rowid",
                               params).fetchall()
            seats = db.execute("SELECT game_id, faction, user_id FROM seats"
                               f" WHERE game_id IN (SELECT game_id FROM games WHERE {condition}) ORDER BY faction",
                               params).fetchall()
            seats_by_game: dict[str, dict[str, int]] = {}
            for seat in seats:
                seats_by_game.setdefault(seat["game_id"], {})[seat["faction"]] = seat["user_id"]
            rows = [_game_row(row, seats_by_game.get(row["game_id"], {})) for row in games]
            if remember:
                for row, game in zip(rows, games, strict=True):
                    self._remember(row.game_id, _copy(row, game["settings_json"]), game["settings_json"])
            return rows

        return await self._run(work)

    def _remember(self, game_id: str, row: GameRecordRow, settings_json: str) -> None:
        """On the connection's thread: keep a game's row as the newest, dropping the oldest beyond
        ROW_CACHE_SIZE."""
        self._rows.pop(game_id, None)
        self._rows[game_id] = (row, settings_json)
        while len(self._rows) > ROW_CACHE_SIZE:
            del self._rows[next(iter(self._rows))]

    def _queue(self, db: sqlite3.Connection, game_id: str, seq: int, messages: list[str], created_at: str) -> None:
        """Insert outbox rows (messages as JSON), inside the caller's transaction."""
        db.executemany("INSERT INTO outbox (game_id, seq, message_json, created_at) VALUES (?, ?, ?, ?)",
                       [(game_id, seq, message, created_at) for message in messages])


def _connect(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """On the store's thread: the connection, its pragmas, the schema brought up to date."""
    # isolation_level=None: the sqlite3 module opens no transactions of its own; this module writes them.
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.row_factory = sqlite3.Row
        for pragma in CONNECTION_PRAGMAS:
            db.execute(pragma)
        apply_migrations(db)
    except BaseException:
        db.close()
        raise
    return db


def _in_transaction(db: sqlite3.Connection, work: Work[T], write: bool,
                    settle: Callable[[bool], None] | None) -> T:
    """On the connection's thread: BEGIN, `work`, COMMIT; ROLLBACK if anything raises (the COMMIT too).
    Then `settle(committed)`, before the caller hears of the outcome."""
    committed = False
    db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        result = work(db)
        db.execute("COMMIT")
        committed = True
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    finally:
        if settle is not None:
            settle(committed)
    return result


def _game_row(row: sqlite3.Row, seats: dict[str, int]) -> GameRecordRow:
    return GameRecordRow(game_id=row["game_id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
                         status=row["status"], setup_json=row["setup_json"], state_json=row["state_json"],
                         seq=row["seq"], seats=seats, created_at=datetime.fromisoformat(row["created_at"]),
                         settings=json.loads(row["settings_json"]),
                         started_at=datetime.fromisoformat(row["started_at"]) if row["started_at"] else None,
                         engine_version=row["engine_version"],
                         due_at=datetime.fromisoformat(row["due_at"]) if row["due_at"] else None)


def _copy(row: GameRecordRow, settings_json: str) -> GameRecordRow:
    """A copy of a cached row that its holder may change: new containers; the other fields (strings,
    numbers, datetimes) are immutable. Cheaper than a deep copy."""
    return row.model_copy(update={"seats": dict(row.seats), "settings": json.loads(settings_json)})


def _current_seq(db: sqlite3.Connection, game_id: str) -> int:
    row = db.execute("SELECT seq FROM games WHERE game_id = ?", (game_id,)).fetchone()
    if row is None:
        raise UnknownGame(game_id)
    return row["seq"]


def _stored_action(row: sqlite3.Row) -> StoredAction:
    return StoredAction(seq=row["seq"], actor=row["actor"], action_json=row["action_json"],
                        created_at=datetime.fromisoformat(row["created_at"]), key=row["idempotency_key"],
                        engine_version=row["engine_version"], events_json=row["events_json"])


def _outbox_json(outbox: Iterable[OutgoingMessage]) -> list[str]:
    """The messages as stored, serialised before the transaction so that it holds the write lock no longer
    than its statements need."""
    return [message.model_dump_json() for message in outbox]
