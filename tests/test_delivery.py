"""The outbox drain (bot/app/delivery.py; issue 24 items 4 and 5): lanes delivered concurrently and each in order,
a failing lane holding back only itself, later edits of one message merged into one change with each row marked
sent, and every failure logged. SimCord's end-to-end checks are in tests/test_discord_e2e_delivery.py."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.app.delivery import LANE_ROWS, merged_groups
from bot.app.ports import ChannelUnreachable, OutboxRow, OutgoingMessage, Recipient
from bot.app.service import GameService
from bot.store.memory import MemoryGameStore
from engine.ids import Faction
from tests.conftest import A, F, H
from tests.helpers.clock_tables import HOUR, START, USERS, FakeClock
from tests.helpers.gateways import RecordingGateway

TABLE = Recipient(channel=True)
THEN = datetime(2026, 1, 1, tzinfo=UTC)


def _row(number: int, *, sending: bool = False, **fields) -> OutboxRow:
    message = OutgoingMessage(recipient=TABLE, text=f"line {number}", **fields)
    return OutboxRow(id=number, game_id="g1", seq=0, message=message, sending_since=THEN if sending else None)


def _ids(groups: list[list[OutboxRow]]) -> list[list[int]]:
    return [[row.id for row in group] for group in groups]


def test_later_edits_of_a_message_go_with_its_first_edit_past_other_messages():
    rows = [_row(1, edit_of="turn:1"), _row(2), _row(3, edit_of="turn:1"), _row(4, edit_of="status", replace=True),
            _row(5, edit_of="status", replace=True), _row(6, edit_of="turn:1")]
    assert _ids(merged_groups(rows)) == [[1, 3, 6], [2], [4, 5]]


def test_nothing_merges_past_what_may_move_the_message_or_change_it_otherwise():
    moved = [_row(1, edit_of="turn:1"), _row(2, key="turn:1"), _row(3, edit_of="turn:1")]  # a new post, same key
    assert _ids(merged_groups(moved)) == [[1], [2], [3]]
    replaced = [_row(1, edit_of="lobby"), _row(2, edit_of="lobby", replace=True), _row(3, edit_of="lobby")]
    assert _ids(merged_groups(replaced)) == [[1], [2], [3]]
    card = [_row(1, edit_of="card:p1"), _row(2, edit_of="card:p1", prompt_id="p1", replace=True),
            _row(3, edit_of="card:p1")]  # a card asked again is its own change
    assert _ids(merged_groups(card)) == [[1], [2], [3]]
    pictured = [_row(1, edit_of="turn:1", attach_map=True), _row(2, edit_of="turn:1"),  # the map goes alone...
                _row(3, edit_of="turn:1", attach_map=True), _row(4, edit_of="turn:1")]
    assert _ids(merged_groups(pictured)) == [[1], [2, 3], [4]]  # ...or last, with the lines before it


def test_rows_being_sent_merge_only_with_each_other_as_before_the_crash():
    rows = [_row(1, edit_of="turn:1", sending=True), _row(2, edit_of="turn:1", sending=True),
            _row(3, edit_of="turn:1")]
    assert _ids(merged_groups(rows)) == [[1, 2], [3]]


async def _running_game(service: GameService, channel_id: int) -> str:
    row = await service.create_game(guild_id=1, channel_id=channel_id, factions=[Faction.ATREIDES,
                                                                               Faction.HARKONNEN], seed=3)
    await service.seat(row.game_id, Faction.ATREIDES, 101)
    await service.seat(row.game_id, Faction.HARKONNEN, 102)
    await service.start(row.game_id)
    return row.game_id


async def test_three_lines_for_one_post_are_one_change_and_each_row_is_marked_sent():
    service = GameService(MemoryGameStore())
    game = await _running_game(service, 55)
    gateway = RecordingGateway()
    await service.deliver(gateway)
    await service.store.queue(game, [OutgoingMessage(recipient=TABLE, text="**Phase.**", key="phase")])
    await service.deliver(gateway)
    calls: list[list[str]] = []
    record = gateway.deliver

    async def counted(game_row, message, then=()):
        calls.append([part.text for part in (message, *then)])
        return await record(game_row, message, then)

    gateway.deliver = counted
    lines = [OutgoingMessage(recipient=TABLE, text=f"- line {n}", edit_of="phase") for n in (1, 2, 3)]
    await service.store.queue(game, [lines[0], OutgoingMessage(recipient=TABLE, text="Between."), *lines[1:]])
    assert await service.deliver(gateway) == 4
    assert calls == [["- line 1", "- line 2", "- line 3"], ["Between."]]  # one change for the three lines
    assert gateway.channel[-4:] == ["- line 1", "- line 2", "- line 3", "Between."]
    assert await service.store.pending_outbox() == []  # every row marked sent


class _StuckChannel(RecordingGateway):
    """Game `stuck`'s channel takes no message until released (a channel Discord rate-limits, or that hangs)."""

    def __init__(self, stuck: str):
        super().__init__()
        self.stuck, self.release = stuck, asyncio.Event()

    async def deliver(self, game, message, then=()):
        if game.game_id == self.stuck and message.recipient.faction is None:
            await self.release.wait()
        return await super().deliver(game, message, then)


