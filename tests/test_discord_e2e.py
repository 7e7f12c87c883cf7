"""End to end through SimCord (an in-process simulated Discord running discord.py's own command tree, views and
HTTP layer): the real MentatBot, its cogs, persistent buttons and DiscordGateway, driven by simulated members.

Where SimCord falls short, and what these tests do instead:
- The outbox drain loop (`MentatBot._drain_forever`, `asyncio.wait_for(Event.wait(), timeout)`) is not a wait
  SimCord can park: it only recognizes sleeps, `discord.ext.tasks` loops, `Client.wait_for` listeners, view waits
  and `env.external_wait`, so every settle times out with "unknown wait (Future)". The fixture replaces the loop
  on this bot instance with a no-op and the tests deliver the outbox deterministically with
  `await bot.service.deliver(bot.gateway)` (the same call the loop makes), so `advance_time` is not used.
- Commands must be synced (strict_sync): the bot only syncs for a dev guild, which cannot be known before the
  environment starts, so the tests run the global `bot.tree.sync()` themselves.
"""

from __future__ import annotations

import discord
import pytest

from bot.app.service import GameService
from bot.discord.client import MentatBot
from bot.store.memory import MemoryGameStore


@pytest.fixture
def simcord_bot():
    bot = MentatBot(GameService(MemoryGameStore()), drain_interval=3600.0)

    async def no_drain() -> None:  # see the module docstring: SimCord cannot park the real drain loop
        return None

    bot._drain_forever = no_drain
    return bot


def reply(result) -> str:
    """The text a command answered with, whether it replied directly or deferred and followed up."""
    return result.followups[-1].content if result.followups else result.response.content


def contents(channel) -> list[str]:
    return [message.content for message in channel.history()]


async def deliver(env) -> int:
    sent = await env.bot.service.deliver(env.bot.gateway)
    await env.settle()
    return sent


@pytest.fixture
async def table(simcord_env):
    """Three members seated as Atreides, Harkonnen and the BT in #dune, the game started and its outbox out."""
    env = simcord_env
    await env.bot.tree.sync()
    guild = env.create_guild()
    channel = guild.create_text_channel("dune")
    moderators = guild.create_role("moderators", permissions=discord.Permissions(manage_guild=True))
    alice = guild.add_member(env.create_user("alice"), roles=[moderators])
    bob = guild.add_member(env.create_user("bob"))
    carol = guild.add_member(env.create_user("carol"))

    opened = await alice.slash(channel, "game new", factions="atreides, harkonnen, bt", seed=7)
    assert not opened.ephemeral and "is open for Atreides, Harkonnen, Bene Tleilaxu" in opened.response.content
    for member, faction in ((alice, "atreides"), (bob, "harkonnen"), (carol, "bene_tleilaxu")):
        joined = await member.slash(channel, "game join", faction=faction)
        assert not joined.ephemeral and joined.response.content.startswith(member.mention)
    started = await alice.slash(channel, "game start")
    assert started.ephemeral and "The game has started" in reply(started)
    assert await deliver(env) > 0
    return env, channel, {"alice": alice, "bob": bob, "carol": carol}


async def test_starting_sends_the_table_news_and_each_seat_its_own_deal(table):
    _env, channel, members = table
    shown = contents(channel)
    for name, faction in (("alice", "Atreides"), ("bob", "Harkonnen"), ("carol", "Bene Tleilaxu")):
        assert f"{members[name].mention} plays {faction}." in shown
    assert any(text.startswith("A game of Dune begins with Atreides, Harkonnen, Bene Tleilaxu") for text in shown)
    dms = {name: [m.content for m in member.user.dm_channel.history()] for name, member in members.items()}
    for texts in dms.values():
        assert texts and all(text.startswith("**Dune in <#") for text in texts)
        assert any("Your starting Treachery cards" in text for text in texts)
    assert any("Choose one traitor to keep from" in text for text in dms["alice"])
    assert any("you keep all 4" in text for text in dms["bob"])  # the Harkonnen keeps every traitor
    assert any("bt traps" in text for text in dms["carol"])
    # nobody's deal reaches the channel
    assert not any("Your starting Treachery cards" in text for text in shown)


async def test_a_traitor_picked_by_the_dm_button_is_announced_without_its_name(table):
    env, channel, members = table
    alice = members["alice"]
    prompt = next(m for m in alice.user.dm_channel.history() if "traitor pick" in m.content)
    buttons = [item for row in prompt.components for item in row.children]
    assert len(buttons) == 4 and all(b.custom_id.startswith("mentat:") for b in buttons)
    leader = buttons[0].label

    clicked = await alice.user.click(prompt, label=leader)
    assert clicked.ephemeral and reply(clicked).startswith(f"Done: {leader}")
    await deliver(env)
    shown = contents(channel)
    assert "Atreides chose a traitor." in "\n".join(shown)
    assert not any(leader in text for text in shown)

    again = await alice.user.click(prompt, label=buttons[1].label)  # the decision is closed now
    assert again.ephemeral and "already closed" in reply(again)


async def test_a_stranger_is_refused_privately_and_rules_answer_privately(table):
    env, channel, members = table
    dave = members["alice"].guild.add_member(env.create_user("dave"))
    bob_sees = [m.content for m in channel.history(viewer=members["bob"])]

    refused = await dave.slash(channel, "play bid", amount=3)
    assert refused.ephemeral and "Refused: You have no seat in this game" in reply(refused)

    rule = await dave.slash(channel, "rules", query="BT-2")
    assert rule.ephemeral
    assert reply(rule) == "**BT-2** The BT may join games of 3 to 7 players; a 2-player game with the BT is refused " \
                          "at creation."
    # neither answer shows for anybody else at the table
    assert [m.content for m in channel.history(viewer=members["bob"])] == bob_sees
    assert not any("no seat" in text or "BT-2" in text for text in bob_sees)
