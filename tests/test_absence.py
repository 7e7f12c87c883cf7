"""Absence (issue 26 item 2: /me away, /me back) and moderators hearing of trouble (item 5), at the service with a
fake clock: what the table and the moderators read, and what happens to the absent player's deadlines."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from bot.app import absence
from bot.app.decision_cards import timestamp
from bot.app.paces import Pace
from bot.app.ports import OutgoingMessage
from bot.app.service import GameService, NotAllowed
from bot.store.memory import MemoryGameStore
from engine.errors import RuleViolation, ViolationCode
from engine.flow import DEFAULTS
from engine.model import PromptKind
from engine.names import card_name, leader_name
from tests.conftest import A, F, H
from tests.helpers.clock_tables import DAY, HOUR, START, USERS, FakeClock, board_of, drain_messages, prompts
from tests.helpers.gateways import RecordingGateway

CREATOR = 999
PICK = DAY  # the daily pace's deadline of a traitor pick (a plan)


async def _game(mode: str = absence.WAIT, pace: Pace = Pace.DAILY, seed: int = 7, channel: int = 70):
    clock = FakeClock(START)
    service = GameService(MemoryGameStore(clock=clock), clock=clock)
    row = await service.create_game(guild_id=1, channel_id=channel, factions=[A, H, F], seed=seed, pace=pace,
                                    creator=CREATOR, absence_mode=mode)
    for faction, user in USERS.items():
        await service.seat(row.game_id, faction, user)
    await service.start(row.game_id)
    await drain_messages(service)
    return service, row.game_id, clock


@pytest.fixture
async def waiting():
    """A running daily game whose absences wait; the Atreides and Fremen traitor picks open at START."""
    return await _game()


@pytest.fixture
async def defaulting():
    return await _game(absence.DEFAULTS)


def table(sent: list[OutgoingMessage]) -> list[str]:
    """The channel's posts (not the board, not the cards)."""
    return [m.text for m in sent if m.recipient.channel and not m.text.startswith("**Status · ")]


def moderators(sent: list[OutgoingMessage]) -> list[str]:
    return [m.text for m in sent if m.recipient.moderators]


def at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


async def test_away_is_announced_with_its_end_as_a_timestamp_and_back_too(waiting):
    service, game, clock = waiting
    clock.at(2 * HOUR)
    ends = await service.away(game, USERS[A], "3d")
    assert ends == at(2 * HOUR + 3 * DAY)
    sent = await drain_messages(service)
    assert table(sent) == [f"The Atreides player (<@101>) is away until {timestamp(ends)} ({timestamp(ends, 'R')}). "
                           "Their deadlines wait for them until they are back (/me back ends it earlier)."]
    board = board_of(sent)
    # their clock stands still: no due time, the board says they are away and until when
    assert f"Atreides (a secret decision, away until {timestamp(ends)});" in board
    assert f"Fremen (a secret decision, until {timestamp(at(PICK))})" in board
    assert "The Atreides player (<@101>) is away until" in (await service.public_log(game))[-1]

    clock.at(DAY / 2)
    await service.back(game, USERS[A])
    sent = await drain_messages(service)
    assert table(sent) == ["The Atreides player (<@101>) is back. Their deadlines run again."]
    due = at(PICK + DAY / 2 - 2 * HOUR)  # moved on by the 10 hours away
    assert f"Atreides (a secret decision, until {timestamp(due)})" in board_of(sent)
    assert moderators(sent) == []


async def test_wait_a_decision_opening_for_an_absent_player_shows_no_due_time_on_its_card(waiting):
    service, game, clock = waiting
    await service.away(game, USERS[A], "3d")
    row = await service.store.load_game(game)
    picks = await prompts(service, game)
    assert service._deadline_of(row)(picks[A]) is None  # it waits for them: no "Answer by" on a new card
    assert service._deadline_of(row)(picks[F]) == START + timedelta(seconds=PICK)


