"""/admin: moderator corrections, the server's moderator role, and cancelling a game. Checked on every use:
Manage Server, or the server's moderator role (the role itself: Manage Server only)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.decision_cards import timestamp
from bot.app.paces import ANY_KIND, duration, kind_words
from bot.app.ports import GameRecordRow, GameStatus
from bot.app.service import NotAllowed, ServiceError
from bot.discord.autocomplete import matching
from bot.discord.common import NO_MENTIONS, answer, game_here, manages_server, refusals, require_moderator
from bot.discord.errors import report
from engine.actions import ForceDefault, MoveCard, PlaceTokens, SetLeader, SetSpice, SetStorm
from engine.ids import Faction
from engine.model import PromptKind
from engine.names import faction_name, faction_possessive

if TYPE_CHECKING:
    from bot.discord.client import MentatBot

FACTION_CHOICES = [app_commands.Choice(name=faction_name(f), value=f.value) for f in Faction]
DEADLINE_KINDS = [(kind_words(kind.value), kind.value) for kind in PromptKind] + [(kind_words(ANY_KIND), ANY_KIND)]
CANCEL_TIMEOUT = 600.0  # seconds the question of /admin cancel waits (Discord lets its answer be edited 15 minutes)


async def deadline_kinds(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The kinds a deadline may be set for, as the table reads them, filtered by what was typed (words or key)."""
    typed = current.lower()
    return matching([(label, value) for label, value in DEADLINE_KINDS if typed in f"{label} {value}".lower()], "")


class CancelQuestion(discord.ui.View):
    """The ephemeral question /admin cancel asks: Confirm (the game is cancelled) or Keep. Only the moderator who
    asked may answer (Discord shows an ephemeral message to them alone; checked all the same). Not persistent: a
    question left unanswered or cut off by a restart cancels nothing, and the command can be run again."""

    def __init__(self, bot: MentatBot, asked: discord.Interaction, game: GameRecordRow, reason: str):
        super().__init__(timeout=CANCEL_TIMEOUT)
        self.bot, self.asked, self.game_id, self.reason = bot, asked, game.game_id, reason
        self.with_file = _with_file(game)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.user.id == self.asked.user.id:
            return True
        await answer(interaction, "Only the moderator who asked may answer this.")
        return False

    @discord.ui.button(label="Confirm", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: discord.Interaction, _: discord.ui.Button) -> None:
        self.stop()
        try:
            await require_moderator(self.bot.service, interaction)  # still one, now
            await self.bot.service.cancel(self.game_id, by=str(interaction.user), reason=self.reason)
            await self.bot.service.override_vote(self.game_id, by=str(interaction.user), did="cancelled the game")
        except ServiceError as error:
            await interaction.response.edit_message(content=f"Refused: {error}", view=None)
            return
        self.bot.wake_outbox()
        await interaction.response.edit_message(
            content=f"Cancelled: game {self.game_id} is over. The table is told who cancelled it and why"
                    f"{self.with_file}; /game new opens a new game in this channel.", view=None)

    @discord.ui.button(label="Keep", style=discord.ButtonStyle.secondary)
    async def keep(self, interaction: discord.Interaction, _: discord.ui.Button) -> None:
        self.stop()
        await interaction.response.edit_message(content=f"Kept: game {self.game_id} goes on.", view=None)

    async def on_error(self, interaction: discord.Interaction, error: Exception, item: discord.ui.Item) -> None:
        await report(interaction, error, where="the /admin cancel question")  # answered and logged with an id

    async def on_timeout(self) -> None:
        with contextlib.suppress(discord.HTTPException):
            await self.asked.edit_original_response(content=f"Not cancelled: no answer within "
                                                            f"{CANCEL_TIMEOUT / 60:g} minutes.", view=None)


def _with_file(game: GameRecordRow) -> str:
    """What the announcement of a cancellation carries besides its words: the game file, once the game started."""
    return "" if game.status == GameStatus.OPEN else ", with the whole game file"


