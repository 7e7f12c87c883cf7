"""Decision deadlines: reminders at half time, the declared default at expiry, and what tick leaves alone."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from bot.app.decision_cards import timestamp
from bot.app.paces import Pace
from bot.app.ports import GameStatus, OutgoingMessage, mention
from bot.app.render import card_key
from bot.app.service import PAUSED_GRACE, GameService, NotAllowed, NotFound
from bot.store.memory import MemoryGameStore
from engine.actions import ChooseTraitor, ForceDefault, MoveCard, PlayTruthtrance, ProposeAlliance, parse_action
from engine.data import load_game_data
from engine.ids import Faction
from engine.model import GameState, PromptKind
from tests.conftest import store_running_game
from tests.helpers.clock_tables import (
    DAY,
    HOUR,
    START,
    USERS,
    FakeClock,
    board_of,
    drain,
    drain_messages,
    prompts,
    table,
)
from tests.helpers.positions.spice_blow import GREAT_FLAT, OLD_GAP, SH1, at_blow

table = table  # the fixture: pytest finds it here by name

A, H, F, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN, Faction.BENE_TLEILAXU
PICKS = {f: f"{f.value}/traitor_pick/0" for f in (A, F)}  # the settings' keys of the traitor picks


def discord_time(seconds: float) -> str:
    return f"<t:{int((START + timedelta(seconds=seconds)).timestamp())}:R>"


async def test_without_a_deadline_nothing_happens(table):
    """Nothing but a word to the moderators that the game waits (issue 26 item 5: tests/test_absence.py)."""
    service, game, clock = table
    assert await service.tick(clock.at(30 * 24 * HOUR)) == 0
    assert all(message.recipient.moderators for message in await drain_messages(service))
    assert await service.store.actions(game) == []
    assert {key: value for key, value in (await service.store.load_game(game)).settings.items()
            if key != "troubles_told"} == {"pace": "none"}


async def test_reminders_at_half_time_and_just_before_call_the_awaited_players_in_the_turns_thread_once(table):
    service, game, clock = table
    await service.set_deadline(game, None, 2 * HOUR)
    await drain(service)  # the table is told the new deadlines
    secret_options = [leader for p in (await prompts(service, game)).values() for leader in p.options]
    due = START + timedelta(seconds=2 * HOUR)

    assert await service.tick(clock.at(HOUR - 1)) == 0
    assert await drain(service) == []
    assert await service.tick(clock.at(HOUR)) == 0
    sent = await drain_messages(service)
    dms = {m.recipient.faction: m.text for m in sent if m.recipient.faction}
    assert dms == {faction.value: f"Reminder, your decision: your traitor. Due {timestamp(due)} "
                                  f"({timestamp(due, 'R')}); then the default your card names is applied for you."
                   for faction in (A, F)}
    [called] = [m for m in sent if m.recipient.channel]
    # both awaited players by name, in the turn's thread; a secret decision is not named
    assert called.recipient.thread == "turn:0"
    assert called.text == (f"Reminder: {mention('atreides')}, {mention('fremen')}, the table waits on you: a "
                           f"secret decision, due {timestamp(due, 'R')}.")
    assert not any(leader in m.text for m in sent for leader in secret_options)
    assert (await service.store.load_game(game)).settings["reminded"] == {PICKS[A]: "half", PICKS[F]: "half"}

    assert await service.tick(clock.at(HOUR + 600)) == 0
    assert await drain(service) == []  # once
    # the last call: a tenth of the deadline before it (12 minutes of 2 hours)
    assert await service.tick(clock.at(2 * HOUR - 12 * 60 - 1)) == 0
    assert await drain(service) == []
    assert await service.tick(clock.at(2 * HOUR - 12 * 60)) == 0
    sent = await drain_messages(service)
    assert sorted(m.recipient.faction or "thread" for m in sent) == ["atreides", "fremen", "thread"]
    assert all(m.text.startswith("Last call") for m in sent)
    assert (await service.store.load_game(game)).settings["reminded"] == {PICKS[A]: "last", PICKS[F]: "last"}
    assert await service.tick(clock.at(2 * HOUR - 1)) == 0
    assert await drain(service) == []  # once
    assert await service.store.actions(game) == []


async def test_a_long_deadlines_last_call_comes_an_hour_before_and_a_late_tick_sends_only_the_last_call(table):
    service, game, clock = table
    await service.set_deadline(game, PromptKind.TRAITOR_PICK, 2 * 24 * HOUR)
    await drain(service)  # the table is told the new deadlines
    assert await service.tick(clock.at(47 * HOUR - 1)) == 0  # past half time: the reminder
    assert all(text.startswith("Reminder") for _, text in await drain(service))
    assert await service.tick(clock.at(47 * HOUR)) == 0  # not a tenth (4.8 h) before: at most an hour
    assert all(text.startswith("Last call") for _, text in await drain(service))

    await service.set_deadline(game, PromptKind.TRAITOR_PICK, 100 * HOUR)
    await drain(service)
    fresh = (await service.store.load_game(game)).settings
    await service.store.set_settings(game, {**fresh, "reminded": {}})  # as if nothing had been sent
    assert await service.tick(clock.at(99 * HOUR + 1)) == 0  # a tick after both points: the last call alone
    texts = [text for _, text in await drain(service)]
    assert len(texts) == 3 and all(text.startswith("Last call") for text in texts)


async def test_a_public_decisions_reminder_names_it_and_only_its_decider(table):
    service, game, clock = table
    atreides, fremen = (await prompts(service, game))[A], (await prompts(service, game))[F]
    for faction, prompt in ((A, atreides), (F, fremen)):
        await service.submit(game, USERS[faction], ChooseTraitor(faction=faction, leader=prompt.options[0]),
                             prompt_id=prompt.id)
    state = await service.state_of(game)
    [placement] = state.prompts  # the game waits on the Fremen's starting tokens, a public decision
    assert (placement.faction, placement.kind, placement.secret) == (F, PromptKind.STARTING_PLACEMENT, False)
    await service.set_deadline(game, None, 2 * HOUR)
    await drain(service)
    opened = (await service.store.actions(game))[-1].created_at
    await service.tick(opened + timedelta(hours=1))
    [called] = [m for m in await drain_messages(service) if m.recipient.channel]
    due = timestamp(opened + timedelta(hours=2), "R")
    assert called.text == f"Reminder: {mention('fremen')}, the table waits on you: where your starting tokens go, " \
                          f"due {due}."
    assert called.recipient.thread == f"turn:{state.turn}"


async def test_a_game_reminded_before_the_stages_existed_gets_only_its_last_call(table):
    service, game, clock = table
    await service.set_deadline(game, None, 2 * HOUR)
    await drain(service)
    settings = (await service.store.load_game(game)).settings
    await service.store.set_settings(game, {**settings, "reminded": ["p1", "p2"]})  # the old record: half time sent
    assert await service.tick(clock.at(HOUR + 60)) == 0
    assert await drain(service) == []
    assert await service.tick(clock.at(2 * HOUR - 60)) == 0
    assert all(text.startswith("Last call") for _, text in await drain(service))


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
    assert forced[0].reason == "the deadline of the traitor pick passed"
    state = await service.state_of(game)
    for faction in (A, F):  # the default keeps the strongest enemy leader
        enemies = [leader for leader in open_prompts[faction].options if data.leader(leader).faction != faction]
        strongest = max(data.leader(leader).strength for leader in enemies)
        [kept] = state.faction(faction).traitors
        assert data.leader(kept).faction != faction and data.leader(kept).strength == strongest
    channel = [text for faction, text in await drain(service) if faction is None]
    assert any("Atreides did not answer before the deadline: the default applies to their traitor." in text
               for text in channel)
    assert not any("Admin deadline" in text for text in channel)  # no admin did it
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
    assert await service.set_deadline(game, "*", None) == {"bid": 600}
    assert await service.set_deadline(game, "bid", None) == {}
    await service.set_deadline(game, "bid", 600)
    assert await service.set_deadline(game, None, 60) == {"*": 60}  # every kind: the kinds' own deadlines go
    assert await service.set_deadline(game, None, None) == {}
    for kind, seconds in [("bid", -5), ("bid", 0), (None, 1.5), ("bid", True), ("no_such_kind", 60), ("", 60)]:
        with pytest.raises(NotAllowed):
            await service.set_deadline(game, kind, seconds)
            await drain(service)  # the table is told the new deadlines
    with pytest.raises(NotFound):
        await service.set_deadline("nope", None, 60)
        await drain(service)  # the table is told the new deadlines
    assert (await service.store.load_game(game)).settings == {"pace": "none", "deadlines": {}}


async def test_the_table_is_told_each_new_deadline_with_its_author_and_it_is_logged(table):
    service, game, _ = table
    await service.set_deadline(game, "bid", 2 * HOUR, by="alice", reason="slow auctions")
    await service.set_deadline(game, None, HOUR, by="alice")
    await service.set_deadline(game, "*", None, by="bob")
    told = [text for faction, text in await drain(service)  # each also edits the board and the cards
            if faction is None and not text.startswith("**Status · ")]
    assert told == ["Admin alice set the deadline of bid decisions to 2 h (slow auctions).",
                    "Admin alice set the deadline of every decision to 1 h.",
                    "Admin bob removed the deadline of other decisions."]
    assert (await service.public_log(game))[-3:] == [f"v0 {text}" for text in told]


# --- a grace: one player's decisions are due later -----------------------------------------------------------


async def test_a_grace_extends_one_players_deadline_and_not_anothers(table):
    service, game, clock = table
    await service.set_deadline(game, None, 2 * HOUR)
    await drain(service)
    atreides, fremen = (await prompts(service, game))[A], (await prompts(service, game))[F]
    clock.at(HOUR)

    [due] = await service.grace(game, A, 3 * HOUR, by="alice", reason="a night shift")
    assert due == START + timedelta(hours=5)
    sent = await drain(service)
    assert sent[:2] == [
        (None, f"Admin alice gave Atreides 3 h more for their open decision (a night shift); due {timestamp(due)}."),
        ("atreides", f"Admin alice gave you 3 h more (a night shift):\n- your traitor: now due {timestamp(due)} "
                     f"({timestamp(due, 'R')})."),
    ]
    assert sent[2][1].endswith(f"Waiting for: Atreides (a secret decision, until {timestamp(due)}); Fremen (a secret "
                               f"decision, until {timestamp(START + timedelta(hours=2))}).")  # the board at once
    assert (await service.public_log(game))[-1] == f"v0 {sent[0][1]}"  # logged like every correction
    assert (await service.store.load_game(game)).settings["grace"] == {PICKS[A]: 3 * HOUR}

    assert await service.tick(clock.at(2 * HOUR)) == 1  # the Fremen's deadline is where it was
    assert [parse_action(a.action_json).prompt_id for a in await service.store.actions(game)] == [fremen.id]
    assert (await service.state_of(game)).prompt(atreides.id) is not None
    assert await service.tick(clock.at(5 * HOUR - 1)) == 0
    assert await service.tick(clock.at(5 * HOUR)) == 1
    assert (await service.state_of(game)).prompt(atreides.id) is None
    await service.tick(clock.at(6 * HOUR))  # the next look at the game: the next decision's half time
    assert (await service.store.load_game(game)).settings["grace"] == {}  # a closed decision's grace is dropped


async def test_after_a_grace_the_last_call_comes_again_before_the_new_deadline(table):
    service, game, clock = table
    await service.set_deadline(game, PromptKind.TRAITOR_PICK, 2 * HOUR)
    await drain(service)
    await service.tick(clock.at(2 * HOUR - 60))  # both last calls sent
    await drain(service)
    await service.grace(game, F, HOUR, by="alice", reason="travel")
    await drain(service)
    assert await service.tick(clock.at(2 * HOUR)) == 1  # the Atreides' default
    await drain(service)
    assert await service.tick(clock.at(3 * HOUR - 18 * 60 - 1)) == 0  # the last call: a tenth of 3 h before
    assert await drain(service) == []
    assert await service.tick(clock.at(3 * HOUR - 18 * 60)) == 0
    sent = await drain(service)
    assert [faction for faction, _ in sent] == ["fremen", None]
    assert all(text.startswith("Last call") for _, text in sent) and mention("fremen") in sent[1][1]
    assert mention("atreides") not in sent[1][1]


async def test_a_grace_in_a_paused_game_adds_to_the_time_left_at_the_resume(table):
    service, game, clock = table
    await service.set_deadline(game, None, HOUR)
    await drain(service)
    await service.pause(game, True)
    clock.at(10 * HOUR)  # the clocks stood still: each pick has its hour left
    [due] = await service.grace(game, A, 2 * HOUR, by="alice", reason="back from holiday")
    assert due == START + timedelta(hours=13)  # were the game resumed now
    [dm] = [text for faction, text in await drain(service) if text.startswith("Admin alice gave you")]
    assert dm.endswith(f"now due {timestamp(due)} ({timestamp(due, 'R')}).\n{PAUSED_GRACE}")
    await service.pause(game, False)
    assert await service.tick(clock.at(11 * HOUR - 1)) == 0
    assert await service.tick(clock.at(11 * HOUR)) == 1  # the Fremen pick
    assert await service.tick(clock.at(13 * HOUR - 1)) == 0
    assert await service.tick(clock.at(13 * HOUR)) == 1


async def test_a_grace_is_refused_without_a_decision_with_a_deadline_or_for_nothing(table):
    service, game, _ = table
    with pytest.raises(NotAllowed, match="no open decision with a deadline"):
        await service.grace(game, A, HOUR, reason="no deadline set")
    await service.set_deadline(game, None, HOUR)
    with pytest.raises(NotAllowed, match="The Harkonnen have no open decision"):  # they keep every traitor
        await service.grace(game, H, HOUR, reason="nothing to extend")
    for seconds in (0, -60, 1.5, True):
        with pytest.raises(NotAllowed, match="positive number of seconds"):
            await service.grace(game, A, seconds, reason="nonsense")
    assert "grace" not in (await service.store.load_game(game)).settings


async def test_a_grace_before_the_start_is_refused():
    service = GameService(MemoryGameStore())
    row = await service.create_game(guild_id=1, channel_id=56, factions=[A, H, F], seed=7)
    with pytest.raises(NotAllowed, match="The game is open"):
        await service.grace(row.game_id, A, HOUR, reason="early")


async def test_the_status_board_gives_each_awaited_decision_its_deadline_even_after_a_restart(table):
    """Issue 14: the board says until when each awaited decision waits, counted from when it opened (with its
    grace): one answered an hour later leaves the other's deadline where it was, also in a new process."""
    service, game, clock = table
    await service.set_deadline(game, None, 2 * HOUR)
    await service.grace(game, F, 1800, by="mod", reason="travelling")
    await drain(service)
    clock.at(HOUR)
    restarted = GameService(service.store, clock=clock)  # knows nothing of when the decisions opened
    pick = (await prompts(restarted, game))[A]
    await restarted.submit(game, USERS[A], ChooseTraitor(faction=A, leader=pick.options[0]))
    [board] = [m.text for m in await drain_messages(restarted) if m.text.startswith("**Status · ")]
    due = START + timedelta(seconds=2 * HOUR + 1800)
    assert board.endswith(f"Waiting for: Fremen (a secret decision, until {timestamp(due)}).")


