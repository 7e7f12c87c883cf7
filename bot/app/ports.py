"""The application layer's ports: what the Discord-free game service needs from storage and delivery.

Nothing here imports discord. The service (bot/app/service.py) uses these; bot/store/ implements GameStore
(SQLite embedded, PostgreSQL shared by several bot processes, memory for tests and the console), and each front
(Discord, console, tests) provides a Gateway that delivers outgoing messages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from enum import Enum, StrEnum
from typing import Any, Protocol

from pydantic import BaseModel, Field, field_validator

from bot.app.settings_model import GameSettings
from engine.ids import Faction


class GameStatus(StrEnum):
    OPEN = "open"  # created, seats being filled
    RUNNING = "running"
    PAUSED = "paused"
    ENDED = "ended"


class Recipient(BaseModel):
    """Where a message goes: the game's channel (or a thread of it), or one seated faction (a DM to its player)."""

    channel: bool = False
    faction: str | None = None  # a Faction value; None with channel=True
    # With channel=True: the thread opened from the message created under this key (OutgoingMessage.key and
    # opens_thread), e.g. "turn:3"; the channel itself when that message was never posted.
    thread: str | None = None
    # The game's moderators instead (its creator and the server's moderator role, by DM: Gateway.tell_moderators),
    # never the table: a trouble they should hear of (bot/app/trouble.py).
    moderators: bool = False


MENTION = re.compile(r"\{@([a-z_]+)\}")


def mention(faction: str) -> str:
    """A seated player called by name in a message's text: the front writes it as its own mention (Discord: the
    user, who is pinged; the console: the faction) and pings nobody else."""
    return f"{{@{faction}}}"


class OutgoingMessage(BaseModel):
    """A message the service wants delivered; stored in the same transaction as the action (outbox)."""

    recipient: Recipient
    text: str
    prompt_id: str | None = None  # set when the message carries a decision's buttons or menus
    # A channel post after the storm, the movement round or the battles: the front attaches the table's map
    # picture of the game as it stands (bot/app/feed.py: as each turn begins, and after the battles).
    attach_map: bool = False
    # The table's view of the game (engine.secrecy.views.PlayerView, as JSON) when the post was made: the front draws
    # the
    # attached map from it, so the picture shows the board as of the post it illustrates, not as of its delivery.
    # (A post queued before this field existed has attach_map alone: its map is drawn from the game as it stands.)
    map_of: str | None = None
    # A channel post of a game that is over (a cancelled game's announcement): the front attaches the whole game
    # file, every secret included (GameService.export, which gives it only once the game has ended).
    attach_game_file: bool = False
    # A correction the engine does not record (a seat, a pause, an undo): also an entry of the game's public
    # log (`GameService.public_log`). Only channel messages are logged.
    logged: bool = False
    # Set by the service when it hands a queued message to a Gateway: the outbox row's id, the delivery's
    # idempotency key (a redelivery after a crash carries the same id; see GameService.deliver).
    outbox_id: int | None = None
    # A name for the message this creates, so that a later message can change it in place: "card:p12" for the
    # decision card of prompt p12 (the gateway reports where it posted it, the store keeps that reference).
    key: str | None = None
    # Instead of a new message: the message created under this key gets `text` added, and its controls are
    # disabled (a decision card when its decision closes). Skipped when that message was never delivered.
    edit_of: str | None = None
    # Set by the service for an edit: the platform's reference of the message to edit (from the store).
    edit_ref: str | None = None
    # With edit_of: the new text replaces the message's (a status board) instead of being added to it.
    replace: bool = False
    # A channel post that opens a thread of this name (a turn's detail), and one that is pinned (the status board).
    opens_thread: str | None = None
    pin: bool = False
    # Set by the service for a message into a thread: the platform's reference of the message that opened it.
    thread_ref: str | None = None
    # Set when the message is delivered, for readers in their quiet hours (bot/app/hours.py): a DM that arrives
    # without a notification (Discord's suppress-notifications flag), and the users a channel post names without
    # pinging them.
    silent: bool = False
    unpinged: list[int] = Field(default_factory=list)


