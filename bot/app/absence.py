"""A player's absence (/me away, /me back; issue 26 item 2): what it does to their decisions, kept in the game's
settings. Discord-free and pure: the service (bot/app/service.py, its "absence" section) stores what these
functions return and tells the table.

The game's creator chooses at /game new what an absence does (settings[ABSENCE]):
- "wait": the absent player's deadlines stand still while they are away, as a pause stops everyone's, within a
  cap of CAP of absence in any WINDOW; at the cap the absence ends by itself and defaults apply as deadlines pass.
- "defaults": while away, the absent player's decisions take their defaults (and standing orders) at once, as at a
  deadline; nothing waits for them.

Settings kept: AWAY {faction: {"since", "until", "ends"}} (ISO times; "ends": when the absence ends, the cap
included; "stops": the game's pauses within it), AWAY_PAST {faction: [[start, end], ...]} (the absences that count
towards the cap, each as long as it counted: the game's pauses within it left out), AWAY_FOR
{decision: seconds its clock stood still while its decider was away}, a decision keyed as the service keys it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.app.decision_cards import timestamp
from bot.app.settings_model import GameSettings
from engine.ids import Faction
from engine.names import faction_possessive, the_faction

ABSENCE = "absence"  # settings: what an absence does, WAIT or DEFAULTS (a game without it: WAIT)
WAIT, DEFAULTS = "wait", "defaults"
ABSENCE_CHOICES = {
    WAIT: "their deadlines wait (at most 7 days of absence in any 28)",
    DEFAULTS: "their decisions take their defaults at once",
}
AWAY = "away"
AWAY_PAST = "away_past"
AWAY_FOR = "away_for"
CAP = timedelta(days=7)  # absence whose deadlines wait, in any WINDOW
WINDOW = timedelta(days=28)
LONGEST = timedelta(days=28)  # how far ahead /me away may reach
HOURS_KEY = "player_hours:{user}"  # store value: the player's hours ({"zone": IANA name, ...}), set by /me settings
DURATION = re.compile(r"^\s*(?:(\d+)\s*d)?\s*(?:(\d+)\s*h)?\s*$", re.IGNORECASE)


class AbsenceError(ValueError):
    """An absence refused; the message is for the player."""


def mode(settings: dict[str, Any]) -> str:
    return GameSettings.of(settings).absence


def mode_text(settings: dict[str, Any]) -> str:
    """The game's absence rule as the lobby and /game status say it."""
    return f"A player away (/me away): {ABSENCE_CHOICES[mode(settings)]}"


def for_the_player(settings: dict[str, Any]) -> str:
    """What an absence does, as the absent player reads it (their answer to /me away)."""
    if mode(settings) == DEFAULTS:
        return "Meanwhile your decisions take their defaults (and standing orders) at once."
    return (f"Meanwhile your deadlines wait for you, within {CAP.days} days of absence in any {WINDOW.days}; /game "
            "status shows until when.")


def parse_until(text: str, now: datetime, zone: str | None = None) -> datetime:
    """When an absence ends, from what the player wrote: a date ("2026-12-24", the start of that day), a date and a
    time ("2026-12-24 18:00") in the player's time zone (`zone`, IANA; else UTC), or a duration from now ("3d",
    "36h", "1d12h"). Refused: anything else, a time not in the future, or one more than LONGEST ahead."""
    text = text.strip()
    match = DURATION.match(text)
    if match and any(match.groups()):
        days, hours = (int(part or 0) for part in match.groups())
        until = now + timedelta(days=days, hours=hours)
    else:
        try:
            tz = ZoneInfo(zone) if zone else UTC
        except (ZoneInfoNotFoundError, ValueError):
            tz = UTC
        for pattern in ("%Y-%m-%d %H:%M", "%Y-%m-%d"):
            try:
                until = datetime.strptime(text, pattern).replace(tzinfo=tz)
                break
            except ValueError:
                continue
        else:
            raise AbsenceError(f"{text!r} is not a date or a duration: write a date (2026-12-24), a date and a time "
                               "(2026-12-24 18:00, in your time zone) or a duration (3d, 36h).")
    if until <= now:
        raise AbsenceError(f"{timestamp(until)} is not in the future: an absence ends later than now.")
    if until - now > LONGEST:
        raise AbsenceError(f"{timestamp(until)} is more than {LONGEST.days} days ahead: an absence may last "
                           f"{LONGEST.days} days at most (a moderator can find you a substitute for longer).")
    return until