async def test_wait_the_absent_players_deadline_stands_still_and_moves_by_the_time_away_the_others_pass(waiting):
    service, game, clock = waiting
    clock.at(2 * HOUR)
    await service.away(game, USERS[A], "3d")
    assert await service.tick(clock.at(PICK)) == 1  # the Fremen pick, not the Atreides'
    open_now = await prompts(service, game)
    assert A in open_now and F not in open_now
    assert await service.tick(clock.at(2 * DAY)) == 0  # no reminder, no default while away
    assert not [m for m in await drain_messages(service) if m.recipient.faction == A.value and "eminder" in m.text]

    assert await service.tick(clock.at(2 * HOUR + 3 * DAY)) == 0  # the absence ends by itself
    sent = await drain_messages(service)
    assert "The Atreides player (<@101>) is back (the absence they set has ended). Their deadlines run again." \
        in table(sent)
    assert await service.tick(clock.at(PICK + 3 * DAY - 1)) == 0
    assert A in await prompts(service, game)
    assert await service.tick(clock.at(PICK + 3 * DAY)) == 1  # the deadline, moved on by the three days
    assert A not in await prompts(service, game)


async def test_a_pause_during_an_absence_stops_the_absent_players_clock_once_not_twice(waiting):
    """Away from 2 h for 3 days, the game paused from 12 h to 36 h: the Atreides' pick stood still for the 3 days
    (the pause fell within them), the Fremen's for the day of the pause."""
    service, game, clock = waiting
    clock.at(2 * HOUR)
    await service.away(game, USERS[A], "3d")
    clock.at(12 * HOUR)
    await service.pause(game, True, reason="holidays")
    clock.at(36 * HOUR)
    await service.pause(game, False, reason="back")
    assert await service.tick(clock.at(PICK + DAY - 1)) == 0
    assert await service.tick(clock.at(PICK + DAY)) == 1  # the Fremen's
    assert await service.tick(clock.at(2 * HOUR + 3 * DAY)) == 0  # the absence ends
    assert await service.tick(clock.at(PICK + 3 * DAY - 1)) == 0
    assert A in await prompts(service, game)
    assert await service.tick(clock.at(PICK + 3 * DAY)) == 1
    assert A not in await prompts(service, game)


async def test_the_cap_ends_the_absence_tells_the_table_and_the_moderators_once_then_defaults_apply(waiting):
    service, game, clock = waiting
    clock.at(2 * HOUR)
    until = await service.away(game, USERS[A], "2026-03-20")
    assert until == datetime(2026, 3, 20, tzinfo=UTC)
    cap = at(2 * HOUR + 7 * DAY)
    [told] = table(await drain_messages(service))
    assert f"Their deadlines wait for them until {timestamp(cap)}, the end of this game's cap (7 days of absence in " \
           "any 28)" in told

    assert await service.tick(clock.at(2 * HOUR + 7 * DAY - 1)) == 1  # the Fremen pick long ago; the Atreides wait
    await drain_messages(service)
    assert await service.tick(clock.at(2 * HOUR + 7 * DAY)) == 0
    sent = await drain_messages(service)
    assert table(sent) == ["The Atreides player (<@101>) has been away as long as this game's cap allows (7 days of "
                           "absence in any 28): the absence has ended. Their deadlines run again, and their decisions "
                           "take their defaults as their deadlines pass."]
    [dm] = moderators(sent)
    assert "the Atreides player (<@101>) reached this game's cap of absence (7 days in any 28)" in dm
    assert not absence.is_away((await service.store.load_game(game)).settings, A)

    assert await service.tick(clock.at(PICK + 7 * DAY - 2 * HOUR + 2 * HOUR)) == 1  # then the default applies
    assert A not in await prompts(service, game)
    assert moderators(await drain_messages(service)) == []  # told once
    with pytest.raises(NotAllowed, match="7 days of absence in the last 28 days"):
        await service.away(game, USERS[A], "2d")  # the cap is used up


async def _away_from_2_hours_with_a_3_day_pause(service, game, clock, length: str) -> None:
    """The Atreides away from 2 h for `length`; the game paused from day 1 to day 4."""
    clock.at(2 * HOUR)
    await service.away(game, USERS[A], length)
    clock.at(DAY)
    await service.pause(game, True, reason="holidays")
    clock.at(4 * DAY)
    await service.pause(game, False, reason="back")


