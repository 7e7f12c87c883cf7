"""Cog handlers called directly with a fake interaction: thin handlers over the service, refusals answered
ephemerally, secrets only ever ephemeral. No login, no network."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord
import pytest

from bot.app.paces import Pace, pace_deadlines
from bot.app.service import GameService, Refused
from bot.discord.client import MentatBot
from bot.discord.common import is_moderator
from bot.discord.components import PromptButton
from bot.discord.errors import report
from bot.discord.permissions import missing, missing_words, permissions_integer
from engine.actions import (
    AnswerPrescience,
    AnswerRevealWindow,
    AskPrescience,
    CallTraitor,
    ForceDefault,
    PlayTruthtrance,
    ProposeAlliance,
    Revive,
    Ship,
    SkipShipment,
    TrapsAndGifts,
)
from engine.checks.autoplay import choose
from engine.data import load_game_data
from engine.game import apply
from engine.ids import Faction
from engine.model import Phase, PromptKind, Trap
from engine.names import option_name
from engine.options import FixedSetup
from engine.rng import Rng
from tests.conftest import apply_all, enter_phase, ready_game, start, store_running_game
from tests.helpers.discord_fakes import FakeInteraction, fake_member
from tests.helpers.handler_calls import USERS, bot, cog, itx, running, stored_actions

bot, running = bot, running  # the fixtures: pytest finds them here by name

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
STRANGER, MODERATOR = 999, 900


async def test_a_new_game_refuses_unknown_factions_and_options(bot):
    game = cog(bot, "GameCog")
    bad = itx(bot, 1)
    await game.new.callback(game, bad, factions="atreides, sardaukar", options=None, seed=None)
    assert bad.answers == [(bad.answers[0][0], True)] and "Unknown faction 'sardaukar'" in bad.answers[0][0]
    worse = itx(bot, 1)
    await game.new.callback(game, worse, factions="atreides, fremen", options="storms=3", seed=None)
    assert "Unknown option 'storms=3'" in worse.answers[0][0]
    assert await bot.service.store.game_in_channel(55) is None


async def test_where_no_channel_is_cached_discords_figure_of_the_bots_permissions_is_checked(bot):
    """A channel discord.py does not cache (here: the bot never logged in) is checked against the permissions
    Discord sends with each interaction (app_permissions); the cached channel's are checked end to end in
    tests/test_discord_e2e_setup.py."""
    game = cog(bot, "GameCog")
    without_files = discord.Permissions(permissions_integer())
    without_files.attach_files = False
    refused = itx(bot, 1, app_permissions=without_files)
    await game.new.callback(game, refused, factions="atreides, fremen", options=None, seed=None)
    assert refused.answers == [("Refused: " + missing_words(missing(without_files), "<#55>"), True)]
    assert "**Attach Files**" in refused.answers[0][0] and await bot.service.store.game_in_channel(55) is None


async def test_a_taken_seat_is_refused(running):
    game = cog(running, "GameCog")
    late = itx(running, STRANGER)
    await game.join.callback(game, late, faction="atreides")
    assert late.answers[0][1] is True and "seat is taken" in late.answers[0][0]


async def test_status_shows_the_awaited_decisions_publicly(running):
    game = cog(running, "GameCog")
    asked = itx(running, STRANGER)
    await game.status.callback(game, asked)
    text, ephemeral = asked.answers[0]
    assert ephemeral is False and "Turn" in text and "- Atreides: their traitor (secret)" in text
    assert "<@101>" in text


async def test_status_reads_the_same_after_another_players_secret_standing_order(running):
    """Issue 25 item 16: an unseated member read "version 0" then "version 1" after a player's secret order."""
    game = cog(running, "GameCog")
    before = itx(running, STRANGER)
    await game.status.callback(game, before)
    ordered = await invoke(running, "me traitor-order", USERS[A], auto=True)
    assert ordered.answers[0][0].startswith("Done:") and len(await stored_actions(running)) == 1
    after = itx(running, STRANGER)
    await game.status.callback(game, after)
    assert after.answers == before.answers


async def test_a_bid_from_an_unseated_member_is_refused_and_changes_nothing(running):
    play = cog(running, "PlayCog")
    stranger = itx(running, STRANGER)
    await play.bid.callback(play, stranger, amount=3)
    assert [kind for kind, *_ in stranger.log] == ["send"]  # one private answer, the interaction's first
    assert stranger.answers == [("Refused: You have no seat in this game; take a free one with /game join.", True)]
    assert await stored_actions(running) == []


async def test_a_bid_out_of_turn_quotes_the_rule(running):
    play = cog(running, "PlayCog")
    early = itx(running, USERS[A])
    await play.bid.callback(play, early, amount=3)
    text, ephemeral = early.answers[0]
    assert ephemeral and text.startswith("Refused: [") and await stored_actions(running) == []


async def _play_until_bidding(service: GameService):
    """Automatic players answer through the service until someone is asked to bid."""
    rng = Rng.from_seed(11)
    for _ in range(300):
        state = await service.state_of("g55")
        bids = [p for p in state.prompts if p.kind == PromptKind.BID]
        if bids:
            return bids[0]
        prompt = next(p for p in state.prompts if p.blocking)
        for _attempt in range(8):
            try:
                await service.submit("g55", USERS[prompt.faction], choose(state, prompt, rng))
                break
            except Refused:
                continue
        else:
            await service.submit("g55", MODERATOR, ForceDefault(admin="t", reason="t", prompt_id=prompt.id), admin=True)
    raise AssertionError("no bidding reached")


async def test_a_seated_members_bid_goes_through_the_service(running):
    prompt = await _play_until_bidding(running.service)
    before = len(await stored_actions(running))
    play = cog(running, "PlayCog")
    bidder = itx(running, USERS[prompt.faction])
    await play.bid.callback(play, bidder, amount=1)
    assert bidder.answers == [(f"Done: bid 1 (game version {before + 1}).", True)]
    stored = await stored_actions(running)
    assert len(stored) == before + 1 and '"type":"bid"' in stored[-1].action_json
    assert stored[-1].actor == USERS[prompt.faction]


async def test_me_prompts_and_hand_are_ephemeral_and_only_the_callers(running):
    me = cog(running, "MeCog")
    asked = itx(running, USERS[A])
    await me.prompts.callback(me, asked)
    text, ephemeral = asked.answers[0]
    state = await running.service.state_of("g55")
    mine = next(p for p in state.prompts_for(A) if p.kind == PromptKind.TRAITOR_PICK)
    theirs = next(p for p in state.prompts_for(F) if p.kind == PromptKind.TRAITOR_PICK)
    assert ephemeral and "traitor pick" in text and mine.options[0] in text and theirs.options[0] not in text
    # the DM's buttons come along, for the caller alone (closed DMs lose nothing)
    assert asked.answers[1] == (f"{mine.id}: traitor pick: choose below.", True)
    [buttons] = asked.followup.views
    assert [item.item.custom_id.split(":")[2] for item in buttons.children] == [mine.id] * len(mine.options)
    hand = itx(running, USERS[A])
    await me.hand.callback(me, hand)
    assert hand.answers[0][1] is True and "spice" in hand.answers[0][0]