class OutboxRow(BaseModel):
    id: int
    game_id: str
    seq: int  # the action (game version) that produced it
    message: OutgoingMessage
    attempts: int = 0
    status: str = "pending"  # pending, sent, undeliverable
    created_at: datetime | None = None
    sending_since: datetime | None = None  # a delivery began then and was not marked done: it may have arrived


class GameRecordRow(BaseModel):
    """One stored game: where it is played, who sits where, and its current snapshot."""

    game_id: str
    guild_id: int
    channel_id: int
    status: GameStatus
    setup_json: str  # engine GameSetup as JSON
    state_json: str  # engine GameState snapshot as JSON (a cache of setup + actions)
    seq: int  # actions applied so far (= GameState.seq)
    seats: dict[str, int] = Field(default_factory=dict)  # Faction value -> Discord user id
    created_at: datetime | None = None
    # The bot's settings for this game, as the JSON object stored: its keys are named, typed and explained by
    # bot/app/settings_model.py GameSettings, which checks them when a row is read (`_settings_hold`) and gives
    # readers typed values (GameSettings.of).
    settings: dict[str, Any] = Field(default_factory=dict)
    started_at: datetime | None = None  # set by the store when the game first goes RUNNING
    # The version of Mentat (engine.__version__) that created the game, or imported it; "0.1.0" for the games
    # stored before versions were recorded. None only where a caller did not say (a test's row).
    engine_version: str | None = None
    # When the game next has something to do on its own: the earliest reminder or default of its open decisions
    # (GameService.tick reads only the games whose time has come: GameStore.games_due). None: nothing, ever, until
    # something changes (no deadline, paused, not running).
    due_at: datetime | None = None

    @property
    def play_began_at(self) -> datetime:
        """When its decisions began to wait: its first start, else (never started) its creation."""
        return stored_time(self.started_at or self.created_at)

    @field_validator("settings")
    @classmethod
    def _settings_hold(cls, settings: dict[str, Any]) -> dict[str, Any]:
        """Settings whose keys hold what they never held refuse the row; the stored object is kept as it is."""
        GameSettings.of(settings)
        return settings


def stored_time(moment: datetime | None) -> datetime:
    """The time a store stamped on a row it returned: None only on a row not yet stored (a caller's new row)."""
    if moment is None:
        raise ValueError("a stored row without the time its store stamped on it")
    return moment


class Recheck(Enum):
    """The due time of a write that does not say it (`GameStore.set_settings` called without `due_at`): the game is
    due at once, so the next tick works its due time out again. A writer that forgets it costs one look, never a
    missed deadline."""

    AT_ONCE = "at once"


RECHECK = Recheck.AT_ONCE
DueAt = datetime | None | Recheck  # what a write sets the game's due time to (GameRecordRow.due_at)


class LogNote(BaseModel):
    """A logged channel message (OutgoingMessage.logged): a correction outside the engine's action log."""

    seq: int  # the game's version when it was queued
    text: str
    created_at: datetime


class StoredAction(BaseModel):
    seq: int  # 1-based: the game's version after applying it
    actor: int  # Discord user id of whoever submitted it (a player, or an admin for corrections)
    action_json: str  # engine Action as JSON
    created_at: datetime | None = None
    key: str | None = None  # the idempotency key it was submitted with (the Discord interaction's id)
    # The version of Mentat (engine.__version__) that applied it; "0.1.0" for the actions stored before versions
    # were recorded. None only where a caller did not say (a test's row).
    engine_version: str | None = None
    # The events it produced, as their readers were shown them (bot/app/history.py writes them): the log, the
    # exports and undo read these, not a replay under rules that may have changed since. None where they were not
    # kept (an action stored before they were), which those rebuild by replay.
    events_json: str | None = None


DISCORD_SHARD_SHIFT = 22  # a guild's shard is (guild_id >> 22) % shard_count (Discord's sharding formula)


