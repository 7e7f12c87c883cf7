"""Absence (/me away, /me back; issue 26 item 2) and moderators hearing of trouble (item 5), end to end through
SimCord (the real MentatBot in the `room` and `table` of tests/test_discord_e2e.py: alice, who created the game,
plays the Atreides, bob the Harkonnen, carol the BT; dave is not in the game). The drain loop's tick runs every
DRAIN_INTERVAL seconds of SimCord's virtual clock, so the tests give the decisions deadlines of seconds."""

from __future__ import annotations

import re
from datetime import timedelta

import discord

from bot.app import absence
from bot.discord.client import DRAIN_INTERVAL
from engine.ids import Faction
from engine.model import PromptKind
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_tables import deliver, reply

simcord_bot, room, table = e2e.simcord_bot, e2e.room, e2e.table  # the fixtures of tests/helpers/discord_tables.py

A, H, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU
STAMP = r"<t:(\d+):f>"


async def _kinds(table, faction: Faction) -> set[PromptKind]:
    state = await table.env.bot.service.state_of(f"g{table.channel.id}")
    return {p.kind for p in state.prompts_for(faction)}


async def test_away_and_back_are_announced_with_their_end_as_a_timestamp_and_status_shows_who_is_away(table):
    alice, dave = table.players[A], table.dave
    before = table.screens()
    went = await alice.slash(table.channel, "me away", until="3d")
    assert went.ephemeral and reply(went).startswith("You are away until <t:")
    assert "the table is told. Meanwhile your deadlines wait for you, within 7 days of absence in any 28" in reply(went)
    await deliver(table.env)
    news = table.news(before)
    [told] = [line for line in news["channel"].splitlines() if "is away until" in line]
    assert re.fullmatch(rf"The Atreides player \({re.escape(alice.mention)}\) is away until {STAMP} \(<t:\d+:R>\)\. "
                        r"Their deadlines wait for them until they are back \(/me back ends it earlier\)\.", told)
    ends = int(re.search(STAMP, told).group(1))
    now = discord.utils.utcnow()
    assert abs(ends - (now + timedelta(days=3)).timestamp()) < 2
    assert news["harkonnen"] == news["bene_tleilaxu"] == ""  # the table's news, not a DM

    shown = reply(await dave.slash(table.channel, "game status"))
    assert f"Away:\n- the Atreides player ({alice.mention}) is away until <t:{ends}:f>" in shown
    assert "A player away (/me away): their deadlines wait (at most 7 days of absence in any 28)." in shown

    before = table.screens()
    came = await alice.slash(table.channel, "me back")
    assert came.ephemeral and "Welcome back" in reply(came)
    await deliver(table.env)
    assert table.news(before)["channel"].startswith(f"The Atreides player ({alice.mention}) is back. Their deadlines "
                                                    "run again.")
    assert "Away:" not in reply(await dave.slash(table.channel, "game status"))


async def test_wait_the_absent_players_deadline_stands_still_while_the_others_pass(table):
    alice = table.players[A]
    await alice.slash(table.channel, "admin deadline", hours=10 / 3600)  # every decision: 10 seconds
    await alice.slash(table.channel, "me away", until="1h")
    await deliver(table.env)
    await table.env.advance_time(6 * DRAIN_INTERVAL)  # 18 s: the BT's deadline passed, not the absent Atreides'
    assert PromptKind.BT_TRAPS not in await _kinds(table, BT)
    assert PromptKind.TRAITOR_PICK in await _kinds(table, A)
    assert not any("Atreides did not answer" in text for text in e2e.contents(table.channel))

    await alice.slash(table.channel, "me back")  # back after 18 s: the pick is due 18 s later than it was
    await deliver(table.env)
    await table.env.advance_time(2 * DRAIN_INTERVAL)
    assert PromptKind.TRAITOR_PICK in await _kinds(table, A)
    await table.env.advance_time(8 * DRAIN_INTERVAL)
    assert PromptKind.TRAITOR_PICK not in await _kinds(table, A)
    assert "Atreides did not answer before the deadline: the default applies to their traitor." \
        in e2e.feed_text(table.channel)


