"""/game: create a game in this channel, take a seat, start it, and see where it stands."""

from __future__ import annotations

import asyncio
import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.absence import ABSENCE_CHOICES, WAIT, mode_text, status_lines
from bot.app.feed import CANCELLED
from bot.app.lobby import parse_options
from bot.app.map_picture import render_map
from bot.app.paces import PACE_TITLES, Pace, settings_pace_text
from bot.app.ports import GameRecordRow, GameStatus
from bot.app.service import LOG_LENGTH, MAX_LOG_LENGTH, NotAllowed
from bot.app.settings_model import GameSettings
from bot.app.votes import MAX_PAUSE_HOURS, VoteKind, board_line, vote_words
from bot.app.words import parse_faction, parse_factions
from bot.discord.autocomplete import matching
from bot.discord.common import (
    NO_MENTIONS,
    answer,
    game_here,
    is_moderator,
    refusals,
    require_moderator,
    seat_of,
)
from bot.discord.lobby import DYNAMIC_ITEMS as LOBBY_ITEMS
from bot.discord.lobby import start_game
from bot.discord.permissions import require_in_channel
from bot.discord.seat_controls import DYNAMIC_ITEMS as SEAT_ITEMS
from bot.discord.text import (
    option_suggestions,
    split_message,
    status_text,
)
from engine.ids import Faction
from engine.names import faction_name
from engine.secrecy.views import view

if TYPE_CHECKING:
    from bot.discord.client import MentatBot

MAX_IMPORT_BYTES = 8_000_000  # a whole game's file is well under a megabyte
FACTION_CHOICES = [app_commands.Choice(name=faction_name(f), value=f.value) for f in Faction]
DEFAULT_PACE = Pace.DAILY  # play by post: a game created without a pace has deadlines all the same (issue 14)
PACE_CHOICES = [app_commands.Choice(name=f"{p.value}: {PACE_TITLES[p]}", value=p.value) for p in Pace]
VOTE_CHOICES = [app_commands.Choice(name=name, value=kind.value) for kind, name in (
    (VoteKind.PAUSE, "pause: pause the game for some hours (7 days at most)"),
    (VoteKind.RESUME, "resume: resume the paused game"),
    (VoteKind.EXTEND, "extend: give a seat more hours for its open decisions"),
    (VoteKind.REPLACE, "replace: offer a seat to a substitute"),
    (VoteKind.END, "end: end the game without a winner (every seat but one must agree)"))]
ABSENCE_OPTIONS = [app_commands.Choice(name=f"{mode}: {words}", value=mode) for mode, words in ABSENCE_CHOICES.items()]
GAME_OPTION = "One of the games this channel held (the game going on, or the last one, when left out)"