@dataclass(frozen=True)
class Shards:
    """The Discord shards one bot process runs, out of `count`. A game belongs to the shard of its guild, and
    only the process running that shard delivers the game's outbox and runs its deadlines. One process alone
    runs every shard: ALL_SHARDS."""

    ids: frozenset[int]
    count: int

    def __post_init__(self) -> None:
        if self.count < 1 or not all(0 <= shard < self.count for shard in self.ids):
            raise ValueError(f"shards {sorted(self.ids)} are not all in 0..{self.count - 1}")

    def owns(self, guild_id: int) -> bool:
        return (guild_id >> DISCORD_SHARD_SHIFT) % self.count in self.ids

    @property
    def everything(self) -> bool:
        return len(self.ids) == self.count


ALL_SHARDS = Shards(frozenset({0}), 1)


class VersionConflict(Exception):
    """The game moved on since the caller loaded it (a double click or a concurrent action)."""


class UnknownGame(LookupError):
    """No stored game has this id."""


class SeatChanged(Exception):
    """The seat was not held by whom the writer read there (another process changed it meanwhile): nothing was
    written."""


class GameExists(Exception):
    """A game with this id is already stored, or a game that has not ended would be the channel's second (a
    channel holds one such game at a time; a game that has ended leaves its channel to a new one)."""