async def test_traitor_choice_by_command_and_a_stale_button(running):
    state = await running.service.state_of("g55")
    prompt = next(p for p in state.prompts_for(A) if p.kind == PromptKind.TRAITOR_PICK)
    button = PromptButton("g55", prompt.id, 0, "first")
    pressed = itx(running, USERS[A])
    await button.callback(pressed)
    assert pressed.answers == [("Done: first (game version 1).", True)]
    again = itx(running, USERS[A])
    await button.callback(again)
    assert again.answers == [("That decision is already closed.", True)]
    play = cog(running, "PlayCog")
    fremen = next(p for p in state.prompts_for(F) if p.kind == PromptKind.TRAITOR_PICK)
    chosen = itx(running, USERS[F])
    await play.traitor.callback(play, chosen, leader=fremen.options[1])
    assert chosen.answers[0][0].startswith(f"Done: keep {option_name(fremen.options[1])} as your traitor")
    assert len(await stored_actions(running)) == 2


async def test_admin_commands_need_manage_server_or_the_moderator_role(running):
    admin = cog(running, "AdminCog")
    player = itx(running, USERS[A])
    await admin.spice.callback(admin, player, faction="atreides", amount=30, reason="miscount")
    assert "Only a moderator" in player.answers[0][0] and await stored_actions(running) == []
    moderator = itx(running, MODERATOR, manage_guild=True)
    await admin.spice.callback(admin, moderator, faction="atreides", amount=30, reason="miscount")
    assert moderator.answers == [("Spice corrected (game version 1).", True)]
    assert (await running.service.state_of("g55")).faction(A).spice == 30
    guarded = itx(running, MODERATOR, manage_guild=True)
    await admin.undo.callback(admin, guarded, count=1, force=False)
    assert guarded.answers == [("Refused: Undoing this action would take back something a player has already seen "
                                "(a card, a reveal, a secret choice); a moderator may force it.", True)]
    undo = itx(running, MODERATOR, manage_guild=True)
    await admin.undo.callback(admin, undo, count=1, force=True)
    assert undo.answers == [("Undone; the game is back at version 0.", True)]


async def test_the_servers_moderator_role_counts_as_a_moderator_in_that_server_only(running):
    service = running.service
    assert not await is_moderator(service, itx(running, 5, roles=[77]))  # no role set yet
    await service.store.set_moderator_role(1, 77)
    assert await is_moderator(service, itx(running, 5, roles=[77]))
    assert not await is_moderator(service, itx(running, 5, roles=[78]))
    assert not await is_moderator(service, itx(running, 5, roles=[77], guild_id=2))  # another server's role
    assert await is_moderator(service, itx(running, 5, manage_guild=True, guild_id=2))


async def test_a_refused_undo_names_no_event_a_moderator_who_plays_may_not_know(running):
    """Issue 25 item 15: the refusal named the events it would take back ("(bid_order_set)"), so a moderator who
    plays learned of another player's secret standing order."""
    ordered = await invoke(running, "me traitor-order", USERS[H], auto=True)
    assert ordered.answers[0][0].startswith("Done:")
    admin = cog(running, "AdminCog")
    refused = itx(running, USERS[A], manage_guild=True)  # the Atreides player moderates too
    await admin.undo.callback(admin, refused, count=1, force=False)
    [(text, _)] = refused.answers
    assert text == ("Refused: Undoing this action would take back something a player has already seen (a card, a "
                    "reveal, a secret choice); a moderator may force it.")
    assert "traitor" not in text and "order" not in text and len(await stored_actions(running)) == 1


async def test_an_unexpected_error_answers_with_an_id_that_is_logged(bot, caplog):
    failed = itx(bot, 1, command=command_named(bot, "game status"))
    try:
        raise RuntimeError("boom")
    except RuntimeError as error:
        with caplog.at_level(logging.ERROR, logger="bot.discord.errors"):
            await report(failed, error)
    text, ephemeral = failed.answers[0]
    ref = text.split("error id ")[1].split(")")[0]
    assert ephemeral and len(ref) == 8
    assert any(ref in record.getMessage() and record.exc_info for record in caplog.records)


async def test_a_buttons_unexpected_failure_answers_with_an_id_that_is_logged(running, monkeypatch, caplog):
    """Issue 25 item 19: a button, menu or modal whose handler fails answers as a slash command does (discord.py
    would only log it, and the player would read "This interaction failed")."""
    state = await running.service.state_of("g55")
    prompt = next(p for p in state.prompts_for(A) if p.kind == PromptKind.TRAITOR_PICK)

    async def broken(*args, **kwargs):
        raise RuntimeError("the store fell over")

    monkeypatch.setattr(running.service, "submit", broken)
    pressed = itx(running, USERS[A])
    with caplog.at_level(logging.ERROR, logger="bot.discord.errors"):
        await PromptButton("g55", prompt.id, 0, "first").callback(pressed)
    [(text, ephemeral)] = pressed.answers
    ref = text.split("error id ")[1].split(")")[0]
    assert ephemeral and text == f"Something went wrong on our side (error id {ref}); the game's moderators are told."
    [logged] = [r for r in caplog.records if ref in r.getMessage()]
    assert "the control PromptButton" in logged.getMessage() and logged.exc_info[1].args == ("the store fell over",)
    # issue 26 item 5: the game's moderators hear of it, with its id, and the table does not
    told = [row.message for row in await running.service.store.pending_outbox() if ref in row.message.text]
    assert [message.recipient.moderators for message in told] == [True]
    assert "in the control PromptButton" in told[0].text and "the store fell over" not in told[0].text


# --- one routing test: a real discord.Interaction from a payload, dispatched by the command tree ----------


def _payload(user_id: int, group: str, command: str, options: list[dict]) -> dict:
    user = {"id": str(user_id), "username": f"u{user_id}", "discriminator": "0", "avatar": None, "global_name": None}
    return {"id": "1", "application_id": "2", "type": 2, "token": "t", "version": 1, "channel_id": "55",
            "channel": {"id": "55", "type": 0, "guild_id": "1", "name": "dune", "position": 0,
                        "permission_overwrites": [], "nsfw": False, "parent_id": None},
            "guild_id": "1", "locale": "en-US", "guild_locale": "en-US", "entitlements": [],
            "authorizing_integration_owners": {}, "app_permissions": "0", "attachment_size_limit": 8 << 20,
            "member": {"user": user, "roles": [], "joined_at": "2020-01-01T00:00:00+00:00", "deaf": False,
                       "mute": False, "permissions": "0", "flags": 0},
            "data": {"id": "3", "name": group, "type": 1,
                     "options": [{"name": command, "type": 1, "options": options}]}}


async def test_the_tree_routes_renamed_options_to_the_action(running, monkeypatch):
    import discord

    from bot.app.service import Accepted

    bot = running
    bot._connection.user = discord.ClientUser(state=bot._connection, data={
        "id": "2", "username": "mentat", "discriminator": "0", "avatar": None, "bot": True})
    log, submitted = [], []

    async def defer(self, **kw):
        log.append(("defer", kw.get("ephemeral")))
        self._response_type = discord.InteractionResponseType.deferred_channel_message

    async def followup(self, content=None, **kw):
        log.append(("followup", content, kw.get("ephemeral")))

    async def send_message(self, content=None, **kw):
        log.append(("send", content, kw.get("ephemeral")))
        self._response_type = discord.InteractionResponseType.channel_message

    async def submit(game_id, user_id, action, **_):
        submitted.append((game_id, user_id, action))
        return Accepted(seq=9, events=[])

    monkeypatch.setattr(discord.InteractionResponse, "defer", defer)
    monkeypatch.setattr(discord.Webhook, "send", followup)
    monkeypatch.setattr(discord.InteractionResponse, "send_message", send_message)
    monkeypatch.setattr(bot.service, "submit", submit)
    options = [{"name": "to", "type": 3, "value": "Arrakeen"}, {"name": "tokens", "type": 4, "value": 5},
               {"name": "from", "type": 3, "value": "Carthag"}]
    await bot.tree._call(discord.Interaction(data=_payload(USERS[A], "play", "ship", options), state=bot._connection))
    assert log == [("send", "Done: ship 5 tokens from Carthag to Arrakeen (game version 9).", True)]
    (game_id, user_id, action), = submitted
    assert (game_id, user_id, action.type, action.faction) == ("g55", USERS[A], "ship", A)
    assert (action.to_location, action.from_location, action.tokens) == ("Arrakeen", "Carthag", 5)


