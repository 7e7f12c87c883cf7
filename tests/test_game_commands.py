"""/game log, /game import and the DM probe of /game start, called as Discord calls them (a fake interaction,
no network); the Discord gateway's probe and its delivery nonces (SimCord ignores nonces and refuses DMs only
to bots, so these use fakes)."""

from __future__ import annotations

from types import SimpleNamespace

import discord
import pytest

from bot.app.ports import GameRecordRow, GameStatus, OutgoingMessage, Recipient
from bot.discord.gateway import DiscordGateway
from engine.actions import ChooseTraitor, SetStorm
from engine.data import load_game_data
from engine.game import new_game
from engine.ids import Faction
from engine.model import PromptKind
from engine.names import leader_name
from tests.conftest import make_setup
from tests.helpers import handler_calls as handlers
from tests.helpers.discord_fakes import FakeInteraction

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
USERS = handlers.USERS
SPECTATOR, MODERATOR = 999, 900
bot = handlers.bot  # the handler tests' fixture: the bot with its cogs, no network


@pytest.fixture
async def running(bot):
    service = bot.service
    row = await service.create_game(1, 55, [A, H, F], seed=7)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    return bot


def game_cog(bot):
    return bot.get_cog("GameCog")


async def test_game_log_is_ephemeral_public_only_and_paged_under_2000_characters(running):
    bot, service = running, running.service
    prompt = next(p for p in (await service.state_of("g55")).prompts if p.faction == A
                  and p.kind == PromptKind.TRAITOR_PICK)
    await service.submit("g55", USERS[A], ChooseTraitor(faction=A, leader=prompt.options[0]))
    for sector in range(1, 11):  # ten long corrections: about 4,000 characters of log
        await service.submit("g55", MODERATOR, SetStorm(admin="mod", reason="r" * 380, sector=sector), admin=True)
    asked = FakeInteraction(bot, SPECTATOR)
    await game_cog(bot).log.callback(game_cog(bot), asked, entries=50)
    pages = [text for text, _ in asked.answers]
    assert len(pages) == 3 and all(len(page) <= 2000 for page in pages)
    assert all(ephemeral for _, ephemeral in asked.answers)
    assert "\n".join(pages) == "\n".join(await service.public_log("g55", 50))
    assert "v1 The Atreides chose a traitor." in pages[0] and leader_name(prompt.options[0]) not in "".join(pages)
    few = FakeInteraction(bot, USERS[H])  # a player reads the same public log
    await game_cog(bot).log.callback(game_cog(bot), few, entries=1)
    assert few.answers == [("v11 Admin mod set the storm to sector 10 (" + "r" * 380 + ").", True)]


async def test_game_log_without_a_game_says_so(bot):
    asked = FakeInteraction(bot, SPECTATOR, channel_id=12)
    await game_cog(bot).log.callback(game_cog(bot), asked, entries=5)
    assert asked.answers == [("Refused: There is no game in this channel; create one with /game new.", True)]


class FakeAttachment:
    def __init__(self, text: str):
        self.data = text.encode()
        self.size = len(self.data)

    async def read(self) -> bytes:
        return self.data


async def test_game_import_is_for_moderators_and_creates_the_game_here(running):
    bot = running
    exported = await bot.service.record("g55")
    stranger = FakeInteraction(bot, SPECTATOR, channel_id=66)
    await game_cog(bot).import_.callback(game_cog(bot), stranger, game_file=FakeAttachment(exported))
    assert stranger.answers[0][0].startswith("Refused: Only a moderator") and \
        await bot.service.store.game_in_channel(66) is None
    moderator = FakeInteraction(bot, MODERATOR, channel_id=66, manage_guild=True)
    await game_cog(bot).import_.callback(game_cog(bot), moderator, game_file=FakeAttachment(exported))
    assert moderator.answers == [("Imported as game g66 at version 0 (open).", True)]
    imported = await bot.service.store.game_in_channel(66)
    assert imported.seats == {f.value: user for f, user in USERS.items()} and imported.status == GameStatus.OPEN
    again = FakeInteraction(bot, MODERATOR, channel_id=66, manage_guild=True)
    await game_cog(bot).import_.callback(game_cog(bot), again, game_file=FakeAttachment(exported))
    assert again.answers[0][0].startswith("Refused: This channel already has a game")
    altered = FakeAttachment(exported.replace('"seed": 7', '"seed": 8'))
    forged = FakeInteraction(bot, MODERATOR, channel_id=67, manage_guild=True)
    await game_cog(bot).import_.callback(game_cog(bot), forged, game_file=altered)
    assert forged.answers[0][0].startswith("Refused: This game file is not signed by this bot, or was changed")
    trusted = FakeInteraction(bot, MODERATOR, channel_id=67, manage_guild=True)  # trusted, it must still replay
    await game_cog(bot).import_.callback(game_cog(bot), trusted, game_file=altered, trust_unsigned=True)
    assert trusted.answers[0][0].startswith("Refused: The game file fails verification")
    assert await bot.service.store.game_in_channel(67) is None


class FakeUserTarget:
    def __init__(self, refuse: bool):
        self.refuse, self.sent, self.views = refuse, [], []

    async def send(self, content, view=None, **_):
        if self.refuse:
            raise discord.Forbidden(SimpleNamespace(status=403, reason="Forbidden"),
                                    {"code": 50007, "message": "Cannot send messages to this user"})
        self.sent.append(content)
        self.views.append(view)


