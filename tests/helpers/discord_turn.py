"""A SimCord table of all seven factions for the turn's end-to-end tests: a game planted, a DM card of a decision,
the news and the pings."""

from __future__ import annotations

import pytest

from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind
from tests.conftest import BG, BT, A, E, F, G, H
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_dms import dm_for, open_prompt, plant
from tests.helpers.positions.bt_traitors import at, drive, position

MEMBERS = {A: "alice", BG: "betty", E: "eve", F: "fred", G: "gus", H: "bob", BT: "carol"}


@pytest.fixture
async def table(simcord_env):
    """All seven seated (the Atreides' player a moderator), dave looking on; no game yet."""
    return await e2e.open_room(simcord_env, MEMBERS)


async def card_of(table, state: GameState, faction: Faction, kind: PromptKind):
    """Plant the game; the decider's DM card of its open decision of this kind, and the decision."""
    game_id = await plant(table, state)
    prompt = await open_prompt(table.env, game_id, faction, kind)
    return game_id, prompt, dm_for(table.players[faction], prompt.id)


def news(table, before) -> str:
    return table.news(before)["channel"]


def auction(spice=10) -> GameState:
    state = at(position(factions=(A, H, BT), spice={A: spice, H: spice}), Phase.BIDDING)
    return drive(state, lambda s: any(p.kind == PromptKind.BID for p in s.prompts))[0]


def shipping(**changes) -> GameState:
    state = at(position(factions=(A, H, BT), **changes), Phase.MOVEMENT)
    return drive(state, lambda s: any(p.kind == PromptKind.SHIPMENT for p in s.prompts))[0]


def pings_of(table, member) -> int:
    """How often the bot's posts in the channel and its threads pinged `member`."""
    backend = table.env.backend
    places = [table.channel.id, *(thread.id for thread in table.channel.threads)]
    return sum(member.id in m.ping_user_ids for place in places for m in backend.messages.get(place, {}).values())
