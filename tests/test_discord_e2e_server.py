"""A server's moderators and a channel's games, end to end through SimCord (the real MentatBot in the `room` and
`table` of tests/test_discord_e2e.py, whose fixtures and helpers are imported; alice holds the moderators role with
Manage Server and plays the Atreides, bob and carol play, dave is a member outside the game): the server's
moderator role set by Manage Server and honoured by /admin, /game start and the lobby's Start button; a new game in
a channel whose game ended, the old one still readable; /admin cancel with its confirmation.

Discord's own gate: /admin has no default member permissions, so Discord shows it to every member (SimCord
enforces `default_member_permissions`: with Manage Server as the default, a role holder's /admin would fail with
"default-member-permissions" before reaching the bot), and each command checks at use.
"""

from __future__ import annotations

import json

import discord
import pytest
from simcord.backend.errors import SetupError

from bot.app.ports import GameStatus
from bot.discord.lobby import START_LABEL
from engine.ids import Faction
from engine.record import GameRecord, verify
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_tables import answered, deliver, reply, table_messages

simcord_bot, room, table = e2e.simcord_bot, e2e.room, e2e.table  # the fixtures of tests/helpers/discord_tables.py

A, H, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU
REFUSED = "Refused: Only a moderator (Manage Server, or the server's moderator role) may do this."


def referee(room):
    """erin: a member of the server holding the 'referees' role (no permission of its own), outside the game."""
    role = room.guild.create_role("referees", permissions=discord.Permissions.none())
    return role, room.guild.add_member(room.env.create_user("erin"), roles=[role])


async def status_of(room) -> GameStatus:
    return (await room.env.bot.service.store.game_in_channel(room.channel.id)).status


# --- the server's moderator role -------------------------------------------------------------------------------


async def test_a_holder_of_the_servers_moderator_role_moderates_and_only_manage_server_sets_the_role(table):
    alice, bob = table.players[A], table.players[H]
    role, erin = referee(table)
    assert "admin pause" in erin.available_commands(table.channel)  # shown to every member

    refused = await erin.slash(table.channel, "admin pause", reason="lunch")
    assert reply(refused) == REFUSED and await status_of(table) == GameStatus.RUNNING
    for who, options in ((erin, {"role": role}), (erin, {}), (bob, {"clear": True})):
        asked = await who.slash(table.channel, "admin moderator-role", **options)
        assert asked.ephemeral and reply(asked) == ("Refused: Only a member with Manage Server may see or set the "
                                                    "moderator role.")
    shown = await alice.slash(table.channel, "admin moderator-role")
    assert reply(shown).startswith("This server has no moderator role: members with Manage Server moderate")

    chosen = await alice.slash(table.channel, "admin moderator-role", role=role)
    assert chosen.ephemeral and reply(chosen) == (f"Done. This server's moderator role is <@&{role.id}>: its members "
                                                  "moderate every game here, as members with Manage Server do "
                                                  "(/admin, and starting any game).")
    paused = await erin.slash(table.channel, "admin pause", reason="lunch")
    assert reply(paused) == "Paused." and await status_of(table) == GameStatus.PAUSED
    await deliver(table.env)
    assert "Admin erin paused the game (lunch)." in e2e.contents(table.channel)
    still_refused = await bob.slash(table.channel, "admin pause", paused=False)  # bob holds no such role
    assert reply(still_refused) == REFUSED and await status_of(table) == GameStatus.PAUSED
    seated = await erin.slash(table.channel, "admin seat", faction="harkonnen", member=erin, reason="swap")
    assert reply(seated) == f"Done: Harkonnen is now played by {erin.mention}."

    cleared = await alice.slash(table.channel, "admin moderator-role", clear=True)
    assert reply(cleared).startswith("Done. This server has no moderator role")
    resumed = await erin.slash(table.channel, "admin pause", paused=False)
    assert reply(resumed) == REFUSED and await status_of(table) == GameStatus.PAUSED


