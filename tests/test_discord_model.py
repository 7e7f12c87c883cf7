"""The model of Discord (tests/discord_model.py) does what Discord's documentation says, as discord.py meets it
through SimCord: threads archive (ThreadArchiving), interaction tokens expire (InteractionTokens), each request takes
its latency and meets the rate limits (Transport, RateLimits); and the gateway posts anew a line Discord will never
let it add."""

from __future__ import annotations

import discord
import pytest
from simcord.backend.models import Overwrite
from simcord.enums import OverwriteType

from bot.app.ports import GameRecordRow, GameStatus, OutgoingMessage, Recipient
from bot.discord.gateway import DiscordGateway
from tests.discord_model import (
    Budget,
    DiscordModel,
    InteractionTokens,
    RateLimits,
    ThreadArchiving,
    Transport,
    route_of,
)
from tests.helpers import discord_tables as e2e

simcord_bot, room = e2e.simcord_bot, e2e.room  # the fixtures of tests/helpers/discord_tables.py
HOUR = 3600
MINUTE = 60


@pytest.fixture
def model(room, monkeypatch) -> DiscordModel:
    return DiscordModel(room.env, ThreadArchiving()).install(monkeypatch)


async def opened_thread(room, minutes: int = 60) -> tuple[discord.Thread, discord.Message]:
    """A thread the bot opened in #dune with a post of its own."""
    opening = await room.env.bot.get_channel(room.channel.id).send("Turn 1")
    thread = await opening.create_thread(name="Turn 1", auto_archive_duration=minutes)
    return thread, await thread.send("Card 1 of 3 is up for auction.")


def metadata(room, thread):
    return room.env.backend.channels[thread.id].thread_metadata


def game_in(room) -> GameRecordRow:
    return GameRecordRow(game_id="g1", guild_id=room.guild.id, channel_id=room.channel.id, status=GameStatus.RUNNING,
                         setup_json="{}", state_json="{}", seq=0, seats={})


def shut(room, thread) -> None:
    """A moderator locks the thread (and it is archived), and the bot may not manage threads in #dune."""
    room.env.backend.set_overwrite(room.channel.id, Overwrite(room.env.bot.user.id, OverwriteType.MEMBER,
                                                              deny=discord.Permissions(manage_threads=True).value))
    room.env.backend.edit_channel(thread.id, {}, thread_metadata={"archived": True, "locked": True})


async def test_a_thread_archives_after_its_duration_without_a_new_message_and_then_refuses_edits(room, model):
    thread, post = await opened_thread(room)
    await model.pass_quiet_time(HOUR - 60)
    await thread.send("Atreides bid 2 spice.")  # a new message: the hour starts again
    await model.pass_quiet_time(HOUR - 60)
    assert not metadata(room, thread).archived
    await model.pass_quiet_time(120)
    assert metadata(room, thread).archived
    assert room.env.bot.get_channel(thread.id) is None  # Discord told the bot, and discord.py dropped the thread
    with pytest.raises(discord.HTTPException) as refused:
        await post.edit(content="Card 1 of 3 is up for auction.\nAtreides bid 2 spice.")
    assert (refused.value.status, refused.value.code, refused.value.text) == (400, 50083, "Thread is archived")

    await thread.send("Harkonnen bid 3 spice.")  # a new message unarchives it
    assert not metadata(room, thread).archived
    await post.edit(content="edited")
    assert room.env.backend.messages[thread.id][post.id].content == "edited"


async def test_a_locked_archived_thread_opens_only_to_a_bot_that_may_manage_threads(room, model):
    thread, _ = await opened_thread(room)
    shut(room, thread)
    with pytest.raises(discord.HTTPException) as refused:
        await thread.send("Atreides bid 2 spice.")
    assert refused.value.code == 50083
    with pytest.raises(discord.Forbidden):
        await thread.edit(archived=False)
    assert metadata(room, thread).archived

    room.env.backend.delete_overwrite(room.channel.id, room.env.bot.user.id)
    await thread.edit(archived=False)
    assert not metadata(room, thread).archived and metadata(room, thread).locked


async def test_a_line_for_a_post_in_a_thread_shut_for_good_is_posted_anew_in_the_channel(room, model):
    thread, post = await opened_thread(room)
    shut(room, thread)
    line = OutgoingMessage(recipient=Recipient(channel=True, thread="turn:1"), text="Atreides bid 2 spice.",
                           edit_of="auction:1:1", key="auction:1:1", edit_ref=f"{thread.id}:{post.id}",
                           thread_ref=f"{room.channel.id}:{thread.id}")
    ref = await DiscordGateway(room.env.bot).deliver(game_in(room), line)

    last = room.channel.history(viewer=room.dave)[-1]
    assert last.content == "Atreides bid 2 spice." and ref == f"{room.channel.id}:{last.id}"  # the key's new place
    assert room.env.backend.messages[thread.id][post.id].content == "Card 1 of 3 is up for auction."


