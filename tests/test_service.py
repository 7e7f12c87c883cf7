"""The game service without Discord: seats, stale and double submissions, the outbox, DM trouble, undo."""

from __future__ import annotations

import json

import pytest

from bot.app.ports import GameStatus
from bot.app.service import GameService, NotAllowed, Refused
from bot.discord.text import prompts_text
from bot.store.memory import MemoryGameStore
from engine.actions import (
    ChooseTraitor,
    ForceDefault,
    MoveCard,
    PlaceTokens,
    SetLeader,
    SetSpice,
    SetStorm,
    parse_action,
)
from engine.checks.autoplay import play_prompt
from engine.game import apply, new_game, state_hash
from engine.ids import Faction
from engine.model import Phase, PromptKind
from engine.names import card_name, faction_name, leader_name, the_faction
from engine.options import GameOptions, GameSetup
from engine.record import record_game, replay
from engine.rng import Rng
from engine.secrecy.views import view
from tests.conftest import store_running_game
from tests.helpers.gateways import USERS, RecordingGateway, drain

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
ADMIN, STRANGER = 900, 999


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
    """[Engine] An answer to a decision already closed is refused and stores nothing."""
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
    with pytest.raises(NotAllowed, match="Only a moderator"):
        await service.submit(game, USERS[A], correction)
    await service.submit(game, ADMIN, correction, admin=True)
    stored = await service.store.actions(game)
    assert stored[-1].actor == ADMIN and '"set_spice"' in stored[-1].action_json
    gateway = RecordingGateway()
    await service.deliver(gateway)
    assert any("corrected the Atreides' spice (table error)" in text for text in gateway.channel)


async def test_the_outbox_sends_channel_posts_and_secret_dms(running):
    service, game = running
    gateway = RecordingGateway()
    await service.deliver(gateway)
    assert any("Starting Treachery cards dealt" in text for text in gateway.threads)  # the setup's detail
    assert "**Your decision: your traitor**" in "\n".join(gateway.dms["atreides"])
    assert not any("your traitor" in text for text in gateway.channel + gateway.threads)
    assert await service.deliver(gateway) == 0  # everything went out once


async def test_a_failed_delivery_is_retried_and_holds_back_only_its_own_lane(running, caplog):
    """Issue 24 item 4: the channel's first post fails; the channel's later posts wait for it (they may change it),
    every player's DMs go out meanwhile; the failure is logged with its game, place and cause (item 5)."""
    service, game = running
    gateway = RecordingGateway(broken=1)
    first = await service.deliver(gateway)
    pending = await service.store.pending_outbox()
    assert pending and pending[0].attempts == 1 and first > 0 and set(gateway.dms) == {"atreides", "harkonnen",
                                                                                       "fremen"}
    assert all(row.message.recipient.faction is None for row in pending)  # the channel's messages only
    assert [record.getMessage() for record in caplog.records if record.levelname == "WARNING"] == [
        f"Delivery of a message of {game} to the channel 55 failed (ConnectionError: Discord is down): retried by "
        "the next drain"]
    assert await service.deliver(gateway) == len(pending)
    retried = gateway.outbox_ids[-len(pending):]
    assert retried[0] == pending[0].id and sorted(retried) == [row.id for row in pending]  # the failed one first


async def _give_a_card(service, game, to: Faction) -> None:
    """A correction that sends `to` a DM (the card's name)."""
    card = (await service.state_of(game)).treachery_deck[0]
    await service.submit(game, ADMIN, MoveCard(admin="mod", reason="test", card=card, to=to), admin=True)