# --- issue 24: a clock starts when its decision opens, stands still in a pause, and the board follows it ---------


@pytest.fixture
async def daily():
    """A running 3-player game at the daily pace, started at START (the Atreides and Fremen traitor picks open)."""
    clock = FakeClock(START)
    service = GameService(MemoryGameStore(clock=clock), clock=clock)
    row = await service.create_game(guild_id=1, channel_id=57, factions=[A, H, F], seed=7, pace=Pace.DAILY)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    await drain(service)
    return service, row.game_id, clock


def cards_of(sent: list[OutgoingMessage]) -> dict[str, str]:
    """Each faction's decision card as these messages left it, each sent in place of the card it had."""
    cards = {m.recipient.faction: m for m in sent if m.prompt_id is not None}
    assert all(m.edit_of == card_key(m.prompt_id) and m.replace for m in cards.values())
    return {faction: m.text for faction, m in cards.items()}


def answer_by(due: datetime) -> str:
    return f"Answer by {timestamp(due)} ({timestamp(due, 'R')})."


async def test_a_decision_opened_inside_an_action_two_days_after_the_last_gets_its_whole_deadline(daily):
    """Truthtrance opens the answer in the card's own handler: its clock starts with that action, not the one
    before it (issue 24: the decision was due before it opened, and the next tick forced it at once)."""
    service, game, clock = daily
    clock.at(HOUR)
    await service.submit(game, 0, MoveCard(admin="mod", reason="a test", card="truthtrance_1", to=H), admin=True)
    clock.at(2 * DAY + HOUR)
    await service.submit(game, USERS[H], PlayTruthtrance(faction=H, target=A, question="Do you hold a traitor?"))
    window = (await service.store.load_game(game)).settings["deadlines"][PromptKind.TRUTHTRANCE.value]
    due = START + timedelta(seconds=2 * DAY + HOUR + window)
    assert f"Atreides (a Truthtrance answer, until {timestamp(due)})" in board_of(await drain_messages(service))

    await service.tick(clock.at(2 * DAY + HOUR + 1))  # the traitor picks are long overdue: forced
    asked = (await service.state_of(game)).prompt_of(A, PromptKind.TRUTHTRANCE)
    assert asked is not None  # the answer is not
    await service.tick(clock.at(2 * DAY + HOUR + window - 1))
    assert (await service.state_of(game)).prompt_of(A, PromptKind.TRUTHTRANCE) is not None
    await service.tick(clock.at(2 * DAY + HOUR + window))
    assert (await service.state_of(game)).prompt_of(A, PromptKind.TRUTHTRANCE) is None