async def test_a_pause_during_an_absence_does_not_count_towards_the_cap(waiting):
    """Every clock stands still in a pause, so the days paused are no absence of the player's: away from 2 h until
    day 12, the game paused for 3 days of it, the cap (7 days) ends the absence 3 days later than it would have."""
    service, game, clock = waiting
    await _away_from_2_hours_with_a_3_day_pause(service, game, clock, "12d")
    moved = at(2 * HOUR + 10 * DAY)
    assert ("The Atreides player (<@101>) is away: the pause does not count towards this game's cap of absence, so "
            f"their deadlines now wait for them until {timestamp(moved)} ({timestamp(moved, 'R')}).") in table(
        await drain_messages(service))
    await service.tick(clock.at(2 * HOUR + 7 * DAY))  # the cap's end had there been no pause
    assert absence.is_away((await service.store.load_game(game)).settings, A)
    await service.tick(clock.at(2 * HOUR + 10 * DAY - 1))
    assert absence.is_away((await service.store.load_game(game)).settings, A)
    await service.tick(clock.at(2 * HOUR + 10 * DAY))  # 7 days counted, 3 paused: the cap
    assert not absence.is_away((await service.store.load_game(game)).settings, A)
    assert any("away as long as this game's cap allows" in text for text in table(await drain_messages(service)))


async def test_the_days_paused_within_an_absence_are_left_for_a_later_one(waiting):
    """Away 5 days of which 3 were paused: 2 days counted, so 5 of the 7 are left for the next absence."""
    service, game, clock = waiting
    await _away_from_2_hours_with_a_3_day_pause(service, game, clock, "5d")
    clock.at(2 * HOUR + 5 * DAY)
    await service.back(game, USERS[A])
    await drain_messages(service)
    clock.at(6 * DAY)
    await service.away(game, USERS[A], "6d")
    [told] = table(await drain_messages(service))
    cap = at(6 * DAY + 5 * DAY)
    assert f"Their deadlines wait for them until {timestamp(cap)}, the end of this game's cap" in told


async def test_the_moderators_dm_goes_by_tell_moderators_not_to_the_table(waiting):
    service, game, clock = waiting
    clock.at(HOUR)
    await service.away(game, USERS[A], "10d")
    await service.tick(clock.at(HOUR + 7 * DAY))
    gateway = RecordingGateway()
    while await service.store.pending_outbox(limit=1):
        await service.deliver(gateway)
    [(where, _, text)] = gateway.told_moderators
    assert where == game and "reached this game's cap of absence" in text
    assert not any("cap of absence" in post for post in gateway.channel + gateway.threads)
    assert not any("cap of absence" in dm for dms in gateway.dms.values() for dm in dms)


async def test_defaults_the_absent_players_decisions_default_at_once_while_away(defaulting):
    service, game, clock = defaulting
    clock.at(2 * HOUR)
    await service.away(game, USERS[A], "2d")
    [told] = table(await drain_messages(service))
    assert told.endswith("Until they are back, the Atreides' decisions take their defaults (and standing orders) at "
                         "once.")
    assert await service.tick(clock.at(2 * HOUR + 60)) == 1  # the next tick: the Atreides pick, not the Fremen's
    open_now = await prompts(service, game)
    assert A not in open_now and F in open_now
    sent = await drain_messages(service)
    assert "The Atreides player is away: the default applies to their traitor." in " ".join(table(sent))
    assert any(m.recipient.faction == A.value and "You are away:" in m.text for m in sent)  # the card's closing
    await service.back(game, USERS[A])
    assert table(await drain_messages(service)) == [
        "The Atreides player (<@101>) is back. Their decisions wait for them again."]