class GameStore(Protocol):
    """Persistence. Every method is atomic; `commit_action` writes the action, the new snapshot and the
    outbox rows in one transaction and refuses (VersionConflict) unless the stored seq is `expected_seq`.
    A method given the id of a game never created raises UnknownGame (`load_game` returns None instead)."""

    async def create_game(self, game: GameRecordRow, outbox: list[OutgoingMessage],
                          actions: Sequence[StoredAction] = (), opening_events_json: str | None = None) -> None:
        """A new game, with the events of its opening (version 0) as they were shown (`opening_events`); an imported
        one comes with its actions (seq 1..game.seq, in order)."""
        ...

    async def opening_events(self, game_id: str) -> str | None:
        """The events of the game's opening as `create_game` was given them (bot/app/history.py writes them); None
        where they were not kept (a game stored before they were), which the log rebuilds by replay. Apart from the
        game's row, which every action reads and writes: only its log reads them."""
        ...

    async def load_game(self, game_id: str) -> GameRecordRow | None: ...

    async def game_in_channel(self, channel_id: int) -> GameRecordRow | None:
        """The channel's game that has not ended, else its newest game (None when it never held one)."""
        ...

    async def games_in_channel(self, channel_id: int) -> list[GameRecordRow]:
        """Every game the channel held, newest first."""
        ...

    async def list_games(self, guild_id: int | None = None) -> list[GameRecordRow]: ...

    async def games_due(self, now: datetime, shards: Shards = ALL_SHARDS) -> list[str]:
        """The games of `shards` whose due time (GameRecordRow.due_at) is at or before `now`, earliest first: an
        index read, so its cost follows the games waiting on a deadline, not every game stored."""
        ...

    async def action_times(self, game_id: str, seqs: set[int]) -> dict[int, datetime]:
        """When the game's actions numbered `seqs` were stored (seq -> created_at; a seq the game has not is
        left out): the moments its open decisions opened, without reading the actions themselves."""
        ...

    async def commit_action(self, game_id: str, expected_seq: int, actor: int, action_json: str,
                            state_json: str, outbox: list[OutgoingMessage], status: GameStatus | None = None,
                            key: str | None = None, *, engine_version: str | None = None,
                            events_json: str | None = None, state_before_json: str | None = None,
                            due_at: DueAt = RECHECK) -> int:
        """The action (with its idempotency key, the version of Mentat that applied it, its events and the snapshot
        it was applied to: StoredAction, `snapshot_from`), the new snapshot, its messages and (when the game ends)
        its new status, and the game's new due time (`due_at`), atomically. A key already stored for the game refuses
        with VersionConflict."""
        ...

    async def snapshot_from(self, game_id: str, version: int) -> tuple[int, str]:
        """The earliest version of the game at or after `version` whose snapshot is stored, and that snapshot: the
        game's own at its current version, or one kept with the action applied to it (`commit_action`'s
        state_before_json). Kept snapshots read back from the current one through every later action, so the walk
        back stops at an action stored without one (before snapshots were kept, or imported)."""
        ...

    async def action_with_key(self, game_id: str, key: str) -> StoredAction | None:
        """The game's action submitted with this idempotency key, if any."""
        ...

    async def replace_history(self, game_id: str, keep: int, state_json: str, outbox: list[OutgoingMessage],
                              status: GameStatus | None = None, *, due_at: DueAt = RECHECK) -> None:
        """Undo: drop the actions after `keep`, store the snapshot of version `keep` (seq = keep), queue the messages,
        set the due time and, when given, the new status (an undone end: RUNNING again), in one transaction. The
        snapshots kept before `keep` read back only from the one that was stored for `keep` (`snapshot_from`), as
        `state_json`."""
        ...

    async def actions(self, game_id: str) -> list[StoredAction]: ...

    async def queue(self, game_id: str, outbox: list[OutgoingMessage]) -> None:
        """Queue messages that no action produced (the opening deal, delivery notices), at the current seq."""
        ...

    async def set_seat(self, game_id: str, faction: str, user_id: int | None,
                       outbox: Sequence[OutgoingMessage] = (), *, was: int | None,
                       settings: dict[str, Any] | None = None) -> None:
        """Seat (or, with None, unseat) a player where `was` sat (None: a free seat), with the game's new settings
        if given, and queue its announcement, in one transaction; SeatChanged, and nothing written, if someone
        else holds the seat now."""
        ...

    async def set_status(self, game_id: str, status: GameStatus, outbox: Sequence[OutgoingMessage] = (),
                         settings: dict[str, Any] | None = None, *, due_at: DueAt = RECHECK) -> None:
        """Change the status and the due time (and, given them, replace the settings: a cancellation and its record)
        and queue its announcement in the same transaction. The first change to RUNNING also records `started_at`
        (the store's clock)."""
        ...

    async def set_settings(self, game_id: str, settings: dict[str, Any], outbox: Sequence[OutgoingMessage] = (), *,
                           due_at: DueAt = RECHECK) -> None:
        """Replace the game's bot settings (a JSON-serialisable dict) and its due time, and queue their announcement
        (a reminder and the record that it was sent, a new deadline and its notice) in the same transaction."""
        ...

    def delivery_turn(self, shards: Shards) -> AbstractAsyncContextManager[Shards]:
        """While held, no other process (sharing the database) delivers the outbox of the shards it yields:
        those of `shards` that no other process is delivering now (the others are left for next time)."""
        ...

    async def pending_outbox(self, limit: int = 100, shards: Shards = ALL_SHARDS,
                             per_lane: int | None = None) -> list[OutboxRow]:
        """The oldest pending rows of the games in `shards`, in id order; with `per_lane`, at most that many of
        each lane (a game's channel, or one player's DMs in a game: the game and the recipient's faction), so that
        a lane with many rows waiting (its channel refusing the bot) leaves room for the others."""
        ...

    async def mark_sending(self, outbox_id: int) -> None:
        """Record that a delivery of the row begins now (OutboxRow.sending_since), before the platform is asked."""
        ...

    async def mark_outbox(self, outbox_id: int, status: str, ref: str | None = None) -> None:
        """Record a delivery attempt: "sent", "pending" (retry later; attempts += 1) or "undeliverable"; with
        "sent", `ref` is where the platform put the message (kept for a message that has a key)."""
        ...

    async def message_ref(self, game_id: str, key: str) -> str | None:
        """The platform reference of the newest sent message created under `key` (OutgoingMessage.key)."""
        ...

    async def log_notes(self, game_id: str) -> list[LogNote]:
        """The game's logged channel messages (OutgoingMessage.logged), oldest first, whatever their status."""
        ...

    async def get_value(self, key: str) -> str | None:
        """A value the bot keeps about itself rather than about a game (the hash of the command tree it last
        synced to Discord), by name; None when it was never set."""
        ...

    async def set_value(self, key: str, value: str) -> None:
        """Keep a value under its name, replacing the one kept before."""
        ...

    async def moderator_role(self, guild_id: int) -> int | None:
        """The role whose members moderate the server's games (besides Manage Server), if one is set."""
        ...

    async def set_moderator_role(self, guild_id: int, role_id: int | None) -> None:
        """Set the server's moderator role, or with None clear it."""
        ...

    async def close(self) -> None: ...


