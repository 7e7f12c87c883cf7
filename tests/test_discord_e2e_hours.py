"""Each player's hours (issue 26 item 1), end to end through SimCord, with the `room` and `table` of
tests/test_discord_e2e.py: /me settings sets, shows and refuses, for anyone (settings are per user, no seat
needed); inside a player's quiet hours their DMs arrive with Discord's suppress-notifications flag and the table's
posts name them without pinging them; when the quiet hours end one notifying DM lists what waits; their deadline
that would end inside them ends when they end, on their card and the status board. Service-level tests (the
reminders among them): tests/test_player_hours.py."""

from __future__ import annotations

import re
from datetime import timedelta

import discord

from bot.app.decision_cards import timestamp
from bot.app.ports import OutgoingMessage, Recipient, mention
from bot.discord.client import DRAIN_INTERVAL
from engine.ids import Faction
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_tables import deliver, reply, table_posts

simcord_bot, room, table = e2e.simcord_bot, e2e.room, e2e.table  # the fixtures of tests/helpers/discord_tables.py

A, H, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU
SILENT = 4096  # Discord's suppress-notifications message flag


async def test_me_settings_sets_shows_and_refuses_for_a_member_without_a_seat(room):
    dave = room.dave  # in no game: settings are his own, in every game
    shown = await dave.slash(room.channel, "me settings")
    assert shown.ephemeral and reply(shown).startswith("You have no settings yet: the bot counts your time in UTC")

    zones = await dave.autocomplete(room.channel, "me settings", "time_zone", "new_y")
    assert [choice["value"] for choice in zones] == ["America/New_York"]
    assert [c["value"] for c in await dave.autocomplete(room.channel, "me settings", "time_zone", "PARIS")] == [
        "Europe/Paris"]
    assert len(await dave.autocomplete(room.channel, "me settings", "time_zone", "a")) == 25

    saved = await dave.slash(room.channel, "me settings", time_zone="Europe/Paris", quiet_from=23, quiet_until=7)
    assert saved.ephemeral and reply(saved).startswith("Saved.\nYour time zone: Europe/Paris (it is ")
    assert "Quiet hours: 23:00 to 07:00 your time (8 hours a day)" in reply(saved)
    assert re.search(r"(now, until <t:\d+:f>|next from <t:\d+:f> to <t:\d+:f>)\.", reply(saved))  # local to each

    bad_zone = await dave.slash(room.channel, "me settings", time_zone="Mars/Olympus_Mons")
    assert bad_zone.ephemeral and reply(bad_zone).startswith(
        "Refused: 'Mars/Olympus_Mons' is not a time zone this bot knows")
    too_long = await dave.slash(room.channel, "me settings", quiet_from=20, quiet_until=9)
    assert reply(too_long) == ("Refused: Quiet hours from 20:00 to 09:00 would last 13 hours a day; at most 12 are "
                               "allowed, so that the table never waits on you longer than that.")
    again = await dave.slash(room.channel, "me settings")
    assert reply(again) == reply(saved).removeprefix("Saved.\n")  # the refusals changed nothing
    # nobody else was told anything
    assert not [m for m in e2e.table_messages(room.channel, room.players[A]) if "Quiet hours" in m.content]


