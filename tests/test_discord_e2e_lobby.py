"""The lobby, the welcome and the deadlines, end to end through SimCord (the real MentatBot in the `room` of
tests/test_discord_e2e.py, whose fixtures and helpers are imported): /game new posts a lobby whose buttons seat
the players and start the game, each player gets a welcome DM, reminders call the awaited player by name (and ping
no one else), a deadline's default is applied and told, and a grace moves one player's deadline.

The drain loop runs the deadline tick every DRAIN_INTERVAL seconds of SimCord's virtual clock, which the service
and the store read (the `simcord_bot` fixture): `env.advance_time` moves the deadlines.

Reminders go to the turn's thread ("turn:N"), which the channel feed opens; where it was never opened they fall
back to the channel, so these tests look for them in the channel and its threads alike.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from simcord.backend.errors import SetupError

from bot.app.decision_cards import timestamp
from bot.app.lobby import LOBBY_KEY
from bot.app.paces import Pace, pace_deadlines
from bot.discord.client import DRAIN_INTERVAL, MentatBot
from bot.discord.lobby import START_LABEL
from engine.data import load_game_data
from engine.ids import Faction
from engine.model import PromptKind
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_tables import deliver, reply, table_posts

simcord_bot, room, table = e2e.simcord_bot, e2e.room, e2e.table  # the fixtures of tests/helpers/discord_tables.py

A, H, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU


def labels(message) -> list[tuple[str, bool]]:
    """The message's buttons as (label, disabled)."""
    return [(item.label, item.disabled) for row in message.components for item in row.children]


async def lobby_post(room):
    """The lobby as Discord shows it now (found by where the store says it was posted)."""
    game = await room.env.bot.service.store.game_in_channel(room.channel.id)
    ref = await room.env.bot.service.store.message_ref(game.game_id, LOBBY_KEY)
    message_id = int(ref.partition(":")[2])
    [post] = [m for m in room.channel.history() if m.id == message_id]
    return post


# --- the lobby and the welcome ---------------------------------------------------------------------------------


async def test_the_lobby_fills_from_its_buttons_and_its_creator_starts_the_game_from_it(room):
    alice, bob, carol, dave = room.players[A], room.players[H], room.players[BT], room.dave
    opened = await bob.slash(room.channel, "game new", factions="atreides, harkonnen, bt", pace="fast", seed=7)
    assert opened.ephemeral  # the lobby post is the table's one news of the game
    await deliver(room.env)
    lobby = await lobby_post(room)
    assert lobby.content.startswith("**A game of Dune is open: Atreides, Harkonnen, Bene Tleilaxu.**\n"
                                    "Options: bt_traps, bt_worthless_impairers, bt_give_cards, "
                                    "pass_is_final on, the others off; "
                                    "max_alliance_size=2, alliance_strongholds_to_win=4, turns=15 (the defaults).\n"
                                    "Pace: fast (a live evening): 1 min for a yes or no")
    assert labels(lobby) == [("Take Atreides", False), ("Take Harkonnen", False), ("Take Bene Tleilaxu", False),
                             (START_LABEL, True)]
    with pytest.raises(SetupError, match="disabled"):  # not before every seat is taken
        await bob.click(lobby, label=START_LABEL)

    taken = await carol.click(lobby, label="Take Bene Tleilaxu")
    assert taken.ephemeral and reply(taken) == "You play Bene Tleilaxu."
    second = await carol.click(lobby, label="Take Atreides")  # before the lobby is edited: one seat each
    assert second.ephemeral and reply(second).startswith("Refused: You already play Bene Tleilaxu")
    await deliver(room.env)
    lobby = await lobby_post(room)  # the same post, edited in place
    assert f"- Bene Tleilaxu: {carol.mention}" in lobby.content and "- Atreides: free" in lobby.content
    assert ("Take Bene Tleilaxu", False) not in labels(lobby)

    await bob.click(lobby, label="Take Harkonnen")
    late = await dave.click(lobby, label="Take Harkonnen")  # pressed before the lobby shows bob there
    assert reply(late) == "Refused: That seat is taken or the game has started; an admin can reseat players."
    restarted = MentatBot(room.env.bot.service)  # the buttons outlive a restart (dynamic items)
    await room.env.restart_bot(restarted)
    await alice.click(lobby, label="Take Atreides")
    await deliver(room.env)
    lobby = await lobby_post(room)
    assert labels(lobby) == [(START_LABEL, False)]
    assert "Every seat is taken" in lobby.content

    refused = await dave.click(lobby, label=START_LABEL)
    assert reply(refused) == "Refused: Only the game's creator or a moderator may start it."
    started = await bob.click(lobby, label=START_LABEL)  # bob created the game; he is no moderator
    assert started.ephemeral and reply(started).startswith("The game has started")
    await deliver(room.env)
    lobby = await lobby_post(room)
    assert lobby.content.startswith("**A game of Dune has started") and labels(lobby) == []
    assert sum(text.startswith("**A game of Dune") for text in e2e.contents(room.channel)) == 1  # announced once
    settings = (await restarted.service.store.game_in_channel(room.channel.id)).settings
    assert settings["deadlines"] == pace_deadlines(Pace.FAST)