async def test_closed_dms_tell_the_table_once_and_lose_nothing(running):
    """Bot issue item 5: a DM that fails is marked undeliverable (not retried in a loop), the table is told once
    while the player's DMs stay closed, and the decision stays open for /me prompts."""
    service, game = running
    gateway = RecordingGateway(closed={"fremen"})
    await drain(service, gateway)
    notices = [text for text in gateway.channel if "cannot DM the fremen player" in text]
    assert notices == ["The bot cannot DM the fremen player (<@103>): open your DMs from this server's members; "
                       "until then read your messages and decisions with /me prompts."]
    assert "fremen" not in gateway.dms and await service.store.pending_outbox() == []
    mine = view(await service.state_of(game), F)
    assert [p.kind for p in mine.own_prompts] == [PromptKind.TRAITOR_PICK]
    assert f"- {mine.own_prompts[0].id}: traitor pick (secret)" in prompts_text(mine)  # what /me prompts shows
    await _give_a_card(service, game, F)  # another DM fails: no second notice
    await drain(service, gateway)
    assert sum("cannot DM the fremen" in text for text in gateway.channel) == 1
    gateway.closed.clear()  # the player opens DMs: the next DM arrives and clears the mark
    await _give_a_card(service, game, F)
    await drain(service, gateway)
    assert len(gateway.dms["fremen"]) == 1 and "unreachable" not in (await service.store.load_game(game)).settings
    gateway.closed.add("fremen")  # closed again: the table is told again
    await _give_a_card(service, game, F)
    await drain(service, gateway)
    assert sum("cannot DM the fremen" in text for text in gateway.channel) == 2


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


async def test_the_export_replays(running, tmp_path):
    from engine.__main__ import main as engine_cli

    service, game = running
    prompt = await _traitor_prompt(service, game, A)
    await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=prompt.options[0]))
    path = tmp_path / "game.json"
    path.write_text(await service.record(game))
    assert engine_cli(["replay", str(path)]) == 0


async def test_a_paused_game_takes_no_action_until_resumed(running):
    service, game = running
    prompt = await _traitor_prompt(service, game, A)
    await service.pause(game, True, by="mod", reason="lunch")
    with pytest.raises(NotAllowed, match="paused"):
        await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=prompt.options[0]))
    with pytest.raises(NotAllowed):
        await service.pause(game, True)
    await service.pause(game, False, by="mod", reason="back")
    await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=prompt.options[0]))
    gateway = RecordingGateway()
    await service.deliver(gateway)
    assert "Admin mod paused the game (lunch)." in gateway.channel
    assert "Admin mod resumed the game (back)." in gateway.channel


# --- the public log (/game log) ----------------------------------------------------------------------


async def test_the_public_log_shows_what_the_table_saw_and_no_secret(running):
    service, game = running
    prompt = await _traitor_prompt(service, game, A)
    chosen = prompt.options[0]
    accepted = await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=chosen))
    assert any(leader_name(chosen) in e.message for e in accepted.events if not e.public)  # a secret was made
    await service.submit(game, ADMIN, SetSpice(admin="mod", reason="table error", faction=A, amount=3), admin=True)
    await service.pause(game, True, by="mod", reason="lunch")
    log = await service.public_log(game, 50)
    assert log[0].startswith("v0 ") and "Starting Treachery cards dealt" in log[0]  # the opening deal, as told
    assert log[1:] == ["v1 The Atreides chose a traitor.", "v2 Admin mod corrected the Atreides' spice (table error).",
                       "v2 Admin mod paused the game (lunch)."]
    assert not any(leader_name(chosen) in entry for entry in log)
    gateway = RecordingGateway()
    await drain(service, gateway)
    shown = gateway.channel + gateway.threads  # the channel's story and the turn's thread
    assert "Admin mod corrected the Atreides' spice (table error)." in shown
    assert "Admin mod paused the game (lunch)." in shown
    # the window's post says whom it asked and nothing more until all have answered (the status board is the count)
    assert ("Traitor picks: asked of 2 (Atreides, Fremen); the status board shows who is still to answer."
            in shown)
    assert "The Atreides chose a traitor." not in shown and "Traitor picks: all answered." not in shown
    assert "Waiting for: Fremen (a secret decision)." in gateway.status
    assert not any(leader_name(chosen) in text for text in shown + [gateway.status])
    assert await service.public_log(game, 2) == log[-2:]
    with pytest.raises(NotAllowed, match="1 to 500 entries, not 0"):
        await service.public_log(game, 0)