async def test_a_date_and_time_is_read_in_the_players_time_zone_when_they_set_one(waiting):
    service, game, clock = waiting
    await service.store.set_value(f"player_hours:{USERS[A]}", json.dumps({"zone": "America/New_York"}))
    assert await service.away(game, USERS[A], "2026-03-04 18:00") == datetime(2026, 3, 4, 23, 0, tzinfo=UTC)
    assert await service.away(game, USERS[F], "2026-03-04 18:00") == datetime(2026, 3, 4, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize("user, until, refusal", [
    (999, "3d", "You have no seat in this game"),
    (101, "2026-02-27", "is not in the future"),
    (101, "29d", "more than 28 days ahead"),
    (101, "2026-04-01", "more than 28 days ahead"),
    (101, "next week", "is not a date or a duration"),
    (101, "2026-13-01", "is not a date or a duration"),
])
async def test_bad_absences_are_refused_clearly_and_change_nothing(waiting, user, until, refusal):
    service, game, _ = waiting
    before = (await service.store.load_game(game)).settings
    with pytest.raises(NotAllowed, match=refusal):
        await service.away(game, user, until)
    assert (await service.store.load_game(game)).settings == before
    assert await drain_messages(service) == []


async def test_a_player_seated_twice_is_away_from_both_seats(waiting):
    service, game, clock = waiting
    await service.seat(game, H, USERS[A], admin=True, by="mod", reason="a test")
    await drain_messages(service)
    await service.away(game, USERS[A], "1d")
    told = table(await drain_messages(service))
    assert [text.split(" is away")[0] for text in told] == ["The Atreides player (<@101>)",
                                                             "The Harkonnen player (<@101>)"]
    await service.back(game, USERS[A])
    assert len(table(await drain_messages(service))) == 2
    assert not (await service.store.load_game(game)).settings.get(absence.AWAY)


async def test_already_away_and_back_when_not_away_are_refused_and_change_nothing(waiting):
    service, game, _ = waiting
    with pytest.raises(NotAllowed, match="You are not away"):
        await service.back(game, USERS[A])
    with pytest.raises(NotAllowed, match="You have no seat"):
        await service.back(game, CREATOR)
    await service.away(game, USERS[A], "1d")
    await drain_messages(service)
    before = (await service.store.load_game(game)).settings
    with pytest.raises(NotAllowed, match="You are already away, until"):
        await service.away(game, USERS[A], "2d")
    assert (await service.store.load_game(game)).settings == before
    assert await drain_messages(service) == []


async def test_an_absence_is_for_a_game_going_on():
    clock = FakeClock(START)
    service = GameService(MemoryGameStore(clock=clock), clock=clock)
    row = await service.create_game(guild_id=1, channel_id=71, factions=[A, H, F], seed=7)
    await service.seat(row.game_id, A, USERS[A])
    with pytest.raises(NotAllowed, match="The game is open: an absence is for a game going on"):
        await service.away(row.game_id, USERS[A], "1d")
    with pytest.raises(NotAllowed, match="An absence either waits or defaults"):
        await service.create_game(guild_id=1, channel_id=72, factions=[A, H, F], absence_mode="forever")


async def test_the_lobby_and_the_status_say_what_an_absence_does():
    service, game, _ = await _game(absence.DEFAULTS)
    settings = (await service.store.load_game(game)).settings
    assert absence.mode_text(settings) == "A player away (/me away): their decisions take their defaults at once"
    assert absence.mode_text({}) == ("A player away (/me away): their deadlines wait (at most 7 days of absence in "
                                     "any 28)")
    await service.away(game, USERS[F], "1d")
    row = await service.store.load_game(game)
    assert absence.status_lines(row.settings, row.seats) == [
        "Away:", f"- the Fremen player (<@103>) is away until {timestamp(START + timedelta(days=1))}"]


# --- item 5: moderators hear of trouble --------------------------------------------------------------------------


async def test_a_game_waiting_three_days_on_a_decision_without_deadline_tells_its_moderators_once():
    service, game, clock = await _game(pace=Pace.NONE)
    await service.tick(clock.at(3 * DAY))
    assert moderators(await drain_messages(service)) == []
    await service.tick(clock.at(3 * DAY + HOUR + 1))
    sent = await drain_messages(service)
    texts = moderators(sent)
    assert len(texts) == 2 and table(sent) == []  # the Atreides' and the Fremen picks; not the table
    assert all("(a secret decision)" in text and "more than 3 days" in text for text in texts)
    assert any("has waited on the Atreides' decision (a secret decision) since " + timestamp(START) in text
               for text in texts)
    await service.tick(clock.at(5 * DAY))
    assert moderators(await drain_messages(service)) == []  # once


async def test_a_decision_waiting_twice_its_deadline_tells_its_moderators_once(waiting, monkeypatch):
    """A default the rules refuse keeps its decision open past its deadline: at twice it, the moderators hear."""
    service, game, clock = waiting
    pick_default = DEFAULTS[PromptKind.TRAITOR_PICK]

    def refused_for_the_atreides(state, prompt):
        if prompt.faction == A:
            raise RuleViolation(ViolationCode.NOT_ALLOWED, "T-1", "a secret reason")
        return pick_default(state, prompt)

    monkeypatch.setitem(DEFAULTS, PromptKind.TRAITOR_PICK, refused_for_the_atreides)
    await service.tick(clock.at(PICK))
    await service.tick(clock.at(2 * PICK))
    assert moderators(await drain_messages(service)) == []
    await service.tick(clock.at(2 * PICK + 2 * HOUR))
    [text] = moderators(await drain_messages(service))
    assert "the Atreides' decision (a secret decision)" in text and "more than twice its deadline (1 day)" in text
    assert "secret reason" not in text
    await service.tick(clock.at(4 * PICK))
    assert moderators(await drain_messages(service)) == []


async def test_a_waiting_absence_is_not_trouble(waiting):
    service, game, clock = waiting
    await service.away(game, USERS[A], "5d")
    for day in range(1, 6):
        await service.tick(clock.at(day * DAY + 1))
    assert moderators(await drain_messages(service)) == []


async def test_a_bot_error_in_a_game_tells_its_moderators_with_its_error_id_once_a_day(waiting):
    service, game, clock = waiting
    await service.tell_of_error(game, "abcd1234", "/me away")
    await service.tell_of_error(game, "ef567890", "/me away")  # the same failure again: not told again today
    sent = await drain_messages(service)
    assert table(sent) == [] and len(moderators(sent)) == 1
    assert "error id abcd1234" in moderators(sent)[0] and "/me away" in moderators(sent)[0]
    await service.tell_of_error(game, "aaaa0000", "the control BidButton")
    clock.at(DAY + 1)
    await service.tell_of_error(game, "bbbb1111", "/me away")
    assert [t.split("error id ")[1][:8] for t in moderators(await drain_messages(service))] == ["aaaa0000", "bbbb1111"]


# --- leaks: what absence and trouble tell depends on no secret ----------------------------------------------------


async def _absence_story(seed: int) -> list[str]:
    """Everything an absence and its trouble tell anyone but the absent player, in a game dealt by `seed`."""
    service, game, clock = await _game(seed=seed, channel=80)
    clock.at(HOUR)
    await service.away(game, USERS[F], "10d")
    told = await drain_messages(service)
    await service.tick(clock.at(HOUR + 7 * DAY))
    told += await drain_messages(service)
    service2, game2, clock2 = await _game(absence.DEFAULTS, seed=seed, channel=81)
    clock2.at(HOUR)
    await service2.away(game2, USERS[F], "1d")
    await service2.back(game2, USERS[F])
    told += await drain_messages(service2)
    service3, game3, clock3 = await _game(pace=Pace.NONE, seed=seed, channel=82)  # a decision waited on too long
    await service3.tick(clock3.at(4 * DAY))
    told += await drain_messages(service3)
    await service3.tell_of_error(game3, "abcd1234", "/me away")
    told += await drain_messages(service3)
    state = await service.state_of(game)
    seats = [state.faction(faction) for faction in (A, H, F)]
    secrets = {card_name(card) for seat in seats for card in seat.hand}
    secrets |= {leader_name(leader) for seat in seats for leader in seat.traitors}
    texts = table(told) + moderators(told)
    assert len(moderators(told)) == 4 and not [text for text in texts for secret in secrets if secret in text]
    return texts


async def test_absence_and_its_trouble_tell_no_other_reader_anything_secret():
    """The same story dealt two ways (other hands, other traitors) reads the same to the table and the moderators,
    and names no card or traitor."""
    assert await _absence_story(7) == await _absence_story(8)


async def test_a_moderators_dm_that_may_have_gone_out_before_a_crash_is_not_sent_again(waiting):
    """At most once: a row being sent when the bot stopped (its DMs cannot be searched for it) is marked sent."""
    service, game, _ = waiting
    await service.tell_of_error(game, "abcd1234", "/me away")
    [row] = await service.store.pending_outbox()
    await service.store.mark_sending(row.id)
    gateway = RecordingGateway()
    await service.deliver(gateway)
    assert gateway.told_moderators == [] and await service.store.pending_outbox() == []
    await service.tell_of_error(game, "ef567890", "/me back")
    await service.deliver(gateway)
    assert [text for _, _, text in gateway.told_moderators if "ef567890" in text]