def zone_of(stored: str | None) -> str | None:
    """The time zone a player's stored hours name (HOURS_KEY), or None."""
    if not stored:
        return None
    try:
        zone = json.loads(stored).get("zone")
    except (ValueError, AttributeError):
        return None
    return zone if isinstance(zone, str) else None


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def away(settings: dict[str, Any]) -> dict[Faction, dict[str, datetime]]:
    """The absences running now: faction -> {"since", "until", "ends"}."""
    return {Faction(f): {"since": entry.since, "until": entry.until, "ends": entry.ends}
            for f, entry in GameSettings.of(settings).away.items()}


def until_of(settings: dict[str, Any]) -> dict[Faction, datetime]:
    """Each absent faction and the end its player gave (announced to the table): the status board shows it."""
    return {faction: entry["until"] for faction, entry in away(settings).items()}


def _overlap(start: datetime, end: datetime, other_start: datetime, other_end: datetime) -> timedelta:
    return max(timedelta(0), min(end, other_end) - max(start, other_start))


def _alone(entry: dict[str, Any], start: datetime, now: datetime, stop_began: datetime | None) -> timedelta:
    """The time from `start` to `now` in which an absence alone stopped a clock: without the game's own stops (its
    pauses, the bot kept from its channel), which stop every clock anyway (the one running began at `stop_began`)."""
    alone = max(timedelta(0), now - start)
    for began, ended in entry.get("stops", []):
        alone -= _overlap(start, now, _time(began), _time(ended))
    if stop_began is not None:
        alone -= _overlap(start, now, stop_began, now)
    return max(timedelta(0), alone)


def stop_ended(settings: dict[str, Any], began: datetime, now: datetime) -> dict[str, Any]:
    """The settings once a stop of the whole game (a pause) that began at `began` ends at `now`: each running
    absence keeps the part of it that fell within it, so that a clock does not stand still twice as long; and, in
    a game whose absences wait, that part does not count towards the cap (every clock stood still anyway): an
    absence the cap would end ends that much later, at most at the end its player gave."""
    if not settings.get(AWAY):
        return settings
    running = {}
    for faction, entry in settings[AWAY].items():
        start = max(began, _time(entry["since"]))
        if now <= start:
            running[faction] = entry
            continue
        moved: dict[str, Any] = {"stops": [*entry.get("stops", []), [start.isoformat(), now.isoformat()]]}
        if mode(settings) == WAIT:
            moved["ends"] = min(_time(entry["ends"]) + (now - start), _time(entry["until"])).isoformat()
        running[faction] = {**entry, **moved}
    return {**settings, AWAY: running}


def is_away(settings: dict[str, Any], faction: Faction) -> bool:
    return faction.value in GameSettings.of(settings).away


def clock_stopped(settings: dict[str, Any], faction: Faction) -> bool:
    """Whether the faction's deadlines stand still now (away, in a game whose absences wait)."""
    return mode(settings) == WAIT and is_away(settings, faction)


def defaults_now(settings: dict[str, Any], faction: Faction) -> bool:
    """Whether the faction's decisions take their defaults at once (away, in a game whose absences default)."""
    return mode(settings) == DEFAULTS and is_away(settings, faction)


