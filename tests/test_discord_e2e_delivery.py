"""Delivery that isolates games and channels, and failures that are seen (issue 24 items 4 and 5), end to end
through SimCord: two games on one server (one shard), the first one's channel refusing the bot on every request
(403, Missing Permissions, as Discord answers a channel whose permissions were taken from the bot), the second
delivering meanwhile; and the requests an edit and a DM no longer need (no GET before an edit, no user fetch per
DM), counted in SimCord's log of the bot's HTTP requests."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest

from bot.app.delivery import STALLED_AT, STALLED_RETRY
from bot.app.ports import MENTION
from bot.discord.client import DRAIN_INTERVAL
from engine.ids import Faction
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_tables import deliver, table_messages

simcord_bot = e2e.simcord_bot  # the fixtures of tests/helpers/discord_tables.py
A, H, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU
HOUR, DAY = 3600, 86400
MISSING_PERMISSIONS = 50013


@dataclass
class Game:
    channel: Any
    players: dict[Faction, Any]

    @property
    def game_id(self) -> str:
        return f"g{self.channel.id}"

    def shown(self, viewer) -> list[str]:
        return [m.content for m in table_messages(self.channel, viewer)]

    async def pick_traitor(self, faction: Faction) -> None:
        member = self.players[faction]
        card = next(m for m in member.user.dm_channel.history()
                    if "Your decision: your traitor" in m.content and f"<#{self.channel.id}>" in m.content)
        leader = [item for row in card.components for item in row.children][0].label
        await member.user.click(card, label=leader)


async def _open(env, guild, name: str, players: list[str], pace: str) -> Game:
    channel = guild.create_text_channel(name)
    members = dict(zip((A, H, BT), (guild.add_member(env.create_user(player)) for player in players), strict=True))
    await members[A].slash(channel, "game new", factions="atreides, harkonnen, bt", seed=7, pace=pace)
    for faction, member in members.items():
        await member.slash(channel, "game join", faction=faction.value)
    await members[A].slash(channel, "game start")
    await deliver(env)
    return Game(channel, members)


@pytest.fixture
async def two_games(simcord_env):
    env = simcord_env
    await env.bot.tree.sync()
    guild = env.create_guild()  # one server: both games on the same shard
    return env, guild, await _open(env, guild, "dune", ["alice", "bob", "carol"], "daily"), \
        await _open(env, guild, "dune-two", ["dora", "emil", "fay"], "none")


def _refuse_everything_in(env, game: Game) -> list[dict]:
    """Every request to the game's channel and its threads answered 403 (code 50013, "Missing Permissions"):
    Discord's answer once the bot's permissions there are taken (discord-api-docs, Topics > Opcodes and Status
    Codes, JSON error codes: 50013 "You lack permissions to perform that action"). Returns the faults, to lift."""
    places = [game.channel.id, *(thread.id for thread in game.channel.threads)]
    for place in places:
        for path in (f"/channels/{place}", f"/channels/{place}/*"):
            env.inject_error("*", path, status=403, code=MISSING_PERMISSIONS, message="Missing Permissions",
                             times=None)
    return env.backend.faults[-2 * len(places):]


def _told(member) -> list[str]:
    """What the bot told the member about delivery to a game's channel, by DM."""
    return [m.content for m in member.user.dm_channel.history() if m.content.startswith("Mentat ")]