async def test_a_holder_of_the_moderator_role_starts_a_game_someone_else_created_from_the_lobby(room):
    role, erin = referee(room)
    bob = room.players[H]
    await bob.slash(room.channel, "game new", factions="atreides, harkonnen, bt", seed=7)
    for faction, member in room.players.items():
        await member.slash(room.channel, "game join", faction=faction.value)
    await deliver(room.env)
    refused = await erin.slash(room.channel, "game start")
    assert reply(refused) == "Refused: Only the game's creator or a moderator may start it."

    await room.players[A].slash(room.channel, "admin moderator-role", role=role)
    lobby = next(m for m in room.channel.history() if "A game of Dune is open" in m.content)
    pressed = await erin.click(lobby, label=START_LABEL)
    assert "The game has started" in reply(pressed) and await status_of(room) == GameStatus.RUNNING


# --- a new game after an ended one -----------------------------------------------------------------------------


async def test_a_channel_whose_game_ended_takes_a_new_game_and_the_old_ones_log_stays_readable(table):
    alice = table.players[A]
    first = f"g{table.channel.id}"
    refused = await alice.slash(table.channel, "game new", factions="atreides, fremen")
    assert reply(refused) == (f"Refused: This channel already has a game ({first}, running). A new one can be opened "
                              "here once it is over, or once a moderator ends it with /admin cancel; or use another "
                              "channel or thread.")
    old_log = reply(await alice.slash(table.channel, "game log"))
    await table.env.bot.service.store.set_status(first, GameStatus.ENDED)  # as a game played to its end

    opened = await alice.slash(table.channel, "game new", factions="atreides, fremen", seed=3)
    assert reply(opened).startswith(f"Game {first}-2 is open")
    await deliver(table.env)
    assert any(text.startswith("**A game of Dune is open: Atreides, Fremen.**") for text in e2e.contents(table.channel))
    status = await table.players[H].slash(table.channel, "game status")
    assert reply(status).startswith(f"**Game {first}-2** (open)")

    offered = await table.dave.autocomplete(table.channel, "game log", "game", "")
    assert [choice["value"] for choice in offered] == [f"{first}-2", first]  # newest first
    assert offered[1]["name"].startswith(f"{first}: over, opened ")
    logged = await table.dave.slash(table.channel, "game log", game=first)
    assert reply(logged) == old_log and "Atreides, Harkonnen, Bene Tleilaxu" in old_log
    exported = answered(await table.dave.slash(table.channel, "game export", game=first))
    assert exported.content.startswith("The whole game, every secret included")
    assert GameRecord.model_validate_json(await exported.attachments[0].read()).setup.seed == 7
    elsewhere = await table.dave.slash(table.channel, "game log", game="g1")
    assert reply(elsewhere).startswith("Refused: This channel held no game 'g1'")


# --- /admin cancel ------------------------------------------------------------------------------------------------