def used(settings: dict[str, Any], faction: Faction, now: datetime) -> timedelta:
    """The faction's absence that counts towards the cap in the WINDOW up to `now`, the running one excluded."""
    start = now - WINDOW
    total = timedelta(0)
    for began, ended in GameSettings.of(settings).away_past.get(faction.value, []):
        total += max(timedelta(0), min(ended, now) - max(began, start))
    return total


def left(settings: dict[str, Any], faction: Faction, now: datetime) -> timedelta:
    """How much absence whose deadlines wait the faction may still take from `now`. Counting the past absences of
    the WINDOW before `now` keeps every WINDOW-long span within the CAP."""
    return max(timedelta(0), CAP - used(settings, faction, now))


def start(settings: dict[str, Any], faction: Faction, now: datetime, until: datetime) -> dict[str, Any]:
    """The settings with the faction away from `now` until `until` (in a game that waits: at most to its cap)."""
    if is_away(settings, faction):
        raise AbsenceError(f"You are already away, until {timestamp(away(settings)[faction]['until'])}: /me back "
                           "ends it, then /me away sets a new one.")
    ends = until
    if mode(settings) == WAIT:
        remaining = left(settings, faction, now)
        if remaining <= timedelta(0):
            raise AbsenceError(f"You have had {CAP.days} days of absence in the last {WINDOW.days} days, this game's "
                               "cap: your deadlines cannot wait for you now (a moderator may give you more time with "
                               "/admin grace).")
        ends = min(until, now + remaining)
    entry = {"since": now.isoformat(), "until": until.isoformat(), "ends": ends.isoformat()}
    return {**settings, AWAY: {**settings.get(AWAY, {}), faction.value: entry}}


def stood_still(settings: dict[str, Any], faction: Faction, decision: str, opened: datetime, now: datetime,
                stop_began: datetime | None = None) -> timedelta:
    """How long a decision's clock stood still while its decider was away and the game itself ran (a pause stops
    it anyway: `stop_began`, the running one's start): its past absences (AWAY_FOR) and the running one since the
    decision opened, in a game whose absences wait."""
    total = timedelta(seconds=GameSettings.of(settings).away_for.get(decision, 0))
    if clock_stopped(settings, faction):
        entry = settings[AWAY][faction.value]
        total += _alone(entry, max(_time(entry["since"]), opened), now, stop_began)
    return total


@dataclass(frozen=True)
class Open:
    """An open decision of the absent faction: its key in the settings and when it opened."""

    decision: str
    opened: datetime


def end(settings: dict[str, Any], faction: Faction, now: datetime, open_decisions: Iterable[Open],
        all_open: Iterable[str], stop_began: datetime | None = None) -> dict[str, Any]:
    """The settings once the faction's absence ends at `now`: the time it alone stopped each of their open
    decisions is kept (AWAY_FOR, only for decisions still open: `all_open`), and the absence counts towards the
    cap."""
    if not is_away(settings, faction):
        raise AbsenceError("You are not away: /me away tells the table you will be.")
    since = _time(settings[AWAY][faction.value]["since"])
    keep = set(all_open)
    stopped = {decision: seconds for decision, seconds in settings.get(AWAY_FOR, {}).items() if decision in keep}
    past = dict(settings.get(AWAY_PAST, {}))
    if mode(settings) == WAIT:
        running = settings[AWAY][faction.value]
        for entry in open_decisions:
            stopped[entry.decision] = stopped.get(entry.decision, 0) + round(
                _alone(running, max(since, entry.opened), now, stop_began).total_seconds())
        recent = [pair for pair in past.get(faction.value, []) if _time(pair[1]) > now - WINDOW]
        counted = _alone(running, since, now, stop_began)  # the game's own stops do not count towards the cap
        past[faction.value] = [*recent, [(now - counted).isoformat(), now.isoformat()]]
    rest = {f: entry for f, entry in settings[AWAY].items() if f != faction.value}
    changed = {**settings, AWAY: rest, AWAY_FOR: stopped, AWAY_PAST: past}
    return {key: value for key, value in changed.items() if value or key not in (AWAY, AWAY_FOR, AWAY_PAST)}