async def test_a_pause_stops_every_clock_and_the_resume_gives_each_decision_the_time_it_had_left(daily):
    service, game, clock = daily
    pick = (await service.store.load_game(game)).settings["deadlines"][PromptKind.TRAITOR_PICK.value]
    clock.at(2 * HOUR)
    await service.pause(game, True, by="mod", reason="holidays")
    sent = await drain_messages(service)
    board = board_of(sent)
    assert "The game is paused." in board and "until <t:" not in board  # no due time runs
    cards = cards_of(sent)
    assert cards.keys() == {"atreides", "fremen"} and not any("Answer by" in card for card in cards.values())

    pause = 5 * DAY
    for moment in (pick, pause):  # long past every deadline: nothing is sent, nothing forced
        assert await service.tick(clock.at(2 * HOUR + moment)) == 0
    assert await drain(service) == []
    await service.pause(game, False, by="mod", reason="back")
    due = START + timedelta(seconds=pause + pick)
    sent = await drain_messages(service)
    assert all(answer_by(due) in card for card in cards_of(sent).values())
    board = board_of(sent)
    assert "paused" not in board
    assert board.endswith(f"Waiting for: Atreides (a secret decision, until {timestamp(due)}); Fremen (a secret "
                          f"decision, until {timestamp(due)}).")

    assert await service.tick(clock.at(2 * HOUR + pause + HOUR)) == 0  # the first hour: no default, no reminder
    assert await drain(service) == []
    half = pause + pick / 2  # where half time was, moved on by the pause
    assert await service.tick(clock.at(half - 1)) == 0
    assert await drain(service) == []
    assert await service.tick(clock.at(half)) == 0
    reminded = {faction: text for faction, text in await drain(service) if faction}
    assert reminded == {faction.value: f"Reminder, your decision: your traitor. Due {timestamp(due)} "
                                       f"({timestamp(due, 'R')}); then the default your card names is applied for "
                                       "you." for faction in (A, F)}
    last_call = pause + pick - min(pick / 10, HOUR)
    assert await service.tick(clock.at(last_call - 1)) == 0
    assert await drain(service) == []
    assert await service.tick(clock.at(last_call)) == 0
    assert all(text.startswith("Last call") for _, text in await drain(service))
    assert await service.tick(clock.at(pause + pick - 1)) == 0
    assert await service.tick(clock.at(pause + pick)) == 2


