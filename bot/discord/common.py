"""What every cog shares: answering an interaction, finding the channel's game and the caller's seat, the
moderator check, and turning service refusals into ephemeral answers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol, cast

import discord
from pydantic import ValidationError

from bot.app.action_words import WORDS
from bot.app.ports import GameRecordRow
from bot.app.seats import now_played_by
from bot.app.service import GameService, NotAllowed, NotFound, ServiceError
from bot.app.words import NotUnderstood
from engine.actions import Action
from engine.ids import Faction

NO_MENTIONS = discord.AllowedMentions.none()


class GameBot(Protocol):
    """What handlers and components need of the bot (bot/discord/client.py MentatBot): the game service, and a
    way to have the outbox delivered now."""

    service: GameService

    def wake_outbox(self) -> None: ...


def game_bot(interaction: discord.Interaction) -> GameBot:
    """The bot an interaction came to, as the handlers use it: discord.py types it as any Client, and ours is
    MentatBot (bot/discord/client.py imports the handlers, so they cannot name it)."""
    return cast(GameBot, interaction.client)


# A persistent control (a DynamicItem) is rebuilt from the component its custom id matched, which discord.py passes
# as any Item: a button's template matches only buttons, a menu's only menus.

def matched_label(item: discord.ui.Item[Any], missing: str) -> str:
    """The label of the button a control was rebuilt from (`missing` when it has none)."""
    return (item.label if isinstance(item, discord.ui.Button) else None) or missing


def matched_menu(item: discord.ui.Item[Any]) -> discord.ui.Select[Any]:
    """The select menu a control was rebuilt from."""
    if not isinstance(item, discord.ui.Select):
        raise TypeError(f"a menu's custom id matched {item!r}")
    return item


# Discord wants an interaction's first answer within 3 seconds ("Receiving and Responding": "you must send an
# initial response within 3 seconds of receiving the event"); work that ends sooner than this is answered in that
# first answer (one request), longer work is deferred first and followed up (two).
RESPONSE_WINDOW = 2.0
_ANSWERING = "mentat_answering"  # Interaction.extras: the lock that keeps a deferral and an answer from crossing


async def answer(interaction: discord.Interaction, text: str, *, ephemeral: bool = True) -> None:
    """Reply, or follow up when the interaction was already answered or deferred. Nobody is pinged."""
    text = text if len(text) <= 2000 else text[:1990] + "\n…"
    async with interaction.extras.get(_ANSWERING) or contextlib.nullcontext():
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS)
        else:
            await interaction.response.send_message(text, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS)


async def answer_in_time(interaction: discord.Interaction, work: Awaitable[None]) -> None:
    """Run `work`, which answers the interaction (`answer`): in the interaction's first answer when it ends within
    RESPONSE_WINDOW, as nearly every action does (one request instead of a deferral and a follow-up); else the
    interaction is deferred (privately, "thinking") at the window's end and `work`'s answer follows up."""
    lock = interaction.extras.setdefault(_ANSWERING, asyncio.Lock())

    async def defer_at_the_window_end() -> None:  # a plain sleep: a test's virtual clock runs it too (SimCord)
        await asyncio.sleep(RESPONSE_WINDOW)
        async with lock:
            if not interaction.response.is_done():
                await interaction.response.defer(ephemeral=True, thinking=True)

    watch = asyncio.create_task(defer_at_the_window_end())
    try:
        await work
    finally:
        watch.cancel()


@asynccontextmanager
async def refusals(interaction: discord.Interaction) -> AsyncIterator[None]:
    """Answer a refused request (a service refusal, a rule refusal with its rule, a malformed value)
    ephemerally instead of failing the command."""
    try:
        yield
    except (ServiceError, NotUnderstood) as error:
        await answer(interaction, f"Refused: {error}")
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        await answer(interaction, f"Refused: {problems}")


async def game_here(service: GameService, interaction: discord.Interaction, game_id: str | None = None
                    ) -> GameRecordRow:
    """The game played in this channel (or thread): the one going on, else the last one; with `game_id`, that
    game, if this channel held it."""
    if game_id is None:
        game = await service.game_in_channel(interaction.channel_id or 0)
        if game is None:
            raise NotFound("There is no game in this channel; create one with /game new.")
        return game
    game = await service.game(game_id.strip())
    if game is None or game.channel_id != interaction.channel_id:
        raise NotFound(f"This channel held no game {game_id.strip()!r}; the game option lists the games it held.")
    return game


def seat_of(game: GameRecordRow, user_id: int) -> Faction:
    """The faction the user plays in this game."""
    for faction, seated in game.seats.items():
        if seated == user_id:
            return Faction(faction)
    raise NotAllowed(now_played_by(game, user_id) or "You have no seat in this game; take a free one with /game join.")


def manages_server(user: discord.abc.User) -> bool:
    """Whether the member has Manage Server here (a user outside a server, in a DM, has no permissions)."""
    permissions = getattr(user, "guild_permissions", None)
    return permissions is not None and permissions.manage_guild


async def is_moderator(service: GameService, interaction: discord.Interaction) -> bool:
    """Whether the one who interacts moderates this server's games: Manage Server, or the server's moderator
    role (/admin moderator-role)."""
    if manages_server(interaction.user):
        return True
    role = await service.moderator_role(interaction.guild_id) if interaction.guild_id is not None else None
    return role is not None and any(r.id == role for r in getattr(interaction.user, "roles", ()))


async def require_moderator(service: GameService, interaction: discord.Interaction) -> None:
    if not await is_moderator(service, interaction):
        raise NotAllowed("Only a moderator (Manage Server, or the server's moderator role) may do this.")


async def submit_for_seat(bot: GameBot, interaction: discord.Interaction, build: Callable[[Faction], Action],
                          done: str | None = None) -> None:
    """Build the caller's action for their seat, submit it, and answer (`answer_in_time`): what every
    /play, /card and /bt command does. The answer says what was done: `done`, or else the action in the words
    of its decision card's "You answered" (bot/app/action_words.py)."""
    async def submitted() -> None:
        async with refusals(interaction):
            game = await game_here(bot.service, interaction)
            action = build(seat_of(game, interaction.user.id))
            accepted = await bot.service.submit(game.game_id, interaction.user.id, action, key=str(interaction.id))
            bot.wake_outbox()
            await answer(interaction, f"Done: {done or WORDS[type(action)](action)} (game version {accepted.seq}).")

    await answer_in_time(interaction, submitted())
