"""Draining the outbox (GameService.deliver): the pending messages of the shards' games, sent by lane.

A lane is one place messages arrive, in the order they were queued: a game's channel with its threads, or one
player's DMs in that game. Lanes are delivered concurrently (at most LANES_AT_ONCE at a time), each in order, so a
lane that is slow (Discord's rate limits are per channel) or failing delays nobody else: a failure holds back only
the later messages of its own lane, which may change what it sent (an edit must not overtake its post).

Each message is changed at most once per drain: the later edits of a message in its lane (lines added to a
growing post, a board replaced again) go with its first edit, as one change (`merged_edit`), unless something in
between could move the message (a new post under its key). Exactly once holds for each row as before: every row
of a merged edit is marked as being sent before the platform is asked and marked sent with the reference after;
a crash in between leaves all of them pending with `sending_since`, and the next drain, which merges them the
same way (rows being sent only with rows being sent: one merged edit at most is in flight in a lane), first
asks the platform whether that change shows.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from bot.app.hours import HoursBook
from bot.app.ports import (
    MENTION,
    ChannelUnreachable,
    DeliveryFailed,
    GameRecordRow,
    GameStore,
    Gateway,
    OutboxRow,
    OutgoingMessage,
    Shards,
)
from bot.app.settings_model import GameSettings

log = logging.getLogger(__name__)

MAX_DELIVERY_ATTEMPTS = 5
STALLED_AT = "stalled_at"  # settings: since when the game's channel refuses the bot (ISO 8601); absent otherwise
# A refusing channel is tried again after as long as it has refused so far, at most this long: a channel gone for
# good costs a request a minute, not one a drain.
STALLED_RETRY = timedelta(minutes=1)
LANES_AT_ONCE = 12  # lanes delivered at the same time: Discord's global budget is 50 requests a second
# Rows a drain takes, of each lane and in all: a lane with many rows waiting (its channel refusing the bot for
# days) leaves room for every other.
LANE_ROWS, DRAIN_ROWS = 100, 5000
# Characters of lines merged into one edit: with the message's text it stays within Discord's 2,000 characters
# a message (discord-api-docs, Resources > Message, Create Message: "content ... up to 2000 characters"); beyond
# it a growing post goes on in a new one, which the gateway does.
MERGED_TEXT_LIMIT = 1500

Lane = tuple[str, str | None]  # (game id, the faction whose DMs, or None for the game's channel and threads)


MODERATORS_LANE = "@moderators"  # the lane of a game's messages to its moderators (Recipient.moderators)


def _lane(row: OutboxRow) -> Lane:
    return row.game_id, MODERATORS_LANE if row.message.recipient.moderators else row.message.recipient.faction


def _pictured(message: OutgoingMessage) -> bool:
    return message.attach_map or message.map_of is not None or message.attach_game_file


def _mergeable(message: OutgoingMessage) -> bool:
    """An edit whose text later edits of the same message may follow in one change: not a decision card asked
    again (its text and controls are its own)."""
    return message.edit_of is not None and message.prompt_id is None


def _joins(group: list[OutboxRow], row: OutboxRow) -> bool:
    first, last = group[0].message, group[-1].message
    return (_mergeable(row.message) and row.message.replace == first.replace and not _pictured(last)
            and (row.sending_since is None) == (group[0].sending_since is None)
            and sum(len(member.message.text) + 1 for member in (*group, row)) <= MERGED_TEXT_LIMIT)


def merged_groups(rows: list[OutboxRow]) -> list[list[OutboxRow]]:
    """One lane's rows (in queue order) as the deliveries to make, in order of their first row: each a row alone,
    or an edit with the later edits of the same message that go with it."""
    groups: list[list[OutboxRow]] = []
    open_edits: dict[str, list[OutboxRow]] = {}  # message key -> the group its next edit may join
    for row in rows:
        message = row.message
        group = open_edits.get(message.edit_of) if message.edit_of is not None else None
        if group is not None and _joins(group, row):
            group.append(row)
        else:
            group = [row]
            groups.append(group)
            for key in (message.key, message.edit_of):  # the message may move: later edits wait for it
                if key is not None:
                    open_edits.pop(key, None)
        if message.edit_of is not None and _mergeable(message) and not _pictured(message):
            open_edits[message.edit_of] = group
        elif message.edit_of is not None:
            open_edits.pop(message.edit_of, None)
    return groups


class Courier:
    """The outbox's deliveries of one process, lane by lane, from drain to drain. A drain (`drain`) starts a task
    for each lane with pending rows that has none running, and waits for them at most `patience` seconds: a lane
    still busy then (Discord making its channel wait) goes on by itself, and the next drain (the next action's)
    starts the other lanes meanwhile, so a slow channel delays no other. While any lane runs, the process holds the
    store's delivery turn (`_hold`): no other drain, here or in another process, hands over the same rows.

    `reachable(game_id, faction, bool)` keeps the game's list of players the bot cannot DM; `channel_state(gateway,
    game_id, problem)` is told what keeps the bot from a game's channel (a problem) or that its messages get
    through (None).

    `hours`: the players' hours (bot/app/hours.py); a DM to a player in their quiet hours goes out silent, and a
    channel post naming them does not ping them; `silenced(game_id, {faction: end of their quiet hours})` is told
    of each such message once it is delivered (a DM follows when their quiet hours end)."""

    def __init__(self, store: GameStore, shards: Shards, clock: Callable[[], datetime],
                 reachable: Callable[[str, str, bool], Awaitable[None]],
                 channel_state: Callable[[Gateway, str, str | None], Awaitable[None]],
                 hours: HoursBook | None = None,
                 silenced: Callable[[str, dict[str, datetime]], Awaitable[None]] | None = None):
        self.store, self.shards, self.clock = store, shards, clock
        self.reachable, self.channel_state = reachable, channel_state
        self.hours, self.silenced = hours, silenced
        self.tried: dict[str, datetime] = {}  # game id -> when its refusing channel was last tried
        self._lanes: dict[Lane, asyncio.Task[int]] = {}  # the lanes being delivered
        self._starting = 0  # drains choosing lanes to start: the turn is kept for them
        self._turn: Shards | None = None  # the shards whose turn this process holds now (None: not held)
        self._session: asyncio.Task[None] | None = None  # holds the turn while lanes run
        # Each session of the turn makes its own (`_open`): a lane ended, or a drain started its lanes; the lanes
        # delivered at once (LANES_AT_ONCE).
        self._changed, self._slots = asyncio.Event(), asyncio.Semaphore(LANES_AT_ONCE)

    async def drain(self, gateway: Gateway, patience: float | None = None) -> int:
        """Start the lanes of the pending rows that no task delivers yet; wait for them (at most `patience`
        seconds; None: until they end). Returns how many rows went out in the lanes that ended meanwhile."""
        self._starting += 1
        try:
            turn = self._turn if self._turn is not None else await self._open()
            lanes: dict[Lane, list[OutboxRow]] = {}
            pending = await self.store.pending_outbox(DRAIN_ROWS, turn, LANE_ROWS) if turn is not None else ()
            for row in pending:
                if _lane(row) not in self._lanes:
                    lanes.setdefault(_lane(row), []).append(row)
            started = [self._start(lane, rows, gateway) for lane, rows in lanes.items()]
        finally:
            self._starting -= 1
            self._changed.set()
        if not started:
            return 0
        done, _ = await asyncio.wait(started, timeout=patience)
        return sum(task.result() for task in done)

    async def settled(self) -> None:
        """Wait until every lane started has ended and the turn is given back (a shutdown lets them finish)."""
        if self._session is not None:
            await asyncio.wait({self._session})

    async def _open(self) -> Shards | None:
        """Take the store's delivery turn for as long as lanes run: the shards it gives (None: none now)."""
        self._changed, self._slots = asyncio.Event(), asyncio.Semaphore(LANES_AT_ONCE)
        opened: asyncio.Future[Shards | None] = asyncio.get_running_loop().create_future()
        self._session = asyncio.create_task(self._hold(opened))
        return await opened

    async def _hold(self, opened: asyncio.Future[Shards | None]) -> None:
        try:
            async with self.store.delivery_turn(self.shards) as turn:
                if not turn.ids:
                    opened.set_result(None)
                    return
                self._turn = turn
                opened.set_result(turn)
                while self._lanes or self._starting:
                    if running := set(self._lanes.values()):
                        # a wait on the lanes themselves, not an event they set: a test's virtual clock (SimCord)
                        # sees this task wait on theirs, and the lanes' own waits (Discord's latency)
                        await asyncio.wait(running)
                    else:  # a drain is choosing its lanes
                        self._changed.clear()
                        await self._changed.wait()
                self._turn = None  # from now on a drain takes the turn anew
        except BaseException as error:
            if not opened.done():
                opened.set_exception(error)
            raise
        finally:
            self._turn = None

    def _start(self, lane: Lane, rows: list[OutboxRow], gateway: Gateway) -> asyncio.Task[int]:
        async def deliver() -> int:
            async with self._slots:
                return await self._lane(rows, gateway)

        task = asyncio.create_task(deliver())
        self._lanes[lane] = task
        changed = self._changed

        def ended(done: asyncio.Task[int]) -> None:
            self._lanes.pop(lane, None)
            changed.set()
            if not done.cancelled() and isinstance(done.exception(), Exception):  # seen even if nobody waits
                log.error("Delivery of %s stopped: %r", lane, done.exception())

        task.add_done_callback(ended)
        return task

    async def _lane(self, rows: list[OutboxRow], gateway: Gateway) -> int:
        sent = 0
        for group in merged_groups(rows):
            delivered = await self._group(group, gateway)
            if delivered is None:  # failed: the lane's later messages wait for it, they may change it
                break
            sent += delivered
        return sent

    async def _prepared(self, rows: list[OutboxRow]) -> list[OutgoingMessage]:
        """The rows' messages as the gateway takes them: with their ids, and the references of the thread they
        go in and of the message they change (the same for every edit of a merged group)."""
        first = rows[0]
        update: dict = {}
        if first.message.recipient.thread is not None:  # the turn's thread, once its opening post is out
            update["thread_ref"] = await self.store.message_ref(first.game_id, first.message.recipient.thread)
        if first.message.edit_of is not None:
            update["edit_ref"] = await self.store.message_ref(first.game_id, first.message.edit_of)
            if update["edit_ref"] is None and (not first.message.replace or first.message.prompt_id is not None):
                # Lines to add to a post that is not there (a game resumed mid-phase, a refused DM), or a card
                # to take the place of one that never arrived: they become that post. A board to replace that
                # is not there stays unshown (the gateway skips it).
                update["edit_of"] = None
        return [row.message.model_copy(update={**update, "outbox_id": row.id}) for row in rows]

    async def _group(self, rows: list[OutboxRow], gateway: Gateway) -> int | None:
        """Deliver one message (or merged edit); how many rows went out, or None when the lane must wait."""
        first = rows[0]
        game = await self.store.load_game(first.game_id)
        assert game is not None  # a game's rows are stored with it
        if first.message.recipient.moderators:
            return await self._tell_moderators(game, first, gateway)
        faction = first.message.recipient.faction
        settings = GameSettings.of(game.settings)
        known_unreachable = faction in settings.unreachable
        stalled = faction is None and settings.stalled_at is not None
        if stalled and not self._time_to_try(game):
            return None
        first_message, *then = await self._prepared(rows)
        first_message, hushed = await self._quiet(game, first_message)
        try:
            ref = None
            if first.sending_since is not None:
                since = min(row.sending_since for row in rows if row.sending_since is not None)  # all (_joins)
                ref = await gateway.find(game, first_message, since, then)
            if ref is None:
                for row in rows:
                    await self.store.mark_sending(row.id)
                ref = await gateway.deliver(game, first_message, then)
        except DeliveryFailed as refusal:
            _warn(game, faction, refusal, "kept for /me prompts")
            for row in rows:
                await self.store.mark_outbox(row.id, "undeliverable")
            if faction is not None and not known_unreachable:
                await self.reachable(game.game_id, faction, False)
            return 0
        except ChannelUnreachable as problem:  # not an attempt: it waits, in order, until the channel is back
            _warn(game, faction, problem.__cause__ or problem, "waits until the bot can write there again",
                  again=stalled)
            await self.channel_state(gateway, game.game_id, str(problem))
            return None
        except Exception as failure:  # noqa: BLE001 - any other failure is retried later, never lost silently
            given_up = first.attempts + 1 >= MAX_DELIVERY_ATTEMPTS
            _warn(game, faction, failure, "given up" if given_up else "retried by the next drain")
            for row in rows:
                await self.store.mark_outbox(row.id, "undeliverable" if given_up else "pending")
            return None
        for row in rows:
            await self.store.mark_outbox(row.id, "sent", ref)
        if hushed and self.silenced is not None:
            await self.silenced(game.game_id, hushed)
        if known_unreachable and faction is not None:
            await self.reachable(game.game_id, faction, True)
        if stalled:
            self.tried.pop(game.game_id, None)
            await self.channel_state(gateway, game.game_id, None)
        return len(rows)

    async def _quiet(self, game: GameRecordRow, message: OutgoingMessage) -> tuple[
            OutgoingMessage, dict[str, datetime]]:
        """The message as it goes out now, when its readers' quiet hours are decided (not when it was queued): a DM
        to a player in their quiet hours silent, a channel post that names such players without pinging them; and,
        for a new message (an edit notifies nobody), those players' factions with the end of their quiet hours."""
        if self.hours is None:
            return message, {}
        faction = message.recipient.faction
        named = [faction] if faction is not None else list(dict.fromkeys(MENTION.findall(message.text)))
        now, hushed, users = self.clock(), {}, []
        for reader in named:
            user = game.seats.get(reader)
            hours = await self.hours.of(user) if user is not None else None
            window = hours.quiet_window(now) if hours is not None else None
            if window is not None:
                hushed[reader] = window[1]
                users.append(user)
        if not hushed:
            return message, {}
        update = {"silent": True} if faction is not None else {"unpinged": users}
        return message.model_copy(update=update), hushed if message.edit_of is None else {}
    async def _tell_moderators(self, game: GameRecordRow, row: OutboxRow, gateway: Gateway) -> int:
        """A message to the game's moderators, by DM (Gateway.tell_moderators, which logs a DM that fails). At most
        once: one that may have gone out already (a crash while it was being sent) is not sent again."""
        if row.sending_since is None:
            await self.store.mark_sending(row.id)
            await gateway.tell_moderators(game, await self.store.moderator_role(game.guild_id), row.message.text)
        await self.store.mark_outbox(row.id, "sent")
        return 1

    def _time_to_try(self, game: GameRecordRow) -> bool:
        """Whether to try the refusing channel again now: after as long as it has refused, at most STALLED_RETRY."""
        now, last, stalled_at = self.clock(), self.tried.get(game.game_id), GameSettings.of(game.settings).stalled_at
        if last is not None and stalled_at is not None and now - last < min(STALLED_RETRY, last - stalled_at):
            return False
        self.tried[game.game_id] = now
        return True


def _warn(game: GameRecordRow, faction: str | None, cause: BaseException, then: str, *, again: bool = False) -> None:
    """Log a failure with its game, place and cause; one that goes on (a channel that still refuses) as info."""
    place = f"the {faction} player's DMs" if faction is not None else f"the channel {game.channel_id}"
    log.log(logging.INFO if again else logging.WARNING, "Delivery of a message of %s to %s failed (%s: %s): %s",
            game.game_id, place, type(cause).__name__, cause, then)
