"""Substitutes and table votes through SimCord (issue 26 items 3 and 4): what the channel, the newcomer and the old
player read, and the buttons of a call and of a ballot (harness: tests/test_discord_e2e.py)."""

from __future__ import annotations

import discord
import pytest
from simcord.backend.errors import SetupError

from bot.discord.client import DRAIN_INTERVAL, MentatBot
from engine.names import card_name, leader_name
from engine.secrecy.views import view
from tests.conftest import BT, A, H
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_tables import deliver, feed_text, reply
from tests.helpers.player_names import names_known_to

simcord_bot, room, table = e2e.simcord_bot, e2e.room, e2e.table  # the fixtures of tests/helpers/discord_tables.py


def dms(member) -> list:
    return list(member.user.dm_channel.history()) if member.user.dm_channel is not None else []


def dm_text(member) -> str:
    return "\n".join(m.content for m in dms(member))


async def state_of(place):
    game = await place.env.bot.service.store.game_in_channel(place.channel.id)
    return await place.env.bot.service.state_of(game.game_id)


def traitor_card(member):
    return next(m for m in dms(member) if "Your decision: your traitor" in m.content)


async def test_a_player_hands_their_seat_to_a_member_who_gets_what_the_seat_knows(table):
    alice, dave = table.players[A], table.dave
    card = traitor_card(alice)
    leader = [item for row in card.components for item in row.children][0].label
    handed = await alice.slash(table.channel, "game sub", user=dave, reason="away for a month")
    assert handed.ephemeral and reply(handed).startswith(f"Done: {dave.mention} plays Atreides from now on")
    # the old card, pressed before it is closed, is refused with who plays the seat now
    late = await alice.user.click(card, label=leader)
    assert late.ephemeral and reply(late) == f"This seat (Atreides) is now played by {dave.mention}."
    await deliver(table.env)
    assert (f"{alice.mention} handed the Atreides seat to {dave.mention} (away for a month): {dave.mention} plays "
            "the Atreides from now on.") in feed_text(table.channel)
    # the newcomer: the seat's secrets (as the engine's view of that seat has them), the story, a fresh card
    own = view(await state_of(table), A).own
    caught_up = dm_text(dave)
    assert "**You now play the Atreides.**" in caught_up and f"Spice: {own.spice}" in caught_up
    assert all(card_name(c) in caught_up for c in own.hand)
    assert "**The story so far**" in caught_up
    state = await state_of(table)
    known = names_known_to(state, A)
    for other in (H, BT):  # nothing of another seat's secrets that the Atreides' own view does not name
        theirs = view(state, other).own
        secrets = {card_name(c) for c in theirs.hand} | {leader_name(x) for x in theirs.traitors + theirs.bt_marked}
        assert not [name for name in secrets - known if name in caught_up]
    assert "You now play" not in feed_text(table.channel) + dm_text(table.players[H]) + dm_text(table.players[BT])
    fresh = traitor_card(dave)
    assert fresh.id != card.id
    # the old card says so and can no longer be pressed; the old player's commands answer the same words
    closed = next(m for m in dms(alice) if m.id == card.id)
    assert closed.content.endswith(f"**This seat is now played by {dave.mention}.**")
    with pytest.raises(SetupError, match="disabled"):
        await alice.user.click(closed, label=leader)
    mine = await alice.slash(table.channel, "me hand")
    assert reply(mine) == f"Refused: This seat (Atreides) is now played by {dave.mention}."
    # the newcomer plays the seat from the fresh card
    chosen = await dave.user.click(fresh, label=leader)
    assert reply(chosen).startswith(f"Done: {leader}")
    await deliver(table.env)
    assert "The Atreides chose a traitor." in feed_text(table.channel)
    assert leader_name(view(await state_of(table), A).own.traitors[0]) == leader
    logged = await dave.slash(table.channel, "game log")
    assert "handed the Atreides seat" in reply(logged)


async def test_a_moderator_seats_a_substitute_with_admin_seat_and_the_newcomer_is_caught_up(table):
    alice, bob, dave = table.players[A], table.players[H], table.dave
    seated = await alice.slash(table.channel, "admin seat", faction="harkonnen", member=dave, reason="bob left")
    assert reply(seated) == f"Done: Harkonnen is now played by {dave.mention}."
    await deliver(table.env)
    assert (f"Admin alice seated {dave.mention} as Harkonnen (bob left) (in place of {bob.mention})."
            in feed_text(table.channel))
    own = view(await state_of(table), H).own
    assert "**You now play the Harkonnen.**" in dm_text(dave)
    assert all(leader_name(x) in dm_text(dave) for x in own.traitors)
    refused = await bob.slash(table.channel, "me hand")
    assert reply(refused) == f"Refused: This seat (Harkonnen) is now played by {dave.mention}."


