"""The Discord gateway with fake channels and users: long messages split, closed DMs become DeliveryFailed."""

from __future__ import annotations

from types import SimpleNamespace

import discord
import pytest

from bot.app.ports import DeliveryFailed, GameRecordRow, GameStatus, OutgoingMessage, Recipient
from bot.app.service import GameService
from bot.discord.gateway import DiscordGateway
from bot.discord.text import split_message
from bot.store.memory import MemoryGameStore
from engine.ids import Faction


def closed_dms() -> discord.Forbidden:
    return discord.Forbidden(SimpleNamespace(status=403, reason="Forbidden"),
                             {"code": 50007, "message": "Cannot send messages to this user"})


class FakeMessage:
    """A posted message: where it is, and what the gateway may do with it next (pin it, open a thread)."""

    def __init__(self, channel, number: int, content: str = ""):
        self.channel, self.id, self.content = channel, number, content
        self.pinned, self.thread = False, None
        self.components: list = []

    async def edit(self, *, content=None, **_):
        self.content = self.content if content is None else content
        return self

    async def pin(self):
        self.pinned = True

    async def create_thread(self, *, name, auto_archive_duration):
        self.thread = name


class FakeTarget:
    def __init__(self, refuse: bool = False):
        self.sent: list[tuple[str, object]] = []
        self.refuse = refuse
        self.id = id(self)

    async def send(self, content, *, view=None, **_):
        if self.refuse:
            raise closed_dms()
        self.sent.append((content, view))
        return FakeMessage(self, len(self.sent), content)


class FakeClient:
    def __init__(self, channels=None, users=None):
        self.channels, self.users = channels or {}, users or {}

    def get_channel(self, channel_id):
        return self.channels.get(channel_id)

    async def create_dm(self, user):  # the user's DM channel (Discord: POST /users/@me/channels)
        if user.id not in self.users:
            raise discord.NotFound(SimpleNamespace(status=404, reason="Not Found"), {"code": 10013, "message": "?"})
        return self.users[user.id]

    async def fetch_channel(self, channel_id):  # a thread this fake does not keep: the gateway posts in the channel
        raise discord.NotFound(SimpleNamespace(status=404, reason="Not Found"), {"code": 10003, "message": "?"})


def game(state_json: str = "{}") -> GameRecordRow:
    return GameRecordRow(game_id="g55", guild_id=1, channel_id=55, status=GameStatus.RUNNING, setup_json="{}",
                         state_json=state_json, seq=0, seats={"atreides": 101, "harkonnen": 102})


def test_split_message_keeps_lines_whole_and_respects_the_limit():
    text = "\n".join(f"line {n:04d} " + "x" * 90 for n in range(100))  # about 10,000 characters
    chunks = split_message(text)
    assert all(len(chunk) <= 2000 for chunk in chunks) and len(chunks) == 6
    assert "\n".join(chunks) == text
    assert split_message("y" * 4500) == ["y" * 2000, "y" * 2000, "y" * 500]
    assert split_message("short") == ["short"]


async def test_a_long_channel_post_is_split():
    channel = FakeTarget()
    gateway = DiscordGateway(FakeClient(channels={55: channel}))
    text = "\n".join("z" * 150 for _ in range(30))
    await gateway.deliver(game(), OutgoingMessage(recipient=Recipient(channel=True), text=text))
    assert len(channel.sent) == 3 and "\n".join(c for c, _ in channel.sent) == text


async def test_a_dm_names_the_game_and_closed_dms_fail_delivery():
    open_user, closed_user = FakeTarget(), FakeTarget(refuse=True)
    gateway = DiscordGateway(FakeClient(users={101: open_user, 102: closed_user}))
    await gateway.deliver(game(), OutgoingMessage(recipient=Recipient(faction="atreides"), text="Your cards"))
    assert open_user.sent[0][0] == "**Dune in <#55>**\nYour cards"
    with pytest.raises(DeliveryFailed):
        await gateway.deliver(game(), OutgoingMessage(recipient=Recipient(faction="harkonnen"), text="secret"))
    with pytest.raises(DeliveryFailed):  # nobody seated
        await gateway.deliver(game(), OutgoingMessage(recipient=Recipient(faction="fremen"), text="secret"))


async def test_the_service_falls_back_when_dms_are_closed_and_prompts_get_buttons():
    service = GameService(MemoryGameStore())
    row = await service.create_game(1, 55, [Faction.ATREIDES, Faction.HARKONNEN], seed=3)
    await service.seat(row.game_id, Faction.ATREIDES, 101)
    await service.seat(row.game_id, Faction.HARKONNEN, 102)
    await service.start(row.game_id)
    channel, atreides, harkonnen = FakeTarget(), FakeTarget(), FakeTarget(refuse=True)
    gateway = DiscordGateway(FakeClient(channels={55: channel}, users={101: atreides, 102: harkonnen}))
    await service.deliver(gateway)
    await service.deliver(gateway)  # the notice queued by the first drain
    assert any("cannot DM the harkonnen player" in text for text, _ in channel.sent)
    prompts = [view for text, view in atreides.sent if "your traitor" in text]
    assert prompts and prompts[0] is not None and prompts[0].is_persistent()
    assert all(len(item.custom_id) <= 100 and item.custom_id.startswith("mentat:g55:") for item in prompts[0].children)


class FakeCard:
    """A card already in a player's DMs: what the gateway changed in it."""

    def __init__(self, channel, number: int, content: str):
        self.channel, self.id, self.content = channel, number, content
        self.edits: list[dict] = []

    async def edit(self, **changes):
        self.edits.append(changes)


class FakeDm(FakeTarget):
    def __init__(self, card_number: int):
        super().__init__()
        self.card = FakeCard(self, card_number, "**Dune in <#55>**\nthe old card")

    async def fetch_message(self, number):
        assert number == self.card.id
        return self.card


async def test_a_decision_asked_again_replaces_its_old_card_and_a_card_too_long_for_one_message_comes_anew():
    from engine.game import new_game
    from engine.options import GameSetup

    state, _ = new_game(GameSetup(factions=[Faction.ATREIDES, Faction.HARKONNEN], seed=1))
    prompt = next(p for p in state.prompts if p.faction == Faction.ATREIDES)
    dm = FakeDm(card_number=7)
    client = FakeClient(channels={dm.id: dm}, users={101: dm})
    gateway = DiscordGateway(client)
    row = game(state.model_dump_json())
    card = OutgoingMessage(recipient=Recipient(faction="atreides"), text="the new card", prompt_id=prompt.id,
                           edit_of="card:p0", edit_ref=f"{dm.id}:7", replace=True)

    assert await gateway.deliver(row, card) == f"{dm.id}:7"  # the same message, now the new card
    [edit] = dm.card.edits
    assert edit["content"] == "**Dune in <#55>**\nthe new card" and edit["view"] is not None and dm.sent == []

    long = card.model_copy(update={"text": "x" * 2500})
    ref = await gateway.deliver(row, long)
    assert dm.card.edits[-1]["view"] is None  # the old card keeps its text and loses its controls
    assert [text[:5] for text, _ in dm.sent] == ["**Dun", "xxxxx", "xxxxx"]  # sent anew, in three messages
    assert sum(len(text) for text, _ in dm.sent) == len("**Dune in <#55>**") + 2500
    assert ref != f"{dm.id}:7" and dm.sent[-1][1] is not None  # the new card's controls on its last message