async def test_quiet_hours_silence_dms_and_pings_move_the_deadline_and_one_dm_follows_at_their_end(table):
    alice, bob = table.players[A], table.players[H]
    now = discord.utils.utcnow()
    start = now.replace(minute=0, second=0, microsecond=0)
    end = start + timedelta(hours=1)
    set_to = await alice.slash(table.channel, "me settings", time_zone="UTC", quiet_from=start.hour,
                               quiet_until=end.hour)
    assert f"now, until {timestamp(end)}." in reply(set_to)
    await deliver(table.env)

    # the daily pace's traitor pick ends tomorrow inside alice's quiet hours: it ends when they end
    game_id = f"g{table.channel.id}"
    service = table.env.bot.service
    state = await service.state_of(game_id)
    [pick] = [p for p in state.prompts if p.faction == A]
    due = (await service.due_times(game_id))[pick.id]
    assert due == end + timedelta(days=1)
    [board] = e2e.status_boards(table)
    assert f"Atreides (a secret decision, until {timestamp(due)})" in board.content
    card = next(m for m in alice.user.dm_channel.history() if "Your decision: your traitor" in m.content)
    assert timestamp(due) in card.content

    # inside the quiet hours: a DM to alice arrives silently, bob's does not; a post names her without a ping
    granted = await alice.slash(table.channel, "admin grace", faction="atreides", hours=1, reason="a trip")
    assert granted.ephemeral
    await alice.slash(table.channel, "admin grace", faction="bene_tleilaxu", hours=1, reason="a trip")
    await service.store.queue(game_id, [OutgoingMessage(
        recipient=Recipient(channel=True), text=f"{mention('atreides')}, {mention('bene_tleilaxu')}: a word.")])
    table.env.bot.wake_outbox()
    await deliver(table.env)
    [to_alice] = [m for m in alice.user.dm_channel.history() if "gave you" in m.content]
    [to_carol] = [m for m in table.players[BT].user.dm_channel.history() if "gave you" in m.content]
    assert to_alice.flags.value & SILENT and to_alice.flags.suppress_notifications
    assert not to_carol.flags.value & SILENT
    [word] = [post for post in table_posts(table) if post.content.endswith("a word.")]
    assert alice.mention in word.content and word.ping_user_ids == [table.players[BT].id]
    dms_before = len(alice.user.dm_channel.history())

    # the quiet hours end: one notifying DM lists what waits, with its due time
    await table.env.advance_time((end - discord.utils.utcnow()).total_seconds() + DRAIN_INTERVAL)
    follow_ups = alice.user.dm_channel.history()[dms_before:]
    assert len(follow_ups) == 1
    [follow_up] = follow_ups
    moved = due + timedelta(hours=1)  # the grace: still out of the quiet hours
    assert not follow_up.flags.value & SILENT
    assert follow_up.content.endswith(f"Waiting for you:\n- your traitor: due {timestamp(moved)} "
                                      f"({timestamp(moved, 'R')}).")
    assert "Your quiet hours are over: " in follow_up.content
    # nobody else hears of it
    for faction in (H, BT):
        assert not any("quiet hours" in m.content for m in table.players[faction].user.dm_channel.history())
    assert [post.content for post in table_posts(table) if "quiet" in post.content.lower()
            and not post.is_ephemeral] == []  # alice's own answer aside
    assert bob.id not in {user for post in table_posts(table) if post.content.endswith("a word.")
                          for user in post.ping_user_ids}

    # every time the table and the DMs showed is a Discord timestamp, which each reader's client shows in their
    # own time zone: no clock time or zone in words
    shown = [post.content for post in table_posts(table) if not post.is_ephemeral]
    shown += [m.content for member in table.players.values() for m in member.user.dm_channel.history()]
    assert sum("<t:" in text for text in shown) >= 5
    assert [text for text in shown if re.search(r"\b\d{1,2}:\d{2}\b|\bUTC\b|\bGMT\b", text)] == []


async def test_a_game_started_inside_a_players_quiet_hours_welcomes_and_deals_to_them_silently(room):
    alice, bob = room.players[A], room.players[H]
    start = discord.utils.utcnow().replace(minute=0, second=0, microsecond=0)
    await alice.slash(room.channel, "me settings", time_zone="UTC", quiet_from=start.hour,
                      quiet_until=(start + timedelta(hours=2)).hour)
    await alice.slash(room.channel, "game new", factions="atreides, harkonnen, bt", seed=7)
    for faction, member in room.players.items():
        await member.slash(room.channel, "game join", faction=faction.value)
    await alice.slash(room.channel, "game start")
    await deliver(room.env)
    to_alice, to_bob = alice.user.dm_channel.history(), bob.user.dm_channel.history()
    assert len(to_alice) >= 3 and all(m.flags.suppress_notifications for m in to_alice)  # welcome, deal, card
    assert to_bob and not any(m.flags.suppress_notifications for m in to_bob)