async def test_each_player_is_welcomed_by_dm_with_their_faction_its_advantages_and_where_to_act(table):
    data = load_game_data()
    for faction, member in table.players.items():
        first = member.user.dm_channel.history()[0]  # the welcome comes before the deal
        assert first.content.startswith(f"**Dune in {table.channel.mention}**\nWelcome: you play "
                                        f"**{data.factions[faction].name}**.")
        assert all(advantage in first.content for advantage in data.factions[faction].advantages)
        others = [a for f, d in data.factions.items() if f != faction for a in d.advantages]
        assert not any(advantage in first.content for advantage in others)
        assert "Each has a deadline (the pace: daily (a look in every day)" in first.content  # the default pace
        assert all(command in first.content for command in ("`/me act`", "`/me prompts`", "`/rules`"))
        assert labels(first) == [("Play a card or act now…", False)]


async def test_the_pace_is_shown_by_game_status(table):
    shown = await table.dave.slash(table.channel, "game status")
    assert not shown.ephemeral and "Pace: daily (a look in every day): 4 h for a yes or no" in reply(shown)


async def test_game_status_says_until_when_each_awaited_decision_waits_and_nothing_runs_while_paused(table):
    """Issue 24: /game status gives each awaited decision's due time as a Discord timestamp (every reader sees it
    in their own time zone), the one the pinned board shows; a paused game's clocks stand still: none."""
    [board] = e2e.status_boards(table)
    until = dict(re.findall(r"(\w[\w ]*?) \(a secret decision, until <t:(\d+):f>\)", board.content))
    assert set(until) == {"Atreides", "Bene Tleilaxu"}
    shown = reply(await table.dave.slash(table.channel, "game status"))
    for faction, seconds in until.items():
        assert re.search(rf"^- {faction}: .*, due <t:{seconds}:f> \(<t:{seconds}:R>\)$", shown, re.MULTILINE)
    await table.players[A].slash(table.channel, "admin pause", reason="holidays")
    await deliver(table.env)
    [board] = e2e.status_boards(table)
    assert "**The game is paused.**" in board.content and "until <t:" not in board.content
    shown = reply(await table.dave.slash(table.channel, "game status"))
    assert "(paused)" in shown and "Waiting for:" in shown and "due <t:" not in shown


# --- reminders, defaults and graces --------------------------------------------------------------------------


async def test_a_reminder_calls_the_awaited_player_by_name_and_pings_only_them_then_the_default_is_told(table):
    """The traitor pick alone gets a 4-second deadline: the reminder at 2 s, the default at 4 s."""
    alice, carol = table.players[A], table.players[BT]
    set_to = await alice.slash(table.channel, "admin deadline", hours=4 / 3600, kind="traitor_pick")
    assert reply(set_to) == "Deadline for traitor pick decisions: 4 s."
    await deliver(table.env)
    assert "Admin alice set the deadline of traitor pick decisions to 4 s." in e2e.contents(table.channel)
    before, dms = len(table_posts(table)), table.screens()
    await table.env.advance_time(DRAIN_INTERVAL)  # past half time: the reminder
    [called] = table_posts(table)[before:]
    assert re.fullmatch(rf"Reminder: {re.escape(alice.mention)}, the table waits on you: a secret decision, due "
                        r"<t:\d+:R>\.", called.content)
    assert called.ping_user_ids == [alice.id] and called.allowed_mentions.users == frozenset({alice.id})
    news = table.news(dms)
    assert "Reminder, your decision: your traitor. Due <t:" in news["atreides"]
    assert news["bene_tleilaxu"] == news["harkonnen"] == ""  # the BT's traps have no such deadline

    await table.env.advance_time(DRAIN_INTERVAL)  # past the deadline: the default, told to the table
    assert any("Atreides did not answer before the deadline: the default applies to their traitor."
               in post.content for post in table_posts(table))
    state = await table.env.bot.service.state_of(f"g{table.channel.id}")
    assert not [p for p in state.prompts_for(A) if p.kind == PromptKind.TRAITOR_PICK]
    assert [p.kind for p in state.prompts_for(BT)] == [PromptKind.BT_TRAPS]  # untouched: a day to go
    # the reminder and the default pinged nobody else (carol was called once, when her decision opened)
    assert carol.id not in {user for post in table_posts(table)[before:] for user in post.ping_user_ids}