async def test_a_new_deadline_shows_on_the_status_board_and_the_cards_at_once(daily):
    service, game, clock = daily
    clock.at(HOUR)
    await service.set_deadline(game, PromptKind.TRAITOR_PICK, 2 * HOUR, by="mod")
    due = START + timedelta(hours=2)  # counted from the picks' opening
    sent = await drain_messages(service)
    assert board_of(sent).endswith(f"Waiting for: Atreides (a secret decision, until {timestamp(due)}); Fremen (a "
                                   f"secret decision, until {timestamp(due)}).")
    cards = cards_of(sent)
    assert cards.keys() == {"atreides", "fremen"} and all(answer_by(due) in card for card in cards.values())
    await service.set_deadline(game, PromptKind.TRAITOR_PICK, None, by="mod")
    await service.set_deadline(game, "*", None, by="mod")
    sent = await drain_messages(service)
    assert board_of(sent).endswith("Waiting for: Atreides (a secret decision); Fremen (a secret decision).")
    assert not any("Answer by" in card for card in cards_of(sent).values())


def at_version_zero(state: GameState) -> GameState:
    """A scenario's state as a game's opening: what the store knows of when its decisions opened is its start."""
    return state.model_copy(update={"seq": 0, "prompts": [p.model_copy(update={"opened_at": 0})
                                                           for p in state.prompts]})