async def test_admin_deadline_sets_the_games_deadlines(running):
    """/admin deadline stores what the drain loop's tick applies (tests/test_deadlines.py covers the tick)."""
    from bot.discord.cogs.admin import deadline_kinds
    admin = cog(running, "AdminCog")
    player = itx(running, USERS[A])
    await admin.deadline.callback(admin, player, hours=24)
    assert "Only a moderator" in player.answers[0][0]
    moderator = itx(running, MODERATOR, manage_guild=True)
    await admin.deadline.callback(admin, moderator, hours=12, kind="bid")
    assert moderator.answers == [("Deadline for bid decisions: 12 h.", True)]
    offered = await deadline_kinds(moderator, "nex")  # issue 25 item 12: words
    assert [(c.name, c.value) for c in offered] == [("Nexus alliance decisions", "nexus")]
    by_key = await deadline_kinds(moderator, "bt_traps_and")
    assert [(c.name, c.value) for c in by_key] == [("Bene Tleilaxu trap and gift decisions", "bt_traps_and_gifts")]
    # over the pace /game new gave the game (daily): the bid's deadline alone changes
    assert (await running.service.store.load_game("g55")).settings["deadlines"] == \
        {**pace_deadlines(Pace.DAILY), "bid": 12 * 3600}
    wrong = itx(running, MODERATOR, manage_guild=True)
    await admin.deadline.callback(admin, wrong, hours=1, kind="lunch")
    assert "no decision kind 'lunch'" in wrong.answers[0][0]


async def test_rules_shows_the_rule_a_refusal_names(running):
    rules = cog(running, "RulesCog")
    asked = itx(running, USERS[A])
    await rules.rules.callback(rules, asked, query="[BT-2]")
    text, ephemeral = asked.answers[0]
    assert ephemeral and text.startswith("**BT-2** The BT may join games of 3 to 7 players")
    missing = itx(running, USERS[A])
    await rules.rules.callback(rules, missing, query="xyzzy")
    assert missing.answers[0][0] == "No rule matches 'xyzzy'."


async def test_game_export_of_a_running_game_is_each_readers_own_the_whole_file_after(running):
    """Issue 15, moderating blind: while the game runs a player gets the public log and their own secrets, a
    moderator without a seat the table's file; nobody gets the seed."""
    game_cog = cog(running, "GameCog")
    player = itx(running, USERS[A])
    await game_cog.export.callback(game_cog, player)
    assert player.answers[0] == ("The game so far as you know it: the public log and your own secrets. The whole "
                                 "file, every secret included, comes once the game is over.", True)
    moderator = itx(running, MODERATOR, manage_guild=True)
    await game_cog.export.callback(game_cog, moderator)
    assert moderator.answers[0][0].startswith("The game so far as you know it: the public log. ")


# --- /nexus alliances, /play money, /bt ------------------------------------------------------------------------


async def test_propose_and_accept_outside_a_nexus_quote_rule_a8(running):
    nexus = cog(running, "NexusCog")
    proposed = itx(running, USERS[A])
    await nexus.propose.callback(nexus, proposed, partner="harkonnen")
    accepted = itx(running, USERS[H])
    await nexus.accept.callback(nexus, accepted, partner="atreides")
    for asked in (proposed, accepted):
        text, ephemeral = asked.answers[0]
        assert ephemeral and text.startswith("Refused: [A-8]") and "only during a Nexus" in text
    assert await stored_actions(running) == []


async def test_a_bribe_goes_through_the_service(running):
    play = cog(running, "PlayCog")
    bribing = itx(running, USERS[A])
    await play.bribe.callback(play, bribing, to="harkonnen", amount=1)
    assert bribing.answers == [("Done: bribe of 1 to harkonnen (game version 1).", True)]
    stored = await stored_actions(running)
    assert len(stored) == 1 and '"type":"give_bribe"' in stored[0].action_json and stored[0].actor == USERS[A]


@pytest.fixture
async def with_bt(bot):
    """A game with the Bene Tleilaxu in channel 55, started."""
    game = cog(bot, "GameCog")
    await game.new.callback(game, itx(bot, USERS[A]), factions="atreides, harkonnen, bt", options=None, seed=7)
    for faction, user in ((A, USERS[A]), (H, USERS[H]), (Faction.BENE_TLEILAXU, 104)):
        await game.join.callback(game, itx(bot, user), faction=faction.value)
    await game.start.callback(game, itx(bot, USERS[A]))
    return bot


async def test_a_bt_reveal_of_an_unmarked_leader_quotes_r25_and_stores_nothing(with_bt):
    bt = cog(with_bt, "BtCog")
    leader = next(iter(load_game_data().factions[A].leaders))
    revealing = itx(with_bt, 104)
    await bt.reveal.callback(bt, revealing, leader=leader.name)
    text, ephemeral = revealing.answers[0]
    assert ephemeral and text.startswith("Refused: [R-25]") and "is not one of your traitors" in text
    assert await stored_actions(with_bt) == []


async def test_malformed_traps_are_refused_before_the_engine(with_bt):
    bt = cog(with_bt, "BtCog")
    laying = itx(with_bt, 104)
    await bt.traps_and_gifts.callback(bt, laying, traps="Arrakeen", gifts=None)
    assert laying.answers == [("Refused: Expected key=value pairs separated by commas, not 'Arrakeen'.", True)]
    assert await stored_actions(with_bt) == []


async def test_admin_storm_and_leader_corrections(running):
    admin = cog(running, "AdminCog")
    player = itx(running, USERS[A])
    await admin.storm.callback(admin, player, sector=7, reason="misdial")
    assert "Only a moderator" in player.answers[0][0]
    moderator = itx(running, MODERATOR, manage_guild=True)
    await admin.storm.callback(admin, moderator, sector=7, reason="misdial")
    assert moderator.answers == [("Corrected (game version 1).", True)]
    assert (await running.service.state_of("g55")).storm_sector == 7
    wrong = itx(running, MODERATOR, manage_guild=True)
    await admin.leader.callback(admin, wrong, leader="nobody", alive=False, reason="x")
    assert "no leader 'nobody'" in wrong.answers[0][0]


# --- every command of the tree: one success each (and refusals), through `invoke` ----------------------------
# `invoke(bot, "<group> <command>", user, **options)` calls the command's callback as the tree would, with a
# fake interaction; `Case("<group> <command>", ...)` rows run through it. test_every_command_is_tested reads
# this file and fails when a command of the tree is named in neither.

SEATS = {faction: 300 + number for number, faction in enumerate(Faction)}
BT = Faction.BENE_TLEILAXU
BG, E, G = Faction.BENE_GESSERIT, Faction.EMPEROR, Faction.GUILD


def command_named(bot, name: str):
    from discord import app_commands

    return next(c for c in bot.tree.walk_commands()
                if isinstance(c, app_commands.Command) and c.qualified_name == name)