async def test_the_log_keeps_an_undo_and_drops_what_it_took_back(running):
    service, game = running
    await service.submit(game, ADMIN, SetStorm(admin="mod", reason="misread", sector=9), admin=True)
    await service.undo(game, 1, by="mod", reason="wrong sector")
    assert (await service.public_log(game))[-1:] == [
        "v0 Admin mod undid the last 1 action(s) (wrong sector); the game is back at version 0."]
    assert not any("set the storm" in entry for entry in await service.public_log(game))


# --- import (/game import) ---------------------------------------------------------------------------


async def _one_traitor_picked(service, game) -> str:
    prompt = await _traitor_prompt(service, game, A)
    await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=prompt.options[0]))
    return await service.record(game)


async def test_an_exported_game_is_imported_with_its_seats_and_resumes_where_it_stood(running):
    service, game = running
    exported = await _one_traitor_picked(service, game)
    row = await service.import_game(1, 77, exported, by="mod", by_user=ADMIN)
    assert (row.game_id, row.status, row.seq, row.seats) == ("g77", GameStatus.OPEN, 1, {
        f.value: user for f, user in USERS.items()})
    assert state_hash(await service.state_of("g77")) == state_hash(await service.state_of(game))
    assert [a.action_json for a in await service.store.actions("g77")] == [
        a.action_json for a in await service.store.actions(game)]
    imported_log = await service.public_log("g77")  # its history is told, started or not
    assert imported_log[:2] == (await service.public_log(game))[:2]
    assert imported_log[1] == "v1 The Atreides chose a traitor."
    gateway = RecordingGateway()
    await drain(service, gateway)  # the original game's messages and the import notice
    gateway.channel.clear(), gateway.dms.clear()
    assert await service.start("g77", probe=gateway) == []
    await drain(service, gateway)
    assert gateway.channel[0] == "The game resumes at version 1 (turn 0, setup)."
    # The decision still open is called again; the Atreides chose already and the Harkonnen keep all theirs.
    assert list(gateway.dms) == ["fremen"] and "your traitor" in gateway.dms["fremen"][0]
    fremen = await _traitor_prompt(service, "g77", F)
    assert (await service.submit("g77", USERS[F], ChooseTraitor(faction=F, leader=fremen.options[0]))).seq == 2
    log = await service.public_log("g77")
    assert log[-1].startswith("v2 The Fremen chose a traitor. ")
    assert any("Admin mod imported a game: 1 actions" in entry for entry in log)


async def test_an_engine_demo_file_has_no_seats_and_waits_for_them(tmp_path):
    from engine.__main__ import main as engine_cli

    path = tmp_path / "demo.json"
    assert engine_cli(["demo", "--seed", "4", "--export", str(path)]) == 0
    service = GameService(MemoryGameStore())
    row = await service.import_game(1, 78, path.read_text(), trust_unsigned=True)  # the engine signs nothing
    assert row.seats == {} and row.status == GameStatus.OPEN and row.seq > 0
    with pytest.raises(NotAllowed, match="These seats are empty"):
        await service.start(row.game_id)
    for number, faction in enumerate(Faction):
        await service.seat(row.game_id, faction, 500 + number)
    await service.start(row.game_id)
    assert (await service.store.load_game(row.game_id)).status == GameStatus.RUNNING


async def test_an_import_is_refused_in_a_busy_channel_or_when_the_file_fails_verification(running):
    service, game = running
    exported = await _one_traitor_picked(service, game)
    with pytest.raises(NotAllowed, match="already has a game"):
        await service.import_game(1, 55, exported)
    record = json.loads(exported)
    forged = {**record, "state_hash": "0" * 64}
    with pytest.raises(NotAllowed, match="fails verification.*altered"):
        await service.import_game(1, 80, json.dumps(forged), trust_unsigned=True)
    other = next(o for o in (await _traitor_prompt(service, game, F)).options)
    tampered = {**record, "actions": [{**record["actions"][0], "faction": "fremen", "leader": other}]}
    with pytest.raises(NotAllowed, match="fails verification"):
        await service.import_game(1, 80, json.dumps(tampered), trust_unsigned=True)
    with pytest.raises(NotAllowed, match="not a Mentat game file"):
        await service.import_game(1, 80, "this is no game")
    with pytest.raises(NotAllowed, match="not a Mentat game file.*format"):
        await service.import_game(1, 80, json.dumps({**record, "format": "chess/1"}))
    with pytest.raises(NotAllowed, match="seats emperor"):
        await service.import_game(1, 80, json.dumps({**record, "seats": {"emperor": 5}}), trust_unsigned=True)
    assert await service.store.game_in_channel(80) is None  # nothing was created