async def test_a_decision_asked_again_keeps_its_due_time_its_grace_and_its_reminders():
    """A-8: an offer made at the Nexus asks the receiver's Nexus decision again under a new id (engine/flow.py
    ask_again); it is the same decision to its decider: the clock, the grace and the reminders already sent go on."""
    clock = FakeClock(START)
    service = GameService(MemoryGameStore(clock=clock), clock=clock)
    nexus, _ = at_blow([SH1, OLD_GAP], discard=[GREAT_FLAT], factions=(A, H, BT))
    game = await store_running_game(service.store, at_version_zero(nexus), {A: 101, H: 102, BT: 104}, channel_id=58)
    await service.set_deadline(game, PromptKind.NEXUS.value, 2 * HOUR)
    asked = (await service.state_of(game)).prompt_of(H, PromptKind.NEXUS)
    await service.tick(clock.at(HOUR))  # half time: each is reminded
    await service.grace(game, H, HOUR, reason="a long day")
    await drain(service)

    clock.at(1.5 * HOUR)
    await service.submit(game, 101, ProposeAlliance(faction=A, partner=H))
    again = (await service.state_of(game)).prompt_of(H, PromptKind.NEXUS)
    assert again.id != asked.id
    due = START + timedelta(hours=3)
    sent = await drain_messages(service)
    assert f"Harkonnen (alliances at the Nexus, until {timestamp(due)})" in board_of(sent)
    [card] = [m for m in sent if m.prompt_id == again.id]  # the new card, in the old one's place
    assert card.edit_of == card_key(asked.id) and answer_by(due) in card.text
    assert await service.tick(clock.at(1.5 * HOUR + 60)) == 0
    assert await drain(service) == []  # reminded once, not again
    assert (await service.due_times(game))[again.id] == due
    assert await service.tick(clock.at(3 * HOUR - 1)) >= 1  # the others' Nexus: theirs was due at 2 h
    assert (await service.state_of(game)).prompt_of(H, PromptKind.NEXUS) is not None  # maybe asked again again
    assert await service.tick(clock.at(3 * HOUR)) == 1
    assert (await service.state_of(game)).prompt_of(H, PromptKind.NEXUS) is None


