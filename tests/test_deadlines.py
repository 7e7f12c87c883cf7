"""Decision deadlines: reminders at half time, the declared default at expiry, and what tick leaves alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.app.ports import GameStatus
from bot.app.service import GameService, NotAllowed, NotFound
from bot.store.memory import MemoryGameStore
from engine.actions import ChooseTraitor, ForceDefault, parse_action
from engine.data import load_game_data
from engine.ids import Faction
from engine.model import PromptKind

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
USERS = {A: 101, H: 102, F: 103}
START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
HOUR = 3600


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
    rows = await service.store.pending_outbox()
    for row in rows:
        await service.store.mark_outbox(row.id, "sent")
    return [(row.message.recipient.faction, row.message.text) for row in rows]


def discord_time(seconds: float) -> str:
    return f"<t:{int((START + timedelta(seconds=seconds)).timestamp())}:R>"


async def prompts(service, game):
    return {p.faction: p for p in (await service.state_of(game)).prompts}


async def test_without_a_deadline_nothing_happens(table):
    service, game, clock = table
    assert await service.tick(clock.at(30 * 24 * HOUR)) == 0
    assert await drain(service) == []
    assert await service.store.actions(game) == []
    assert (await service.store.load_game(game)).settings == {}


async def test_a_reminder_at_half_time_goes_to_the_awaited_faction_and_the_channel_once(table):
    service, game, clock = table
    await service.set_deadline(game, None, 2 * HOUR)
    await drain(service)  # the table is told the new deadlines
    secret_options = [leader for p in (await prompts(service, game)).values() for leader in p.options]

    assert await service.tick(clock.at(HOUR - 1)) == 0
    assert await drain(service) == []
    assert await service.tick(clock.at(HOUR)) == 0
    sent = await drain(service)
    due = discord_time(2 * HOUR)
    assert sorted(faction for faction, _ in sent if faction) == ["atreides", "fremen"]
    assert all(due in text for _, text in sent)
    assert sorted(text for faction, text in sent if faction is None) == [
        f"Reminder: waiting for Atreides (traitor pick) until {due}",
        f"Reminder: waiting for Fremen (traitor pick) until {due}",
    ]
    assert not any(leader in text for _, text in sent for leader in secret_options)
    assert sorted((await service.store.load_game(game)).settings["reminded"]) == ["p1", "p2"]

    assert await service.tick(clock.at(HOUR + 600)) == 0
    assert await drain(service) == []  # once
    assert await service.store.actions(game) == []


async def test_at_expiry_the_default_is_applied_logged_by_actor_0_and_announced(table):
    service, game, clock = table
    await service.set_deadline(game, None, 2 * HOUR)
    await drain(service)  # the table is told the new deadlines
    open_prompts = await prompts(service, game)
    data = load_game_data()

    assert await service.tick(clock.at(2 * HOUR)) == 2
    stored = await service.store.actions(game)
    assert [action.actor for action in stored] == [0, 0]
    forced = [parse_action(action.action_json) for action in stored]
    assert all(isinstance(action, ForceDefault) and action.admin == "deadline" for action in forced)
    assert {action.prompt_id for action in forced} == {open_prompts[A].id, open_prompts[F].id}
    assert forced[0].reason == "the traitor pick deadline passed"
    state = await service.state_of(game)
    for faction in (A, F):  # the default keeps the strongest enemy leader
        enemies = [leader for leader in open_prompts[faction].options if data.leader(leader).faction != faction]
        strongest = max(data.leader(leader).strength for leader in enemies)
        [kept] = state.faction(faction).traitors
        assert data.leader(kept).faction != faction and data.leader(kept).strength == strongest
    channel = [text for faction, text in await drain(service) if faction is None]
    assert any("applied the default for Atreides's traitor pick (the traitor pick deadline passed)" in text
               for text in channel)
    assert not any(p.kind == PromptKind.TRAITOR_PICK for p in state.prompts)
    assert await service.tick(clock.at(3 * HOUR)) == 0  # nothing left to force


async def test_a_kinds_own_deadline_overrides_the_default_one_and_counts_from_the_prompts_opening(table):
    service, game, clock = table
    await service.set_deadline(game, None, 60)
    await drain(service)  # the table is told the new deadlines
    assert await service.set_deadline(game, PromptKind.TRAITOR_PICK, 2 * HOUR) == {"*": 60, "traitor_pick": 2 * HOUR}

    assert await service.tick(clock.at(600)) == 0
    assert await service.store.actions(game) == []
    assert await service.tick(clock.at(2 * HOUR)) == 2
    later = [p for p in (await service.state_of(game)).prompts if p.opened_at > 0]
    assert later  # the game moved on to new decisions, opened now: the "*" minute counts from here
    assert await service.tick(clock.at(2 * HOUR + 59)) == 0
    assert await service.tick(clock.at(2 * HOUR + 60)) >= 1


async def test_a_decision_answered_before_its_deadline_is_not_forced(table):
    service, game, clock = table
    await service.set_deadline(game, PromptKind.TRAITOR_PICK, 2 * HOUR)
    await drain(service)  # the table is told the new deadlines
    atreides, fremen = (await prompts(service, game))[A], (await prompts(service, game))[F]
    clock.at(600)
    await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=atreides.options[0]), prompt_id=atreides.id)

    assert await service.tick(clock.at(2 * HOUR)) == 1
    stored = await service.store.actions(game)
    assert [action.actor for action in stored] == [USERS[A], 0]
    assert parse_action(stored[1].action_json).prompt_id == fremen.id
    assert (await service.state_of(game)).faction(A).traitors == [atreides.options[0]]


async def test_a_player_answering_while_tick_runs_is_not_forced_and_does_not_crash_it(table, monkeypatch):
    service, game, clock = table
    await service.set_deadline(game, None, HOUR)
    await drain(service)  # the table is told the new deadlines
    atreides = (await prompts(service, game))[A]
    remind = service._remind

    async def remind_then_answer(game_id, now):
        expired = await remind(game_id, now)
        await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=atreides.options[0]),
                             prompt_id=atreides.id)
        return expired

    monkeypatch.setattr(service, "_remind", remind_then_answer)
    assert await service.tick(clock.at(HOUR)) == 1  # only the Fremen pick
    assert [action.actor for action in await service.store.actions(game)] == [USERS[A], 0]


@pytest.mark.parametrize("status", [GameStatus.PAUSED, GameStatus.ENDED])
async def test_a_paused_or_ended_game_is_not_touched(table, status):
    service, game, clock = table
    await service.set_deadline(game, None, HOUR)
    await drain(service)  # the table is told the new deadlines
    await service.store.set_status(game, status)
    settings = (await service.store.load_game(game)).settings

    assert await service.tick(clock.at(HOUR / 2)) == 0
    assert await service.tick(clock.at(10 * HOUR)) == 0
    assert await drain(service) == []
    assert await service.store.actions(game) == []
    assert (await service.store.load_game(game)).settings == settings


async def test_tick_uses_the_services_clock(table):
    service, game, clock = table
    await service.set_deadline(game, None, HOUR)
    await drain(service)  # the table is told the new deadlines
    clock.at(HOUR)
    assert await service.tick() == 2


async def test_set_deadline_sets_clears_and_refuses_nonsense(table):
    service, game, _ = table
    assert await service.set_deadline(game, "bid", 600) == {"bid": 600}
    assert await service.set_deadline(game, "*", 60) == {"bid": 600, "*": 60}
    assert await service.set_deadline(game, None, None) == {"bid": 600}
    assert await service.set_deadline(game, "bid", None) == {}
    for kind, seconds in [("bid", -5), ("bid", 0), (None, 1.5), ("bid", True), ("no_such_kind", 60), ("", 60)]:
        with pytest.raises(NotAllowed):
            await service.set_deadline(game, kind, seconds)
            await drain(service)  # the table is told the new deadlines
    with pytest.raises(NotFound):
        await service.set_deadline("nope", None, 60)
        await drain(service)  # the table is told the new deadlines
    assert (await service.store.load_game(game)).settings == {"deadlines": {}}


async def test_the_table_is_told_the_new_deadlines(table):
    service, game, _ = table
    await service.set_deadline(game, "bid", 2 * HOUR)
    await service.set_deadline(game, None, HOUR)
    told = [text for _, text in await drain(service)]
    assert told[-1] == "Deadlines for decisions are now: every decision: 1 h, bid: 2 h."
