"""Calling the Discord handlers directly (no SimCord): a bot on a memory store, a cog, an interaction, a running
game."""

from __future__ import annotations

import pytest

from bot.app.service import GameService
from bot.discord.client import MentatBot
from bot.store.memory import MemoryGameStore
from tests.conftest import A, F, H
from tests.helpers.discord_fakes import FakeInteraction

USERS = {A: 101, H: 102, F: 103}


@pytest.fixture
async def bot():
    bot = MentatBot(GameService(MemoryGameStore()))
    await bot.add_cogs()
    return bot


def cog(bot, name):
    return bot.get_cog(name)


def itx(bot, user, **kw):
    return FakeInteraction(bot, user, **kw)


@pytest.fixture
async def running(bot):
    """A game in channel 55, opened, seated and started through the /game commands."""
    game = cog(bot, "GameCog")
    opening = itx(bot, USERS[A])
    await game.new.callback(game, opening, factions="Atreides, harkonnen, FREMEN", options="turns=5", seed=7)
    assert opening.answers[0][1] is True and "Game g55 is open" in opening.answers[0][0]  # the lobby is the news
    for faction, user in USERS.items():
        await game.join.callback(game, itx(bot, user), faction=faction.value)
    await game.start.callback(game, itx(bot, USERS[A]))
    return bot


async def stored_actions(bot):
    return await bot.service.store.actions("g55")
