"""Cog handlers called directly with a fake interaction: thin handlers over the service, refusals answered
ephemerally, secrets only ever ephemeral. No login, no network."""

from __future__ import annotations

import logging

import pytest

from bot.app.service import GameService, Refused
from bot.discord.client import MentatBot
from bot.discord.common import is_moderator
from bot.discord.components import PromptButton
from bot.discord.errors import report
from bot.store.memory import MemoryGameStore
from engine.actions import ForceDefault
from engine.autoplay import choose
from engine.data import load_game_data
from engine.ids import Faction
from engine.model import PromptKind
from engine.rng import Rng
from tests.discord_fakes import FakeInteraction

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
USERS = {A: 101, H: 102, F: 103}
STRANGER, MODERATOR = 999, 900


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
    assert opening.answers[0][1] is False and "Game g55 is open" in opening.answers[0][0]
    for faction, user in USERS.items():
        await game.join.callback(game, itx(bot, user), faction=faction.value)
    await game.start.callback(game, itx(bot, USERS[A]))
    return bot


async def _actions(bot):
    return await bot.service.store.actions("g55")


async def test_a_new_game_refuses_unknown_factions_and_options(bot):
    game = cog(bot, "GameCog")
    bad = itx(bot, 1)
    await game.new.callback(game, bad, factions="atreides, sardaukar", options=None, seed=None)
    assert bad.answers == [(bad.answers[0][0], True)] and "Unknown faction 'sardaukar'" in bad.answers[0][0]
    worse = itx(bot, 1)
    await game.new.callback(game, worse, factions="atreides, fremen", options="storms=3", seed=None)
    assert "Unknown option 'storms=3'" in worse.answers[0][0]
    assert await bot.service.store.game_in_channel(55) is None


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
    assert ephemeral is False and "Turn" in text and "traitor pick (secret)" in text
    assert "<@101>" in text


async def test_a_bid_from_an_unseated_member_is_refused_and_changes_nothing(running):
    play = cog(running, "PlayCog")
    stranger = itx(running, STRANGER)
    await play.bid.callback(play, stranger, amount=3)
    assert stranger.log[0] == ("defer", None, True)
    assert stranger.answers == [("Refused: You have no seat in this game; take a free one with /game join.", True)]
    assert await _actions(running) == []


async def test_a_bid_out_of_turn_quotes_the_rule(running):
    play = cog(running, "PlayCog")
    early = itx(running, USERS[A])
    await play.bid.callback(play, early, amount=3)
    text, ephemeral = early.answers[0]
    assert ephemeral and text.startswith("Refused: [") and await _actions(running) == []


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
    before = len(await _actions(running))
    play = cog(running, "PlayCog")
    bidder = itx(running, USERS[prompt.faction])
    await play.bid.callback(play, bidder, amount=1)
    assert bidder.answers == [(f"Done: you bid 1 (game version {before + 1}).", True)]
    stored = await _actions(running)
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
    assert chosen.answers[0][0].startswith("Done: your traitor is") and len(await _actions(running)) == 2


async def test_admin_commands_need_manage_server_or_the_moderator_role(running):
    admin = cog(running, "AdminCog")
    player = itx(running, USERS[A])
    await admin.spice.callback(admin, player, faction="atreides", amount=30, reason="miscount")
    assert "Only a moderator" in player.answers[0][0] and await _actions(running) == []
    moderator = itx(running, MODERATOR, manage_guild=True)
    await admin.spice.callback(admin, moderator, faction="atreides", amount=30, reason="miscount")
    assert moderator.answers == [("Spice corrected (game version 1).", True)]
    assert (await running.service.state_of("g55")).faction(A).spice == 30
    guarded = itx(running, MODERATOR, manage_guild=True)
    await admin.undo.callback(admin, guarded, count=1, force=False)
    assert "an admin must force it" in guarded.answers[0][0]  # the spice was told to the Atreides player
    undo = itx(running, MODERATOR, manage_guild=True)
    await admin.undo.callback(admin, undo, count=1, force=True)
    assert undo.answers == [("Undone; the game is back at version 0.", True)]


async def test_the_moderator_role_counts_as_a_moderator(running):
    game = (await running.service.store.load_game("g55")).model_copy(update={"moderator_role_id": 77})
    assert is_moderator(itx(running, 5, roles=[77]).user, game)
    assert not is_moderator(itx(running, 5, roles=[78]).user, game)
    assert is_moderator(itx(running, 5, manage_guild=True).user, None)


