"""Delivers the outbox through Discord: table messages to the game's channel, secrets by DM to the seated
player. A DM the player does not accept (discord.Forbidden, code 50007) raises DeliveryFailed, and the
service tells the table and keeps the message for /me prompts; any other failure is retried later. A table message
Discord refuses (discord.Forbidden: a permission taken from the bot mid-game) is logged as a warning naming the
channel and each permission the bot now lacks there; `channel_problem` says it in words for the moderators.

Turn threads live for weeks: Discord archives a thread after its auto-archive duration without a new message (the
longest, a week, is asked for) and then refuses edits in it (code 50083) until it is unarchived, so a thread is
unarchived before anything is posted or edited in it. An edit Discord refuses for good (the message or its channel
deleted, the thread archived and not to be unarchived) is posted anew instead, so no line of the story is lost.

Requests it does not make: an edit needs no GET of the message (the bot remembers each message as it last sent or
edited it, the latest `REMEMBERED` of them, and edits it by its id, which is the edit's one request; only a message
it does not remember, after a restart, is fetched first), and a DM needs no GET of the user (each player's DM channel
is opened once and kept). What it remembers is what the message shows while one process delivers the game's shard
(a process that starts remembers nothing yet); two processes given the same shards at once, taking turns, would
each remember only their own edits.
A channel message Discord refuses because the channel is gone or closed to the bot (403, or 404 Unknown Channel)
raises ChannelUnreachable, with `channel_problem`'s words: the service stops the game's clocks and tells its
moderators (`tell_moderators`)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import datetime, timedelta
from typing import Final, cast

import discord
from discord.ui.select import BaseSelect

from bot.app.hours import HoursBook
from bot.app.lobby import LOBBY_KEY, welcome_text
from bot.app.map_picture import render_view
from bot.app.ports import (
    MENTION,
    ChannelUnreachable,
    DeliveryFailed,
    GameRecordRow,
    OutgoingMessage,
    merged_edit,
)
from bot.app.settings_model import GameSettings
from bot.discord.anytime_panel import welcome_view
from bot.discord.components import prompt_view
from bot.discord.lobby import lobby_view
from bot.discord.permissions import Channel, Needed, bot_permissions, missing, missing_words
from bot.discord.seat_controls import controls_for
from bot.discord.text import MESSAGE_LIMIT, split_message
from engine.ids import Faction
from engine.model import GameState
from engine.names import faction_name
from engine.secrecy.views import PlayerView, view

log = logging.getLogger(__name__)
NO_MENTIONS = discord.AllowedMentions.none()
RECENT = 50  # messages of a channel or DM looked through for a send a crash cut off
THREAD_ARCHIVE_MINUTES: Final = 10080  # Discord's longest auto-archive duration: a week without a new message
# Discord's codes for an edit that no retry can make: unknown channel, unknown message, archived thread
EDIT_REFUSED_FOR_GOOD = {10003, 10008, 50083}
UNKNOWN_CHANNEL, ARCHIVED_THREAD = 10003, 50083
REMEMBERED = 4096  # messages the bot remembers as it last sent or edited them (an edit then needs no GET)


def _in_dm(game: GameRecordRow, text: str) -> str:
    """A DM's text: a player may sit in several games, so each DM says which one it is about."""
    return f"**Dune in <#{game.channel_id}>**\n{text}"


def _as_new(message: OutgoingMessage) -> OutgoingMessage:
    """An edit made a message of its own, in the same place."""
    return message.model_copy(update={"edit_of": None, "edit_ref": None})


def _ref(message: discord.Message | None) -> str | None:
    return _ref_of(message) if message is not None else None


def _ref_of(message: discord.Message) -> str:
    """Where a message is, as the store keeps it: "<channel id>:<message id>"."""
    return f"{message.channel.id}:{message.id}"


def _text_place(channel: Channel) -> discord.abc.Messageable:
    """A game's channel, or one of its threads, as found by id: a place to write in (a game is created only in a
    text channel, bot/discord/lobby.py; a test's fakes are not discord.py's classes, so no isinstance)."""
    return cast(discord.abc.Messageable, channel)


