"""Turn threads over weeks, end to end through SimCord with Discord's thread archiving modelled
(tests/discord_model.py ThreadArchiving): a thread archived mid-game takes every later line and edit."""

from __future__ import annotations

import pytest

from bot.discord.gateway import DiscordGateway
from engine.ids import Faction
from tests import test_discord_e2e as e2e
from tests.discord_model import DiscordModel, ThreadArchiving
from tests.test_discord_e2e import deliver, room  # noqa: F401 - the fixture

simcord_bot = e2e.simcord_bot
A, H, BT, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU, Faction.FREMEN


async def test_probe(room, monkeypatch):
    model = DiscordModel(room.env, ThreadArchiving()).install(monkeypatch)
    handed = []
    deliver_one = DiscordGateway.deliver

    async def recorded(self, game, message):
        handed.append(message)
        return await deliver_one(self, game, message)

    monkeypatch.setattr(DiscordGateway, "deliver", recorded)
    room.players[F] = room.guild.add_member(room.env.create_user("fred"))
    alice = room.players[A]
    await alice.slash(room.channel, "game new", factions="atreides, harkonnen, fremen, bt", seed=7, pace="none")
    for faction, member in room.players.items():
        await member.slash(room.channel, "game join", faction=faction.value)
    await alice.slash(room.channel, "game start")
    await deliver(room.env)
    [thread] = room.channel.threads
    print(room.env.backend.channels[thread.id].thread_metadata)
    await model.pass_quiet_time(7 * 86400 + 60)
    print(room.env.backend.channels[thread.id].thread_metadata, room.env.bot.get_channel(thread.id))
    del handed[:]
    for faction in (A, F):
        member = room.players[faction]
        prompt = next(m for m in member.user.dm_channel.history() if "Your decision: your traitor" in m.content)
        leader = [item for row in prompt.components for item in row.children][0].label
        await member.user.click(prompt, label=leader)
        await deliver(room.env)
    for m in handed:
        print(repr(m.text[:60]), m.recipient, m.key, m.edit_of, m.replace, m.opens_thread)
    print(room.env.backend.channels[thread.id].thread_metadata)
    print([m.content for m in thread.history(viewer=room.dave)])