class Gateway(Protocol):
    """Delivers messages. Raises DeliveryFailed when a DM cannot reach its player (closed DMs).

    `deliver` must be idempotent per `message.outbox_id`: the service marks a row sent only after `deliver`
    returns, so a crash in between delivers that row again after the restart, and the gateway (or the
    platform, keyed by the id) must drop the second copy. That is how each message arrives exactly once."""

    async def deliver(self, game: GameRecordRow, message: OutgoingMessage,
                      then: Sequence[OutgoingMessage] = ()) -> str | None:
        """Send the message (or, with `edit_ref`, change the message it names) and return the platform's
        reference of the message sent, to edit it later (None where the platform has none). `then`: later edits
        of the same message (`merged_edit`), made together with this one as one change.

        Raises ChannelUnreachable when the game's channel refuses the bot, DeliveryFailed when a DM cannot reach
        its player; anything else is a failure to retry."""
        ...

    async def find(self, game: GameRecordRow, message: OutgoingMessage, since: datetime,
                   then: Sequence[OutgoingMessage] = ()) -> str | None:
        """Whether the message (with the edits `then`, as `deliver` was given them) was already delivered, by a
        send begun at `since` that a crash cut off before it was marked: its reference (its edit, for an edit)
        if the platform shows it, else None."""
        ...

    async def tell_moderators(self, game: GameRecordRow, moderator_role: int | None, text: str) -> None:
        """Tell the game's moderators privately (its creator, and the members of the server's moderator role the
        platform knows): what keeps the bot from the game's channel, or that it writes there again."""
        ...

    async def can_dm(self, game: GameRecordRow, faction: str) -> bool:
        """Whether the player seated as `faction` receives DMs from the bot, found by sending a short welcome
        DM (on Discord the only sure test). Called for every seat at the start of the game."""
        ...


class DeliveryFailed(Exception):
    """A message could not be delivered (for a DM: the player does not accept DMs from the bot)."""


class ChannelUnreachable(Exception):
    """The game's channel refuses the bot (a permission taken from it, the channel deleted): nothing reaches the
    table until a moderator puts it right. The message says what is wrong, in words for the game's moderators."""


def merged_edit(message: OutgoingMessage, then: Sequence[OutgoingMessage]) -> OutgoingMessage:
    """An edit and the later edits of the same message (GameService.deliver merges them), as one edit: the lines
    each adds, in order (a replaced text: the last one's), with the last one's picture."""
    if not then:
        return message
    last = then[-1]
    text = last.text if message.replace else "\n".join(edit.text for edit in (message, *then))
    return last.model_copy(update={"text": text, "outbox_id": message.outbox_id, "edit_ref": message.edit_ref,
                                   "thread_ref": message.thread_ref})


def keyed_seat(key: str | None, prefix: str) -> tuple[Faction, int] | None:
    """The seat and the number a message's key names after its prefix, in either order ("seat-call:fremen:2",
    "vote:3:fremen"); None for a key of another kind or one that names no seat."""
    parts = (key or "").split(":")
    if len(parts) != 3 or parts[0] != prefix:
        return None
    number, name = (parts[2], parts[1]) if parts[2].isdigit() else (parts[1], parts[2])
    if not number.isdigit() or name not in {f.value for f in Faction}:
        return None
    return Faction(name), int(number)