async def test_a_games_reminders_and_grace_kept_by_prompt_id_still_count(table):
    """Games stored before the settings kept decisions by their opening kept them by prompt id."""
    service, game, clock = table
    await service.set_deadline(game, None, 2 * HOUR)
    settings = (await service.store.load_game(game)).settings
    atreides = (await prompts(service, game))[A]
    await service.store.set_settings(game, {**settings, "reminded": {atreides.id: "last"},
                                            "grace": {atreides.id: HOUR}})
    await drain(service)
    assert await service.tick(clock.at(2 * HOUR)) == 1  # the Fremen pick
    assert (await service.state_of(game)).prompt(atreides.id) is not None
    assert await service.tick(clock.at(3 * HOUR - 60)) == 0
    assert not any(text.startswith("Last call") and faction == "atreides" for faction, text in await drain(service))
    assert await service.tick(clock.at(3 * HOUR)) == 1


# --- issue 24 item 6: an index of due times; the tick reads only the games whose time has come -----------------


async def due_at(service: GameService, game: str) -> datetime | None:
    return (await service.store.load_game(game)).due_at


async def test_a_games_due_time_is_its_next_reminder_or_expiry_through_every_change(daily):
    """The store's due time of a game (what tick reads) follows each change of its state or settings: the next
    reminder not sent, or the expiry, of its open decisions; none while it is paused or over."""
    service, game, clock = daily
    pick = (await service.store.load_game(game)).settings["deadlines"][PromptKind.TRAITOR_PICK.value]
    assert await due_at(service, game) == START + timedelta(seconds=pick / 2)  # start: the picks' half time
    await service.set_deadline(game, PromptKind.TRAITOR_PICK, 2 * HOUR)
    assert await due_at(service, game) == START + timedelta(hours=1)
    await service.tick(clock.at(HOUR))  # the reminders at half time: next, the last calls 12 minutes before
    assert await due_at(service, game) == START + timedelta(hours=2, minutes=-12)
    await service.grace(game, A, 3 * HOUR, reason="a night shift")  # the Fremen's last call comes first still
    assert await due_at(service, game) == START + timedelta(hours=2, minutes=-12)
    await service.grace(game, F, 4 * HOUR, reason="a night shift")  # now the Atreides' (due at 5 h, 30 min before)
    assert await due_at(service, game) == START + timedelta(hours=4, minutes=30)

    clock.at(2 * HOUR)
    await service.pause(game, True, reason="holidays")
    assert await due_at(service, game) is None
    assert await service.store.games_due(START + timedelta(days=365)) == []
    clock.at(5 * HOUR)
    await service.pause(game, False)  # 3 hours later: every clock moved on by 3 hours
    assert await due_at(service, game) == START + timedelta(hours=7, minutes=30)

    for faction in (A, F):  # both answer: the next decision opens now, at the daily pace
        prompt = (await prompts(service, game))[faction]
        await service.submit(game, USERS[faction], ChooseTraitor(faction=faction, leader=prompt.options[0]),
                             prompt_id=prompt.id)
    [placement] = (await service.state_of(game)).prompts
    window = (await service.store.load_game(game)).settings["deadlines"][placement.kind.value]
    assert await due_at(service, game) == clock.now + timedelta(seconds=window / 2)
    clock.at(6 * HOUR)
    await service.undo(game, 1, force=True)  # the Fremen pick open again, with its own clock: opened at 0, paused
    # 3 hours, due at 2 + 4 (its grace) + 3 hours; its last call a tenth of its 6 hours before
    assert await due_at(service, game) == START + timedelta(hours=9, minutes=-36)
    await service.cancel(game, by="mod", reason="a test")
    assert await due_at(service, game) is None