async def test_the_cap_ends_the_absence_and_only_the_creator_hears_of_it_by_dm_once(table):
    """Carol has had nearly 7 days of absence in the last 28 (kept in the settings): her new one ends at the cap."""
    alice, bob, carol, dave = table.players[A], table.players[H], table.players[BT], table.dave
    service = table.env.bot.service
    game = await service.store.game_in_channel(table.channel.id)
    now = discord.utils.utcnow()
    past = [[(now - timedelta(days=10)).isoformat(), (now - timedelta(days=3, seconds=20)).isoformat()]]
    await service.store.set_settings(game.game_id, {**game.settings, absence.AWAY_PAST: {BT.value: past}})
    went = await carol.slash(table.channel, "me away", until="2d")
    assert went.ephemeral and reply(went).startswith("You are away until")
    await deliver(table.env)
    assert "the end of this game's cap (7 days of absence in any 28)" in e2e.feed_text(table.channel)
    before = table.screens()
    alice_dms = len(alice.user.dm_channel.history())

    await table.env.advance_time(10 * DRAIN_INTERVAL)
    news = table.news(before)
    assert f"The Bene Tleilaxu player ({carol.mention}) has been away as long as this game's cap allows" \
        in news["channel"]
    [told] = [m.content for m in alice.user.dm_channel.history()[alice_dms:] if "cap of absence" in m.content]
    assert f"the Bene Tleilaxu player ({carol.mention}) reached this game's cap of absence" in told
    assert "cap of absence" not in news["channel"] + news["harkonnen"] + news["bene_tleilaxu"]
    assert dave.user.dm_channel is None or not dave.user.dm_channel.history()
    assert bob.user.dm_channel is not None  # bob has his own DMs, none of them this
    await table.env.advance_time(10 * DRAIN_INTERVAL)
    assert [m.content for m in alice.user.dm_channel.history()].count(told) == 1  # once


async def test_defaults_an_absent_players_decision_takes_its_default_at_the_next_tick(room):
    alice, bob, carol = room.players[A], room.players[H], room.players[BT]
    opened = await alice.slash(room.channel, "game new", factions="atreides, harkonnen, bt", seed=7,
                               absence="defaults")
    assert opened.ephemeral
    for faction, member in room.players.items():
        await member.slash(room.channel, "game join", faction=faction.value)
    await alice.slash(room.channel, "game start")
    await deliver(room.env)
    assert any("A player away (/me away): their decisions take their defaults at once." in text
               for text in e2e.contents(room.channel))  # the lobby says so
    await alice.slash(room.channel, "me away", until="2d")
    await deliver(room.env)
    await room.env.advance_time(DRAIN_INTERVAL)
    feed = e2e.feed_text(room.channel)
    assert "Until they are back, the Atreides' decisions take their defaults (and standing orders) at once." in feed
    assert "The Atreides player is away: the default applies to their traitor." in feed
    assert PromptKind.TRAITOR_PICK not in await _kinds(room, A)
    assert PromptKind.BT_TRAPS in await _kinds(room, BT)  # the others wait as ever
    card = next(m for m in alice.user.dm_channel.history() if "Your decision: your traitor" in m.content)
    assert "You are away: " in card.content
    assert bob.id and carol.id  # seated


async def test_bad_absences_are_refused_privately_and_change_nothing(table):
    alice, dave = table.players[A], table.dave
    before = table.screens()
    for member, command, options, refusal in [
        (dave, "me away", {"until": "3d"}, "Refused: You have no seat in this game: only a seated player can be away."),
        (alice, "me back", {}, "Refused: You are not away: /me away tells the table you will be."),
        (alice, "me away", {"until": "2020-01-01"}, "is not in the future: an absence ends later than now."),
        (alice, "me away", {"until": "40d"}, "is more than 28 days ahead: an absence may last 28 days at most"),
        (alice, "me away", {"until": "soon"}, "'soon' is not a date or a duration: write a date (2026-12-24)"),
    ]:
        answer = await member.slash(table.channel, command, **options)
        assert answer.ephemeral and refusal in reply(answer), (command, options, reply(answer))
    await alice.slash(table.channel, "me away", until="1d")
    await deliver(table.env)
    before = table.screens()
    again = await alice.slash(table.channel, "me away", until="2d")
    assert again.ephemeral and "Refused: You are already away, until <t:" in reply(again)
    await deliver(table.env)
    assert table.news(before) == {place: "" for place in before}


async def test_a_bot_error_in_a_game_reaches_its_creator_by_dm_with_its_error_id(table, monkeypatch):
    alice, bob = table.players[A], table.players[H]

    async def broken(*args, **kwargs):
        raise RuntimeError("the store fell over")

    monkeypatch.setattr(table.env.bot.service, "away", broken)
    before = table.screens()
    failed = await bob.slash(table.channel, "me away", until="1d")
    ref = re.search(r"error id ([0-9a-f]+)", reply(failed)).group(1)
    assert failed.ephemeral and "the game's moderators are told" in reply(failed)
    await deliver(table.env)
    [told] = [m.content for m in alice.user.dm_channel.history() if ref in m.content]
    assert "in /me away" in told and "the store fell over" not in told
    news = table.news(before)
    assert ref not in news["channel"] + news["harkonnen"] + news["bene_tleilaxu"]
    [error] = table.env.errors  # the one failure, expected (SimCord fails a test on any it did not see read)
    assert "the store fell over" in str(error.__cause__ or error)