async def test_admin_cancel_asks_first_then_ends_the_game_and_gives_the_table_who_why_and_the_game_file(table):
    alice, bob = table.players[A], table.players[H]
    game_id = f"g{table.channel.id}"
    refused = await bob.slash(table.channel, "admin cancel", reason="I am losing")
    assert reply(refused) == REFUSED

    asked = await alice.slash(table.channel, "admin cancel", reason="two players moved away")
    question = answered(asked)
    assert asked.ephemeral and question.content.startswith("**Cancel this game? This cannot be undone.**")
    assert [item.label for row in question.message.components for item in row.children] == ["Confirm", "Keep"]
    with pytest.raises(SetupError, match="not visible to this user"):  # ephemeral: only alice sees it, or presses
        await bob.click(question, label="Confirm")
    kept = await alice.click(question, label="Keep")
    assert reply(kept) == f"Kept: game {game_id} goes on." and await status_of(table) == GameStatus.RUNNING
    before = table.screens()

    question = answered(await alice.slash(table.channel, "admin cancel", reason="two players moved away"))
    confirmed = await alice.click(question, label="Confirm")
    assert reply(confirmed).startswith(f"Cancelled: game {game_id} is over.")
    assert await status_of(table) == GameStatus.ENDED
    await deliver(table.env)

    news = table.news(before)
    announced = [m for m in table_messages(table.channel, table.dave) if "cancelled the game" in m.content]
    [post] = announced
    assert post.content == ("Admin alice cancelled the game (two players moved away). The game is over: its whole "
                            "file, every secret included, is attached (/game export gives it too). /game new opens a "
                            "new game in this channel.")
    [attached] = post.attachments
    assert attached.filename == f"{game_id}.json"
    record = GameRecord.model_validate_json(await attached.read())
    assert verify(record) == await table.env.bot.service.state_of(game_id)  # it replays to where the game stood
    assert json.loads(await attached.read())["seats"] == {f.value: member.id for f, member in table.players.items()}
    assert "The game is over. What was secret:" in news["channel"]
    for faction in (A, BT):  # their setup decisions were open: each card says so and can no longer be pressed
        [card] = [m for m in table.players[faction].user.dm_channel.history()
                  if m.content.endswith("**Closed: the game was cancelled.**")]
        assert card.components and all(item.disabled for row in card.components for item in row.children)
    assert not any("Closed" in text for text in table.screens()["harkonnen"])  # no decision of theirs was open

    status = await bob.slash(table.channel, "game status")
    assert "Cancelled by alice: two players moved away." in reply(status)
    logged = await bob.slash(table.channel, "game log")
    assert reply(logged).endswith("Admin alice cancelled the game (two players moved away). The game is over: its "
                                  "whole file, every secret included, is attached (/game export gives it too). /game "
                                  "new opens a new game in this channel.")
    again = await alice.slash(table.channel, "admin cancel", reason="twice")
    assert reply(again) == f"Refused: This channel's game ({game_id}) is already over: there is nothing to cancel."
    opened = await bob.slash(table.channel, "game new", factions="atreides, harkonnen")
    assert reply(opened).startswith(f"Game {game_id}-2 is open")


async def test_a_cancel_confirmed_after_the_game_ended_meanwhile_is_refused_and_the_question_closes(table):
    alice = table.players[A]
    question = answered(await alice.slash(table.channel, "admin cancel", reason="too slow"))
    await table.env.bot.service.store.set_status(f"g{table.channel.id}", GameStatus.ENDED)  # it ended meanwhile

    confirmed = await alice.click(question, label="Confirm")
    assert reply(confirmed) == f"Refused: Game g{table.channel.id} is already over: there is nothing to cancel."
    assert confirmed.response.message.components == []  # no button left to press
    assert "cancelled" not in (await table.env.bot.service.store.game_in_channel(table.channel.id)).settings


async def test_the_cancel_question_answers_only_its_moderator_and_lapses_unanswered():
    """Discord shows an ephemeral question to its asker alone (SimCord enforces it: the test above); the view checks
    the presser all the same. Unanswered, it lapses and says so (its asker's interaction can edit it 15 minutes)."""
    from bot.app.service import GameService
    from bot.discord.client import MentatBot
    from bot.discord.cogs.admin import CancelQuestion
    from bot.store.memory import MemoryGameStore
    from tests.helpers.discord_fakes import FakeInteraction

    bot = MentatBot(GameService(MemoryGameStore()))
    game = await bot.service.create_game(guild_id=1, channel_id=55, factions=[A, H])
    asked = FakeInteraction(bot, 900, manage_guild=True)
    question = CancelQuestion(bot, asked, game, "too slow")
    other = FakeInteraction(bot, 901, manage_guild=True)
    assert not await question.interaction_check(other)
    assert other.answers == [("Only the moderator who asked may answer this.", True)]
    assert await question.interaction_check(FakeInteraction(bot, 900, manage_guild=True))

    await question.on_timeout()
    assert asked.log == [("edit", "Not cancelled: no answer within 10 minutes.", True)]
    assert (await bot.service.store.load_game(game.game_id)).status == GameStatus.OPEN
