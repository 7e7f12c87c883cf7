"""Each player's hours (issue 26 item 1), at the service: /me settings' rules, silent DMs and unpinged mentions
decided at delivery, one DM when the quiet hours end, deadlines and reminders outside the decider's quiet hours.
SimCord's end-to-end tests are in tests/test_discord_e2e_hours.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.app.decision_cards import timestamp
from bot.app.hours import QUIET_OWED, PlayerHours, zone_choices
from bot.app.ports import mention
from bot.app.service import NotAllowed
from engine.ids import Faction
from tests.helpers.clock_tables import DAY, HOUR, drain, drain_messages, table

A, H, F = Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN
USERS = {A: 101, H: 102, F: 103}
STRANGER = 999
table = table  # the fixture: pytest finds it here by name


def at(hour: float, day: int = 0) -> datetime:
    """START's day (2026-03-01, UTC) at `hour` o'clock, `day` days later."""
    return datetime(2026, 3, 1, tzinfo=UTC) + timedelta(days=day, hours=hour)


class Gateway:
    """Keeps every message as the gateway is given it (its silent flag and unpinged users included)."""

    def __init__(self):
        self.sent = []

    async def deliver(self, game, message, then=()):
        self.sent += [message, *then]
        return f"ref-{message.outbox_id}"

    async def find(self, game, message, since, then=()):
        return None

    async def tell_moderators(self, game, role, text):
        pass

    async def can_dm(self, game, faction):
        return True


# --- the settings ---------------------------------------------------------------------------------------------


def test_quiet_hours_wrap_past_midnight_in_the_players_zone():
    hours = PlayerHours(zone="Europe/Paris", quiet_from=23, quiet_until=7)  # UTC+1 in March
    assert hours.quiet_window(at(21)) is None
    assert hours.quiet_window(at(22)) == (at(22), at(6, day=1))
    assert hours.after_quiet(at(3, day=1)) == at(6, day=1)
    assert hours.after_quiet(at(6, day=1)) == at(6, day=1)  # the end is not quiet
    assert hours.is_quiet(at(5.9))  # 06:54 in Paris, the quiet hours that began the day before


def test_quiet_hours_follow_the_players_clock_across_a_summer_time_change():
    hours = PlayerHours(zone="America/New_York", quiet_from=1, quiet_until=7)
    # New York moves its clocks on 2026-03-08 at 02:00 (UTC-5 before, UTC-4 after): 06:00 to 11:00 UTC that night
    night = datetime(2026, 3, 8, tzinfo=UTC)
    assert hours.quiet_window(night + timedelta(hours=8)) == (night + timedelta(hours=6), night + timedelta(hours=11))
    assert hours.quiet_window(datetime(2026, 3, 9, 6, tzinfo=UTC)) == (datetime(2026, 3, 9, 5, tzinfo=UTC),
                                                                        datetime(2026, 3, 9, 11, tzinfo=UTC))


def test_zone_names_are_offered_by_any_part_of_their_name_in_any_case_25_at_most():
    assert zone_choices("new_york") == ["America/New_York"]
    assert zone_choices("PARIS") == ["Europe/Paris"]
    assert zone_choices("new york") == ["America/New_York"]
    assert len(zone_choices("america")) == 25
    assert len(zone_choices("")) == 25
    assert zone_choices("olympus mons") == []


async def test_settings_are_set_shown_and_refused_per_user_with_no_seat_needed(table):
    service, _, clock = table
    shown = await service.player_hours(STRANGER)
    assert shown.startswith("You have no settings yet: the bot counts your time in UTC")

    saved = await service.player_hours(STRANGER, zone="europe/paris", quiet_from=23, quiet_until=7)
    assert saved.startswith("Saved.\nYour time zone: Europe/Paris (it is 13:00 there now).")
    assert (f"Quiet hours: 23:00 to 07:00 your time (8 hours a day); next from {timestamp(at(22))} to "
            f"{timestamp(at(6, day=1))}.") in saved
    assert "the other players are not told them" in saved
    assert await service.player_hours(STRANGER) == saved.removeprefix("Saved.\n")

    for options, refusal in (
            ({"zone": "Mars/Olympus_Mons"}, "'Mars/Olympus_Mons' is not a time zone this bot knows"),
            ({"quiet_from": 20, "quiet_until": 9}, "would last 13 hours a day; at most 12 are allowed"),
            ({"quiet_from": 8, "quiet_until": 8}, "would last no time: to have none, use no_quiet_hours"),
            ({"quiet_from": 8, "no_quiet_hours": True}, "not both")):
        with pytest.raises(NotAllowed, match=refusal):
            await service.player_hours(STRANGER, **options)
    assert await service.player_hours(STRANGER) == saved.removeprefix("Saved.\n")  # nothing changed

    # one bound alone changes that bound; without quiet hours kept, it needs the other
    assert "Quiet hours: 22:00 to 07:00" in await service.player_hours(STRANGER, quiet_from=22)
    cleared = await service.player_hours(STRANGER, no_quiet_hours=True)
    assert "Your time zone: Europe/Paris" in cleared and "Quiet hours: none." in cleared
    with pytest.raises(NotAllowed, match="need a start and an end"):
        await service.player_hours(STRANGER, quiet_until=7)


async def test_settings_kept_unreadable_count_as_none(table):
    service, _, _ = table
    await service.store.set_value(f"player_hours:{STRANGER}", '{"zone": "Mars/Olympus", "quiet_from": 3}')
    assert (await service.player_hours(STRANGER)).startswith("You have no settings yet")


# --- silence, decided at delivery -------------------------------------------------------------------------------


async def test_a_dm_in_quiet_hours_goes_out_silent_a_mention_does_not_ping_and_one_dm_follows_at_their_end(table):
    service, game, clock = table
    await service.set_deadline(game, None, 2 * DAY)
    await drain(service)
    await service.player_hours(USERS[A], zone="UTC", quiet_from=12, quiet_until=18)  # now (12:00) is quiet
    # queued before the quiet hours began, delivered inside them: delivery decides
    clock.at(-HOUR)
    await service.grace(game, A, HOUR, by="mod", reason="travel")
    await service.grace(game, F, HOUR, by="mod", reason="travel")
    clock.at(0)
    await service.store.queue(game, [_thread_call(f"{mention('atreides')}, {mention('fremen')}: a word.")])
    gateway = Gateway()
    await service.deliver(gateway)
    dms = {m.recipient.faction: m for m in gateway.sent if m.recipient.faction and m.text.startswith("Admin")}
    assert dms["atreides"].silent and not dms["fremen"].silent
    [called] = [m for m in gateway.sent if m.text.endswith("a word.")]
    assert called.unpinged == [USERS[A]]  # named, not pinged; the Fremen are
    assert not any(m.silent for m in gateway.sent if m.recipient.faction != "atreides")
    owed = (await service.store.load_game(game)).settings[QUIET_OWED]
    # new messages only (the grace, the card moved, the call): an edit notifies nobody
    silenced = sum(1 for m in gateway.sent if (m.silent or m.unpinged) and m.edit_of is None)
    assert owed == {"atreides": {"until": at(18).isoformat(), "silenced": silenced}} and silenced >= 2

    assert await service.tick(clock.at(6 * HOUR - 1)) == 0
    assert await drain(service) == []
    await service.tick(clock.at(6 * HOUR))
    gateway = Gateway()
    await service.deliver(gateway)
    [follow_up] = gateway.sent
    due = at(19, day=2)  # two days end inside the quiet hours (12:00), so at their end; then the hour of grace
    assert follow_up.recipient.faction == "atreides" and not follow_up.silent
    assert follow_up.text == (f"Your quiet hours are over: {silenced} messages of this game arrived silently "
                              f"meanwhile.\nWaiting for you:\n- your traitor: due {timestamp(due)} "
                              f"({timestamp(due, 'R')}).")
    assert QUIET_OWED not in (await service.store.load_game(game)).settings
    await service.tick(clock.at(7 * HOUR))
    assert await drain(service) == []  # one DM


def _thread_call(text: str):
    from bot.app.ports import OutgoingMessage, Recipient
    return OutgoingMessage(recipient=Recipient(channel=True, thread="turn:0"), text=text)


async def test_the_dm_after_quiet_hours_tells_nothing_of_other_seats(table):
    service, game, clock = table
    await service.set_deadline(game, None, 2 * DAY)
    await service.player_hours(USERS[H], zone="UTC", quiet_from=12, quiet_until=14)
    await service.grace(game, A, HOUR, by="mod", reason="travel")
    await service.store.queue(game, [_thread_call(f"{mention('harkonnen')}: a word.")])
    await service.deliver(Gateway())
    await service.tick(clock.at(2 * HOUR))
    [follow_up] = await drain_messages(service)
    # the Harkonnen wait on nothing: the Atreides' and Fremen's decisions are not theirs to know of
    assert follow_up.recipient.faction == "harkonnen"
    assert follow_up.text == ("Your quiet hours are over: 1 message of this game arrived silently meanwhile.\n"
                              "Nothing waits for you now.")


# --- deadlines and reminders --------------------------------------------------------------------------------------


async def test_a_deadline_ending_in_the_deciders_quiet_hours_moves_to_their_end_on_the_card_and_the_board(table):
    service, game, clock = table
    await service.set_deadline(game, None, 12 * HOUR)  # due at midnight
    await drain(service)
    await service.player_hours(USERS[A], zone="America/New_York", quiet_from=17, quiet_until=1)  # 22:00-06:00 UTC
    moved = await drain_messages(service)
    quiet_end, midnight = at(6, day=1), at(0, day=1)
    [board] = [m for m in moved if m.recipient.channel]
    cards = {m.recipient.faction: m.text for m in moved if m.recipient.faction}
    assert timestamp(quiet_end) in cards["atreides"] and timestamp(midnight) in cards["fremen"]
    assert f"Atreides (a secret decision, until {timestamp(quiet_end)})" in board.text
    assert f"Fremen (a secret decision, until {timestamp(midnight)})" in board.text
    assert "quiet" not in board.text.lower()  # the table reads a due time, nothing of why
    assert await service.due_times(game) == {p.id: (quiet_end if p.faction == A else midnight)
                                             for p in (await service.state_of(game)).prompts}

    # the Fremen's default comes at midnight, the Atreides' when their quiet hours end
    assert await service.tick(clock.at(12 * HOUR)) == 1
    assert await service.tick(clock.at(18 * HOUR - 1)) == 0
    assert await service.tick(clock.at(18 * HOUR)) == 1


async def test_a_decision_opening_now_is_due_after_its_deciders_quiet_hours(table):
    service, game, clock = table
    await service.player_hours(USERS[A], zone="UTC", quiet_from=12, quiet_until=20)
    await service.set_deadline(game, None, HOUR)
    await drain(service)
    due = await service.due_times(game)
    assert sorted(due.values()) == [at(13), at(20)]


async def test_reminders_are_not_sent_inside_the_deciders_quiet_hours(table):
    service, game, clock = table
    await service.player_hours(USERS[A], zone="UTC", quiet_from=22, quiet_until=6)
    await service.set_deadline(game, None, 12 * HOUR)  # the Atreides' moves from midnight to 06:00
    await drain(service)
    sent: list[tuple[datetime, str, str]] = []
    for minute in range(0, 19 * 60, 5):
        now = clock.at(minute * 60)
        await service.tick(now)
        sent += [(now, m.recipient.faction, m.text) for m in await drain_messages(service)
                 if m.recipient.faction and m.text.startswith(("Reminder", "Last call"))]
    atreides = [(when, text.split(",")[0]) for when, faction, text in sent if faction == "atreides"]
    fremen = [(when, text.split(",")[0]) for when, faction, text in sent if faction == "fremen"]
    assert atreides == [(at(21), "Reminder"), (at(21, 0) + timedelta(minutes=50), "Last call")]
    assert fremen == [(at(18), "Reminder"), (at(23), "Last call")]
    assert all(not PlayerHours(quiet_from=22, quiet_until=6).is_quiet(when) for when, _ in atreides)