@app_commands.guild_only()
class GameCog(commands.GroupCog, group_name="game", group_description="Create, join and follow the game of Dune "
                                                                          "played in this channel"):
    def __init__(self, bot: MentatBot):
        self.bot = bot
        super().__init__()

    @app_commands.command(name="new")
    @app_commands.describe(factions="Factions in play, separated by commas (e.g. atreides, harkonnen, fremen, bt)",
                           options="Optional rules: all, names to switch on, or name=value (e.g. weather, "
                                   "double_spice_blow, turns=10)",
                           pace=f"How long players have to decide (default {DEFAULT_PACE.value}); /admin deadline "
                                "changes it",
                           seed="A fixed random seed (for a replayable game); random when left out",
                           absence="What a player's absence (/me away) does to their decisions (default: they wait)")
    @app_commands.choices(pace=PACE_CHOICES, absence=ABSENCE_OPTIONS)
    async def new(self, interaction: discord.Interaction, factions: str, options: str | None = None,
                  pace: str = DEFAULT_PACE.value, seed: app_commands.Range[int, 0, 2**31 - 1] | None = None,
                  absence: str = WAIT) -> None:
        """Open a new game in this channel: its lobby is posted, with a button for each seat."""
        async with refusals(interaction):
            require_in_channel(interaction)
            chosen = parse_factions(factions)
            rules = parse_options(options)
            game = await self.bot.service.create_game(interaction.guild_id or 0, interaction.channel_id or 0, chosen,
                                                      rules, seed, pace=Pace(pace), creator=interaction.user.id,
                                                      absence_mode=absence)
            self.bot.wake_outbox()  # the lobby post: the table's one news of the new game
            await answer(interaction, f"Game {game.game_id} is open; its lobby is posted in this channel. Once every "
                                      "seat is taken, you (or a moderator) start it there.")

    @new.autocomplete("options")
    async def _options_autocomplete(self, interaction: discord.Interaction,
                                    current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=text, value=text) for text in option_suggestions(current)]

    @app_commands.command(name="join")
    @app_commands.describe(faction="The faction you will play")
    @app_commands.choices(faction=FACTION_CHOICES)
    async def join(self, interaction: discord.Interaction, faction: str) -> None:
        """Take a free seat in this channel's game before it starts."""
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            chosen = parse_faction(faction)
            await self.bot.service.seat(game.game_id, chosen, interaction.user.id)
            await answer(interaction, f"{interaction.user.mention} plays {faction_name(chosen)}.", ephemeral=False)

    @app_commands.command(name="start")
    async def start(self, interaction: discord.Interaction) -> None:
        """Start this channel's game once every seat is taken (its creator or a moderator)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            await start_game(interaction, await game_here(self.bot.service, interaction))

    @app_commands.command(name="status")
    async def status(self, interaction: discord.Interaction) -> None:
        """Show the turn, phase, storm, seats and the decisions the game is waiting for."""
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            state = await self.bot.service.state_of(game.game_id)
            due = await self.bot.service.due_times(game.game_id)
            table = view(state, None)
            lines = status_lines(game.settings, game.seats)  # who is away
            if (vote := GameSettings.of(game.settings).table_vote) is not None and game.status in (
                    GameStatus.RUNNING, GameStatus.PAUSED):  # the open vote, as the pinned board says it
                lines.append(board_line(vote, (public.faction for public in table.factions)))
            more = "".join(f"\n{line}" for line in lines)
            await answer(interaction, f"{status_text(game, table, due)}{more}\n"
                                      f"{settings_pace_text(game.settings)}\n{mode_text(game.settings)}.",
                         ephemeral=False)

    @app_commands.command(name="map")
    @app_commands.describe(mine="Your own faction's map, with what only you know (your traps), shown to you alone")
    async def show_map(self, interaction: discord.Interaction, mine: bool = False) -> None:
        """Post the map of Arrakis as the table sees it (or, with mine, your own map to you alone)."""
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            viewer = seat_of(game, interaction.user.id) if mine else None
            # Deferred: the drawing takes a moment and Discord wants an answer within three seconds.
            await interaction.response.defer(ephemeral=mine, thinking=True)
            state = await self.bot.service.state_of(game.game_id)
            png = await asyncio.to_thread(render_map, state, viewer)
            file = discord.File(io.BytesIO(png), filename=f"{game.game_id}-turn{state.turn}.png")
            await interaction.followup.send(file=file, ephemeral=mine)

    @app_commands.command(name="export")
    @app_commands.describe(game_id=GAME_OPTION)
    @app_commands.rename(game_id="game")
    async def export(self, interaction: discord.Interaction, game_id: str | None = None) -> None:
        """Download the game: the whole file once it is over; while it runs, the public log and your secrets."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction, game_id)
            if game.status == GameStatus.ENDED:
                record = await self.bot.service.export(game.game_id)
                note = "The whole game, every secret included; `python -m engine replay` checks it."
            else:  # moderating blind: a moderator without a seat gets the table's file, one with a seat their own
                seated = {user: faction for faction, user in game.seats.items()}.get(interaction.user.id)
                reader = Faction(seated) if seated else None
                record = await self.bot.service.export_for(game.game_id, reader)
                note = ("The game so far as you know it: the public log" + (" and your own secrets" if reader else "")
                        + ". The whole file, every secret included, comes once the game is over.")
            file = discord.File(io.BytesIO(record.encode()), filename=f"{game.game_id}.json")
            await interaction.followup.send(note, file=file, ephemeral=True)

    @app_commands.command(name="log")
    @app_commands.describe(entries=f"How many of the latest entries (default {LOG_LENGTH})", game_id=GAME_OPTION)
    @app_commands.rename(game_id="game")
    async def log(self, interaction: discord.Interaction,
                  entries: app_commands.Range[int, 1, MAX_LOG_LENGTH] = LOG_LENGTH, game_id: str | None = None) -> None:
        """The game's public log: what the table was shown, by game version (only you see this)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction, game_id)
            lines = await self.bot.service.public_log(game.game_id, entries)
            pages = split_message("\n".join(lines) if lines else "The log is empty: nothing has happened yet.")
            for page in pages:  # each within Discord's 2,000 characters
                await interaction.followup.send(page, ephemeral=True, allowed_mentions=NO_MENTIONS)

    @export.autocomplete("game_id")
    @log.autocomplete("game_id")
    async def _games_autocomplete(self, interaction: discord.Interaction,
                                  current: str) -> list[app_commands.Choice[str]]:
        """The games this channel held, newest first."""
        games = await self.bot.service.games_in_channel(interaction.channel_id or 0)
        return matching([(f"{game.game_id}: {_status_word(game)}, opened {game.created_at:%Y-%m-%d}", game.game_id)
                         for game in games], current)

    @app_commands.command(name="import")
    @app_commands.describe(game_file="A game file from /game export or `python -m engine demo --export`",
                           trust_unsigned="Import a file this bot did not sign (the table is told)")
    @app_commands.rename(game_file="file")
    async def import_(self, interaction: discord.Interaction, game_file: discord.Attachment,
                      trust_unsigned: bool = False) -> None:
        """Create this channel's game from a game file, checked by replaying it (moderators)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            await require_moderator(self.bot.service, interaction)
            require_in_channel(interaction)
            if game_file.size > MAX_IMPORT_BYTES:
                raise NotAllowed(f"That file has {game_file.size} bytes; a game file has at most "
                                 f"{MAX_IMPORT_BYTES}.")
            text = (await game_file.read()).decode("utf-8", errors="replace")
            game = await self.bot.service.import_game(interaction.guild_id or 0, interaction.channel_id or 0, text,
                                                      by=str(interaction.user), by_user=interaction.user.id,
                                                      trust_unsigned=trust_unsigned)
            self.bot.wake_outbox()
            await answer(interaction, f"Imported as game {game.game_id} at version {game.seq} "
                                      f"({game.status.value}).")

    # --- substitutes and table votes ---

    @app_commands.command(name="sub")
    @app_commands.describe(user="Who plays your seat from now on (a member not seated in this game)",
                           reason="Why, for the table (optional)")
    async def sub(self, interaction: discord.Interaction, user: discord.Member, reason: str | None = None) -> None:
        """Hand your seat to a substitute: they get everything your seat knows by DM."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            faction = seat_of(game, interaction.user.id)
            if user.bot:
                raise NotAllowed("A bot cannot play a seat.")
            await self.bot.service.hand_over(game.game_id, faction, user.id, by=str(interaction.user),
                                             caller=interaction.user.id, reason=reason)
            self.bot.wake_outbox()
            await answer(interaction, f"Done: {user.mention} plays {faction_name(faction)} from now on; the table "
                                      "is told, and they get your seat's secrets and open decisions by DM.")

    @app_commands.command(name="sub-call")
    @app_commands.describe(faction="The seat to offer (moderators; a player offers their own)")
    @app_commands.choices(faction=FACTION_CHOICES)
    async def sub_call(self, interaction: discord.Interaction, faction: str | None = None) -> None:
        """Offer your seat (or, as a moderator, any seat) to a substitute: a button in the channel takes it."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            moderator = await is_moderator(self.bot.service, interaction)
            if faction is None:
                if moderator and interaction.user.id not in game.seats.values():
                    raise NotAllowed("Name the seat to offer (the faction option).")
                seat = seat_of(game, interaction.user.id)
            else:
                seat = parse_faction(faction)
                if not moderator and game.seats.get(seat.value) != interaction.user.id:
                    seat_of(game, interaction.user.id)  # a former player is told who plays it now
                    raise NotAllowed(f"You do not play {faction_name(seat)}: a player offers their own seat, a "
                                     "moderator any seat.")
            mine = game.seats.get(seat.value) == interaction.user.id
            why = f"called by its player <@{interaction.user.id}>" if mine else f"called by the moderator " \
                  f"<@{interaction.user.id}>"
            await self.bot.service.call_substitute(game.game_id, seat, why=why, caller=interaction.user.id,
                                                   admin=moderator)
            self.bot.wake_outbox()
            await answer(interaction, f"Done: the {faction_name(seat)} seat is offered in the channel; until "
                                      "someone takes it, its player plays on.")

    @app_commands.command(name="vote")
    @app_commands.describe(kind="What the table votes on",
                           hours="Pause: how long (at most 168 hours); extend: how many hours more (at most 72)",
                           faction="Extend or replace: the seat it is about")
    @app_commands.choices(kind=VOTE_CHOICES, faction=FACTION_CHOICES)
    async def vote(self, interaction: discord.Interaction, kind: str,
                   hours: app_commands.Range[float, 1, MAX_PAUSE_HOURS] | None = None,
                   faction: str | None = None) -> None:
        """Call a table vote (pause, resume, extend, replace, end): each seat answers by DM; majority decides."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await game_here(self.bot.service, interaction)
            vote = await self.bot.service.open_vote(game.game_id, interaction.user.id, VoteKind(kind), hours=hours,
                                                    faction=parse_faction(faction) if faction else None)
            self.bot.wake_outbox()
            await answer(interaction, f"Done: the table votes on this: {vote_words(vote)}. Your seat's ballot is in "
                                      "your DMs, like everyone's.")


def _status_word(game: GameRecordRow) -> str:
    """A game's status for a list of a channel's games: a cancelled game says so."""
    if game.status == GameStatus.ENDED:
        return "cancelled" if CANCELLED in game.settings else "over"
    return game.status.value


async def setup(bot: MentatBot) -> None:
    await bot.add_cog(GameCog(bot))
    bot.add_dynamic_items(*LOBBY_ITEMS, *SEAT_ITEMS)  # the lobby, calls and ballots: buttons that outlive a restart