async def test_after_a_crash_an_edit_whose_post_is_gone_is_looked_for_as_the_new_post_it_became(room):
    gateway, channel = DiscordGateway(room.env.bot), room.env.bot.get_channel(room.channel.id)
    since = discord.utils.utcnow()
    phase = await channel.send("**Bidding.**")
    await phase.delete()
    line = OutgoingMessage(recipient=Recipient(channel=True), text="- Atreides bought card 1.",
                           edit_of="phase:1:bidding", key="phase:1:bidding", edit_ref=f"{channel.id}:{phase.id}")
    assert await gateway.find(game_in(room), line, since) is None  # the crash came before the new post: send it

    anew = await channel.send("- Atreides bought card 1.")
    assert await gateway.find(game_in(room), line, since) == f"{channel.id}:{anew.id}"


def test_a_route_names_its_method_and_path_with_ids_and_tokens_in_braces():
    assert route_of("PATCH", "/channels/12/messages/34") == "PATCH /channels/{id}/messages/{id}"
    assert route_of("POST", "/interactions/5/simcord_interaction_5/callback") == \
        "POST /interactions/{id}/{token}/callback"
    assert route_of("PATCH", "/webhooks/7/aW50ZXJhY3Rpb24/messages/@original") == \
        "PATCH /webhooks/{id}/{token}/messages/@original"
    assert route_of("POST", "/users/@me/channels") == "POST /users/@me/channels"


# --- latency and rate limits ------------------------------------------------------------------------------


def carried(room, monkeypatch, transport: Transport) -> Transport:
    DiscordModel(room.env, transport=transport).install(monkeypatch)
    return transport


async def as_the_bot(room, monkeypatch, work, seconds: float) -> float:
    """Run `work` once in the bot's outbox drain (a task of the bot's: SimCord parks its sleeps on the virtual
    clock) and let `seconds` of virtual time pass; returns the virtual moment the work began."""
    began = []

    async def deliver(gateway, patience: float | None = None) -> int:
        if not began:
            began.append(room.env.backend.clock.elapsed)
            await work()
        return 0

    monkeypatch.setattr(room.env.bot.service, "deliver", deliver)
    room.env.bot.wake_outbox()
    await room.env.advance_time(seconds)
    return began[0]


def served_after(transport: Transport, began: float) -> list[tuple[float, str]]:
    return [(round(at - began, 3), route_of(method, path)) for at, method, path in transport.served]


async def test_each_request_takes_its_latency_on_the_virtual_clock(room, monkeypatch):
    transport = carried(room, monkeypatch, Transport(latency=0.25, limits=None))
    channel = room.env.bot.get_channel(room.channel.id)

    async def three_posts() -> None:
        for line in ("one", "two", "three"):
            await channel.send(line)

    began = await as_the_bot(room, monkeypatch, three_posts, 2)
    assert served_after(transport, began) == [(0.25, "POST /channels/{id}/messages"),
                                              (0.5, "POST /channels/{id}/messages"),
                                              (0.75, "POST /channels/{id}/messages")]
    posts = list(room.env.backend.messages[room.channel.id].values())[-3:]
    assert [p.content for p in posts] == ["one", "two", "three"]
    arrived = [(discord.utils.snowflake_time(p.id) - room.env.backend.clock.now()).total_seconds() for p in posts]
    assert [round(a - arrived[0], 2) for a in arrived] == [0, 0.25, 0.5]  # as Discord dated them


async def test_a_channel_takes_five_posts_in_five_seconds_the_sixth_waits_out_its_429_and_edits_count_apart(
        room, monkeypatch):
    transport = carried(room, monkeypatch, Transport(latency=0.1))
    dune, other = room.env.bot.get_channel(room.channel.id), room.guild.create_text_channel("other")
    elsewhere = room.env.bot.get_channel(other.id)
    posts = []

    async def work() -> None:
        posts.extend([await dune.send(f"line {i}") for i in range(5)])
        await elsewhere.send("another channel has its own bucket")
        await dune.send("line 5")  # the sixth in #dune within 5 s: 429
        for i in range(5):
            await posts[0].edit(content=f"line 0, edited {i}")  # edits have their own bucket

    began = await as_the_bot(room, monkeypatch, work, 10)
    served = served_after(transport, began)
    assert [at for at, _ in served] == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 5.2, 5.3, 5.4, 5.5, 5.6, 5.7]
    # the 429: 0.7 s in, 4.4 s left of the window #dune's first post opened at 0.1; then the post is sent again,
    # which takes its latency once more
    assert [(round(at - began, 3), route, round(wait, 3), is_global) for at, route, wait, is_global
            in transport.refused] == [(0.7, "POST /channels/{id}/messages", 4.4, False)]
    assert room.env.backend.messages[room.channel.id][posts[0].id].content == "line 0, edited 4"
    assert list(room.env.backend.messages[room.channel.id].values())[-1].content == "line 5"


