"""An in-memory GameStore for tests and the offline console; it honours the same contract as the SQLite store.

No method awaits anything, so under asyncio each one runs to completion before another starts: that is its
atomicity. Each method checks everything before it changes anything, so a refusal leaves no trace. Rows are
copied in and out so a caller mutating what it passed or received cannot change the stored data.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

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
    stored_time,
)
from bot.app.settings_model import GameSettings
from bot.store.common import (
    Clock,
    SingleProcessTurn,
    as_utc,
    check_imported_actions,
    check_keep,
    check_outbox_status,
    stored_due,
    utc_now,
)


class MemoryGameStore:
    def __init__(self, clock: Clock = utc_now) -> None:
        self._clock = clock
        self._games: dict[str, GameRecordRow] = {}  # in creation order
        self._actions: dict[str, list[StoredAction]] = {}
        # game -> {action seq: (the snapshot it applied to, the one it made)}: a kept snapshot reads back only from the
        # one that followed it, as the SQL stores' packed snapshots do (bot/store/common.py, pack_snapshot)
        self._snapshots: dict[str, dict[int, tuple[str, str]]] = {}
        self._openings: dict[str, str | None] = {}  # game -> the events of its opening, as kept
        self._outbox: dict[int, OutboxRow] = {}  # in id order
        self._last_outbox_id = 0
        self._refs: dict[tuple[str, str], str] = {}  # (game, message key) -> where the platform put it
        self._pending: dict[int, None] = {}  # ids of the pending rows, in id order (an ordered set)
        self._values: dict[str, str] = {}  # the bot's own values (GameStore.get_value)
        self._moderator_roles: dict[int, int] = {}  # guild -> its moderator role
        self.delivery_turn = SingleProcessTurn()

    async def create_game(self, game: GameRecordRow, outbox: list[OutgoingMessage],
                          actions: Sequence[StoredAction] = (), opening_events_json: str | None = None) -> None:
        check_imported_actions(game.game_id, game.seq, list(actions))
        if game.game_id in self._games:
            raise GameExists(f"game {game.game_id} already exists")
        if game.status != GameStatus.ENDED and any(stored.channel_id == game.channel_id and stored.status !=
                                                   GameStatus.ENDED for stored in self._games.values()):
            raise GameExists(f"channel {game.channel_id} already has a game that has not ended")
        created_at = as_utc(game.created_at) if game.created_at else self._now()
        started_at = as_utc(game.started_at) if game.started_at else None
        settings = json.loads(json.dumps(game.settings))
        self._games[game.game_id] = game.model_copy(
            deep=True, update={"created_at": created_at, "started_at": started_at, "settings": settings,
                               "due_at": stored_due(game.due_at)})
        self._actions[game.game_id] = [action.model_copy(update={"created_at": as_utc(action.created_at)
                                                                 if action.created_at else created_at})
                                       for action in actions]
        self._snapshots[game.game_id] = {}
        self._openings[game.game_id] = opening_events_json
        self._queue(game.game_id, game.seq, outbox)

    async def load_game(self, game_id: str) -> GameRecordRow | None:
        game = self._games.get(game_id)
        if game is None:
            return None
        GameSettings.of(game.settings)  # checked as the SQL stores check them when they read the row
        return game.model_copy(deep=True)

    async def game_in_channel(self, channel_id: int) -> GameRecordRow | None:
        games = await self.games_in_channel(channel_id)
        return next((game for game in games if game.status != GameStatus.ENDED), games[0] if games else None)

    async def games_in_channel(self, channel_id: int) -> list[GameRecordRow]:
        games = [game for game in await self.list_games() if game.channel_id == channel_id]
        return games[::-1]

    async def list_games(self, guild_id: int | None = None) -> list[GameRecordRow]:
        games = [game for game in self._games.values() if guild_id is None or game.guild_id == guild_id]
        # sorted() is stable, so games created at the same instant stay in creation order, as in SQLite.
        by_creation = sorted(games, key=lambda game: stored_time(game.created_at))
        return [game.model_copy(deep=True) for game in by_creation]

    async def games_due(self, now: datetime, shards: Shards = ALL_SHARDS) -> list[str]:
        due = [(game.due_at, game.created_at, game.game_id) for game in self._games.values()
               if game.due_at is not None and game.due_at <= now and shards.owns(game.guild_id)]
        return [game_id for _, _, game_id in sorted(due)]

    async def action_times(self, game_id: str, seqs: set[int]) -> dict[int, datetime]:
        return {action.seq: stored_time(action.created_at) for action in self._actions.get(game_id, [])
                if action.seq in seqs}

    async def commit_action(self, game_id: str, expected_seq: int, actor: int, action_json: str,
                            state_json: str, outbox: list[OutgoingMessage], status: GameStatus | None = None,
                            key: str | None = None, *, engine_version: str | None = None,
                            events_json: str | None = None, state_before_json: str | None = None,
                            due_at: DueAt = RECHECK) -> int:
        game = self._game(game_id)
        if game.seq != expected_seq:
            raise VersionConflict(f"game {game_id} is at seq {game.seq}, not {expected_seq}")
        if key is not None and await self.action_with_key(game_id, key) is not None:
            raise VersionConflict(f"game {game_id} already took the action of {key}")
        new_seq = expected_seq + 1
        self._actions[game_id].append(
            StoredAction(seq=new_seq, actor=actor, action_json=action_json, created_at=self._now(), key=key,
                         engine_version=engine_version, events_json=events_json))
        if state_before_json is not None:
            self._snapshots[game_id][new_seq] = (state_before_json, state_json)
        game.state_json, game.seq, game.due_at = state_json, new_seq, stored_due(due_at)
        self._queue(game_id, new_seq, outbox)
        if status is not None:
            game.status = GameStatus(status)
        return new_seq

    async def opening_events(self, game_id: str) -> str | None:
        self._game(game_id)
        return self._openings[game_id]

    async def snapshot_from(self, game_id: str, version: int) -> tuple[int, str]:
        game = self._game(game_id)
        earliest, snapshot = game.seq, game.state_json
        while earliest > version and (kept := self._snapshots[game_id].get(earliest)) and kept[1] == snapshot:
            earliest, snapshot = earliest - 1, kept[0]
        return earliest, snapshot

    async def replace_history(self, game_id: str, keep: int, state_json: str, outbox: list[OutgoingMessage],
                              status: GameStatus | None = None, *, due_at: DueAt = RECHECK) -> None:
        game = self._game(game_id)
        check_keep(game_id, keep, game.seq)
        self._actions[game_id] = [action for action in self._actions[game_id] if action.seq <= keep]
        self._snapshots[game_id] = {seq: kept for seq, kept in self._snapshots[game_id].items() if seq <= keep}
        game.state_json, game.seq, game.due_at = state_json, keep, stored_due(due_at)
        if status is not None:
            game.status = GameStatus(status)
        self._queue(game_id, keep, outbox)

    async def action_with_key(self, game_id: str, key: str) -> StoredAction | None:
        found = next((a for a in self._actions.get(game_id, []) if a.key == key), None)
        return found.model_copy() if found is not None else None

    async def actions(self, game_id: str) -> list[StoredAction]:
        return [action.model_copy() for action in self._actions.get(game_id, [])]

    async def set_seat(self, game_id: str, faction: str, user_id: int | None,
                       outbox: Sequence[OutgoingMessage] = (), *, was: int | None,
                       settings: dict[str, Any] | None = None) -> None:
        game = self._game(game_id)
        if game.seats.get(faction) != was:
            raise SeatChanged(faction)
        if settings is not None:
            game.settings = json.loads(json.dumps(settings))  # a copy, refused as SQLite would if not JSON
        if user_id is None:
            game.seats.pop(faction, None)
        else:
            game.seats[faction] = user_id
        self._queue(game_id, game.seq, list(outbox))

    async def set_status(self, game_id: str, status: GameStatus, outbox: Sequence[OutgoingMessage] = (),
                         settings: dict[str, Any] | None = None, *, due_at: DueAt = RECHECK) -> None:
        game = self._game(game_id)
        if settings is not None:
            game.settings = json.loads(json.dumps(settings))  # a copy, refused as SQLite would if not JSON
        game.status, game.due_at = GameStatus(status), stored_due(due_at)
        if game.status == GameStatus.RUNNING and game.started_at is None:
            game.started_at = self._now()
        if outbox:
            self._queue(game_id, game.seq, list(outbox))

    async def set_settings(self, game_id: str, settings: dict[str, Any], outbox: Sequence[OutgoingMessage] = (), *,
                           due_at: DueAt = RECHECK) -> None:
        game = self._game(game_id)
        game.settings = json.loads(json.dumps(settings))  # a copy, refused as SQLite would if not JSON
        game.due_at = stored_due(due_at)
        self._queue(game_id, game.seq, list(outbox))

    async def queue(self, game_id: str, outbox: list[OutgoingMessage]) -> None:
        self._queue(game_id, self._game(game_id).seq, outbox)

    async def pending_outbox(self, limit: int = 100, shards: Shards = ALL_SHARDS,
                             per_lane: int | None = None) -> list[OutboxRow]:
        pending = [row for row in map(self._outbox.__getitem__, self._pending)
                   if shards.owns(self._games[row.game_id].guild_id)]
        if per_lane is not None:
            taken: Counter[tuple[str, str | None]] = Counter()
            kept = []
            for row in pending:
                lane = (row.game_id, row.message.recipient.faction)
                taken[lane] += 1
                if taken[lane] <= per_lane:
                    kept.append(row)
            pending = kept
        return [row.model_copy(deep=True) for row in pending[:limit]]

    async def mark_sending(self, outbox_id: int) -> None:
        row = self._outbox.get(outbox_id)
        if row is None:
            raise KeyError(f"no outbox row {outbox_id}")
        row.sending_since = self._now()

    async def mark_outbox(self, outbox_id: int, status: str, ref: str | None = None) -> None:
        check_outbox_status(status)
        row = self._outbox.get(outbox_id)
        if row is None:
            raise KeyError(f"no outbox row {outbox_id}")
        row.status = status
        if status == "pending":
            row.attempts += 1
        else:
            self._pending.pop(outbox_id, None)
        if status == "sent" and ref is not None and row.message.key is not None:
            self._refs[(row.game_id, row.message.key)] = ref

    async def message_ref(self, game_id: str, key: str) -> str | None:
        return self._refs.get((game_id, key))

    async def log_notes(self, game_id: str) -> list[LogNote]:
        self._game(game_id)
        return [LogNote(seq=row.seq, text=row.message.text, created_at=row.created_at)
                for row in self._outbox.values() if row.game_id == game_id and row.message.logged]

    async def get_value(self, key: str) -> str | None:
        return self._values.get(key)

    async def set_value(self, key: str, value: str) -> None:
        self._values[key] = value

    async def moderator_role(self, guild_id: int) -> int | None:
        return self._moderator_roles.get(guild_id)

    async def set_moderator_role(self, guild_id: int, role_id: int | None) -> None:
        if role_id is None:
            self._moderator_roles.pop(guild_id, None)
        else:
            self._moderator_roles[guild_id] = role_id

    async def close(self) -> None:
        """Nothing to release; present because the port requires it."""

    def _game(self, game_id: str) -> GameRecordRow:
        game = self._games.get(game_id)
        if game is None:
            raise UnknownGame(game_id)
        return game

    def _now(self) -> datetime:
        return as_utc(self._clock())

    def _queue(self, game_id: str, seq: int, outbox: list[OutgoingMessage]) -> None:
        for message in outbox:
            self._last_outbox_id += 1
            self._outbox[self._last_outbox_id] = OutboxRow(
                id=self._last_outbox_id, game_id=game_id, seq=seq, message=message.model_copy(deep=True),
                created_at=self._now())
            self._pending[self._last_outbox_id] = None
