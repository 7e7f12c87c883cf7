"""Each player's hours (issue 26 item 1): a time zone and quiet hours, kept per Discord user across every game.

During a player's quiet hours the bot's DMs to them go out silent and the table's posts do not ping them (decided
when a message is delivered: bot/app/delivery.py), and once their quiet hours end one DM says what waits for them
(`quiet_over_text`). A deadline that would end inside the decider's quiet hours ends when they end, and reminders
are sent outside them (GameService._due_dates, _remind). Discord-free; kept with the store's get_value/set_value
under `hours_key` (JSON, validated on read: a value that does not parse counts as no settings).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bot.app.decision_cards import timestamp
from bot.app.ports import OutgoingMessage, Recipient
from engine.model import GameState
from engine.names import decision_name

log = logging.getLogger(__name__)

MAX_QUIET_HOURS = 12  # a day's quiet hours at most: the other players wait on no one for longer than that
ZONE_CHOICES = 25  # Discord offers at most 25 autocomplete choices
# settings: {faction: ISO time its player's quiet hours end} for a player to whom a message of the game went out
# silently during their quiet hours: one DM follows at that time, listing what waits for them (GameService.tick)
QUIET_OWED = "quiet_owed"
# A reminder that would fall inside quiet hours goes out this long before they begin (or as they end): the tick
# runs every few seconds, so it is not sent once they have begun.
REMINDER_MARGIN = timedelta(minutes=10)
KEPT_FOR = timedelta(seconds=60)  # how long a process trusts the hours it read (another process may change them)


def hours_key(user_id: int) -> str:
    return f"player_hours:{user_id}"


@functools.cache
def _zones() -> tuple[str, ...]:
    """Every IANA time zone name (the system's database, else the tzdata package), sorted; the legacy
    aliases ("posixrules", "Factory") left out."""
    return tuple(sorted(zone for zone in available_timezones() if "/" in zone or zone == "UTC"))


def zone_choices(typed: str) -> list[str]:
    """The zones whose name holds what the player typed (any case; spaces as underscores), at most 25."""
    wanted = typed.strip().lower().replace(" ", "_")
    return [zone for zone in _zones() if wanted in zone.lower()][:ZONE_CHOICES]


def known_zone(name: str) -> str | None:
    """The zone's IANA name as the database spells it (any case), or None when there is none of that name."""
    wanted = name.strip().lower().replace(" ", "_")
    return next((zone for zone in _zones() if zone.lower() == wanted), None)


class PlayerHours(BaseModel):
    """One player's hours: their time zone and, when set, their quiet hours, from `quiet_from` o'clock to
    `quiet_until` o'clock in that zone (wrapping past midnight when `quiet_until` is the smaller)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    zone: str = "UTC"
    quiet_from: int | None = Field(default=None, ge=0, le=23)
    quiet_until: int | None = Field(default=None, ge=0, le=23)

    @field_validator("zone")
    @classmethod
    def _a_zone(cls, zone: str) -> str:
        spelt = known_zone(zone)
        if spelt is None:
            raise ValueError(f"{zone!r} is not a time zone name")
        return spelt

    @model_validator(mode="after")
    def _at_most_twelve(self) -> PlayerHours:
        if (self.quiet_from is None) != (self.quiet_until is None):
            raise ValueError("quiet hours need a start and an end")
        if self.quiet_from is not None and not 1 <= self.quiet_length <= MAX_QUIET_HOURS:
            raise ValueError(f"quiet hours last 1 to {MAX_QUIET_HOURS} hours, not {self.quiet_length}")
        return self

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.zone)

    @property
    def quiet_hours(self) -> tuple[int, int] | None:
        """The hour the quiet hours begin and the hour they end, in the player's zone (None: none set)."""
        if self.quiet_from is None or self.quiet_until is None:
            return None
        return self.quiet_from, self.quiet_until

    @property
    def quiet_length(self) -> int:
        """How many hours a day the quiet hours last (0: none)."""
        if (bounds := self.quiet_hours) is None:
            return 0
        return (bounds[1] - bounds[0]) % 24

    def _window(self, day: date, quiet_from: int, quiet_until: int) -> tuple[datetime, datetime]:
        """The quiet hours that begin on `day` (the player's date), in UTC."""
        start = datetime.combine(day, time(quiet_from), self.tz)
        end_day = day + timedelta(days=1) if quiet_until <= quiet_from else day
        end = datetime.combine(end_day, time(quiet_until), self.tz)
        return start.astimezone(UTC), end.astimezone(UTC)

    def windows_around(self, moment: datetime) -> list[tuple[datetime, datetime]]:
        """The quiet hours that begin on the player's day before `moment`, that day and the next two, in order."""
        if (bounds := self.quiet_hours) is None or not self.quiet_length:
            return []
        today = moment.astimezone(self.tz).date()
        return [self._window(today + timedelta(days=offset), *bounds) for offset in (-1, 0, 1, 2)]

    def quiet_window(self, moment: datetime) -> tuple[datetime, datetime] | None:
        """The quiet hours `moment` falls in (start included, end not), or None."""
        return next(((start, end) for start, end in self.windows_around(moment) if start <= moment < end), None)

    def is_quiet(self, moment: datetime) -> bool:
        return self.quiet_window(moment) is not None

    def after_quiet(self, moment: datetime) -> datetime:
        """`moment`, or the end of the quiet hours it falls in."""
        window = self.quiet_window(moment)
        return window[1] if window is not None else moment

    def next_quiet(self, moment: datetime) -> tuple[datetime, datetime] | None:
        """The quiet hours going on at `moment`, else the next ones."""
        return next(((start, end) for start, end in self.windows_around(moment) if end > moment), None)

    def reminder_time(self, moment: datetime, opened: datetime, due: datetime) -> datetime | None:
        """When a reminder meant for `moment` (of a decision open from `opened` until `due`) goes out: then, unless
        that falls in quiet hours; else as they end, if that is before the deadline; else REMINDER_MARGIN before
        they begin, if the decision was open then; else None (that reminder is not sent)."""
        window = self.quiet_window(moment)
        if window is None:
            return moment
        start, end = window
        if end < due:
            return end
        if start - REMINDER_MARGIN > opened:
            return start - REMINDER_MARGIN
        return None


def parse_hours(user_id: int, kept: str | None) -> PlayerHours | None:
    """A player's hours as kept, or None when none are kept or the value does not parse (logged)."""
    if not kept:
        return None
    try:
        return PlayerHours.model_validate_json(kept)
    except (ValidationError, ZoneInfoNotFoundError, ValueError) as error:
        log.warning("The hours kept for user %s do not read (%s): ignored", user_id, error)
        return None


class HoursBook:
    """The players' hours as the store keeps them (`get_value`), each read at most once a KEPT_FOR in this
    process: a delivery asks for the hours of every DM's reader, which would otherwise cost a read each."""

    def __init__(self, store, clock: Callable[[], datetime]):
        self.store, self.clock = store, clock
        self._kept: dict[int, tuple[datetime, PlayerHours | None]] = {}

    async def of(self, user_id: int) -> PlayerHours | None:
        now = self.clock()
        kept = self._kept.get(user_id)
        if kept is not None and now - kept[0] < KEPT_FOR:
            return kept[1]
        hours = parse_hours(user_id, await self.store.get_value(hours_key(user_id)))
        self._kept[user_id] = (now, hours)
        return hours

    async def seats(self, seats: dict[str, int]) -> dict[str, PlayerHours]:
        """The hours of a game's seated players who have quiet hours, by faction."""
        found = {faction: await self.of(user) for faction, user in seats.items()}
        return {faction: hours for faction, hours in found.items() if hours is not None and hours.quiet_length}

    async def keep(self, user_id: int, hours: PlayerHours) -> None:
        await self.store.set_value(hours_key(user_id), hours.model_dump_json())
        self._kept[user_id] = (self.clock(), hours)


def _o_clock(hour: int) -> str:
    return f"{hour:02d}:00"


def hours_text(hours: PlayerHours | None, now: datetime) -> str:
    """/me settings' answer: the player's zone and quiet hours, the next quiet hours as Discord timestamps (each
    reader's clock shows them in their own time)."""
    if hours is None:
        hours = PlayerHours()
        lines = ["You have no settings yet: the bot counts your time in UTC, and you have no quiet hours."]
    else:
        lines = [f"Your time zone: {hours.zone} (it is {now.astimezone(hours.tz):%H:%M} there now)."]
    window, bounds = hours.next_quiet(now), hours.quiet_hours
    if window is None or bounds is None:  # the one is None when the other is
        lines.append("Quiet hours: none. Set them with quiet_from and quiet_until (at most "
                     f"{MAX_QUIET_HOURS} hours a day).")
    else:
        start, end = window
        lines.append(f"Quiet hours: {_o_clock(bounds[0])} to {_o_clock(bounds[1])} your time "
                     f"({hours.quiet_length} {'hour' if hours.quiet_length == 1 else 'hours'} a day); "
                     + (f"now, until {timestamp(end)}." if start <= now else
                        f"next from {timestamp(start)} to {timestamp(end)}."))
        lines.append("During them the bot's DMs to you arrive silently and the table's posts do not ping you; "
                     "when they end, one DM says what waits for you. A deadline of yours that would end inside "
                     "them ends when they end, and reminders come outside them.")
    lines.append("These settings are yours in every game; the other players are not told them.")
    return "\n".join(lines)


def quiet_over_text(silenced: int, waiting: list[tuple[str, datetime | None]]) -> str:
    """The DM that follows a player's quiet hours: how many messages of the game came silently, and the decisions
    that wait for them with their due times."""
    came = "1 message of this game" if silenced == 1 else f"{silenced} messages of this game"
    lines = [f"Your quiet hours are over: {came} arrived silently meanwhile."]
    if waiting:
        lines.append("Waiting for you:")
        lines += [f"- {what}: " + (f"due {timestamp(due)} ({timestamp(due, 'R')})." if due else "no deadline.")
                  for what, due in waiting]
    else:
        lines.append("Nothing waits for you now.")
    return "\n".join(lines)


class HoursRefused(ValueError):
    """Settings /me settings refuses; the message says why, for the player."""


def changed_hours(kept: PlayerHours | None, zone: str | None, quiet_from: int | None, quiet_until: int | None,
                  no_quiet_hours: bool) -> PlayerHours:
    """The player's hours with the options of /me settings applied (an option not given keeps its value), or
    HoursRefused saying what is wrong."""
    kept = kept or PlayerHours()
    if zone is not None:
        spelt = known_zone(zone)
        if spelt is None:
            raise HoursRefused(f"{zone.strip()!r} is not a time zone this bot knows: choose one of the names offered "
                               "as you type (IANA names, such as Europe/Paris, America/New_York or Asia/Tokyo).")
        zone = spelt
    if no_quiet_hours:
        if quiet_from is not None or quiet_until is not None:
            raise HoursRefused("Give either quiet hours (quiet_from and quiet_until) or no_quiet_hours, not both.")
        return PlayerHours(zone=zone or kept.zone)
    start = quiet_from if quiet_from is not None else kept.quiet_from
    end = quiet_until if quiet_until is not None else kept.quiet_until
    if (start is None) != (end is None):
        raise HoursRefused("Quiet hours need a start and an end: give both quiet_from and quiet_until (hours of "
                           "the day in your time zone, 0 to 23).")
    if start is not None and end is not None:  # both or neither (above)
        length = (end - start) % 24
        if length == 0:
            raise HoursRefused(f"Quiet hours from {_o_clock(start)} to {_o_clock(end)} would last no time: to have "
                               "none, use no_quiet_hours.")
        if length > MAX_QUIET_HOURS:
            raise HoursRefused(f"Quiet hours from {_o_clock(start)} to {_o_clock(end)} would last {length} hours a "
                               f"day; at most {MAX_QUIET_HOURS} are allowed, so that the table never waits on you "
                               "longer than that.")
    return PlayerHours(zone=zone or kept.zone, quiet_from=start, quiet_until=end)


def quiet_hours_over(settings: dict, state: GameState, due: dict[str, datetime],
                     now: datetime) -> tuple[dict, list[OutgoingMessage]]:
    """The game's settings without the DMs owed (QUIET_OWED) to players whose quiet hours are over by `now`, and
    those DMs (one each for the game): how many messages came silently, and each of their open decisions with
    its due time (`due`: by prompt id; none for a decision without a deadline). Only their own decisions: a DM
    tells its reader nothing of another seat."""
    owed = settings.get(QUIET_OWED, {})
    over = {faction: entry for faction, entry in owed.items() if datetime.fromisoformat(entry["until"]) <= now}
    if not over:
        return settings, []
    kept = {faction: entry for faction, entry in owed.items() if faction not in over}
    remaining = {key: value for key, value in settings.items() if key != QUIET_OWED}
    if kept:
        remaining[QUIET_OWED] = kept
    messages = []
    for faction, entry in over.items():
        waiting = [(decision_name(prompt.kind), due.get(prompt.id)) for prompt in state.prompts
                   if prompt.faction.value == faction]
        messages.append(OutgoingMessage(recipient=Recipient(faction=faction),
                                        text=quiet_over_text(entry["silenced"], waiting)))
    return remaining, messages