async def test_a_file_changed_after_its_export_is_refused_for_its_signature_even_when_it_replays(running):
    """Issue 15, signed game files: swapped seats, or the game re-made with another traitor pick and its state
    hash recomputed, replay fine; only the signature tells they are not what this bot exported."""
    service, game = running
    options = (await _traitor_prompt(service, game, A)).options
    record = json.loads(await _one_traitor_picked(service, game))
    swapped = {**record, "seats": {"atreides": record["seats"]["fremen"], "fremen": record["seats"]["atreides"]}}
    setup = GameSetup.model_validate(record["setup"])
    picked = record["actions"][0]
    other = next(o for o in options if o != picked["leader"])
    remade_actions = [{**picked, "leader": other}]
    state, _ = replay(setup, [parse_action(a) for a in remade_actions])
    remade = {**record, "actions": remade_actions, "state_hash": state_hash(state)}
    for changed in (swapped, remade):
        with pytest.raises(NotAllowed, match="not signed by this bot, or was changed"):
            await service.import_game(1, 81, json.dumps(changed))
    assert await service.store.game_in_channel(81) is None
    row = await service.import_game(1, 81, json.dumps(remade), trust_unsigned=True, by="mod")
    assert row.seq == 1  # a moderator who trusts it may, and the table is told
    notices = [n.text for n in await service.store.log_notes(row.game_id)]
    assert any("NOT signed by this bot (trusted by the moderator)" in text for text in notices)
    other_bot = GameService(MemoryGameStore(), file_key=b"another bot's key")
    with pytest.raises(NotAllowed, match="not signed by this bot"):
        await other_bot.import_game(1, 82, json.dumps(record))


async def test_an_ended_game_is_imported_ended():
    state, last = _one_action_from_the_end()
    ended, _ = apply(state, last)
    record = record_game(state.setup, [*_actions_to(state), last], ended)
    service = GameService(MemoryGameStore())
    row = await service.import_game(1, 81, record.model_dump_json(), trust_unsigned=True)  # the engine signs nothing
    assert row.status == GameStatus.ENDED
    with pytest.raises(NotAllowed, match="already started"):
        await service.start(row.game_id)


# --- the DM probe at the start ----------------------------------------------------------------------


async def test_start_probes_every_seat_and_names_who_must_open_dms_and_still_starts():
    """Bot issue item 5: the game starts; the player the bot cannot DM is named once, and reads the decisions
    with /me prompts; the DMs that fail after are not announced again."""
    service = GameService(MemoryGameStore())
    row = await service.create_game(guild_id=1, channel_id=55, factions=[A, H, F], seed=7)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    gateway = RecordingGateway(closed={"fremen"})
    assert await service.start(row.game_id, probe=gateway) == ["fremen"]
    assert gateway.probed == ["atreides", "harkonnen", "fremen"]
    assert (await service.store.load_game(row.game_id)).status == GameStatus.RUNNING
    await drain(service, gateway)
    told = [text for text in gateway.channel if "fremen player" in text]
    assert told == ["The bot cannot DM the fremen player (<@103>): they must open DMs from server members; until "
                    "then they use /me prompts."]
    assert "fremen" not in gateway.dms and "your traitor" in "\n".join(gateway.dms["atreides"])
    mine = view(await service.state_of(row.game_id), F)
    assert any(p.kind == PromptKind.TRAITOR_PICK for p in mine.own_prompts)  # waiting in /me prompts


# --- the end of the game ------------------------------------------------------------------------------

BG, BT = Faction.BENE_GESSERIT, Faction.BENE_TLEILAXU
END_SEATS = {A: 1, H: 2, BG: 3, BT: 4}