async def test_a_call_for_a_substitute_is_taken_by_the_first_press_of_someone_not_seated(table):
    alice, carol, dave = table.players[A], table.players[BT], table.dave
    eve = table.guild.add_member(table.env.create_user("eve"))
    stranger = await dave.slash(table.channel, "game sub-call")
    assert reply(stranger) == "Refused: You have no seat in this game; take a free one with /game join."
    called = await carol.slash(table.channel, "game sub-call")
    assert reply(called).startswith("Done: the Bene Tleilaxu seat is offered in the channel")
    await deliver(table.env)
    post = next(m for m in table.channel.history() if "seat open for a substitute" in m.content)
    assert post.content.startswith(f"**Bene Tleilaxu seat open for a substitute** (called by its player "
                                   f"{carol.mention})")
    seated = await alice.click(post, label="Take this seat")
    assert seated.ephemeral and reply(seated) == ("Refused: You already play the Atreides in this game: a substitute "
                                                  "is someone not seated.")
    await table.env.restart_bot(MentatBot(table.env.bot.service))  # the call's button outlives a restart
    taken = await dave.click(post, label="Take this seat")
    assert taken.ephemeral and reply(taken).startswith("You play the Bene Tleilaxu now")
    second = await eve.click(post, label="Take this seat")  # before the post is edited
    assert reply(second) == "Refused: This call is over: the Bene Tleilaxu seat was already taken."
    await deliver(table.env)
    post = next(m for m in table.channel.history() if m.id == post.id)
    assert post.content.endswith(f"**Taken by {dave.mention}.**")
    assert all(item.disabled for row in post.components for item in row.children)
    assert (f"{dave.mention} took the open Bene Tleilaxu seat (played until now by {carol.mention})"
            in feed_text(table.channel))
    own = view(await state_of(table), BT).own
    caught_up = dm_text(dave)
    assert all(card_name(c) in caught_up for c in own.hand)
    assert "Your decision: the Bene Tleilaxu traps at setup" in caught_up  # the open decision as a fresh card
    assert "**You now play" not in dm_text(eve)


async def test_a_moderator_calls_a_substitute_for_any_seat_and_a_player_only_for_their_own(table):
    alice, bob = table.players[A], table.players[H]
    refused = await bob.slash(table.channel, "game sub-call", faction="atreides")
    assert reply(refused) == ("Refused: You do not play Atreides: a player offers their own seat, a moderator any "
                              "seat.")
    referees = table.guild.create_role("referees", permissions=discord.Permissions(manage_guild=True))
    eve = table.guild.add_member(table.env.create_user("eve"), roles=[referees])  # a moderator who does not play
    unnamed = await eve.slash(table.channel, "game sub-call")
    assert reply(unnamed) == "Refused: Name the seat to offer (the faction option)."
    called = await alice.slash(table.channel, "game sub-call", faction="harkonnen")
    assert reply(called).startswith("Done: the Harkonnen seat is offered")
    await deliver(table.env)
    assert f"(called by the moderator {alice.mention})" in feed_text(table.channel)


# --- table votes ---------------------------------------------------------------------------------------------


def ballot_of(member):
    return next(m for m in reversed(dms(member)) if "**Table vote:" in m.content)