async def test_an_unexpected_error_answers_with_an_id_that_is_logged(bot, caplog):
    failed = itx(bot, 1, command_name="game status")
    try:
        raise RuntimeError("boom")
    except RuntimeError as error:
        with caplog.at_level(logging.ERROR, logger="bot.discord.errors"):
            await report(failed, error)
    text, ephemeral = failed.answers[0]
    ref = text.split("error id ")[1].split(")")[0]
    assert ephemeral and len(ref) == 8
    assert any(ref in record.getMessage() and record.exc_info for record in caplog.records)


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

    async def submit(game_id, user_id, action, **_):
        submitted.append((game_id, user_id, action))
        return Accepted(seq=9, events=[])

    monkeypatch.setattr(discord.InteractionResponse, "defer", defer)
    monkeypatch.setattr(discord.Webhook, "send", followup)
    monkeypatch.setattr(bot.service, "submit", submit)
    options = [{"name": "to", "type": 3, "value": "Arrakeen"}, {"name": "tokens", "type": 4, "value": 5},
               {"name": "from", "type": 3, "value": "Carthag"}]
    await bot.tree._call(discord.Interaction(data=_payload(USERS[A], "play", "ship", options), state=bot._connection))
    assert log == [("defer", True), ("followup", "Done: ship 5 to Arrakeen (game version 9).", True)]
    (game_id, user_id, action), = submitted
    assert (game_id, user_id, action.type, action.faction) == ("g55", USERS[A], "ship", A)
    assert (action.to_location, action.from_location, action.tokens) == ("Arrakeen", "Carthag", 5)


async def test_admin_deadline_sets_the_games_deadlines(running):
    """/admin deadline stores what the drain loop's tick applies (tests/test_deadlines.py covers the tick)."""
    admin = cog(running, "AdminCog")
    player = itx(running, USERS[A])
    await admin.deadline.callback(admin, player, hours=24)
    assert "Only a moderator" in player.answers[0][0]
    moderator = itx(running, MODERATOR, manage_guild=True)
    await admin.deadline.callback(admin, moderator, hours=12, kind="bid")
    assert moderator.answers == [("Deadline for bid decisions: 12 h.", True)]
    assert (await running.service.store.load_game("g55")).settings["deadlines"] == {"bid": 12 * 3600}
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


async def test_game_export_only_for_moderators_while_the_game_runs(running):
    game_cog = cog(running, "GameCog")
    player = itx(running, USERS[A])
    await game_cog.export.callback(game_cog, player)
    assert "Only a moderator" in player.answers[0][0]
    moderator = itx(running, MODERATOR, manage_guild=True)
    await game_cog.export.callback(game_cog, moderator)
    assert moderator.answers[0] == ("The game log; `python -m engine replay` checks it.", True)


# --- /play alliances and money, /bt --------------------------------------------------------------------------


async def test_propose_and_accept_outside_a_nexus_quote_rule_a8(running):
    play = cog(running, "PlayCog")
    proposed = itx(running, USERS[A])
    await play.propose.callback(play, proposed, partner="harkonnen")
    accepted = itx(running, USERS[H])
    await play.accept.callback(play, accepted, partner="atreides")
    for asked in (proposed, accepted):
        text, ephemeral = asked.answers[0]
        assert ephemeral and text.startswith("Refused: [A-8]") and "only during a Nexus" in text
    assert await _actions(running) == []


async def test_a_bribe_goes_through_the_service(running):
    play = cog(running, "PlayCog")
    bribing = itx(running, USERS[A])
    await play.bribe.callback(play, bribing, to="harkonnen", amount=1)
    assert bribing.answers == [("Done: bribe of 1 to harkonnen (game version 1).", True)]
    stored = await _actions(running)
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
    assert await _actions(with_bt) == []


async def test_malformed_traps_are_refused_before_the_engine(with_bt):
    bt = cog(with_bt, "BtCog")
    laying = itx(with_bt, 104)
    await bt.traps_and_gifts.callback(bt, laying, traps="Arrakeen", gifts=None)
    assert laying.answers == [("Refused: Expected key=value pairs separated by commas, not 'Arrakeen'.", True)]
    assert await _actions(with_bt) == []


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
