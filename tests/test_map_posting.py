"""The table's map in the bot: the feed flags the turn's opening post and the post after the battles; the Discord
gateway attaches the picture to it; /game map posts it on request."""

from __future__ import annotations

import pytest

from bot.app.feed import STORY
from bot.app.map_picture import render_map
from bot.app.ports import OutgoingMessage, Recipient
from bot.app.service import GameService, Refused
from bot.discord.client import MentatBot
from bot.discord.gateway import DiscordGateway
from bot.store.memory import MemoryGameStore
from bot.store.sqlite import SqliteGameStore
from engine.actions import ForceDefault
from engine.checks.autoplay import choose
from engine.events import Event
from engine.ids import Faction
from engine.rng import Rng
from engine.secrecy.views import PlayerView, view
from tests.helpers.discord_fakes import FakeFollowup, FakeInteraction

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
USERS = {A: 101, H: 102, F: 103}
ADMIN = 900


@pytest.fixture(params=["memory", "sqlite"])
async def running(request, tmp_path):
    """A running three-faction game; on SQLite too, so the flag is shown to survive the stored outbox."""
    store = MemoryGameStore() if request.param == "memory" else await SqliteGameStore.open(tmp_path / "m.db")
    service = GameService(store)
    row = await service.create_game(guild_id=1, channel_id=55, factions=[A, H, F], seed=7)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    yield service, row.game_id
    await store.close()


async def _play_one(service: GameService, game: str, rng: Rng) -> list[Event]:
    """One decision taken by its seated player (a random legal choice), as the bot's players take them."""
    state = await service.state_of(game)
    prompt = rng.choice(state.prompts)
    for _ in range(8):
        try:
            return (await service.submit(game, USERS[prompt.faction], choose(state, prompt, rng))).events
        except Refused:
            continue
    action = ForceDefault(admin="mod", reason="test", prompt_id=prompt.id)
    return (await service.submit(game, ADMIN, action, admin=True)).events


async def test_the_map_is_posted_in_the_channel_once_the_storm_moved_and_after_the_battles_fought(running):
    """Issue 14: the map on the turn's own post and after the battles, nowhere else; a round in which nobody fought
    has neither a post nor a map. Issue 25 item 7: the turn's post gets its map with the storm's lines, drawn from
    the table's view once the storm has moved (it showed the board before the storm, under "the storm moves 5
    sectors to sector 9")."""
    service, game = running
    rng = Rng.from_seed(3)
    moments: list[str] = []
    quiet_rounds = 0
    while (await service.state_of(game)).turn < 6:
        before = {row.id for row in await service.store.pending_outbox(limit=10_000)}
        events = await _play_one(service, game, rng)
        queued = [row.message for row in await service.store.pending_outbox(limit=10_000) if row.id not in before]
        flagged = [m for m in queued if m.map_of is not None]
        assert not any(m.attach_map for m in queued)  # every map is drawn from the view of its own moment
        assert all(m.recipient.channel and m.recipient.thread is None for m in flagged)  # the channel itself
        moments += ["after the storm" if m.edit_of == f"turn:{m_turn(m)}" else "after the battles" for m in flagged]
        storms = [e for e in events if e.public and e.type == "storm_moved"]
        fought = [over for over in events if over.type == "battles_over" and not _quiet_battle_round(events, over)]
        assert len(flagged) == len(storms) + len(fought)
        after = await service.state_of(game)
        for shown in flagged:
            seen = PlayerView.model_validate_json(shown.map_of)
            assert seen == view(after, None) and seen.storm_sector == after.storm_sector
        battle_posts = [m for m in queued if m.key is not None and m.key.endswith(":battle") and m.edit_of is None]
        quiet = [over for over in events if over.type == "battles_over" and _quiet_battle_round(events, over)]
        assert not (quiet and battle_posts)  # a round without a battle has no post of its own
        quiet_rounds += len(quiet)
    assert moments.count("after the storm") == 5 and "after the battles" in moments, moments  # turns 1 to 5
    assert quiet_rounds  # seed 3 has a turn without battles: its round was told in the thread only


def m_turn(message: OutgoingMessage) -> str:
    return message.edit_of.partition(":")[2] if message.edit_of else ""


def _quiet_battle_round(events: list[Event], over: Event) -> bool:
    """A battle round that began and ended within these events with no story line between (nobody fought)."""
    end = events.index(over)
    begun = [n for n, e in enumerate(events[:end]) if e.type == "phase_started" and e.data["phase"] == "battle"]
    return bool(begun) and not any(e.public and e.type in STORY for e in events[begun[-1]:end])



# --- the Discord front: the gateway attaches the map, /game map posts it ---------------------------------


class FakeChannel:
    """A channel that keeps what was sent to it: the text and any file's bytes."""

    def __init__(self):
        self.sent: list[tuple[str | None, bytes | None, dict]] = []

    async def send(self, content=None, *, file=None, **extra):
        self.sent.append((content, file.fp.getvalue() if file is not None else None, extra))


class FakeClient:
    def __init__(self, channel):
        self.channel = channel

    def get_channel(self, channel_id):
        return self.channel if channel_id == 55 else None


async def _stored_game(service: GameService, game: str):
    return await service.store.load_game(game)