async def test_a_stuck_channel_delays_neither_its_games_dms_nor_another_game():
    service = GameService(MemoryGameStore())
    stuck = await _running_game(service, 55)
    await _running_game(service, 66)  # another game of the same shard: all its messages go out meanwhile
    gateway = _StuckChannel(stuck)
    drain = asyncio.create_task(service.deliver(gateway))
    for _ in range(200):  # the other lanes finish while the stuck one waits
        await asyncio.sleep(0)
    pending = await service.store.pending_outbox()
    assert pending and {(row.game_id, row.message.recipient.faction) for row in pending} == {(stuck, None)}
    assert gateway.dms["atreides"] and gateway.dms["harkonnen"]  # both games' DMs are out
    assert not drain.done()
    gateway.release.set()
    await drain
    assert await service.store.pending_outbox() == []


class _RefusingChannel(RecordingGateway):
    """The game's channel refuses the bot while `refusing` (a permission taken), as the Discord gateway says it;
    only the games in `games`, when given."""

    def __init__(self, games: set[str] | None = None):
        super().__init__()
        self.refusing, self.games = False, games

    async def deliver(self, game, message, then=()):
        if self.refusing and message.recipient.faction is None and game.game_id in (self.games or {game.game_id}):
            raise ChannelUnreachable("The bot lacks Send Messages in #dune.")
        return await super().deliver(game, message, then)


async def test_a_refusing_channel_stops_the_clocks_with_a_pause_over_it_counted_once():
    """Issue 24 item 5: the clocks stop while the channel refuses the bot (1 h to 3 h) and while the game is paused
    (2 h to 5 h): the decisions get the 4 hours they stood still, not 5; the moderators are told at each change."""
    clock = FakeClock(START)
    service = GameService(MemoryGameStore(clock=clock), clock=clock)
    row = await service.create_game(guild_id=1, channel_id=55, factions=[A, H, F], seed=7, pace="daily",
                                    creator=101)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    gateway = _RefusingChannel()
    await service.deliver(gateway)
    due = await service.due_times(row.game_id)

    clock.at(HOUR)
    gateway.refusing = True
    await service.store.queue(row.game_id, [OutgoingMessage(recipient=TABLE, text="For the table.")])
    await service.deliver(gateway)
    clock.at(2 * HOUR)
    await service.pause(row.game_id, True)
    clock.at(3 * HOUR)
    gateway.refusing = False
    await service.deliver(gateway)
    assert gateway.channel[-2:] == ["For the table.", "Admin moderator paused the game."]  # in order
    assert [text.split(" ")[1] for _, _, text in gateway.told_moderators] == ["cannot", "writes"]
    clock.at(5 * HOUR)
    await service.pause(row.game_id, False)
    assert await service.due_times(row.game_id) == {prompt: at + timedelta(hours=4) for prompt, at in due.items()}
    await service.deliver(gateway)
    assert len(gateway.told_moderators) == 2  # once each way


async def test_a_drain_leaves_a_slow_channel_to_itself_and_the_next_drain_delivers_the_others():
    """Issue 24 item 4, across drains: a channel still delivering when the drain's patience runs out goes on by
    itself; the next drain (another game's action) delivers that game at once, leaves the busy lane alone (nothing
    sent twice), and the delivery turn stays with this process until the slow lane ends."""
    service = GameService(MemoryGameStore())
    stuck = await _running_game(service, 55)
    gateway = _StuckChannel(stuck)
    first = await service.deliver(gateway, patience=0.01)
    assert first > 0  # the DMs went out; the channel's lane is still busy
    other = await _running_game(service, 66)  # meanwhile another game starts: its opening deal is queued
    assert await service.deliver(gateway, patience=0.01) > 0
    pending = await service.store.pending_outbox()
    assert {row.game_id for row in pending} == {stuck} and not any(row.game_id == other for row in pending)
    async with service.store.delivery_turn(service.shards) as turn:
        assert not turn.ids  # held for the busy lane: no other drain may hand its rows over
    gateway.release.set()
    await service.deliveries_settled()
    assert await service.store.pending_outbox() == []
    assert len(gateway.outbox_ids) == len(set(gateway.outbox_ids))  # each row delivered once


async def test_a_channel_with_many_rows_waiting_leaves_room_for_the_other_games(monkeypatch):
    """A channel refusing the bot for long gathers rows; a drain takes at most LANE_ROWS of a lane, so the rows of
    the games queued after them still go out (here a drain takes 120 rows in all)."""
    monkeypatch.setattr("bot.app.delivery.DRAIN_ROWS", LANE_ROWS + 20)
    service = GameService(MemoryGameStore())
    refusing = await _running_game(service, 55)
    gateway = _RefusingChannel({refusing})
    await service.deliver(gateway)
    gateway.refusing = True
    await service.store.queue(refusing, [OutgoingMessage(recipient=TABLE, text=f"line {n}") for n in range(150)])
    await service.deliver(gateway)
    other = await _running_game(service, 66)
    await service.deliver(gateway)
    assert {row.game_id for row in await service.store.pending_outbox(limit=1000)} == {refusing}
    assert other and gateway.dms["atreides"]
