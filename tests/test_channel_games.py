"""The games of one channel, without Discord, on the memory and SQLite stores: a channel takes a new game once its
game has ended (ids g<channel>, g<channel>-2, ...; the old games stay readable), and a moderator's cancellation
ends a lobby or a running game for good, told to the table with who, why and the whole game file."""

from __future__ import annotations

import json

import pytest

from bot.app.ports import GameStatus
from bot.app.service import GameService, NotAllowed
from bot.store.memory import MemoryGameStore
from bot.store.sqlite import SqliteGameStore
from engine.actions import ChooseTraitor, SetSpice
from engine.ids import Faction
from engine.model import PromptKind
from engine.record import GameRecord, verify
from tests.helpers.gateways import USERS, RecordingGateway, drain

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
CHANNEL = 55
ADMIN = 900


@pytest.fixture(params=["memory", "sqlite"])
async def service(request, tmp_path):
    store = MemoryGameStore() if request.param == "memory" else await SqliteGameStore.open(tmp_path / "mentat.db")
    yield GameService(store)
    await store.close()


async def running_game(service: GameService) -> str:
    """A game of three seated players in CHANNEL, started, the Atreides' traitor picked."""
    row = await service.create_game(guild_id=1, channel_id=CHANNEL, factions=[A, H, F], seed=7)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    state = await service.state_of(row.game_id)
    pick = next(p for p in state.prompts if p.faction == A and p.kind == PromptKind.TRAITOR_PICK)
    await service.submit(row.game_id, USERS[A], ChooseTraitor(faction=A, leader=pick.options[0]))
    return row.game_id


async def test_a_channel_takes_a_new_game_only_once_its_game_has_ended_and_the_old_one_stays_readable(service):
    game = await running_game(service)
    for status in (GameStatus.RUNNING, GameStatus.PAUSED):
        await service.store.set_status(game, status)
        with pytest.raises(NotAllowed, match=rf"already has a game \(g55, {status.value}\).*/admin cancel"):
            await service.create_game(guild_id=1, channel_id=CHANNEL, factions=[A, H])
        with pytest.raises(NotAllowed, match="already has a game"):
            await service.import_game(1, CHANNEL, await service.record(game))
    old_log = await service.public_log(game)
    await service.store.set_status(game, GameStatus.ENDED)  # as the last action of a game played to its end does

    second = await service.create_game(guild_id=1, channel_id=CHANNEL, factions=[A, H], seed=3)
    assert second.game_id == "g55-2" and (await service.store.game_in_channel(CHANNEL)).game_id == "g55-2"
    assert await service.public_log(game) == old_log and "v1 The Atreides chose a traitor." in old_log
    assert GameRecord.model_validate_json(await service.export(game)).actions  # the whole file of the old game
    with pytest.raises(NotAllowed, match=r"already has a game \(g55-2, open\)"):
        await service.create_game(guild_id=1, channel_id=CHANNEL, factions=[A, H])

    await service.cancel(second.game_id, by="mod", reason="wrong factions")
    imported = await service.import_game(1, CHANNEL, await service.record(game))  # an import takes the channel too
    assert imported.game_id == "g55-3"
    assert [g.game_id for g in await service.store.games_in_channel(CHANNEL)] == ["g55-3", "g55-2", "g55"]


async def test_a_cancelled_running_game_is_over_and_the_table_gets_who_why_the_secrets_and_the_file(service):
    game = await running_game(service)
    gateway = RecordingGateway()
    await drain(service, gateway)
    open_cards = {p.faction.value for p in (await service.state_of(game)).prompts}
    assert open_cards == {"fremen"}  # its traitor pick (the Harkonnen keep all theirs)

    await service.cancel(game, by="mod", reason="  two players moved away ")
    row = await service.store.load_game(game)
    assert row.status == GameStatus.ENDED
    assert row.settings["cancelled"] == {"by": "mod", "reason": "two players moved away"}
    queued = [r.message for r in await service.store.pending_outbox()]
    [told] = [m for m in queued if m.logged]
    assert told.text == ("Admin mod cancelled the game (two players moved away). The game is over: its whole file, "
                         "every secret included, is attached (/game export gives it too). /game new opens a new game "
                         "in this channel.")
    assert told.attach_game_file and [m for m in queued if m.attach_game_file] == [told]
    dms_before = {faction: len(texts) for faction, texts in gateway.dms.items()}
    await drain(service, gateway)

    assert told.text in gateway.channel
    assert any(text.startswith("The game is over. What was secret:") for text in gateway.channel)
    assert gateway.status.endswith("**The game is over. Cancelled by mod: two players moved away.**")
    for faction in open_cards:  # each open decision's card is closed
        assert gateway.dms[faction][dms_before[faction]:] == ["**Closed: the game was cancelled.**"]
    assert gateway.dms["atreides"][dms_before["atreides"]:] == []  # no card was open
    assert (await service.public_log(game))[-1] == f"v1 {told.text}"
    assert verify(GameRecord.model_validate_json(await service.export(game))) == await service.state_of(game)

    with pytest.raises(NotAllowed, match="ended; actions are not taken"):
        await service.submit(game, ADMIN, SetSpice(admin="mod", reason="late", faction=A, amount=1), admin=True)
    with pytest.raises(NotAllowed, match="was cancelled \\(Cancelled by mod: two players moved away.\\)"):
        await service.undo(game, 1, force=True)
    with pytest.raises(NotAllowed, match="already over"):
        await service.cancel(game, by="mod", reason="again")
    assert (await service.create_game(guild_id=1, channel_id=CHANNEL, factions=[A, H])).game_id == "g55-2"


async def test_a_cancelled_lobby_says_so_and_its_log_tells_no_deal(service):
    lobby = await service.create_game(guild_id=1, channel_id=CHANNEL, factions=[A, H], seed=1)
    await service.seat(lobby.game_id, A, USERS[A])
    gateway = RecordingGateway()
    await drain(service, gateway)

    with pytest.raises(NotAllowed, match="Say why"):
        await service.cancel(lobby.game_id, by="mod", reason=" ")
    assert (await service.store.load_game(lobby.game_id)).status == GameStatus.OPEN
    await service.cancel(lobby.game_id, by="mod", reason="a typo in the factions")
    queued = [r.message for r in await service.store.pending_outbox()]
    assert not any(m.attach_game_file for m in queued)  # nothing was played: no file to keep
    await drain(service, gateway)

    assert gateway.status.startswith("**A game of Dune was cancelled: Atreides, Harkonnen.**")  # the lobby, replaced
    assert gateway.status.endswith("- Atreides: <@101>\n- Harkonnen: free\nCancelled by mod: a typo in the factions.")
    told = ("Admin mod cancelled the game before it started (a typo in the factions). /game new opens a new game in "
            "this channel.")
    assert gateway.channel[-1] == told
    assert await service.public_log(lobby.game_id) == [f"v0 {told}"]  # the deal was never told: not in the log
    assert json.loads(await service.export(lobby.game_id))["actions"] == []