async def test_the_gateway_attaches_the_tables_map_to_a_flagged_post(running):
    service, game = running
    channel = FakeChannel()
    row = await _stored_game(service, game)
    state = await service.state_of(game)
    message = OutgoingMessage(recipient=Recipient(channel=True), text="Shipment and movement are over.",
                              attach_map=True, outbox_id=41)
    await DiscordGateway(FakeClient(channel)).deliver(row, message)
    texts = [text for text, _, _ in channel.sent]
    assert "Shipment and movement are over." in texts
    maps = [(png, extra) for _, png, extra in channel.sent if png is not None]
    assert len(maps) == 1 and maps[0][0] == render_map(state, None), "the table's picture, nothing secret"
    nonces = [extra.get("nonce") for _, _, extra in channel.sent]
    assert len(set(nonces)) == len(nonces) and all(nonces), "each part keeps its own redelivery key"


async def test_the_gateway_draws_the_map_of_the_moment_a_post_was_made_not_of_its_delivery(running):
    """Issue 25 item 7: a map queued with its post shows the board as of that post, however late it is delivered."""
    service, game = running
    channel = FakeChannel()
    then = await service.state_of(game)
    moved = then.model_copy(deep=True)
    moved.storm_sector = then.storm_sector % 18 + 5  # the game went on before the post was delivered
    row = (await _stored_game(service, game)).model_copy(update={"state_json": moved.model_dump_json()})
    message = OutgoingMessage(recipient=Recipient(channel=True), text="- The storm moves.", outbox_id=43,
                              map_of=view(then, None).model_dump_json(exclude_defaults=True))
    await DiscordGateway(FakeClient(channel)).deliver(row, message)
    [png] = [png for _, png, _ in channel.sent if png is not None]
    assert png == render_map(then, None) != render_map(moved, None)


async def test_the_gateway_sends_no_map_unless_asked(running):
    service, game = running
    channel = FakeChannel()
    message = OutgoingMessage(recipient=Recipient(channel=True), text="The storm moves 3 sectors.", outbox_id=42)
    await DiscordGateway(FakeClient(channel)).deliver(await _stored_game(service, game), message)
    assert [png for _, png, _ in channel.sent] == [None]


class MapFollowup(FakeFollowup):
    def __init__(self, log, files):
        super().__init__(log)
        self.files = files

    async def send(self, content=None, *, ephemeral=False, file=None, **_):
        self.log.append(("followup", content, ephemeral))
        if file is not None:
            self.files.append((file.filename, file.fp.getvalue()))


def _asking(bot, user: int) -> FakeInteraction:
    interaction = FakeInteraction(bot, user)
    interaction.files = []
    interaction.followup = MapFollowup(interaction.log, interaction.files)
    return interaction


@pytest.fixture
async def bot_with_game(running):
    service, game = running
    bot = MentatBot(service)
    await bot.add_cogs()
    return bot, game


async def test_game_map_is_deferred_and_posts_the_tables_picture_in_the_channel(bot_with_game):
    bot, game = bot_with_game
    cog = bot.get_cog("GameCog")
    asked = _asking(bot, USERS[A])
    await cog.show_map.callback(cog, asked, mine=False)
    assert asked.log[0] == ("defer", None, False), "deferred, publicly, before drawing"
    state = await bot.service.state_of(game)
    assert asked.files == [(f"{game}-turn{state.turn}.png", render_map(state, None))]
    assert asked.answers == [(None, False)]


async def test_game_map_mine_shows_the_callers_own_picture_to_them_alone(bot_with_game):
    bot, game = bot_with_game
    cog = bot.get_cog("GameCog")
    asked = _asking(bot, USERS[H])
    await cog.show_map.callback(cog, asked, mine=True)
    state = await bot.service.state_of(game)
    assert asked.log[0] == ("defer", None, True)
    assert [png for _, png in asked.files] == [render_map(state, H)] and asked.answers == [(None, True)]


async def test_game_map_mine_is_refused_to_someone_without_a_seat(bot_with_game):
    bot, _ = bot_with_game
    cog = bot.get_cog("GameCog")
    stranger = _asking(bot, 999)
    await cog.show_map.callback(cog, stranger, mine=True)
    assert stranger.files == []
    assert len(stranger.answers) == 1 and stranger.answers[0][1] is True
    assert "no seat in this game" in stranger.answers[0][0]


async def test_with_weather_the_turns_post_gets_its_map_when_the_storm_moves_not_when_its_phase_ends():
    """Issue 25 item 7, with the `weather` option: the next storm is dialled after the storm has moved, so the storm
    phase ends an action later, with nothing to tell; the map comes with the storm's lines all the same."""
    from engine.options import GameOptions

    service = GameService(MemoryGameStore())
    row = await service.create_game(guild_id=1, channel_id=56, factions=[A, H, F], seed=8,
                                    options=GameOptions(weather=True))
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    rng, storms = Rng.from_seed(5), 0
    while (await service.state_of(row.game_id)).turn < 4:
        before = {r.id for r in await service.store.pending_outbox(limit=10_000)}
        events = await _play_one(service, row.game_id, rng)
        queued = [r.message for r in await service.store.pending_outbox(limit=10_000) if r.id not in before]
        if any(e.type == "storm_moved" for e in events):
            storms += 1
            [told] = [m for m in queued if m.edit_of and m.edit_of.startswith("turn:") and "storm moves" in m.text]
            assert told.map_of is not None
    assert storms == 3