async def test_a_grace_extends_one_players_deadline_and_not_anothers(table):
    alice, carol = table.players[A], table.players[BT]
    await alice.slash(table.channel, "admin deadline", hours=10 / 3600)  # every decision: 10 seconds
    await deliver(table.env)
    # a moderator's command: every member sees /admin (no default permission), and it is refused at use
    mine = await carol.slash(table.channel, "admin grace", faction="bene_tleilaxu", hours=1, reason="mine")
    assert reply(mine) == "Refused: Only a moderator (Manage Server, or the server's moderator role) may do this."
    before = table.screens()
    graced = await alice.slash(table.channel, "admin grace", faction="atreides", hours=0.01, reason="on a train")
    assert graced.ephemeral and reply(graced).startswith("Done: the Atreides' open decisions are now due <t:")
    await deliver(table.env)
    news = table.news(before)
    assert news["channel"].startswith("Admin alice gave Atreides 36 s more for their open decision (on a train); "
                                      "due <t:")
    assert "Admin alice gave you 36 s more (on a train):\n- your traitor: now due <t:" in news["atreides"]
    assert news["bene_tleilaxu"] == news["harkonnen"] == ""

    await table.env.advance_time(4 * DRAIN_INTERVAL)  # 12 s: the BT's deadline passed, not the Atreides'
    state = await table.env.bot.service.state_of(f"g{table.channel.id}")
    assert not state.prompts_for(BT) or PromptKind.BT_TRAPS not in {p.kind for p in state.prompts_for(BT)}
    assert [p.kind for p in state.prompts_for(A)] == [PromptKind.TRAITOR_PICK]
    await table.env.advance_time(12 * DRAIN_INTERVAL)  # 36 s more: the Atreides' too
    state = await table.env.bot.service.state_of(f"g{table.channel.id}")
    assert PromptKind.TRAITOR_PICK not in {p.kind for p in state.prompts_for(A)}
    told = "\n".join(post.content for post in table_posts(table))
    assert "Bene Tleilaxu did not answer before the deadline" in told
    assert "Atreides did not answer before the deadline: the default applies to their traitor." in told


async def test_a_new_deadline_changes_the_answer_by_of_the_card_in_place_and_the_pinned_board(table):
    """Issue 24: after /admin deadline the card a player holds and the pinned board read the new due time at once,
    the card edited in place with its controls (no new DM: an edit pings nobody)."""
    alice = table.players[A]
    card = next(m for m in alice.user.dm_channel.history() if "Your decision: your traitor" in m.content)
    controls, dms = labels(card), len(alice.user.dm_channel.history())
    await alice.slash(table.channel, "admin deadline", hours=2, kind="traitor_pick")
    await deliver(table.env)
    game = await table.env.bot.service.store.game_in_channel(table.channel.id)
    due = timestamp(game.started_at + timedelta(hours=2))  # counted from when the pick opened
    [edited] = [m for m in alice.user.dm_channel.history() if m.id == card.id]
    assert f"Answer by {due} (" in edited.content and labels(edited) == controls
    assert len(alice.user.dm_channel.history()) == dms
    [board] = e2e.status_boards(table)
    assert f"Atreides (a secret decision, until {due})" in board.content


async def test_a_closing_bot_answers_every_click_and_command_that_it_is_restarting_and_changes_nothing(room):
    """From the moment the bot begins to close (SIGTERM: MentatBot.close), until its connection to Discord is shut,
    an interaction is answered at once that the bot restarts, and goes no further."""
    alice, bob = room.players[A], room.players[H]
    await bob.slash(room.channel, "game new", factions="atreides, harkonnen", seed=7)
    await deliver(room.env)
    lobby = await lobby_post(room)
    room.env.bot.stop_taking_interactions()
    clicked = await alice.click(lobby, label="Take Atreides")
    assert clicked.ephemeral and reply(clicked) == "Mentat is restarting; nothing was done. Try again in a minute."
    elsewhere = room.guild.create_text_channel("dune-2")
    created = await alice.slash(elsewhere, "game new", factions="atreides, fremen")
    assert created.ephemeral and reply(created) == reply(clicked)
    store = room.env.bot.service.store
    assert (await store.game_in_channel(room.channel.id)).seats == {}
    assert await store.game_in_channel(elsewhere.id) is None