class ReadyClient:
    def __init__(self, users):
        self.users = users

    def is_ready(self) -> bool:
        return True

    async def create_dm(self, user):  # the user's DM channel (Discord: POST /users/@me/channels)
        return self.users[user.id]


async def test_the_discord_probe_sends_a_welcome_dm_and_reports_closed_dms():
    open_dms, closed_dms = FakeUserTarget(refuse=False), FakeUserTarget(refuse=True)
    gateway = DiscordGateway(ReadyClient({101: open_dms, 102: closed_dms}))
    state, _ = new_game(make_setup([A, Faction.HARKONNEN, Faction.BENE_GESSERIT]))
    game = GameRecordRow(game_id="g55", guild_id=1, channel_id=55, status=GameStatus.OPEN, setup_json="{}",
                         state_json=state.model_dump_json(), seq=0, seats={"atreides": 101, "harkonnen": 102})
    assert await gateway.can_dm(game, "atreides") is True
    [welcome_text] = open_dms.sent  # the welcome: the faction, its advantages, how decisions come, the commands
    assert welcome_text.startswith("**Dune in <#55>**\nWelcome: you play **Atreides**. You start with 10 spice and "
                                   "may hold 4 Treachery cards.")
    assert all(f"\n- {advantage}\n" in welcome_text for advantage in load_game_data().factions[A].advantages)
    assert "each as a card with its buttons" in welcome_text and "calls you by name" in welcome_text
    assert all(command in welcome_text for command in ("`/me act`", "`/me hand`", "`/me prompts`", "`/rules`"))
    assert "this game has no deadlines" in welcome_text  # a game created without a pace
    # the standing orders the engine offers this player, by name: not the Bene Gesserit's advisors, nor the Guild's
    assert welcome_text.endswith("Fewer clicks: `/me orders` lets the bot answer routine decisions for you, in secret "
                                 "and until you change them: storm cards, the Nexus, passing on cards, bid up to a "
                                 "limit, bids you cannot outbid, revival, traitor calls.")
    [welcome] = open_dms.views  # the any-time panel's button (bot/discord/anytime_panel.py)
    assert [(b.item.label, b.custom_id) for b in welcome.children] == [("Play a card or act now…", "mentat:act:g55")]
    assert await gateway.can_dm(game, "harkonnen") is False
    assert await gateway.can_dm(game, "fremen") is False  # nobody seated


async def test_game_start_probes_the_seats_and_tells_the_starter_who_cannot_be_dmed(bot):
    service = bot.service
    row = await service.create_game(1, 55, [A, H], seed=7, creator=USERS[A])
    for faction in (A, H):
        await service.seat(row.game_id, faction, USERS[faction])
    bot.gateway = DiscordGateway(ReadyClient({101: FakeUserTarget(refuse=False), 102: FakeUserTarget(refuse=True)}))
    player = FakeInteraction(bot, USERS[H])  # neither the creator nor a moderator
    await game_cog(bot).start.callback(game_cog(bot), player)
    assert player.answers == [("Refused: Only the game's creator or a moderator may start it.", True)]
    assert (await service.store.load_game(row.game_id)).status == GameStatus.OPEN
    asked = FakeInteraction(bot, USERS[A])  # the creator
    await game_cog(bot).start.callback(game_cog(bot), asked)
    assert asked.answers == [("The game has started; check your DMs (or /me prompts) for your decisions. The bot "
                              "cannot DM Harkonnen: the table was told.", True)]
    assert (await service.store.load_game(row.game_id)).settings["unreachable"] == ["harkonnen"]
    told = [row.message.text for row in await service.store.pending_outbox(limit=1000)
            if "must open DMs" in row.message.text]
    assert told == ["The bot cannot DM the harkonnen player (<@102>): they must open DMs from server members; until "
                    "then they use /me prompts."]


class RecordingTarget:
    def __init__(self):
        self.sent: list[tuple[str, dict]] = []

    async def send(self, content, **options):
        self.sent.append((content, options))


async def test_each_chunk_carries_a_nonce_from_its_outbox_row_that_discord_enforces():
    """Exactly once on Discord: a row redelivered after a crash carries the same nonces, and discord.py sends a
    nonce with enforce_nonce, so Discord returns the first message instead of posting a second."""
    channel = RecordingTarget()
    gateway = DiscordGateway(SimpleNamespace(get_channel=lambda _: channel))
    game = GameRecordRow(game_id="g55", guild_id=1, channel_id=55, status=GameStatus.RUNNING, setup_json="{}",
                         state_json="{}", seq=0)
    text = "\n".join("z" * 150 for _ in range(20))  # two chunks
    await gateway.deliver(game, OutgoingMessage(recipient=Recipient(channel=True), text=text, outbox_id=4242424242))
    assert [options["nonce"] for _, options in channel.sent] == ["mentat-4242424242-1", "mentat-4242424242-2"]
    assert all(len(options["nonce"]) <= 25 for _, options in channel.sent)  # Discord's limit for a nonce
    payload = discord.http.handle_message_parameters(content="x", nonce="mentat-1-1").payload
    assert payload["nonce"] == "mentat-1-1" and payload["enforce_nonce"] is True
