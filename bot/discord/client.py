"""The bot: a discord.py `commands.Bot` with the game service injected, the four command groups, the
persistent prompt buttons and modals, the command sync at start (bot/discord/command_sync.py), and a `tasks.loop`
that drains the outbox."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

import discord
from discord.ext import commands, tasks

from bot.app.service import GameService
from bot.discord.anytime_panel import DYNAMIC_ITEMS as PANEL_ITEMS
from bot.discord.anytime_panel import MODALS as PANEL_MODALS
from bot.discord.command_sync import sync_globally, sync_to_guild
from bot.discord.components import DYNAMIC_ITEMS, MODALS
from bot.discord.errors import MentatTree
from bot.discord.gateway import DiscordGateway
from bot.discord.lasting_modal import answer_modal
from bot.discord.permissions import invite_url

log = logging.getLogger(__name__)

EXTENSIONS = ("bot.discord.cogs.game", "bot.discord.cogs.play", "bot.discord.cogs.nexus", "bot.discord.cogs.me",
              "bot.discord.cogs.admin", "bot.discord.cogs.rules", "bot.discord.cogs.card", "bot.discord.cogs.bt")
DRAIN_INTERVAL = 3.0  # seconds between outbox drains when nothing wakes the drain earlier
SHUTDOWN_GRACE = 10.0  # seconds a drain in progress may take to finish when the bot closes
# seconds a drain waits for its deliveries: a channel Discord makes wait longer (its rate limit) goes on by
# itself, and the next drain delivers the other channels meanwhile (bot/app/delivery.py)
DELIVERY_PATIENCE = 1.0
RESTARTING = "Mentat is restarting; nothing was done. Try again in a minute."
LASTING_MODALS = (*MODALS, *PANEL_MODALS)  # every modal the bot sends: on_interaction answers their submits


def intents() -> discord.Intents:
    """Slash commands and DMs need no privileged intent; guilds keeps channels and threads cached."""
    chosen = discord.Intents.none()
    chosen.guilds = True
    return chosen


# The bot never joins voice: no warnings about voice libraries that are not installed.
discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False


class MentatBot(commands.Bot):
    def __init__(self, service: GameService, *, dev_guild_id: int | None = None, force_sync: bool = False,
                 drain_interval: float = DRAIN_INTERVAL, **options):
        super().__init__(command_prefix=commands.when_mentioned, intents=intents(), tree_cls=MentatTree,
                         help_command=None, allowed_mentions=discord.AllowedMentions.none(), **options)
        self.service = service
        self.dev_guild_id = dev_guild_id
        self.force_sync = force_sync  # sync globally at start even when the tree did not change
        self.sync_outcome: str | None = None  # what the sync at start did; None until then, or when it failed
        self.drain_interval = drain_interval
        self.gateway = DiscordGateway(self, game_file=lambda game_id: self.service.export(game_id),
                                      hours=service.hours)
        self._draining = False  # True while a drain is delivering (shutdown lets it finish)
        self._refusals: set[asyncio.Task] = set()  # "restarting" answers being sent while the bot closes
        self.drain_outbox.change_interval(seconds=drain_interval)

    async def add_cogs(self) -> None:
        """Load the command groups and /rules (works offline, before login: the check command and tests use it)."""
        for name in EXTENSIONS:
            if name not in self.extensions:
                await self.load_extension(name)

    async def setup_hook(self) -> None:
        await self.add_cogs()
        self.add_dynamic_items(*DYNAMIC_ITEMS, *PANEL_ITEMS)
        self.sync_outcome = await self.sync_commands()
        self.drain_outbox.start()

    async def sync_commands(self) -> str | None:
        """Register the commands with Discord: globally when they changed since the last sync (or with
        `force_sync`), or to DEV_GUILD_ID's server at every start. A refused sync is logged and the bot runs on with
        the commands Discord already has."""
        try:
            if self.dev_guild_id is not None:
                return await sync_to_guild(self.tree, self.dev_guild_id)
            return await sync_globally(self.tree, self.service, force=self.force_sync)
        except discord.HTTPException as error:
            log.error("the command sync failed (%s): Discord keeps the commands it had; the next start tries again",
                      error)
            return None

    def wake_outbox(self) -> None:
        """Deliver now: called after a commit so the table sees it without waiting for the next drain.

        An interval of 0 makes the sleeping loop's next drain due at once (a wake during a drain makes another
        drain follow it, so nothing committed meanwhile waits); each drain restores the steady interval."""
        self.drain_outbox.change_interval(seconds=0)

    @tasks.loop(seconds=DRAIN_INTERVAL)
    async def drain_outbox(self) -> None:
        """Every `drain_interval` seconds, or at once when woken: run the deadline tick and deliver the
        outbox. A message that failed stays pending and is retried by a later drain."""
        self.drain_outbox.change_interval(seconds=self.drain_interval)  # consume a wake
        self._draining = True
        try:
            await self.service.tick()  # deadlines: reminders and defaults come out with this drain
            sent = await self.service.deliver(self.gateway, patience=DELIVERY_PATIENCE)
            if sent:
                log.debug("delivered %d messages", sent)
        except Exception:  # noqa: BLE001 - the drain must outlive any one failure
            log.exception("outbox drain failed")
        finally:
            self._draining = False

    @drain_outbox.before_loop
    async def _before_drain(self) -> None:
        await self.wait_until_ready()

    def stop_taking_interactions(self) -> None:
        """From now on every interaction is answered that the bot is restarting, and goes no further: no action is
        taken as the bot closes. discord.py has no public hook that runs before its command tree and its views take
        an interaction, so the gateway's parser of INTERACTION_CREATE is replaced."""
        state = self._connection

        def refuse(data) -> None:
            interaction = discord.Interaction(data=data, state=state)
            answer: Coroutine[Any, Any, object]
            if interaction.type is discord.InteractionType.autocomplete:
                answer = interaction.response.autocomplete([])
            else:
                answer = interaction.response.send_message(RESTARTING, ephemeral=True)
            task = asyncio.create_task(answer)
            self._refusals.add(task)
            task.add_done_callback(self._refusal_sent)

        state.parsers["INTERACTION_CREATE"] = refuse

    def _refusal_sent(self, task: asyncio.Task) -> None:
        self._refusals.discard(task)
        if not task.cancelled() and task.exception() is not None:  # the interaction expired, the bot is closing
            log.debug("could not answer an interaction while restarting: %s", task.exception())

    async def close(self) -> None:
        """Stop: interactions are refused from now on; the drain stops, a sleeping one at once, one delivering
        after it finishes, so every message it sent is recorded as sent (none is sent twice after a restart)."""
        self.stop_taking_interactions()
        task = self.drain_outbox.get_task()
        if task is not None and not task.done():
            if self._draining:
                self.drain_outbox.stop()
                await asyncio.wait({task}, timeout=SHUTDOWN_GRACE)
            if not task.done():
                self.drain_outbox.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        with contextlib.suppress(TimeoutError):  # deliveries a drain left running finish, and are marked sent
            await asyncio.wait_for(self.service.deliveries_settled(), SHUTDOWN_GRACE)
        if self._refusals:  # the answers go out before the connection closes (or they fail, as they may)
            await asyncio.wait(self._refusals, timeout=SHUTDOWN_GRACE)
        await super().close()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A modal's submit, however late (bot/discord/lasting_modal.py); commands and controls are dispatched by
        discord.py itself."""
        await answer_modal(interaction, LASTING_MODALS)

    async def on_ready(self) -> None:
        log.info("connected as %s (%s) to %d servers", self.user, getattr(self.user, "id", "?"), len(self.guilds))
        log.info("to add the bot to a server, with its commands and the permissions it needs, open %s (no privileged "
                 "intent is needed: Presence, Server Members and Message Content may stay off)",
                 invite_url(self.application_id or "APPLICATION_ID"))  # known once connected


class ShardedMentatBot(MentatBot, commands.AutoShardedBot):
    """The bot running some of the shards (`shard_ids`, out of `shard_count`) in one process: several such
    processes share one PostgreSQL store, each delivering and timing the games of its own shards' guilds
    (its service's `shards`)."""