def ending(settings: dict[str, Any], now: datetime) -> list[tuple[Faction, bool]]:
    """The absences that end by `now`: (faction, whether the cap ended it before the date the player gave)."""
    return [(faction, entry["ends"] < entry["until"]) for faction, entry in away(settings).items()
            if entry["ends"] <= now]


def next_end(settings: dict[str, Any]) -> datetime | None:
    """When the next absence ends (the tick ends it)."""
    return min((entry["ends"] for entry in away(settings).values()), default=None)


# --- what the table reads -------------------------------------------------------------------------------------------

def player(faction: Faction, user_id: int | None) -> str:
    who = f" (<@{user_id}>)" if user_id is not None else ""
    return f"{the_faction(faction)} player{who}"


def away_text(settings: dict[str, Any], faction: Faction, user_id: int | None) -> str:
    """The table's news of an absence that starts (`start` gave these settings)."""
    entry = away(settings)[faction]
    until, ends = entry["until"], entry["ends"]
    who = player(faction, user_id)
    lead = f"{who[0].upper()}{who[1:]} is away until {timestamp(until)} ({timestamp(until, 'R')})."
    if mode(settings) == DEFAULTS:
        return (f"{lead} Until they are back, {faction_possessive(faction)} decisions take their defaults (and "
                "standing orders) at once.")
    if ends < until:
        return (f"{lead} Their deadlines wait for them until {timestamp(ends)}, the end of this game's cap "
                f"({CAP.days} days of absence in any {WINDOW.days}); then the absence ends and their deadlines run.")
    return f"{lead} Their deadlines wait for them until they are back (/me back ends it earlier)."


def cap_moved_texts(settings_before: dict[str, Any], settings: dict[str, Any], seats: dict[str, int]) -> list[str]:
    """The table's news of each absence whose end at the cap a pause moved later (`stop_ended`): what the table was
    told at its start is no longer so."""
    before = away(settings_before)
    texts = []
    for faction, entry in away(settings).items():
        if faction in before and entry["ends"] != before[faction]["ends"]:
            who = player(faction, seats.get(faction.value))
            ends = entry["ends"]
            texts.append(f"{who[0].upper()}{who[1:]} is away: the pause does not count towards this game's cap of "
                         f"absence, so their deadlines now wait for them until {timestamp(ends)} "
                         f"({timestamp(ends, 'R')}).")
    return texts


def back_text(settings_before: dict[str, Any], faction: Faction, user_id: int | None, *, capped: bool = False,
              by_itself: bool = False) -> str:
    """The table's news of an absence that ends: by /me back, at its date, or at the cap."""
    who = player(faction, user_id)
    who = who[0].upper() + who[1:]
    waited = mode(settings_before) == WAIT
    if capped:
        return (f"{who} has been away as long as this game's cap allows ({CAP.days} days of absence in any "
                f"{WINDOW.days}): the absence has ended. Their deadlines run again, and their decisions take their "
                "defaults as their deadlines pass.")
    then = " Their deadlines run again." if waited else " Their decisions wait for them again."
    return f"{who} is back{' (the absence they set has ended)' if by_itself else ''}.{then}"


def status_lines(settings: dict[str, Any], seats: dict[str, int]) -> list[str]:
    """Who is away until when, for /game status."""
    lines = []
    for faction, entry in sorted(away(settings).items(), key=lambda item: item[1]["until"]):
        lines.append(f"- {player(faction, seats.get(faction.value))} is away until {timestamp(entry['until'])}"
                     + (f" (their deadlines wait until {timestamp(entry['ends'])})" if mode(settings) == WAIT
                        and entry["ends"] < entry["until"] else ""))
    return (["Away:"] + lines) if lines else []
