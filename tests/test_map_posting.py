"""The table's map in the bot: the service flags the channel post after the storm, the movement round and the
battles; the Discord gateway attaches the picture to it; /game map posts it on request."""

from __future__ import annotations

import pytest

from bot.app.map_picture import calls_for_map
from bot.app.service import GameService, Refused
from bot.store.memory import MemoryGameStore
from bot.store.sqlite import SqliteGameStore
from engine.actions import ForceDefault
from engine.autoplay import choose
from engine.events import Event
from engine.ids import Faction
from engine.rng import Rng

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


def test_the_map_moments_are_after_the_storm_the_movement_and_the_battles():
    def public(type_, **data):
        return Event(type=type_, message="", data=data)

    assert calls_for_map([public("phase_started", phase="spice_blow")])  # the storm is over
    assert calls_for_map([public("movement_over")]) and calls_for_map([public("battles_over")])
    assert not calls_for_map([public("phase_started", phase="bidding"), public("storm_moved")])
    assert not calls_for_map([Event(type="movement_over", message="", audience=(A,))])  # never a private one


async def test_the_channel_post_after_the_storm_the_movement_and_the_battles_carries_the_map(running):
    service, game = running
    rng = Rng.from_seed(3)
    flagged_moments: list[str] = []
    while (await service.state_of(game)).turn < 2:
        before = {row.id for row in await service.store.pending_outbox(limit=10_000)}
        events = await _play_one(service, game, rng)
        queued = [row.message for row in await service.store.pending_outbox(limit=10_000) if row.id not in before]
        flagged = [m for m in queued if m.attach_map]
        if calls_for_map(events):
            assert len(flagged) == 1 and flagged[0].recipient.channel, "one channel post carries the map"
            assert flagged[0] == next(m for m in queued if m.recipient.channel)
            flagged_moments += [e.type if e.type != "phase_started" else e.data["phase"] for e in events
                                if calls_for_map([e])]
        else:
            assert flagged == [], f"a map after {[e.type for e in events]}"
    assert flagged_moments == ["spice_blow", "movement_over", "battles_over"]

