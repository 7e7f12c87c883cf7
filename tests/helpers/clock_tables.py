"""A table of the service on a fake clock (deadlines, absences, votes): the clock, the seated table fixture, and
drains of the outbox."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.app.ports import OutgoingMessage
from bot.app.service import GameService
from bot.store.memory import MemoryGameStore
from tests.conftest import A, F, H

USERS = {A: 101, H: 102, F: 103}

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

HOUR = 3600

DAY = 24 * HOUR


class FakeClock:
    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def at(self, seconds: float) -> datetime:
        """Move to `seconds` after the start and return the new time."""
        self.now = START + timedelta(seconds=seconds)
        return self.now


@pytest.fixture
async def table():
    """A running 3-player game started at START; its open decisions are the Atreides and Fremen traitor picks
    (the Harkonnen keep all their traitors), both opened at seq 0."""
    clock = FakeClock(START)
    service = GameService(MemoryGameStore(clock=clock), clock=clock)
    row = await service.create_game(guild_id=1, channel_id=55, factions=[A, H, F], seed=7)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    await drain(service)
    return service, row.game_id, clock


async def drain(service: GameService) -> list[tuple[str | None, str]]:
    """The pending messages as (faction or None for the channel, text), marked sent."""
    return [(message.recipient.faction, message.text) for message in await drain_messages(service)]


async def drain_messages(service: GameService) -> list[OutgoingMessage]:
    """The pending messages, marked sent."""
    rows = await service.store.pending_outbox()
    for row in rows:
        await service.store.mark_outbox(row.id, "sent")
    return [row.message for row in rows]


async def prompts(service, game):
    return {p.faction: p for p in (await service.state_of(game)).prompts}


def board_of(sent: list[OutgoingMessage]) -> str:
    """The status board as the last of these messages left it."""
    return [m.text for m in sent if m.text.startswith("**Status · ")][-1]