async def invoke(bot, name: str, user: int, /, *, manage_guild: bool = False, **options) -> FakeInteraction:
    """Run the slash command `name` for `user` in channel 55 with these options (Python parameter names)."""
    command = command_named(bot, name)
    asked = itx(bot, user, manage_guild=manage_guild, command=command)
    await command.callback(*((command.binding,) if command.binding is not None else ()), asked, **options)
    return asked


async def stored_types(bot) -> list[str]:
    return [json.loads(a.action_json)["type"] for a in await bot.service.store.actions("g55")]


@dataclass(frozen=True)
class Case:
    """One command applied in a position where it is legal: the answer it gives and the action it stores
    (its type and the fields the command's options must set)."""

    command: str
    faction: Faction
    position: Callable[[], Any]
    options: dict
    answer: str
    stored: str
    fields: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return self.command


# --- positions (built with the engine tests' helpers) --------------------------------------------------------


def _bidding_opened():
    from tests.helpers.discord_tables import bidding_with_a_gift_to_make

    return bidding_with_a_gift_to_make()


def _bidding():
    return apply(_bidding_opened(), TrapsAndGifts(faction=BT)).state  # Harkonnen open the bidding


def _storm_dial():
    return ready_game((A, H, BT), seed=3)  # turn 1: Harkonnen and Atreides dial the storm


def _shipment(trap: str | None = None):
    """Turn 2's movement round, the Atreides to ship first; 5 Atreides tokens in Arrakeen."""
    from tests.helpers.positions.battle import put
    from tests.helpers.positions.bt_attacks import bt_arena

    state = bt_arena((A, H, BT))
    state.storm_sector = 8
    put(state, A, "Arrakeen#9", 5)
    if trap:
        state.treachery_deck.remove(trap)
        state.traps["Carthag"] = Trap(card=trap)
    return enter_phase(state, Phase.MOVEMENT)[0]


def _movement():
    return apply(_shipment(), SkipShipment(faction=A)).state


def _revival():
    from tests.helpers.positions.bt_traitors import revival_position

    return revival_position()  # every Atreides leader in the tanks, 20 spice


def _mark_window():
    return apply(_revival(), Revive(faction=A, leader="duncan_idaho")).state


def _second_worm():
    from tests.helpers.positions.optional_rules import two_worms

    return two_worms(character_advantages=True)[0]  # the Fremen place the second Shai-Hulud


def _guild_timing():
    from tests.helpers.positions.optional_rules import guild_round

    return guild_round(character_advantages=True)  # A-15: the Guild asked before the Atreides' turn


def _bg_movement_turn():
    from tests.helpers.positions.optional_rules import bg_turn

    return bg_turn(character_advantages=True)  # 2 BG tokens with 3 Atreides in Arrakeen


def _hand_taken():
    from engine.actions import UseSpecialKarama
    from tests.helpers.positions.special_karama import harkonnen_and_atreides

    state = harkonnen_and_atreides(special_karama_powers=True)  # A-14: the Harkonnen take the Atreides' 2 cards
    return apply(state, UseSpecialKarama(faction=Faction.HARKONNEN, card="karama_1", target=A)).state


def _ally_revival():
    from tests.helpers.positions.bt_traitors import DUNCAN, revival_position

    return revival_position(dead={A: ["thufir_hawat", DUNCAN]}, alliances=[[A, BT]], ally_revival="grant")


def _ally_grant_asked():
    from tests.helpers.positions.bt_traitors import DUNCAN, revival_position

    return revival_position(dead={A: ["thufir_hawat", DUNCAN]}, alliances=[[A, BT]])


def _setup(factions=(A, H, BT)):
    return start(factions, seed=7)


def _plans():
    """Emperor (6) against Harkonnen (5) on The Great Flat: both owe a battle plan."""
    from tests.helpers.positions.battle import FLAT, arena, put

    state = arena()
    put(state, E, FLAT, 6)
    put(state, H, FLAT, 5)
    return enter_phase(state, Phase.BATTLE)[0]


def _traitor_calls():
    from tests.helpers.positions.battle import plan

    return apply_all(_plans(), plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2))[0]


def _two_battles():
    from tests.helpers.positions.battle import FLAT, arena, put

    state = arena()
    put(state, E, FLAT, 3)
    put(state, H, FLAT, 3)
    put(state, E, "Funeral Plain#14", 3)
    put(state, G, "Funeral Plain#14", 3)
    return enter_phase(state, Phase.BATTLE)[0]


def _prescience():
    """Atreides against Harkonnen on The Great Flat, the Bene Gesserit their ally: prescience, then Voice."""
    from tests.helpers.positions.battle import FLAT, arena, give, put

    state = arena((E, H, A, BG))
    put(state, A, FLAT, 5)
    put(state, H, FLAT, 5)
    give(state, H, "crysknife", "shield_1")
    state.alliances = [[A, BG]]
    return enter_phase(state, Phase.BATTLE)[0]


def _prescience_asked():
    return apply(_prescience(), AskPrescience(faction=A, element="weapon")).state


def _voice():
    return apply(_prescience_asked(), AnswerPrescience(faction=H, answer="crysknife")).state


def _nexus(alliances=()):
    from tests.helpers.positions.alliances import in_nexus

    return in_nexus(alliances=alliances)


def _offered():
    return apply(_nexus(), ProposeAlliance(faction=H, partner=A)).state


def _allied_emperor():
    from tests.helpers.positions.spice_blow import base_game

    return base_game().model_copy(update={"alliances": [[E, Faction.FREMEN]]})


def _karama_holder():
    return start(fixed=FixedSetup(treachery_deck=("shield_1", "snooper_1", "karama_1", "lasgun")))  # Emperor


def _storm_window():
    from tests.helpers.positions.cards import dial, storm_round
    from tests.helpers.positions.cards import position as cards_position

    return dial(storm_round(cards_position(hands={A: ["weather_control"]})))[0]


def _hajr():
    from tests.helpers.positions.cards import movement_round
    from tests.helpers.positions.cards import position as cards_position
    from tests.helpers.positions.movement import answer_defaults_until

    state = movement_round(cards_position(hands={A: ["hajr"]}, forces={"The Great Flat#14": {A: 4}}))
    return answer_defaults_until(state, A, PromptKind.MOVEMENT)


def _ghola():
    from tests.helpers.positions.cards import position as cards_position

    return cards_position(hands={A: ["tleilaxu_ghola"]}, dead_leaders={A: ["duncan_idaho"]}, tanks={A: 2})


def _truthtrance():
    from tests.helpers.positions.cards import TRUTHTRANCE, storm_round
    from tests.helpers.positions.cards import position as cards_position

    return storm_round(cards_position(hands={A: [TRUTHTRANCE]}))


def _truthtrance_asked():

    return apply(_truthtrance(), PlayTruthtrance(faction=A, target=H, question="Lasgun?")).state


def _worm():
    from tests.helpers.positions.spice_blow import fremen_in_great_flat

    return fremen_in_great_flat()[0]


def _advisor(**options):
    from tests.helpers.positions.movement import CARTHAG, answer_defaults_until, arrange

    state = answer_defaults_until(arrange(spice={H: 10, BG: 5}, **options)[0], H)
    return apply(state, Ship(faction=H, to_location=CARTHAG, tokens=2)).state


def _advisor_with_character_advantages():
    return _advisor(character_advantages=True)