class ReadCounter:
    """Counts the store's reads of whole games and of their actions, and refuses the listing of every game."""

    def __init__(self, monkeypatch, store):
        self.loaded: list[str] = []
        load, self.actions_read = store.load_game, 0

        async def load_game(game_id):
            self.loaded.append(game_id)
            return await load(game_id)

        async def actions(game_id):
            raise AssertionError("the tick read every action of a game")

        async def list_games(guild_id=None):
            raise AssertionError("the tick listed every game")

        monkeypatch.setattr(store, "load_game", load_game)
        monkeypatch.setattr(store, "actions", actions)
        monkeypatch.setattr(store, "list_games", list_games)


async def test_the_tick_reads_only_the_games_whose_time_has_come(monkeypatch):
    clock = FakeClock(START)
    service = GameService(MemoryGameStore(clock=clock), clock=clock)
    games = []
    for number in range(12):  # a third without deadlines, the others daily (due at the picks' half time) or fast
        pace = (Pace.NONE, Pace.DAILY, Pace.FAST)[number % 3]
        row = await service.create_game(guild_id=1, channel_id=100 + number, factions=[A, H, F], seed=7, pace=pace)
        for faction, user in USERS.items():
            await service.seat(row.game_id, faction, user)
        await service.start(row.game_id)
        games.append(row.game_id)
    fast = [game for number, game in enumerate(games) if number % 3 == 2]
    first_due = min([await due_at(service, game) for game in fast])
    reads = ReadCounter(monkeypatch, service.store)

    assert await service.tick(first_due - timedelta(seconds=1)) == 0
    assert reads.loaded == []  # nothing due: no game read at all
    await service.tick(clock.at((first_due - START).total_seconds()))
    assert set(reads.loaded) == set(fast)  # the fast games' reminders, and only theirs
    reads.loaded.clear()
    assert await service.tick(first_due + timedelta(seconds=1)) == 0
    assert reads.loaded == []  # reminded: each is due again only at its last call


