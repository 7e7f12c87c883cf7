"""The game service without Discord: seats, stale and double submissions, the outbox, DM trouble, undo."""

from __future__ import annotations

import pytest

from bot.app.ports import DeliveryFailed, GameStatus
from bot.app.service import GameService, NotAllowed, Refused
from bot.store.memory import MemoryGameStore
from engine.actions import ChooseTraitor, ForceDefault, SetSpice
from engine.ids import Faction
from engine.model import PromptKind

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
USERS = {A: 101, H: 102, F: 103}
ADMIN, STRANGER = 900, 999


class RecordingGateway:
    """Delivers into lists; DMs to the users in `closed` fail as closed DMs do."""

    def __init__(self, closed: set[str] = frozenset(), broken: int = 0):
        self.channel: list[str] = []
        self.dms: dict[str, list[str]] = {}
        self.closed = set(closed)
        self.broken = broken  # the next N deliveries fail with a transient error

    async def deliver(self, game, message):
        if self.broken:
            self.broken -= 1
            raise ConnectionError("Discord is down")
        faction = message.recipient.faction
        if faction is None:
            self.channel.append(message.text)
        elif faction in self.closed:
            raise DeliveryFailed(faction)
        else:
            self.dms.setdefault(faction, []).append(message.text)


@pytest.fixture
async def running():
    service = GameService(MemoryGameStore())
    row = await service.create_game(guild_id=1, channel_id=55, factions=[A, H, F], seed=7)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    return service, row.game_id


async def _traitor_prompt(service, game_id, faction):
    state = await service.state_of(game_id)
    return next(p for p in state.prompts if p.faction == faction and p.kind == PromptKind.TRAITOR_PICK)


async def test_only_the_seated_player_acts_for_a_faction(running):
    service, game = running
    prompt = await _traitor_prompt(service, game, A)
    with pytest.raises(NotAllowed, match="not seated as atreides"):
        await service.submit(game, STRANGER, ChooseTraitor(faction=A, leader=prompt.options[0]))
    with pytest.raises(NotAllowed):
        await service.submit(game, USERS[H], ChooseTraitor(faction=A, leader=prompt.options[0]))
    accepted = await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=prompt.options[0]))
    assert accepted.seq == 1


async def test_a_double_click_is_applied_once(running):
    service, game = running
    prompt = await _traitor_prompt(service, game, A)
    action = ChooseTraitor(faction=A, leader=prompt.options[0])
    await service.submit(game, USERS[A], action, prompt_id=prompt.id)
    with pytest.raises(NotAllowed, match="already closed"):
        await service.submit(game, USERS[A], action, prompt_id=prompt.id)
    assert len(await service.store.actions(game)) == 1


async def test_a_rule_refusal_names_the_rule_and_stores_nothing(running):
    service, game = running
    with pytest.raises(Refused) as refusal:
        await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader="nobody"))
    assert "Setup: traitors" in str(refusal.value)
    assert await service.store.actions(game) == []


async def test_admin_corrections_need_an_admin_and_are_logged(running):
    service, game = running
    correction = SetSpice(admin="mod", reason="table error", faction=A, amount=3)
    with pytest.raises(NotAllowed, match="Only an admin"):
        await service.submit(game, USERS[A], correction)
    await service.submit(game, ADMIN, correction, admin=True)
    stored = await service.store.actions(game)
    assert stored[-1].actor == ADMIN and '"set_spice"' in stored[-1].action_json
    gateway = RecordingGateway()
    await service.deliver(gateway)
    assert any("corrected Atreides's spice (table error)" in text for text in gateway.channel)


async def test_the_outbox_sends_channel_posts_and_secret_dms(running):
    service, game = running
    gateway = RecordingGateway()
    await service.deliver(gateway)
    assert any("Starting Treachery cards dealt" in text for text in gateway.channel)
    assert "Your decision is needed: traitor pick" in "\n".join(gateway.dms["atreides"])
    assert not any("traitor pick (decision" in text for text in gateway.channel)
    assert await service.deliver(gateway) == 0  # everything went out once


async def test_a_failed_delivery_is_retried(running):
    service, game = running
    gateway = RecordingGateway(broken=1)
    first = await service.deliver(gateway)
    pending = await service.store.pending_outbox()
    assert pending and pending[0].attempts == 1
    assert len(pending) == 1 and first > 0  # only the failed message waits for the retry
    assert await service.deliver(gateway) == 1