def _guild_shipment():
    from tests.helpers.positions.movement import answer_defaults_until, arrange

    return answer_defaults_until(arrange(forces={"The Great Flat#14": {G: 4}})[0], G)


def _reveal_window():
    """Emperor (Hasimir Fenring) beat Harkonnen (Feyd-Rautha) on The Great Flat: the BT may betray (R-7)."""
    from tests.helpers.positions.battle import FLAT, give, plan, put
    from tests.helpers.positions.bt_attacks import bt_arena

    state = bt_arena()
    give(state, BT, "stunner")
    put(state, E, FLAT, 6)
    put(state, H, FLAT, 5)
    state = enter_phase(state, Phase.BATTLE)[0]
    return apply_all(state, plan(E, "hasimir_fenring", 3), plan(H, "feyd_rautha", 2),
                     CallTraitor(faction=E, call=False), CallTraitor(faction=H, call=False))[0]


def _bt_attack():
    return apply(_reveal_window(), AnswerRevealWindow(faction=BT)).state


def _worthless_trap_revealed():
    """A Kulon trap struck a Harkonnen leader: the BT choose its impairment (BT-16, BT-33)."""
    from tests.helpers.positions.bt_attacks import defend, trapped

    state, events = enter_phase(trapped("kulon"), Phase.BATTLE)
    leader = next(e for e in events if e.type == "trap_attack").data["leader"]
    return apply(state, defend(leader)).state


def _betrayal():
    from tests.helpers.positions.bt_traitors import ARRAKEEN, DUNCAN, at, position, stronghold_won

    return at(position((A, H, BT), forces={ARRAKEEN: {A: 7}}, marked=[DUNCAN], victories=[stronghold_won()]),
              Phase.MOVEMENT)


def _betrayal_revealed():
    """BT-51: the BT revealed Duncan Idaho; the Atreides and the Harkonnen are asked about Karama."""
    from engine.actions import RevealBtTraitor
    from tests.helpers.positions.bt_traitors import DUNCAN

    return apply(_betrayal(), RevealBtTraitor(faction=BT, leader=DUNCAN)).state


def _karama_against_bt():
    from tests.helpers.positions.bt_spice import cleared, give_card

    state = cleared()
    give_card(state, A, "karama_2")
    return state


def _karama_against_a_trap():
    from tests.helpers.positions.bt_bidding import game

    return game(hands={A: ("karama_2",)}, traps={"Carthag": "lasgun"})[0]


CASES = [
    Case("play bid", H, _bidding, {"amount": 1}, "Done: bid 1", "bid", {"amount": 1}),
    Case("play pass", H, _bidding, {}, "Done: pass", "pass_bid"),
    Case("play dial", H, _storm_dial, {"value": 2}, "Done: dial 2", "dial_storm", {"value": 2}),
    Case("play ship", A, _shipment, {"to_location": "Carthag#10", "tokens": 3},
         "Done: ship 3 tokens from your reserves to Carthag",
         "ship", {"to_location": "Carthag#10", "tokens": 3, "from_location": None}),
    Case("play skip", A, _shipment, {"step": "shipment"}, "Done: ship nothing", "skip_shipment"),
    Case("play move", A, _movement, {"from_location": "Arrakeen#9", "to_location": "Imperial Basin#9", "tokens": 2},
         "Done: move 2 tokens from Arrakeen to Imperial Basin (sector 9)", "move",
         {"from_location": "Arrakeen#9", "to_location": "Imperial Basin#9", "tokens": 2}),
    Case("play revive", A, _revival, {"leader": "Duncan Idaho"}, "Done: revive Duncan Idaho", "revive",
         {"tokens": 0, "leader": "duncan_idaho"}),
    Case("play traitor", A, _setup, {"leader": "piter de vries"}, "Done: keep Piter De Vries as your traitor",
         "choose_traitor", {"leader": "piter_de_vries"}),  # seed 7 offers the Atreides Piter de Vries
    Case("play predict", BG, lambda: _setup((A, BG, H)), {"faction": "harkonnen", "turn": 3},
         "Done: predict that the Harkonnen win on turn 3", "predict_winner", {"predicted": "harkonnen", "turn": 3}),
    Case("play plan", E, _plans, {"dial": 3, "leader": "Hasimir Fenring"},
         "Done: the battle plan: Hasimir Fenring, dial 3, no weapon, no defense",
         "submit_battle_plan", {"leader": "hasimir_fenring", "dial": 3, "weapon": None}),
    Case("play call", E, _traitor_calls, {"call": "no"}, "Done: no traitor call", "call_traitor", {"call": False}),
    Case("play choose-battle", E, _two_battles, {"territory": "Funeral Plain", "opponent": "guild"},
         "Done: fight the Spacing Guild in Funeral Plain", "choose_battle",
         {"territory": "Funeral Plain", "opponent": "guild"}),
    Case("play ask", A, _prescience, {"element": "weapon"}, "Done: ask for their weapon", "ask_prescience",
         {"element": "weapon"}),
    Case("play answer", H, _prescience_asked, {"answer": "crysknife"}, "Done: answer: Crysknife",
         "answer_prescience", {"answer": "crysknife"}),
    Case("play voice", BG, _voice, {"command": "not", "category": "poison weapon"},
         "Done: Voice: they must not play poison weapon", "use_voice", {"command": "not", "category": "poison weapon"}),
    Case("nexus propose", A, _nexus, {"partner": "harkonnen"}, "Done: propose an alliance to the Harkonnen",
         "propose_alliance", {"partner": "harkonnen"}),
    Case("nexus accept", A, _offered, {"partner": "harkonnen"}, "Done: accept the alliance of the Harkonnen",
         "accept_alliance", {"partner": "harkonnen"}),
    Case("nexus break", A, lambda: _nexus(alliances=[(A, H)]), {}, "Done: break your alliance",
         "break_alliance"),
    Case("nexus done", A, _nexus, {}, "Done: done talking: no alliance change", "end_nexus"),
    Case("play bribe", A, _setup, {"to": "harkonnen", "amount": 2}, "Done: bribe of 2 to harkonnen", "give_bribe",
         {"to": "harkonnen", "amount": 2}),
    Case("play gift", E, _allied_emperor, {"to": "fremen", "amount": 3}, "Done: 3 spice to fremen",
         "give_ally_spice", {"to": "fremen", "amount": 3}),
    Case("me traitor-order", H, _setup, {"auto": True},
         "Done: a standing order: always call a traitor when you can", "set_traitor_order",
         {"auto": True}),
    Case("me bid-order", A, _setup, {"max_bid": 4},
         "Done: a standing bid order: outbid the high bid by 1, up to 4 spice, else pass", "set_bid_order",
         {"max_bid": 4, "auto_pass": False}),
    Case("card karama", E, _karama_holder, {"card": "Karama", "against": "guild",
                                            "advantage": "half_price_shipping"},
         "Done: Karama readied: it cancels the next time the Spacing Guild ships at half price", "use_karama",
         {"card": "karama_1", "against": "guild", "advantage": "half_price_shipping"}),
    Case("card storm-cards", A, _storm_window, {"weather_control": 3},
         "Done: play Weather Control (the storm moves 3 sectors)",
         "play_storm_cards", {"weather_control": 3, "family_atomics": False}),
    Case("card hajr", A, _hajr, {}, "Done: Hajr played", "play_hajr"),
    Case("card ghola", A, _ghola, {"leader": "Duncan Idaho"}, "Done: Ghola: Duncan Idaho", "play_ghola",
         {"leader": "duncan_idaho", "tokens": 0}),
    Case("card truthtrance", A, _truthtrance, {"target": "harkonnen", "question": "Lasgun?"},
         "Done: Truthtrance asked of harkonnen", "play_truthtrance", {"target": "harkonnen", "question": "Lasgun?"}),
    Case("card answer-truthtrance", H, _truthtrance_asked, {"answer": "no"}, "Done: answer no",
         "answer_truthtrance", {"answer": "no"}),
    Case("card worm", Faction.FREMEN, _worm, {"to_location": "Polar Sink"}, "Done: ride Shai-Hulud to Polar Sink",
         "ride_worm", {"to_location": "Polar Sink"}),
    Case("card advisor", BG, _advisor, {"send": "yes"}, "Done: send the advisor to the Polar Sink", "send_advisor",
         {"accept": True, "with_shipment": False}),
    Case("card advisor", BG, _advisor_with_character_advantages, {"send": "with the shipment"},
         "Done: send the advisor with the shipment", "send_advisor", {"accept": True, "with_shipment": True}),
    Case("card ship-back", G, _guild_shipment, {"from_location": "The Great Flat#14", "tokens": 2},
         "Done: ship 2 tokens from The Great Flat back to your reserves", "ship_to_reserves",
         {"from_location": "The Great Flat#14", "tokens": 2}),
    Case("card worm-place", Faction.FREMEN, _second_worm, {"territory": "Funeral Plain"},
         "Done: place Shai-Hulud in Funeral Plain", "place_worm", {"territory": "Funeral Plain"}),
    Case("card guild-timing", G, _guild_timing, {"when": "now"}, "Done: take the Guild's turn now", "guild_timing",
         {"now": True}),
    Case("card coexist", BG, _bg_movement_turn, {"territory": "Arrakeen", "advisors": "yes"},
         "Done: your tokens in Arrakeen become co-existing advisors", "set_coexistence",
         {"territory": "Arrakeen", "advisors": True}),
    Case("card return-cards", Faction.HARKONNEN, _hand_taken, {"cards": "Kulon, Snooper"},
         "Done: give back Kulon, Snooper", "return_cards", {"cards": ["kulon", "snooper_1"]}),
    Case("bt traps-and-gifts", BT, _bidding_opened, {}, "Done: no trap and no gift", "traps_and_gifts",
         {"traps": {}, "gifts": {}}),
    Case("bt mark", BT, _mark_window, {"leader": "Duncan Idaho"},
         "Done: mark Duncan Idaho as your traitor", "mark_bt_traitor",
         {"leader": "duncan_idaho"}),
    Case("bt reveal", BT, _betrayal, {"leader": "Duncan Idaho"}, "Done: revealed Duncan Idaho",
         "reveal_bt_traitor", {"leader": "duncan_idaho"}),
    Case("bt reveal-window", BT, _reveal_window, {},
         "Done: let the moment pass", "answer_reveal_window", {"leader": None}),
    Case("bt karama-reveal", H, _betrayal_revealed, {"answer": "let it stand"}, "Done: the BT reveal: let it stand",
         "answer_reveal_karama", {"cancel": False}),
    Case("bt attack", BT, _bt_attack, {"leader": "Feyd-Rautha"}, "Done: attack Feyd-Rautha", "choose_bt_attack",
         {"leader": "feyd_rautha"}),
    Case("bt impair", BT, _worthless_trap_revealed, {"impairment": "no_shipping"},
         "Done: impair them: no shipping next turn",
         "choose_bt_impairment", {"impair": "no_shipping"}),
    Case("bt ally-revive", A, _ally_revival, {"leader": "Thufir Hawat", "second_leader": "duncan_idaho"},
         "Done: revive Thufir Hawat, Duncan Idaho", "bt_ally_revive",
         {"tokens": 0, "leaders": ["thufir_hawat", "duncan_idaho"]}),
    Case("bt grant-revival", BT, _ally_grant_asked, {"answer": "refuse"},
         "Done: refuse: your ally revives as usual and pays you", "grant_ally_revival", {"grant": False}),
    Case("bt spice-order", BT, _setup, {"declare": True}, "Done: spice-win declaration on", "set_spice_win_order",
         {"declare": True}),
    Case("bt karama-tax", A, _karama_against_bt, {"card": "karama_2"}, "Done: Karama tax on the BT",
         "karama_tax_bt", {"card": "karama_2"}),
    Case("bt karama-trap", A, _karama_against_a_trap, {"card": "Karama", "stronghold": "carthag"},
         "Done: Karama against the trap in carthag", "karama_destroy_trap",
         {"card": "karama_2", "stronghold": "Carthag"}),
]