async def test_a_default_the_rules_refuse_is_logged_told_to_the_moderator_once_and_not_tried_again(
        monkeypatch, caplog):
    """A forced default the engine refuses was tried again at every drain, forever, and nobody was told."""
    from engine.errors import RuleViolation, ViolationCode
    from engine.flow import DEFAULTS

    clock = FakeClock(START)
    service = GameService(MemoryGameStore(clock=clock), clock=clock)
    row = await service.create_game(guild_id=1, channel_id=60, factions=[A, H, F], seed=7, creator=999)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    game = row.game_id
    await service.set_deadline(game, None, 2 * HOUR)
    await drain(service)
    atreides = (await prompts(service, game))[A]
    secret = "the leader Duncan Idaho is the only traitor left"
    pick_default = DEFAULTS[PromptKind.TRAITOR_PICK]
    tried: list[str] = []

    def refused_for_the_atreides(state, prompt):
        tried.append(prompt.id)
        if prompt.faction == A:
            raise RuleViolation(ViolationCode.NOT_ALLOWED, "T-1", secret)
        return pick_default(state, prompt)

    monkeypatch.setitem(DEFAULTS, PromptKind.TRAITOR_PICK, refused_for_the_atreides)
    assert await service.tick(clock.at(2 * HOUR)) == 1  # the Fremen pick's default; the Atreides' is refused
    assert (await service.state_of(game)).prompt(atreides.id) is not None  # still open for its player
    [warning] = [record for record in caplog.records if record.levelname == "WARNING"]
    assert game in warning.getMessage() and PICKS[A] in warning.getMessage() and secret in warning.getMessage()
    sent = await drain(service)
    told = [text for faction, text in sent if faction is None and "refuse" in text]
    assert told == ["<@999>, moderators: the deadline of the Atreides' decision (a secret decision) passed, but the "
                    "rules refuse its default in this position (the bot's log has why). It stays open until the "
                    "Atreides answer it; a moderator may correct the game (/admin)."]
    assert not any(secret in text for _, text in sent)  # the reason may name a secret: the log alone has it

    attempts = tried.count(atreides.id)
    for hours in (3, 10, 48):
        await service.tick(clock.at(hours * HOUR))
    assert tried.count(atreides.id) == attempts  # not tried again
    assert not any("refuse" in text for _, text in await drain(service))  # nor told again
    await service.submit(game, USERS[A], ChooseTraitor(faction=A, leader=atreides.options[0]),
                         prompt_id=atreides.id)  # its player may still answer it
    assert (await service.state_of(game)).prompt(atreides.id) is None