def _play_to_the_end(seed: int = 1):
    """A short BT game played by automatic players to its last action: (every state, every action)."""
    state, _ = new_game(GameSetup(factions=tuple(END_SEATS), options=GameOptions(turns=2), seed=seed))
    rng = Rng.from_seed(seed)
    states, actions = [state], []
    while state.phase != Phase.ENDED:
        action, (state, _) = play_prompt(state, rng.choice(state.prompts), rng)
        states.append(state)
        actions.append(action)
    return states, actions


def _one_action_from_the_end():
    states, actions = _play_to_the_end()
    return states[-2], actions[-1]


def _actions_to(state):
    states, actions = _play_to_the_end()
    return actions[:states.index(state)]


async def test_the_end_announces_the_winners_then_reveals_every_secret_and_offers_the_log():
    """Bot issue item 13: the winners and why, then what was still secret: each faction's traitor cards, the
    BT's marks (BT-20), the traps never sprung with their cards (BT-30), the prediction (A-25), the BT's hidden
    spice (BT-27), the spice and hand behind each shield; then the log is offered."""
    state, last = _one_action_from_the_end()
    state = state.model_copy(deep=True)
    assert "feyd_rautha" not in state.faction(H).leaders_in_tanks
    state.bt.marked = ["feyd_rautha"]  # a BT traitor still secret at the end
    service = GameService(MemoryGameStore())
    game = await store_running_game(service.store, state, END_SEATS, channel_id=61)
    accepted = await service.submit(game, END_SEATS[last.faction], last)
    ending = next(e.message for e in accepted.events if e.type == "game_over")
    gateway = RecordingGateway()
    await drain(service, gateway)
    end = await service.state_of(game)
    assert end.traps and end.bg_prediction is not None and not any(t.triggered_by for t in end.traps.values())

    def kept(faction):
        return ", ".join(leader_name(t) for t in end.faction(faction).traitors) or "none"

    def hand(faction):
        return ", ".join(card_name(c) for c in end.faction(faction).hand) or "no cards"

    assert ending in gateway.channel[-2] and gateway.channel[-1] == "\n".join([
        "The game is over. What was secret:",
        f"- Traitor cards kept: Atreides: {kept(A)}; Harkonnen: {kept(H)}; Bene Gesserit: {kept(BG)}; "
        f"Bene Tleilaxu: {kept(BT)}.",
        "- Bene Tleilaxu traitor marks: Feyd-Rautha.",
        *[f"- The trap on {where} (never sprung) was {card_name(trap.card)}."
          for where, trap in sorted(end.traps.items())],
        f"- Bene Tleilaxu hidden spice: {end.faction(BT).spice}.",
        f"- The Bene Gesserit predicted {the_faction(end.bg_prediction.faction)} on turn {end.bg_prediction.turn}.",
        *[f"- Behind the {faction_name(f)} shield: {end.faction(f).spice} spice; hand: {hand(f)}." for f in END_SEATS],
        "The whole game, every secret included, can be downloaded with /game export (and checked with "
        "`python -m engine replay`); /game log shows the public log.",
    ])
    assert (await service.store.load_game(game)).status == GameStatus.ENDED


async def test_nothing_is_revealed_before_the_end():
    """The table's feed, action by action through the service, shows none of the end's reveal until the game is
    over, and then the reveal follows the winners at once."""
    states, actions = _play_to_the_end()
    service = GameService(MemoryGameStore())
    row = await service.create_game(1, 62, list(END_SEATS), options=GameOptions(turns=2), seed=1)
    for faction, user in END_SEATS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    gateway = RecordingGateway()
    for action in actions[:-1]:
        await service.submit(row.game_id, END_SEATS[action.faction], action)
        await drain(service, gateway)
    end = states[-1]
    secret = ["What was secret", "Traitor cards kept", "traitor marks", "hidden spice", "Behind the",
              f"predicted {the_faction(end.bg_prediction.faction)} on turn",
              *[f"trap on {where}" for where in end.traps]]
    shown = gateway.channel + gateway.threads + [gateway.status]
    assert not [text for text in shown if any(words in text for words in secret)]
    before = len(gateway.channel)
    await service.submit(row.game_id, END_SEATS[actions[-1].faction], actions[-1])
    await drain(service, gateway)
    news = gateway.channel[before:]  # the last moves' lines, then the end, then the reveal
    assert "The game ends on turn" in news[-2] and news[-1].startswith("The game is over. What was secret:")