async def test_a_game_whose_channel_refuses_the_bot_stops_tells_its_moderators_once_and_resumes_in_order(
        two_games, caplog):
    """Issue 24, acceptance: a game whose channel returns 403 on every request: its moderators are told once, its
    deadlines stop, and another game on the same shard delivers without delay; restored, it resumes in order."""
    env, _, blocked, other = two_games
    service, alice, dave = env.bot.service, blocked.players[A], blocked.players[H]
    faults = _refuse_everything_in(env, blocked)
    before = blocked.shown(other.players[A])  # as a member outside the first game sees it
    await blocked.pick_traitor(A)
    await other.pick_traitor(A)
    await deliver(env)  # one drain
    # no delay for the other game: the pick is told there (a line added to the setup's detail in its thread)
    assert "The Atreides chose a traitor." in "\n".join(other.shown(blocked.players[A])[-3:])
    assert blocked.shown(other.players[A]) == before  # nothing reached the refusing channel
    [stopped] = _told(alice)  # the game's creator, by DM
    assert stopped.startswith(f"Mentat cannot write in the channel of the game {blocked.game_id} "
                              f"(<#{blocked.channel.id}>).")
    assert "Until it can, the game's messages wait, in order, and its deadlines are stopped." in stopped
    assert _told(dave) == [] and _told(other.players[A]) == []  # a player, another game's creator: not told
    assert any(record.levelname == "WARNING" and blocked.game_id in record.getMessage() and "50013" in
               record.getMessage() for record in caplog.records)  # logged with its cause

    due_before = await service.due_times(blocked.game_id)
    version = len(await service.store.actions(blocked.game_id))
    # A day, past every pick's deadline (8 hours at the daily pace), with a drain (and the tick) each hour: the
    # drain loop catches up on the turns the jump skipped, and a turn every 3 s would outlast SimCord's patience.
    env.bot.drain_interval = HOUR
    await env.advance_time(DRAIN_INTERVAL)
    env.backend.advance_clock(DAY)
    await env.advance_time(DRAIN_INTERVAL)
    env.bot.drain_interval = DRAIN_INTERVAL
    await env.advance_time(HOUR)
    assert len(await service.store.actions(blocked.game_id)) == version  # stopped: no default applied
    due_during = await service.due_times(blocked.game_id)
    assert due_during.keys() == due_before.keys()
    assert all(due_during[p] - due_before[p] >= timedelta(seconds=DAY - 60) for p in due_during)  # moved on
    assert len(_told(alice)) == 1  # told once, whatever the drains since
    assert (await service.store.load_game(blocked.game_id)).settings.get(STALLED_AT)

    waiting = [row.message for row in await service.store.pending_outbox() if row.game_id == blocked.game_id]
    asked = len(env.backend.http_requests)
    for fault in faults:  # a moderator gives the permission back
        env.backend.faults.remove(fault)
    await env.advance_time(STALLED_RETRY.total_seconds())  # a refusing channel is tried again a minute later
    assert [row for row in await service.store.pending_outbox() if row.game_id == blocked.game_id] == []
    places = {f"/channels/{place.id}/messages" for place in (blocked.channel, *blocked.channel.threads)}
    written = [request.json["content"] for request in env.backend.http_requests[asked:]
               if request.path.rpartition("/messages")[0] + "/messages" in places and "content" in (request.json or {})]
    # every message that waited, in the order queued (lines queued for one post are written together, as the post's
    # whole text, which they end); then the board with the due times moved on by the stall
    waited = [_shown(message.text, blocked) for message in waiting]
    places = [("\n".join(written)).find(line) for line in waited]
    assert -1 not in places and places == sorted(places) and written[0].endswith(waited[0])
    assert written[-1].startswith("**Status · ") and written[-1] != waited[-1]
    assert "The Atreides chose a traitor." in "\n".join(blocked.shown(other.players[A]))
    stopped, resumed = _told(alice)
    assert resumed == (f"Mentat writes in the channel of the game {blocked.game_id} (<#{blocked.channel.id}>) "
                       "again: the messages that waited are delivered in order, and the game's deadlines go on "
                       "from where they stopped.")
    settings = (await service.store.load_game(blocked.game_id)).settings
    assert STALLED_AT not in settings
    due_after = await service.due_times(blocked.game_id)
    assert due_after.keys() == due_before.keys() and all(
        due_after[p] - due_before[p] >= due_during[p] - due_before[p] for p in due_after)  # the stall's time added
    await env.advance_time(DRAIN_INTERVAL)
    [board] = [text for text in blocked.shown(other.players[A]) if text.startswith("**Status · ")]
    assert {f"<t:{int(due.timestamp())}:f>" for due in due_after.values()} <= set(re.findall(r"<t:\d+:f>", board))


def _shown(text: str, game: Game) -> str:
    """A queued text as the channel shows it: each called faction as its player's mention."""
    return MENTION.sub(lambda called: game.players[Faction(called[1])].mention, text)


async def test_an_action_costs_no_get_and_edits_each_message_once(two_games):
    """Issue 24 item 4: the bot edits a message as it last gave it (no GET of the message first), DMs a player in
    the DM channel it opened once (no GET /users/{id}), and changes each message at most once per drain."""
    env, _, game, _ = two_games
    asked = len(env.backend.http_requests)
    await game.pick_traitor(A)
    await deliver(env)
    requests = env.backend.http_requests[asked:]
    assert [(r.method, r.path) for r in requests if r.method == "GET"] == []
    edits = [r.path for r in requests if r.method == "PATCH" and "/messages/" in r.path and "@original" not in r.path]
    assert edits and len(edits) == len(set(edits))  # the card closed, the board: each once
    closed = next(m for m in game.players[A].user.dm_channel.history() if "Your decision: your traitor" in m.content)
    assert closed.content.endswith("**") and closed.components  # the closed card keeps its controls...
    assert all(item.disabled for row in closed.components for item in row.children)  # ...none of them live


async def test_a_secret_action_that_leaves_the_board_as_it_was_costs_no_edit_of_it(two_games):
    """Issue 24 (requests per turn): the status board is given again after every action; when an action changed
    nothing the table sees (a standing order, secret), its text is the one shown, and no request is made."""
    env, _, game, _ = two_games
    asked = len(env.backend.http_requests)
    ordered = await game.players[A].slash(game.channel, "me traitor-order", auto=True)
    assert e2e.reply(ordered).startswith("Done:")
    await deliver(env)
    board = next(m for m in game.channel.history() if m.content.startswith("**Status"))
    edits = [r.path for r in env.backend.http_requests[asked:] if r.method == "PATCH"]
    assert not any(path.endswith(f"/messages/{board.id}") for path in edits)