@pytest.mark.parametrize("case", CASES, ids=str)
async def test_each_player_command_applies_its_action(bot, case):
    await store_running_game(bot.service.store, case.position(), SEATS, channel_id=55)
    asked = await invoke(bot, case.command, SEATS[case.faction], **case.options)
    # answered privately (choices may be secret), in the interaction's first answer: one request
    assert [kind for kind, *_ in asked.log] == ["send"]
    assert asked.answers == [(f"{case.answer} (game version 1).", True)]
    [stored] = await bot.service.store.actions("g55")
    action = json.loads(stored.action_json)
    assert action["type"] == case.stored and stored.actor == SEATS[case.faction]
    assert action["faction"] == case.faction.value
    assert {key: action[key] for key in case.fields} == case.fields


async def test_an_action_that_outlasts_the_response_window_is_deferred_in_time_then_answered(bot, monkeypatch):
    """Discord wants the first answer within 3 s: work that takes longer than RESPONSE_WINDOW is deferred
    (privately) at the window's end, and its answer follows up; nothing is answered twice."""
    from bot.discord import common

    case = CASES[0]
    await store_running_game(bot.service.store, case.position(), SEATS, channel_id=55)
    submit = bot.service.submit

    async def slow_submit(*args, **kwargs):
        await asyncio.sleep(0.05)
        return await submit(*args, **kwargs)

    monkeypatch.setattr(common, "RESPONSE_WINDOW", 0.01)
    monkeypatch.setattr(bot.service, "submit", slow_submit)
    asked = await invoke(bot, case.command, SEATS[case.faction], **case.options)
    assert [kind for kind, *_ in asked.log] == ["defer", "followup"] and asked.log[0][2] is True
    assert asked.answers == [(f"{case.answer} (game version 1).", True)]