async def test_closed_dms_tell_the_table_and_lose_nothing(running):
    service, game = running
    gateway = RecordingGateway(closed={"harkonnen"})
    await service.deliver(gateway)
    await service.deliver(gateway)
    assert any("cannot DM the harkonnen player" in text for text in gateway.channel)
    assert "harkonnen" not in gateway.dms


async def test_undo_is_refused_past_a_secret_unless_forced(running):
    service, game = running
    prompt = await _traitor_prompt(service, game, A)
    await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=prompt.options[0]))
    with pytest.raises(NotAllowed, match="already seen"):
        await service.undo(game, 1)
    assert await service.undo(game, 1, force=True) == 0
    state = await service.state_of(game)
    assert any(p.kind == PromptKind.TRAITOR_PICK and p.faction == A for p in state.prompts)


async def test_a_forced_default_stands_in_for_an_absent_player(running):
    service, game = running
    prompt = await _traitor_prompt(service, game, F)
    await service.submit(game, ADMIN, ForceDefault(admin="mod", reason="deadline", prompt_id=prompt.id), admin=True)
    state = await service.state_of(game)
    assert len(state.faction(F).traitors) == 1


async def test_seats_and_start():
    service = GameService(MemoryGameStore())
    row = await service.create_game(guild_id=1, channel_id=56, factions=[A, H], seed=1)
    with pytest.raises(NotAllowed, match="already has a game"):
        await service.create_game(guild_id=1, channel_id=56, factions=[A, H])
    await service.seat(row.game_id, A, 1)
    with pytest.raises(NotAllowed, match="empty: harkonnen"):
        await service.start(row.game_id)
    with pytest.raises(NotAllowed, match="taken"):
        await service.seat(row.game_id, A, 2)
    await service.seat(row.game_id, H, 2)
    await service.start(row.game_id)
    assert (await service.store.load_game(row.game_id)).status == GameStatus.RUNNING
    with pytest.raises(NotAllowed, match="BT-2"):
        await service.create_game(guild_id=1, channel_id=57, factions=[A, Faction.BENE_TLEILAXU])


async def test_the_end_of_the_game_reveals_every_secret():
    """Item 13 of the bot issue: traitors, hands, spice, the prediction, marks and traps are shown at the end."""
    from engine.autoplay import choose
    from engine.errors import RuleViolation as Violation
    from engine.flow import DEFAULTS
    from engine.rng import Rng

    service = GameService(MemoryGameStore())
    row = await service.create_game(guild_id=1, channel_id=60, factions=[A, H, Faction.BENE_GESSERIT], seed=3,
                                    options=None)
    users = {A: 1, H: 2, Faction.BENE_GESSERIT: 3}
    for faction, user in users.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    rng = Rng.from_seed(3)
    state = await service.state_of(row.game_id)
    while state.prompts and state.phase.value != "ended":
        prompt = rng.choice(state.prompts)
        try:
            await service.submit(row.game_id, users[prompt.faction], choose(state, prompt, rng))
        except Refused as refusal:
            assert isinstance(refusal.violation, Violation)
            await service.submit(row.game_id, users[prompt.faction], DEFAULTS[prompt.kind](state, prompt))
        state = await service.state_of(row.game_id)
    gateway = RecordingGateway()
    while await service.deliver(gateway):
        pass
    reveal = next(text for text in gateway.channel if text.startswith("The game is over. What was secret"))
    assert "The Bene Gesserit predicted" in reveal and "traitors:" in reveal
    assert (await service.store.load_game(row.game_id)).status == GameStatus.ENDED


async def test_the_export_replays(running, tmp_path):
    from engine.__main__ import main as engine_cli

    service, game = running
    prompt = await _traitor_prompt(service, game, A)
    await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=prompt.options[0]))
    path = tmp_path / "game.json"
    path.write_text(await service.export(game))
    assert engine_cli(["replay", str(path)]) == 0


async def test_a_paused_game_takes_no_action_until_resumed(running):
    service, game = running
    prompt = await _traitor_prompt(service, game, A)
    await service.pause(game, True)
    with pytest.raises(NotAllowed, match="paused"):
        await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=prompt.options[0]))
    with pytest.raises(NotAllowed):
        await service.pause(game, True)
    await service.pause(game, False)
    await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=prompt.options[0]))
    gateway = RecordingGateway()
    await service.deliver(gateway)
    assert "An admin paused the game." in gateway.channel and "An admin resumed the game." in gateway.channel