# --- every admin correction is announced with its author and reason, and logged -----------------------

WHO = {"admin": "mod", "reason": "table error"}


async def _first_of_atreides_hand(service, game):
    return (await service.state_of(game)).faction(A).hand[0]


CORRECTIONS = {
    "set spice": lambda s, g: s.submit(g, ADMIN, SetSpice(**WHO, faction=A, amount=3), admin=True),
    "move tokens": lambda s, g: s.submit(g, ADMIN, PlaceTokens(**WHO, faction=A, tokens=2, source="reserves",
                                                               destination="Carthag#10"), admin=True),
    "remove tokens": lambda s, g: s.submit(g, ADMIN, PlaceTokens(**WHO, faction=A, tokens=2, source="reserves",
                                                                 destination="tanks"), admin=True),
    "give card": lambda s, g: _give(s, g),
    "take card": lambda s, g: _take(s, g),
    "kill leader": lambda s, g: s.submit(g, ADMIN, SetLeader(**WHO, leader="feyd_rautha", alive=False), admin=True),
    "revive leader": lambda s, g: _kill_and_revive(s, g),
    "set storm": lambda s, g: s.submit(g, ADMIN, SetStorm(**WHO, sector=9), admin=True),
    "force default": lambda s, g: _force(s, g),
    "reassign seat": lambda s, g: s.seat(g, A, 555, admin=True, by="mod", reason="table error"),
    "undo": lambda s, g: _storm_then_undo(s, g),
    "pause": lambda s, g: s.pause(g, True, by="mod", reason="table error"),
    "resume": lambda s, g: _pause_and_resume(s, g),
}


async def _give(service, game):
    card = (await service.state_of(game)).treachery_deck[0]
    await service.submit(game, ADMIN, MoveCard(**WHO, card=card, to=H), admin=True)


async def _take(service, game):
    card = (await service.state_of(game)).faction(A).hand[0]
    await service.submit(game, ADMIN, MoveCard(**WHO, card=card), admin=True)


async def _kill_and_revive(service, game):
    await service.submit(game, ADMIN, SetLeader(admin="mod", reason="first", leader="feyd_rautha", alive=False),
                         admin=True)
    await service.submit(game, ADMIN, SetLeader(**WHO, leader="feyd_rautha", alive=True), admin=True)


async def _force(service, game):
    prompt = await _traitor_prompt(service, game, F)
    await service.submit(game, ADMIN, ForceDefault(**WHO, prompt_id=prompt.id), admin=True)


async def _storm_then_undo(service, game):
    await service.submit(game, ADMIN, SetStorm(admin="mod", reason="first", sector=4), admin=True)
    await service.undo(game, 1, by="mod", reason="table error")


async def _pause_and_resume(service, game):
    await service.pause(game, True, by="mod", reason="first")
    await service.pause(game, False, by="mod", reason="table error")


@pytest.mark.parametrize("correction", list(CORRECTIONS))
async def test_every_admin_correction_is_announced_with_its_author_and_reason_and_logged(running, correction):
    """Bot issue item 7: each correction tells the table who made it and why, and is an entry of the log."""
    service, game = running
    await drain(service, RecordingGateway())
    await CORRECTIONS[correction](service, game)
    gateway = RecordingGateway()
    await drain(service, gateway)
    told = [text.removeprefix("- ") for text in gateway.channel if "Admin mod" in text and "(table error)" in text]
    assert len(told) == 1, gateway.channel  # in the channel once (the turn's thread has the detail)
    assert any(told[0] in entry for entry in await service.public_log(game))
    stored = await service.store.actions(game)
    if correction not in ("reassign seat", "undo", "pause", "resume"):  # the engine's corrections are actions
        assert stored[-1].actor == ADMIN and '"admin":"mod"' in stored[-1].action_json.replace(" ", "")