# No default_permissions (Manage Server) on the group: Discord would hide /admin from every member without it, the
# holders of the moderator role too, until a server admin changed the command's permissions in the server's
# Integrations settings. Every command checks at use instead (require_moderator; moderator-role: Manage Server).
@app_commands.guild_only()
class AdminCog(commands.GroupCog, group_name="admin", group_description="Moderator corrections to this "
                                                                        "channel's game"):
    def __init__(self, bot: MentatBot):
        self.bot = bot
        super().__init__()

    async def _game(self, interaction: discord.Interaction) -> GameRecordRow:
        await require_moderator(self.bot.service, interaction)
        return await game_here(self.bot.service, interaction)

    @app_commands.command(name="moderator-role")
    @app_commands.describe(role="The role whose members moderate this server's games (leave out to see it)",
                           clear="Remove the moderator role (then only members with Manage Server moderate)")
    async def moderator_role(self, interaction: discord.Interaction, role: discord.Role | None = None,
                             clear: bool = False) -> None:
        """See or set the role whose members moderate this server's games (members with Manage Server only)."""
        async with refusals(interaction):
            guild_id = interaction.guild_id
            if guild_id is None or not manages_server(interaction.user):  # None: not in a server (no permissions)
                raise NotAllowed("Only a member with Manage Server may see or set the moderator role.")
            if role is not None and clear:
                raise NotAllowed("Give a role or clear it, not both.")
            if role is not None and role.is_default():
                raise NotAllowed("@everyone cannot be the moderator role: every member would moderate.")
            service = self.bot.service
            if role is not None or clear:
                await service.set_moderator_role(guild_id, role.id if role else None)
            current = await service.moderator_role(guild_id)
            if current is None:
                text = ("This server has no moderator role: members with Manage Server moderate its games. Set "
                        "one with /admin moderator-role role:@Role.")
            else:
                text = (f"This server's moderator role is <@&{current}>: its members moderate every game here, as "
                        "members with Manage Server do (/admin, and starting any game).")
            await answer(interaction, f"Done. {text}" if role is not None or clear else text)

    @app_commands.command(name="cancel")
    @app_commands.describe(reason="Why, for the table")
    async def cancel(self, interaction: discord.Interaction, reason: str) -> None:
        """End this channel's game for good (a lobby, a running or a paused game), after a confirmation."""
        async with refusals(interaction):
            game = await self._game(interaction)
            if game.status == GameStatus.ENDED:
                raise NotAllowed(f"This channel's game ({game.game_id}) is already over: there is nothing to "
                                 "cancel.")
            if not reason.strip():
                raise NotAllowed("Say why the game is cancelled: the table is told.")
            await interaction.response.send_message(
                f"**Cancel this game? This cannot be undone.**\nGame {game.game_id} ({game.status.value}) ends for "
                f"good; the table is told that you cancelled it ({reason.strip()}){_with_file(game)}.",
                view=CancelQuestion(self.bot, interaction, game, reason), ephemeral=True, allowed_mentions=NO_MENTIONS)

    @app_commands.command(name="seat")
    @app_commands.describe(faction="The seat", member="Who plays it (leave out to empty the seat)",
                           reason="Why, for the table")
    @app_commands.choices(faction=FACTION_CHOICES)
    async def seat(self, interaction: discord.Interaction, faction: str, member: discord.Member | None = None,
                   reason: str | None = None) -> None:
        """Seat or replace a player, even after the start (announced to the table with the reason)."""
        async with refusals(interaction):
            game = await self._game(interaction)
            if member is not None and game.status in (GameStatus.RUNNING, GameStatus.PAUSED):
                # a started game's seat changes hands as a substitute's would: the newcomer gets the catch-up
                await self.bot.service.hand_over(game.game_id, Faction(faction), member.id, admin=True,
                                                 caller=interaction.user.id, **self._who(interaction, reason))
            else:
                await self.bot.service.seat(game.game_id, Faction(faction), member.id if member else None,
                                            admin=True, **self._who(interaction, reason))
            self.bot.wake_outbox()
            who = member.mention if member else "nobody"
            # the table is told by the service's announcement (author and reason); this answer is for the admin
            await answer(interaction, f"Done: {faction_name(Faction(faction))} is now played by {who}.")

    @app_commands.command(name="force")
    @app_commands.describe(prompt="The decision's id (see /game status)", reason="Why, for the table")
    async def force(self, interaction: discord.Interaction, prompt: str,
                    reason: str = "the player did not answer in time") -> None:
        """Take an open decision's default for the faction that owes it."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await self._game(interaction)
            action = ForceDefault(admin=str(interaction.user), reason=reason, prompt_id=prompt.strip())
            accepted = await self.bot.service.submit(game.game_id, interaction.user.id, action, admin=True,
                                                     key=str(interaction.id))
            self.bot.wake_outbox()
            await answer(interaction, f"Decision {prompt} forced (game version {accepted.seq}).")

    @app_commands.command(name="spice")
    @app_commands.describe(faction="Whose spice", amount="Their spice after the correction", reason="Why, for "
                                                                                                    "the table")
    @app_commands.choices(faction=FACTION_CHOICES)
    async def spice(self, interaction: discord.Interaction, faction: str, amount: app_commands.Range[int, 0, 999],
                    reason: str) -> None:
        """Correct a faction's spice (announced to the table with the reason)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await self._game(interaction)
            action = SetSpice(admin=str(interaction.user), reason=reason, faction=Faction(faction), amount=amount)
            accepted = await self.bot.service.submit(game.game_id, interaction.user.id, action, admin=True,
                                                     key=str(interaction.id))
            self.bot.wake_outbox()
            await answer(interaction, f"Spice corrected (game version {accepted.seq}).")

    @app_commands.command(name="undo")
    @app_commands.describe(count="How many actions to take back",
                           force="Undo even past something players have already seen (a draw, a reveal)",
                           reason="Why, for the table")
    async def undo(self, interaction: discord.Interaction, count: app_commands.Range[int, 1, 50] = 1,
                   force: bool = False, reason: str | None = None) -> None:
        """Take back the last actions (replays the game without them)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await self._game(interaction)
            version = await self.bot.service.undo(game.game_id, count, force=force, **self._who(interaction, reason))
            self.bot.wake_outbox()
            await answer(interaction, f"Undone; the game is back at version {version}.")

    @app_commands.command(name="deadline")
    @app_commands.describe(hours="Hours a player has for a decision (0 to clear)",
                           kind="One kind of decision (e.g. bid, battle_plan); leave out for every kind",
                           reason="Why, for the table")
    @app_commands.autocomplete(kind=deadline_kinds)
    async def deadline(self, interaction: discord.Interaction, hours: app_commands.Range[float, 0, 720],
                       kind: str | None = None, reason: str | None = None) -> None:
        """Set how long players have to decide (over the game's pace); then the decision's default is applied."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await self._game(interaction)
            seconds = round(hours * 3600) or None
            await self.bot.service.set_deadline(game.game_id, kind, seconds, **self._who(interaction, reason))
            self.bot.wake_outbox()  # the service announces the new deadline to the table
            what = kind_words(kind) if kind else "every decision"
            await answer(interaction, f"Deadline for {what}: {duration(seconds) if seconds else 'none'}.")

    @app_commands.command(name="grace")
    @app_commands.describe(faction="Whose decisions", hours="How many hours more they get",
                           reason="Why, for the table")
    @app_commands.choices(faction=FACTION_CHOICES)
    async def grace(self, interaction: discord.Interaction, faction: str,
                    hours: app_commands.Range[float, 0.01, 720.0], reason: str) -> None:
        """Give one player more time for their open decisions (announced to the table, the player told by DM)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await self._game(interaction)
            due = await self.bot.service.grace(game.game_id, Faction(faction), round(hours * 3600),
                                               **self._who(interaction, reason))
            self.bot.wake_outbox()
            await answer(interaction, f"Done: {faction_possessive(Faction(faction))} open decisions are now due "
                                      + ", ".join(timestamp(moment) for moment in due) + ".")

    async def _correct(self, interaction: discord.Interaction, action) -> None:
        """Submit one correction as the moderator (announced to the table with its reason)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await self._game(interaction)
            accepted = await self.bot.service.submit(game.game_id, interaction.user.id, action, admin=True,
                                                     key=str(interaction.id))
            self.bot.wake_outbox()
            await answer(interaction, f"Corrected (game version {accepted.seq}).")

    def _who(self, interaction: discord.Interaction, reason: str | None) -> dict:
        """The author and reason of a correction the service announces (seat, pause, undo, deadline, grace)."""
        return {"by": str(interaction.user), "reason": reason}

    def _signed(self, interaction: discord.Interaction, reason: str) -> dict:
        """The author and reason an engine correction carries (AdminAction)."""
        return {"admin": str(interaction.user), "reason": reason}

    @app_commands.command(name="tokens")
    @app_commands.describe(faction="Whose tokens", tokens="How many", source="A location, reserves or tanks",
                           destination="A location, reserves or tanks", reason="Why, for the table")
    @app_commands.choices(faction=FACTION_CHOICES)
    async def tokens(self, interaction: discord.Interaction, faction: str, tokens: app_commands.Range[int, 1, 20],
                     source: str, destination: str, reason: str) -> None:
        """Move, add or remove tokens (between the board, the reserves and the tanks)."""
        await self._correct(interaction, PlaceTokens(**self._signed(interaction, reason), faction=Faction(faction),
                                                     tokens=tokens, source=source, destination=destination))

    @app_commands.command(name="card")
    @app_commands.describe(card="The card's id (e.g. shield_2)", to="Who gets it (leave out to discard it)",
                           reason="Why, for the table")
    @app_commands.choices(to=FACTION_CHOICES)
    async def card(self, interaction: discord.Interaction, card: str, reason: str, to: str | None = None) -> None:
        """Give a Treachery card to a faction, or discard it, wherever it is now."""
        await self._correct(interaction, MoveCard(**self._signed(interaction, reason), card=card.strip(),
                                                  to=Faction(to) if to else None))

    @app_commands.command(name="leader")
    @app_commands.describe(leader="The leader's id (e.g. feyd_rautha)", alive="Alive (revive) or dead (kill)",
                           reason="Why, for the table")
    async def leader(self, interaction: discord.Interaction, leader: str, alive: bool, reason: str) -> None:
        """Kill a leader or bring him back."""
        await self._correct(interaction, SetLeader(**self._signed(interaction, reason), leader=leader.strip(),
                                                   alive=alive))

    @app_commands.command(name="storm")
    @app_commands.describe(sector="The storm's sector (1-18)", reason="Why, for the table")
    async def storm(self, interaction: discord.Interaction, sector: app_commands.Range[int, 1, 18],
                    reason: str) -> None:
        """Put the storm in a sector (nothing is swept)."""
        await self._correct(interaction, SetStorm(**self._signed(interaction, reason), sector=sector))

    @app_commands.command(name="pause")
    @app_commands.describe(paused="Pause (true) or resume (false)", reason="Why, for the table")
    async def pause(self, interaction: discord.Interaction, paused: bool = True, reason: str | None = None) -> None:
        """Pause the game (nobody acts, no default is applied) or resume it."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with refusals(interaction):
            game = await self._game(interaction)
            await self.bot.service.pause(game.game_id, paused, **self._who(interaction, reason))
            await self.bot.service.override_vote(game.game_id, by=str(interaction.user),
                                                 did="paused the game" if paused else "resumed the game")
            self.bot.wake_outbox()
            await answer(interaction, "Paused." if paused else "Resumed.")


async def setup(bot: MentatBot) -> None:
    await bot.add_cog(AdminCog(bot))