async def test_past_fifty_requests_in_a_second_every_route_waits_but_interaction_answers_do_not():
    limits = RateLimits()
    for channel in range(50):
        assert limits.admit(0.5, "POST", f"/channels/{channel}/messages") is None
    assert limits.admit(0.6, "GET", "/users/7") == (0.9, True)  # the global window opened at 0.5
    assert limits.admit(0.6, "POST", "/interactions/9/simcord_interaction_9/callback") is None
    assert limits.admit(0.6, "POST", "/webhooks/1/simcord_interaction_9") is None
    assert limits.admit(1.5, "GET", "/users/7") is None  # a new second


async def test_the_budgets_are_parameters():
    limits = RateLimits(creates=Budget(2, 10.0), edits=Budget(1, 1.0))
    assert limits.admit(0, "POST", "/channels/1/messages") is None
    assert limits.admit(0, "POST", "/channels/1/messages") is None
    assert limits.admit(3, "POST", "/channels/1/messages") == (7, False)
    assert limits.admit(3, "PATCH", "/channels/1/messages/5") is None
    assert limits.admit(3.5, "PATCH", "/channels/1/messages/6") == (0.5, False)


class AlwaysFull:
    def admit(self, now: float, method: str, path: str) -> tuple[float, bool]:
        return 1.0, False


async def test_a_request_refused_five_times_raises_discord_pys_429_as_discord_py_does(room, monkeypatch):
    transport = carried(room, monkeypatch, Transport(latency=0.1, limits=AlwaysFull()))
    channel = room.env.bot.get_channel(room.channel.id)
    raised = []

    async def post() -> None:
        try:
            await channel.send("never")
        except discord.HTTPException as error:
            raised.append((error.status, room.env.backend.clock.elapsed))

    began = await as_the_bot(room, monkeypatch, post, 10)
    assert len(transport.refused) == 5 and transport.served == []
    [(status, at)] = raised
    assert status == 429 and round(at - began, 3) == 5.5  # five tries: each its latency, then a second's wait


# --- interaction tokens -------------------------------------------------------------------------------------


@pytest.fixture
def tokens(room, monkeypatch) -> InteractionTokens:
    rule = InteractionTokens()
    DiscordModel(room.env, rule).install(monkeypatch)
    return rule


async def answered_interaction(room) -> discord.Interaction:
    """An interaction the bot answered (`/rules`), as the bot holds it."""
    seen: list[discord.Interaction] = []

    async def keep(interaction: discord.Interaction) -> None:
        seen.append(interaction)

    room.env.bot.add_listener(keep, "on_interaction")
    await room.dave.slash(room.channel, "rules", query="storm")
    room.env.bot.remove_listener(keep, "on_interaction")
    return seen[0]


async def test_an_interactions_token_serves_its_follow_ups_for_15_minutes(room, tokens):
    interaction = await answered_interaction(room)
    await tokens_pass(room, 15 * MINUTE - 1)
    with room.env.time_context():
        await interaction.followup.send("still in time", ephemeral=True)
        await interaction.edit_original_response(content="edited in time")
    assert tokens.late == []


async def test_after_15_minutes_each_use_of_the_token_is_refused_with_50027_and_counted(room, tokens):
    interaction = await answered_interaction(room)
    await tokens_pass(room, 15 * MINUTE)
    with room.env.time_context():
        for late in (interaction.followup.send("too late", ephemeral=True),
                     interaction.edit_original_response(content="too late")):
            with pytest.raises(discord.HTTPException) as refused:
                await late
            assert (refused.value.status, refused.value.code, refused.value.text) == (401, 50027,
                                                                                      "Invalid Webhook Token")
    assert [route for route, _ in tokens.late] == ["POST /webhooks/{id}/{token}",
                                                   "PATCH /webhooks/{id}/{token}/messages/@original"]
    assert all(age >= 15 * MINUTE for _, age in tokens.late)


async def test_a_callback_after_15_minutes_is_refused_with_50027(room, tokens):
    interaction = await answered_interaction(room)
    await tokens_pass(room, 20 * MINUTE)
    with room.env.time_context(), pytest.raises(discord.HTTPException) as refused:
        await discord.InteractionResponse(interaction).send_message("late")  # as if never answered yet
    assert refused.value.code == 50027
    assert [route for route, _ in tokens.late] == ["POST /interactions/{id}/{token}/callback"]


async def tokens_pass(room, seconds: float) -> None:
    room.env.backend.advance_clock(seconds)
    await room.env.advance_time(0.001)