class DiscordGateway:
    """`game_file`: the whole file of a game that is over (GameService.export), for a post that carries it.
    `hours`: the players' hours, for the DMs it sends outside the outbox (the welcome, a word to the moderators):
    silent in the reader's quiet hours, as the Courier makes the outbox's."""

    def __init__(self, client: discord.Client, game_file: Callable[[str], Awaitable[str]] | None = None,
                 hours: HoursBook | None = None):
        self.client = client
        self.game_file = game_file
        self.hours = hours
        self._messages: OrderedDict[str, discord.Message] = OrderedDict()  # ref -> as the bot last gave it
        self._dm_channels: dict[int, discord.abc.Messageable] = {}  # user id -> the DM channel opened with them

    async def deliver(self, game: GameRecordRow, message: OutgoingMessage,
                      then: Sequence[OutgoingMessage] = ()) -> str | None:
        with self._table_refusals(game, message):
            return await self._deliver(game, merged_edit(message, then))

    async def find(self, game: GameRecordRow, message: OutgoingMessage, since: datetime,
                   then: Sequence[OutgoingMessage] = ()) -> str | None:
        with self._table_refusals(game, message):
            return await self._find(game, merged_edit(message, then), since)

    @contextlib.contextmanager
    def _table_refusals(self, game: GameRecordRow, message: OutgoingMessage) -> Iterator[None]:
        """A channel message Discord refuses because the bot may not write there any more (403) or the channel is
        gone (404, Unknown Channel) raises ChannelUnreachable, saying what is wrong (`channel_problem`, else
        Discord's own words)."""
        try:
            yield
        except discord.HTTPException as refusal:
            shut = isinstance(refusal, discord.Forbidden) or refusal.code == UNKNOWN_CHANNEL
            if not message.recipient.channel or not shut:
                raise
            place, lacking = self._lacking(game)
            if lacking is None:
                why = "the bot cannot see that channel"
            elif lacking:
                why = f"the bot lacks {', '.join(needed.name for needed in lacking)} there"
            else:
                why = "the bot's permissions there look complete"
            log.warning("Discord refused a message of %s to %s (%s): %s", game.game_id, place, refusal.text, why)
            problem = self.channel_problem(game) or f"Discord refuses the bot's messages in {place}: {refusal.text}."
            raise ChannelUnreachable(problem) from refusal

    async def tell_moderators(self, game: GameRecordRow, moderator_role: int | None, text: str) -> None:
        """DM the game's creator and the members of the server's moderator role in discord.py's cache (the bot asks
        for no member list: Discord's members intent is privileged); a DM that fails is logged."""
        creator = GameSettings.of(game.settings).creator
        users = {creator} if creator is not None else set()
        guild = self.client.get_guild(game.guild_id)
        role = guild.get_role(moderator_role) if guild is not None and moderator_role is not None else None
        users |= {member.id for member in (role.members if role is not None else ()) if not member.bot}
        for user_id in sorted(users):
            try:
                await (await self._dm_channel(user_id)).send(text, allowed_mentions=NO_MENTIONS,
                                                             silent=await self._quiet(user_id))
            except discord.HTTPException as refusal:
                log.warning("Could not tell the moderator %s of %s: %s", user_id, game.game_id, refusal)

    async def _quiet(self, user_id: int) -> bool:
        """Whether the user is in their quiet hours now (a DM to them then goes out silent)."""
        if self.hours is None:
            return False
        hours = await self.hours.of(user_id)
        return hours is not None and hours.is_quiet(self.hours.clock())

    async def _dm_channel(self, user_id: int) -> discord.abc.Messageable:
        """The DM channel with the user, opened once (one request, no fetch of the user) and kept."""
        channel = self._dm_channels.get(user_id)
        if channel is None:
            channel = self._dm_channels[user_id] = await self.client.create_dm(discord.Object(user_id))
        return channel

    def _remember(self, message: discord.Message | None) -> discord.Message | None:
        if message is not None:
            ref = _ref_of(message)
            self._messages[ref] = message
            self._messages.move_to_end(ref)
            while len(self._messages) > REMEMBERED:
                self._messages.popitem(last=False)
        return message

    def channel_problem(self, game: GameRecordRow) -> str | None:
        """What keeps the bot from the game's channel now, in words for its moderators: each missing permission, why
        it is needed and how to grant it (from discord.py's cache of the channel); None when nothing is missing."""
        place, lacking = self._lacking(game)
        if lacking is None:
            return f"The bot cannot see {place}: it was deleted, or the bot was removed from the server."
        return missing_words(lacking, place) if lacking else None

    def _lacking(self, game: GameRecordRow) -> tuple[str, list[Needed] | None]:
        """The game's channel as people name it, and the permissions of the table the bot lacks there now (None when
        the bot does not see the channel)."""
        channel = self.client.get_channel(game.channel_id)
        held = bot_permissions(channel)
        if channel is None or held is None or isinstance(channel, discord.abc.PrivateChannel):  # private: held None
            return f"the channel {game.channel_id}", None
        return f"#{channel.name} ({game.channel_id})", missing(held)

    async def _deliver(self, game: GameRecordRow, message: OutgoingMessage) -> str | None:
        if message.edit_of is not None:  # without a place, the message to change never arrived: nothing to do
            return await self._edit(game, message, message.edit_ref) if message.edit_ref is not None else None
        faction = message.recipient.faction
        text, pinged = self._mentions(game, message.text)
        pinged = [user for user in pinged if user not in message.unpinged]  # named, not pinged: their quiet hours
        if faction is None:
            where = await self._place(game, message)
            sent = self._remember(await self._send(where, split_message(text), self._buttons(game, message),
                                                   message.outbox_id, pinged, await self._attachment(game, message)))
            if message.opens_thread and sent is not None:  # None: a test's fake channel answers nothing
                await sent.create_thread(name=message.opens_thread[:100], auto_archive_duration=THREAD_ARCHIVE_MINUTES)
            if message.pin and sent is not None:
                await sent.pin()
            return _ref(sent)
        user_id = game.seats.get(faction)
        if user_id is None:
            raise DeliveryFailed(f"nobody is seated as {faction}")
        try:
            chunks = split_message(_in_dm(game, text))
            return _ref(self._remember(await self._send(await self._dm_channel(user_id), chunks,
                                                        self._buttons(game, message), message.outbox_id,
                                                        silent=message.silent)))
        except (discord.Forbidden, discord.NotFound) as error:
            log.info("DM to the %s player of %s refused: %s", faction, game.game_id, error)
            raise DeliveryFailed(faction) from error

    async def _place(self, game: GameRecordRow, message: OutgoingMessage) -> discord.abc.Messageable:
        """The game's channel, or the thread the message belongs in (a thread's id is its opening message's),
        unarchived if Discord archived it; the channel when the thread is gone or cannot be unarchived."""
        if message.thread_ref is not None:
            thread_id = int(message.thread_ref.partition(":")[2])
            found = self.client.get_channel(thread_id)
            if found is None:
                with contextlib.suppress(discord.NotFound):
                    found = await self.client.fetch_channel(thread_id)
            if found is not None and await self._opened(_text_place(found)):
                return _text_place(found)
        return _text_place(self.client.get_channel(game.channel_id) or await self.client.fetch_channel(game.channel_id))

    @staticmethod
    async def _opened(place: discord.abc.Messageable) -> bool:
        """Whether the place takes a post or an edit now: a thread Discord archived is unarchived first (only when
        discord.py's copy says archived, so an open thread costs no request: Discord reports the archiving, and
        discord.py then drops the thread from its cache, so the copy at hand is fetched and current). False when
        Discord refuses to unarchive it (a locked thread, a permission taken from the bot)."""
        if not isinstance(place, discord.Thread) or not place.archived:
            return True
        try:
            await place.edit(archived=False)
        except discord.HTTPException as refusal:
            log.info("Discord refused to unarchive the thread %s: %s", place.id, refusal.text)
            return False
        return True

    @staticmethod
    def _mentions(game: GameRecordRow, text: str) -> tuple[str, list[int]]:
        """The text with each called player written as a Discord mention, and the users it may ping: those
        players, and nobody else (no role, no @everyone)."""
        pinged: list[int] = []

        def write(match: re.Match[str]) -> str:
            user = game.seats.get(match[1])
            if user is None:
                return faction_name(Faction(match[1]))
            pinged.append(user)
            return f"<@{user}>"

        return MENTION.sub(write, text), list(dict.fromkeys(pinged))  # Discord wants each user once

    async def _edit(self, game: GameRecordRow, message: OutgoingMessage, edit_ref: str) -> str | None:
        """Change the message `edit_ref` names (`_edit_in_place`); one Discord will never let change (deleted, in a
        deleted thread, in a thread archived for good) is posted anew (`_anew`)."""
        try:
            try:
                return await self._edit_in_place(game, message, edit_ref)
            except discord.HTTPException as refusal:  # archived meanwhile (discord.py's copy did not know): unarchive
                if refusal.code != ARCHIVED_THREAD or not await self._unarchived(edit_ref):
                    raise
                return await self._edit_in_place(game, message, edit_ref)
        except discord.HTTPException as refusal:
            if refusal.code not in EDIT_REFUSED_FOR_GOOD:
                raise
            log.info("Discord refused to edit %s of %s (%s): posted anew", edit_ref, game.game_id,
                     refusal.text)
            return await self._anew(game, message, edit_ref)

    async def _anew(self, game: GameRecordRow, message: OutgoingMessage, edit_ref: str) -> str | None:
        """An edit that cannot be made, made a new post in the message's place (its thread, or the channel when the
        thread is gone or shut): the lines to add (the story), or the decision card; the new post then stands
        for the key, unless the old one opened a thread that is still there (Discord keeps a thread whose opening
        message is deleted, and the thread goes by that message's id). A replaced summary (a status board, a
        counter) is left alone: the next action replaces it."""
        if message.replace and message.prompt_id is None:
            return edit_ref
        return await self._key_place(edit_ref, await self._deliver(game, _as_new(message)))

    async def _unarchived(self, ref: str) -> bool:
        """Unarchive the thread the message `ref` names is in, fetched as Discord has it now; False when it is
        gone or stays archived."""
        try:
            thread = await self.client.fetch_channel(int(ref.partition(":")[0]))
        except discord.HTTPException:
            return False
        return isinstance(thread, discord.Thread) and thread.archived and await self._opened(thread)

    async def _key_place(self, edit_ref: str, new_ref: str | None) -> str | None:
        """Where the key of an edit posted anew stands now: the new post, unless the old one opened a thread that is
        still there (the thread has the old message's id)."""
        thread_id = int(edit_ref.partition(":")[2])
        found = self.client.get_channel(thread_id)
        if found is None:
            with contextlib.suppress(discord.HTTPException):
                found = await self.client.fetch_channel(thread_id)
        return edit_ref if isinstance(found, discord.Thread) else new_ref

    async def _edit_in_place(self, game: GameRecordRow, message: OutgoingMessage, edit_ref: str) -> str | None:
        """Replace the text of the message `edit_ref` names (a status board), or add the text to it and disable
        its controls (a closed decision card, a phase post growing). A message that would outgrow Discord's limit
        is continued in a new post, whose place then stands for the key; a line already there is not added
        twice. An archived thread is unarchived first. The message is changed from what the bot last gave it
        (fetched only when it does not remember it): no GET."""
        posted = self._messages.get(edit_ref) or await self._fetch(edit_ref)
        text, _ = self._mentions(game, message.text)
        if posted is None:  # deleted meanwhile
            return await self._anew(game, message, edit_ref)
        if not message.replace and posted.content.endswith(text):
            return edit_ref
        # discord.py's current copy of the thread (a remembered message's may be stale); an archived thread it
        # no longer keeps refuses the edit (50083), which unarchives it then (`_edit`)
        if (current := self.client.get_channel(posted.channel.id)) is not None:
            await self._opened(_text_place(current))
        if message.prompt_id is not None:  # a decision asked again: its card, in the old card's place
            shown = _in_dm(game, text)
            if len(shown) > MESSAGE_LIMIT:  # a card of several messages: the old one loses its controls, anew
                self._remember(await posted.edit(view=None, allowed_mentions=NO_MENTIONS))
                return await self._deliver(game, _as_new(message))
            self._remember(await posted.edit(content=shown, view=self._buttons(game, message),
                                             allowed_mentions=NO_MENTIONS))
            return edit_ref
        if message.replace:
            if message.edit_of != LOBBY_KEY and posted.content == text[:MESSAGE_LIMIT]:
                return edit_ref  # a board the action left as it was: nothing to change
            if message.edit_of == LOBBY_KEY:  # the seats still free
                self._remember(await posted.edit(content=text[:MESSAGE_LIMIT], allowed_mentions=NO_MENTIONS,
                                                 view=lobby_view(game)))
            else:
                self._remember(await posted.edit(content=text[:MESSAGE_LIMIT], allowed_mentions=NO_MENTIONS))
            return edit_ref
        controls = discord.ui.View.from_message(posted, timeout=None)
        for item in controls.children:
            if isinstance(item, discord.ui.Button | BaseSelect):  # what a message's controls are
                item.disabled = True
        controls.stop()  # nothing listens to disabled controls: discord.py need not keep the view
        content = f"{posted.content}\n{text}"
        if len(content) > MESSAGE_LIMIT:
            if message.key is not None:  # a growing post goes on in a new one
                return _ref(self._remember(await posted.channel.send(text[:MESSAGE_LIMIT],
                                                                     allowed_mentions=NO_MENTIONS)))
            content = posted.content[:MESSAGE_LIMIT - len(text) - 3] + "…\n" + text
        picture = await self._attachment(game, message)  # the turn's post gets its map once the storm has moved
        kept_view = controls if controls.children else None
        if picture is not None:
            self._remember(await posted.edit(content=content, view=kept_view, allowed_mentions=NO_MENTIONS,
                                             attachments=[picture]))
        else:
            self._remember(await posted.edit(content=content, view=kept_view, allowed_mentions=NO_MENTIONS))
        return edit_ref

    async def _find(self, game: GameRecordRow, message: OutgoingMessage, since: datetime) -> str | None:
        """A send begun at `since` and cut off by a crash: the bot's own message with the same words, posted since
        then in the channel or the player's DM, is that send (its reference); an edit that shows its line is
        done, and one whose message is gone is looked for as the new post it became. Looked for in the recent
        history only (RECENT messages)."""
        text, _ = self._mentions(game, message.text)
        if message.edit_of is not None:
            if message.edit_ref is None:
                return None
            posted = await self._fetch(message.edit_ref)
            if posted is not None:
                shown = _in_dm(game, text) if message.prompt_id is not None else text
                done = posted.content == shown[:MESSAGE_LIMIT] if message.replace else posted.content.endswith(text)
                return message.edit_ref if done else None
            if message.replace and message.prompt_id is None:  # a summary whose post is gone is left alone
                return message.edit_ref
            found = await self._find(game, _as_new(message), since)  # the edit was made a new post (`_anew`)
            return await self._key_place(message.edit_ref, found) if found is not None else None
        if message.recipient.faction is None:
            where = await self._place(game, message)
            last = split_message(text)[-1]
        else:
            user_id = game.seats.get(message.recipient.faction)
            if user_id is None:
                return None
            where = await self._dm_channel(user_id)
            last = split_message(_in_dm(game, text))[-1]
        mine = self.client.user.id if self.client.user else None
        async for posted in where.history(limit=RECENT, after=since - timedelta(seconds=1)):
            if posted.author.id == mine and posted.content == last:
                return _ref(posted)
        return None

    async def _fetch(self, ref: str) -> discord.Message | None:
        channel_id, _, message_id = ref.partition(":")
        try:
            channel = self.client.get_channel(int(channel_id)) or await self.client.fetch_channel(int(channel_id))
            return await _text_place(channel).fetch_message(int(message_id))
        except discord.NotFound:
            return None

    async def can_dm(self, game: GameRecordRow, faction: str) -> bool:
        """Send the seated player their welcome DM (bot/app/lobby.py welcome_text, with the button to the any-time
        panel): Discord tells whether DMs reach a user only by refusing one (Forbidden, code 50007). Any other
        failure says nothing about the DMs, so it counts as reachable: a later DM that fails is reported then."""
        user_id = game.seats.get(faction)
        if user_id is None:
            return False
        if not self.client.is_ready():  # not connected (offline handler tests): no probe; a failed DM tells later
            return True
        try:
            state = GameState.model_validate_json(game.state_json)
            welcome = _in_dm(game, welcome_text(Faction(faction), game.settings, state))
            await (await self._dm_channel(user_id)).send(welcome, view=welcome_view(game.game_id),
                                                         allowed_mentions=NO_MENTIONS,
                                                         silent=await self._quiet(user_id))
        except (discord.Forbidden, discord.NotFound):
            return False
        except discord.HTTPException as error:
            log.warning("DM probe for the %s player of %s failed: %s", faction, game.game_id, error)
        return True

    @staticmethod
    async def _send(target: discord.abc.Messageable, chunks: list[str], view: discord.ui.View | None,
                    outbox_id: int | None, pinged: Sequence[int] = (), file: discord.File | None = None,
                    *, silent: bool = False) -> discord.Message | None:
        """Send the chunks in order, the view with the last; `silent`: without a notification (Discord's
        suppress-notifications flag: the reader's quiet hours). Each chunk carries a nonce made of its outbox row
        and number, which discord.py sends with enforce_nonce: Discord drops a second message with the same
        nonce sent within minutes, so redelivering a row after a crash between the send and its `sent` mark
        (GameService.deliver) posts nothing twice."""
        allowed = discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                          users=[discord.Object(u) for u in pinged]) if pinged else NO_MENTIONS
        sent = None
        for number, chunk in enumerate(chunks, start=1):
            extra: dict = {"nonce": f"mentat-{outbox_id}-{number}"} if outbox_id is not None else {}
            if number == len(chunks):  # the last chunk carries the controls and the picture
                extra.update({"view": view} if view is not None else {})
                extra.update({"file": file} if file is not None else {})
            sent = await target.send(chunk, allowed_mentions=allowed, silent=silent, **extra)
        return sent

    async def _attachment(self, game: GameRecordRow, message: OutgoingMessage) -> discord.File | None:
        """What a channel post carries: the table's map (never a faction's: the channel sees public facts only) as
        of the post (`map_of`; a post queued before that field, the game as it stands), drawn off the event loop; or
        the whole game file of a game that is over (its cancellation)."""
        if message.attach_game_file and self.game_file is not None:
            record = await self.game_file(game.game_id)
            return discord.File(io.BytesIO(record.encode()), filename=f"{game.game_id}.json")
        if message.map_of is not None:
            seen = PlayerView.model_validate_json(message.map_of)
        elif message.attach_map:
            seen = view(GameState.model_validate_json(game.state_json), None)
        else:
            return None
        png = await asyncio.to_thread(render_view, seen)
        return discord.File(io.BytesIO(png), filename=f"{game.game_id}-turn{seen.turn}.png")

    @staticmethod
    def _buttons(game: GameRecordRow, message: OutgoingMessage) -> discord.ui.View | None:
        """Buttons or menus for the decision the message calls for, while it is still open; only a DM to the
        deciding faction gets them (components.prompt_view). The lobby post gets its seats and Start."""
        if message.key == LOBBY_KEY:
            return lobby_view(game)
        if (controls := controls_for(game, message)) is not None:  # a call for a substitute, a seat's ballot
            return controls
        if message.prompt_id is None:
            return None
        prompt = GameState.model_validate_json(game.state_json).prompt(message.prompt_id)
        return prompt_view(game.game_id, prompt, message.recipient.faction) if prompt is not None else None