async def test_a_table_vote_by_dm_ballots_answered_once_its_tally_secret_until_it_closes(table):
    alice, bob, carol, dave = table.players[A], table.players[H], table.players[BT], table.dave
    outsider = await dave.slash(table.channel, "game vote", kind="pause", hours=48)
    assert reply(outsider) == "Refused: Only a player seated in this game may call a table vote."
    called = await bob.slash(table.channel, "game vote", kind="pause", hours=48)
    assert reply(called).startswith("Done: the table votes on this: pause the game for 2 days")
    await deliver(table.env)
    assert ("**Table vote: pause the game for 2 days (then it resumes by itself)?** Called by the Harkonnen "
            f"({bob.mention})") in feed_text(table.channel)
    again = await alice.slash(table.channel, "game vote", kind="end")
    assert reply(again).startswith("Refused: A table vote is already open (pause the game for 2 days")
    ballots = {faction: ballot_of(member) for faction, member in table.players.items()}
    assert all([b.label for row in m.components for b in row.children] == ["Yes", "No"] for m in ballots.values())

    before = table.screens()
    yes = await alice.user.click(ballots[A], label="Yes")
    assert yes.ephemeral and reply(yes) == "You voted yes. The tally is told to the table when the vote closes."
    twice = await alice.user.click(ballots[A], label="No")  # before the ballot is edited
    assert reply(twice) == "Refused: You already voted: a seat answers once."
    restarted = MentatBot(table.env.bot.service)  # the ballots' buttons outlive a restart (dynamic items)
    await table.env.restart_bot(restarted)
    no = await bob.user.click(ballots[H], label="No")
    assert reply(no).startswith("You voted no.")
    await deliver(table.env)
    news = table.news(before)
    # two seats answered, one each way: nobody reads the tally, each voter reads only their own answer
    assert news["channel"] == "" and news["bene_tleilaxu"] == ""
    answered_a = next(m for m in dms(alice) if m.id == ballots[A].id)
    assert answered_a.content.endswith("**You voted yes.**") and news["harkonnen"] == "**You voted no.**"
    assert all(item.disabled for row in answered_a.components for item in row.children)
    with pytest.raises(SetupError, match="disabled"):
        await alice.user.click(answered_a, label="No")
    # the pinned board tells who missed the opening post that a vote runs and whom it waits for, not the answers
    [board] = e2e.status_boards(table)
    [line] = [line for line in board.content.splitlines() if line.startswith("Table vote open: ")]
    assert line.startswith("Table vote open: pause the game for 2 days (then it resumes by itself); still to answer: "
                           "Bene Tleilaxu; closes by <t:")
    assert " yes" not in board.content.lower() and " no" not in line.lower()
    status = await carol.slash(table.channel, "game status")  # /game status says it as the board does
    assert line in reply(status).splitlines()

    last = await carol.user.click(ballots[BT], label="Yes")
    assert reply(last).startswith("You voted yes.")
    await deliver(table.env)
    feed = feed_text(table.channel)
    assert ("**Table vote passed: pause the game for 2 days (then it resumes by itself).** 2 yes, 1 no (every seat "
            "answered; it needed 2 yes of 3 seats).") in feed
    assert "The table's vote paused the game (for 2 days)." in feed
    status = (await table.env.bot.service.store.game_in_channel(table.channel.id)).status
    assert status.value == "paused"
    [board] = e2e.status_boards(table)
    assert "Table vote" not in board.content and "**The game is paused.**" in board.content


async def test_a_pause_the_table_voted_ends_by_itself_at_its_end(table):
    players = table.players
    await players[A].slash(table.channel, "game vote", kind="pause", hours=1)
    await deliver(table.env)
    for member in players.values():
        await member.user.click(ballot_of(member), label="Yes")
    await deliver(table.env)
    store = table.env.bot.service.store
    assert (await store.game_in_channel(table.channel.id)).status.value == "paused"
    await table.env.advance_time(3600 + DRAIN_INTERVAL)
    assert (await store.game_in_channel(table.channel.id)).status.value == "running"
    assert "The table's vote resumed the game (the pause it gave is over)." in feed_text(table.channel)


async def test_a_moderator_who_plays_votes_like_anyone_and_an_admin_pause_is_told_as_an_override(table):
    alice, bob, carol = table.players[A], table.players[H], table.players[BT]
    await bob.slash(table.channel, "game vote", kind="end")
    await deliver(table.env)
    voted = await alice.user.click(ballot_of(alice), label="Yes")  # alice moderates, and has her seat's one vote
    assert reply(voted).startswith("You voted yes.")
    paused = await alice.slash(table.channel, "admin pause", reason="a dispute")
    assert reply(paused) == "Paused."
    await deliver(table.env)
    feed = feed_text(table.channel)
    assert "Admin alice paused the game (a dispute)." in feed
    assert ("**Moderator override:** Admin alice paused the game; the open table vote (end the game now, without a "
            "winner) is closed without a result.") in feed
    assert "1 yes" not in feed and "Table vote passed" not in feed and "Table vote failed" not in feed
    for member in (bob, carol):
        ballot = ballot_of(member)
        assert ballot.content.endswith("**The vote is closed; the channel has its result.**")
        assert all(item.disabled for row in ballot.components for item in row.children)