def test_a_freshly_started_bot_has_a_rule_for_every_action():
    """After a restart the bot may be asked for any decision first (a /bt attack left open before it), before
    any phase code ran in the new process: every action type must have its handler from the start."""
    import subprocess
    import sys

    script = ("import typing, bot.discord.client\n"
              "from engine import actions\n"
              "from engine.flow import HANDLERS\n"
              "types = [t.model_fields['type'].default for t in typing.get_args(typing.get_args(actions.Action)[0])]\n"
              "assert len(types) > 40\n"
              "print(sorted(t for t in types if t not in HANDLERS))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# Refusals: each player command where the rules forbid it (a game in its setup), answered privately with the
# rule, nothing stored. The options are those of the success cases unless given here.
REFUSALS = {
    "play bid": (H, None, "[1979 rules: Bidding] No card is up for auction"),
    "play pass": (H, None, "[1979 rules: Bidding] No card is up for auction"),
    "play dial": (H, None, "[A-1] Nobody dials now: the storm is dialed in the storm round."),
    "play ship": (A, None, "[1979 rules: Shipment] Factions ship in the movement round"),
    "play skip": (A, None, "[1979 rules: Shipment] Factions ship in the movement round"),
    "play move": (A, None, "[1979 rules: Movement] Factions move in the movement round"),
    "play revive": (A, None, "[A-7] Revival comes at the start of the movement round"),
    "play traitor": (H, None, "[Setup: traitors] The Harkonnen keep all four traitor cards"),
    "play predict": (A, None, "[Setup: Bene Gesserit prediction] Only the Bene Gesserit predict a winner."),
    "play plan": (A, {"dial": 1}, "[1979 rules: Battles]"),
    "play call": (H, None, "[1979 rules: Battles] Battles are fought in the battle round."),
    "play choose-battle": (A, None, "[1979 rules: Battles]"),
    "play ask": (A, None, "[1979 rules: Battles] No decision on the prescience question is open for the Atreides "
                          "now; open: your traitor."),
    "play answer": (H, None, "[1979 rules: Battles] No decision on the answer to prescience is open for "
                             "the Harkonnen now."),
    "play voice": (A, None, "[1979 rules: Battles]"),
    "nexus propose": (A, None, "[A-8] Alliances are formed and broken only during a Nexus"),
    "nexus accept": (A, None, "[A-8] Alliances are formed and broken only during a Nexus"),
    "nexus break": (A, None, "[A-8] Alliances are formed and broken only during a Nexus"),
    "nexus done": (A, None, "[A-8] Alliances are formed and broken only during a Nexus"),
    "play bribe": (A, {"to": "harkonnen", "amount": 200}, "[A-16] This bribe costs 200 spice; you have 10."),
    "play gift": (A, {"to": "harkonnen", "amount": 1}, "[A-26] Only the Emperor may give spice to an ally"),
    "me bid-order": (A, {"auto_pass": True, "max_bid": 3}, "[A-6] A standing order either passes every time"),
    "card karama": (A, None, "[A-14]"),
    "card storm-cards": (A, None, "Weather Control and Family Atomics are played in the storm round"),
    "card hajr": (A, None, "[1979 rules: Hajr] You do not hold Hajr."),
    "card ghola": (A, None, "[1979 rules: Tleilaxu Ghola] You do not hold the Tleilaxu Ghola."),
    "card truthtrance": (A, None, "[1979 rules: Truthtrance] You do not hold a Truthtrance."),
    "card answer-truthtrance": (H, None, "[1979 rules: Truthtrance] No decision on a Truthtrance answer is open for "
                                       "the Harkonnen now."),
    "card worm": (A, None, "[A-28] Only the Fremen ride Shai-Hulud."),
    "card advisor": (A, None, "Only the Bene Gesserit send a free spiritual advisor"),
    "card ship-back": (A, None, "[1979 rules: Shipment] Factions ship in the movement round"),
    "card worm-place": (A, None, "[A-21] Only the Fremen place a further Shai-Hulud."),
    "card guild-timing": (A, None, "[A-15] Only the Spacing Guild chooses when"),
    "card coexist": (A, None, "[A-15] Co-existence is a character advantage (option character_advantages), which "
                              "is off in this game."),
    "card return-cards": (H, {"cards": "Kulon"}, "[A-14] No decision on the cards you give back is open for "
                                                 "the Harkonnen now."),
    "bt traps-and-gifts": (BT, None, "[R-21] No decision on Bene Tleilaxu traps and gifts is open for the Bene "
                                  "Tleilaxu now; open: the Bene Tleilaxu traps at setup."),
    "bt mark": (BT, None, "[BT-21] No decision on marking a revived leader is open for the Bene Tleilaxu now"),
    "bt reveal": (BT, None, "[R-25] Duncan Idaho is not one of your traitors."),
    "bt reveal-window": (BT, None, "[R-7] No decision on revealing a traitor after this battle is open for "
                                "the Bene Tleilaxu now"),
    "bt karama-reveal": (A, None, "[BT-51] No Bene Tleilaxu traitor reveal is waiting on a Karama now."),
    "bt attack": (BT, None, "[BT-11] No decision on the Bene Tleilaxu leader attack is open for the Bene "
                         "Tleilaxu now"),
    "bt impair": (BT, None, "[BT-16] No decision on the impairment of a worthless trap is open for the Bene "
                         "Tleilaxu now"),
    "bt ally-revive": (A, None, "[A-7] Revival comes at the start of the movement round"),
    "bt grant-revival": (BT, None, "[BT-60] No decision on free revival for your ally is open for the Bene "
                                     "Tleilaxu now"),
    "bt spice-order": (A, None, "[BT-27] Only the Bene Tleilaxu may declare a spice win."),
    "bt karama-tax": (A, None, "[BT-51] You must hold the Karama card you name."),
    "bt karama-trap": (A, None, "[BT-51] You must hold the Karama card you name."),
}
# Standing orders a seated faction may give at any time: no refusal to test beyond a stranger's.
ALWAYS_ALLOWED = {"me traitor-order"}


@pytest.mark.parametrize("case", [c for c in CASES if c.command not in ALWAYS_ALLOWED], ids=str)
async def test_each_player_command_is_refused_where_the_rules_forbid_it(bot, case):
    await store_running_game(bot.service.store, _setup(), SEATS, channel_id=55)  # (A, H, BT) in their setup
    faction, options, reason = REFUSALS[case.command]
    asked = await invoke(bot, case.command, SEATS[faction], **(options or case.options))
    [(text, ephemeral)] = asked.answers
    assert ephemeral and text.startswith("Refused: [") and reason in text
    assert await bot.service.store.actions("g55") == []


@pytest.mark.parametrize("command, options, refusal", [
    ("play call", {"call": "maybe"}, "Refused: call: answer yes or no, not 'maybe'."),
    ("nexus propose", {"partner": "Atreidez"}, "Refused: Unknown faction 'Atreidez'; choose from "),
    ("nexus accept", {"partner": "the emperor's"}, "Refused: Unknown faction \"the emperor's\"; choose from "),
])
async def test_typed_words_the_command_cannot_read_are_refused_in_words_not_guessed(bot, command, options, refusal):
    """Issue 25 item 19: `/play call` took any text but "yes" for "no call", and a faction name it could not read
    reached the player as "Something went wrong on our side"."""
    await store_running_game(bot.service.store, _setup(), SEATS, channel_id=55)
    asked = await invoke(bot, command, SEATS[E], **options)
    [(text, ephemeral)] = asked.answers
    assert ephemeral and text.startswith(refusal), text
    assert await bot.service.store.actions("g55") == []


async def test_a_standing_order_is_refused_to_a_stranger(bot):
    await store_running_game(bot.service.store, _setup(), SEATS, channel_id=55)
    asked = await invoke(bot, "me traitor-order", STRANGER, auto=True)
    assert asked.answers == [("Refused: You have no seat in this game; take a free one with /game join.", True)]
    assert await bot.service.store.actions("g55") == []


# --- /admin corrections not covered above ---------------------------------------------------------------------


async def test_admin_seat_reseats_a_faction_only_for_moderators_and_the_table_is_told_once(running):
    newcomer = fake_member(555)
    player = await invoke(running, "admin seat", USERS[A], faction="harkonnen", member=newcomer)
    assert player.answers == [("Refused: Only a moderator (Manage Server, or the server's moderator role) may do "
                               "this.", True)]
    moderator = await invoke(running, "admin seat", MODERATOR, manage_guild=True, faction="harkonnen",
                             member=newcomer)
    assert moderator.answers == [("Done: Harkonnen is now played by <@555>.", True)]
    assert (await running.service.store.load_game("g55")).seats["harkonnen"] == 555
    told = [row.message.text for row in await running.service.store.pending_outbox(1000)
            if row.message.recipient.channel and "<@555>" in row.message.text]
    assert len(told) == 1 and "seated <@555> as Harkonnen" in told[0]
    emptied = await invoke(running, "admin seat", MODERATOR, manage_guild=True, faction="harkonnen", member=None)
    assert emptied.answers == [("Done: Harkonnen is now played by nobody.", True)]
    assert "harkonnen" not in (await running.service.store.load_game("g55")).seats


async def test_admin_force_applies_an_open_decisions_default(running):
    state = await running.service.state_of("g55")
    prompt = next(p for p in state.prompts_for(A) if p.kind == PromptKind.TRAITOR_PICK)
    unknown = await invoke(running, "admin force", MODERATOR, manage_guild=True, prompt="p999", reason="late")
    assert unknown.answers[0][1] and unknown.answers[0][0].startswith("Refused: [Admin] There is no open decision "
                                                                      "'p999'.")
    forced = await invoke(running, "admin force", MODERATOR, manage_guild=True, prompt=prompt.id, reason="late")
    assert forced.answers == [(f"Decision {prompt.id} forced (game version 1).", True)]
    assert await stored_types(running) == ["force_default"]
    assert (await running.service.state_of("g55")).prompt(prompt.id) is None


async def test_admin_tokens_and_card_corrections(running):
    before = await running.service.state_of("g55")
    short = await invoke(running, "admin tokens", MODERATOR, manage_guild=True, faction="atreides", tokens=2,
                         source="tanks", destination="reserves", reason="miscount")
    assert short.answers == [("Refused: [Admin] atreides has 0 tokens in tanks, not 2.", True)]
    moved = await invoke(running, "admin tokens", MODERATOR, manage_guild=True, faction="atreides", tokens=2,
                         source="reserves", destination="tanks", reason="miscount")
    assert moved.answers == [("Corrected (game version 1).", True)]
    after = await running.service.state_of("g55")
    assert after.faction(A).tanks == before.faction(A).tanks + 2
    assert after.faction(A).reserves == before.faction(A).reserves - 2

    card = after.treachery_deck[0]
    given = await invoke(running, "admin card", MODERATOR, manage_guild=True, card=card, to="fremen",
                         reason="dealt short")
    assert given.answers == [("Corrected (game version 2).", True)]
    assert card in (await running.service.state_of("g55")).faction(F).hand
    unknown = await invoke(running, "admin card", MODERATOR, manage_guild=True, card="sword", reason="x")
    assert unknown.answers[0][1] and unknown.answers[0][0].startswith("Refused: [Admin]")
    assert await stored_types(running) == ["place_tokens", "move_card"]


async def test_admin_pause_and_resume(running):
    player = await invoke(running, "admin pause", USERS[A])
    assert "Only a moderator" in player.answers[0][0]
    not_paused = await invoke(running, "admin pause", MODERATOR, manage_guild=True, paused=False)
    assert not_paused.answers[0][1] and not_paused.answers[0][0].startswith("Refused: The game is running")
    paused = await invoke(running, "admin pause", MODERATOR, manage_guild=True)
    assert paused.answers == [("Paused.", True)]
    assert (await running.service.store.load_game("g55")).status.value == "paused"
    bid = await invoke(running, "play bid", USERS[A], amount=1)
    assert bid.answers[0][0].startswith("Refused: The game is paused")
    resumed = await invoke(running, "admin pause", MODERATOR, manage_guild=True, paused=False)
    assert resumed.answers == [("Resumed.", True)]
    assert (await running.service.store.load_game("g55")).status.value == "running"


# --- the whole tree is tested ---------------------------------------------------------------------------------


async def test_every_command_is_tested(bot):
    """Each command of the tree is named by a test in tests/: `invoke(bot, "<name>"` or a `Case("<name>"`, a
    SimCord `.slash(channel, "<name>"`, or (for a callback name unique in the tree) a direct
    `.<callback>.callback(` call."""
    import re
    from pathlib import Path

    from discord import app_commands

    sources = "\n".join(path.read_text() for path in sorted(Path(__file__).parent.glob("test_*.py")))
    named = set(re.findall(r'(?:invoke\(\w+, |Case\(|slash\([\w.]+, )"([a-z][a-z -]*)"', sources))
    commands = [c for c in bot.tree.walk_commands() if isinstance(c, app_commands.Command)]
    callbacks = [c.callback.__name__ for c in commands]
    untested = [c.qualified_name for c in commands
                if c.qualified_name not in named
                and not (callbacks.count(c.callback.__name__) == 1 and f".{c.callback.__name__}.callback(" in sources)]
    assert len(commands) > 50 and untested == []


async def test_two_simultaneous_clicks_on_one_button_are_applied_once(tmp_path):
    """Two presses of the same DM button arriving together (a double click, or two devices): the service's
    per-game lock makes the second see the decision closed. SQLite, whose calls really suspend, so the two
    handlers interleave."""
    import asyncio

    from bot.store.sqlite import SqliteGameStore

    store = await SqliteGameStore.open(tmp_path / "mentat.db")
    try:
        bot = MentatBot(GameService(store))
        await bot.add_cogs()
        await store_running_game(store, _setup(), SEATS, channel_id=55)
        prompt = next(p for p in (await bot.service.state_of("g55")).prompts_for(A)
                      if p.kind == PromptKind.TRAITOR_PICK)
        presses = [itx(bot, SEATS[A]) for _ in range(2)]
        await asyncio.gather(*(PromptButton("g55", prompt.id, 0, "first").callback(press) for press in presses))
        answers = sorted(text for press in presses for text, _ in press.answers)
        # both saw the decision open; the lock lets one apply it and the service refuses the other
        assert answers == ["Done: first (game version 1).",
                           "Refused: That decision is already closed (a second click, or an old message)."]
        assert await stored_types(bot) == ["choose_traitor"]
    finally:
        await store.close()


async def test_twenty_identical_bribes_with_one_interaction_id_are_applied_once(tmp_path):
    """Issue 15, exactly once from the click: Discord retrying one interaction (or a client sending it again)
    submits the same action under the same interaction id; twenty at once on SQLite, where the calls really
    interleave, apply one bribe and answer all twenty alike."""
    import asyncio

    from bot.store.sqlite import SqliteGameStore

    store = await SqliteGameStore.open(tmp_path / "mentat.db")
    try:
        bot = MentatBot(GameService(store))
        await bot.add_cogs()
        await store_running_game(store, _setup(), SEATS, channel_id=55)
        spice = (await bot.service.state_of("g55")).faction(A).spice
        play = cog(bot, "PlayCog")
        retries = [itx(bot, SEATS[A], interaction_id=4242) for _ in range(20)]
        await asyncio.gather(*(play.bribe.callback(play, retry, to="harkonnen", amount=1) for retry in retries))
        assert {text for retry in retries for text, _ in retry.answers} == {
            "Done: bribe of 1 to harkonnen (game version 1)."}
        assert await stored_types(bot) == ["give_bribe"]
        assert (await bot.service.state_of("g55")).faction(A).spice == spice - 1
        other = itx(bot, SEATS[A])  # another interaction is another bribe
        await play.bribe.callback(play, other, to="harkonnen", amount=1)
        assert await stored_types(bot) == ["give_bribe", "give_bribe"]
    finally:
        await store.close()
