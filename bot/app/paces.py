"""Paces: how long a player has for each kind of decision, chosen when the game is created (/game new).

A pace is a table of deadlines by kind of decision. /game new stores the chosen pace's deadlines in the game's
settings (`settings["deadlines"]`, prompt kind or "*" -> seconds), where /admin deadline then changes them one
kind at a time; the service's tick reminds and applies the defaults from there (bot/app/service.py).

Why the kinds get different times: what a missed deadline costs is the decision's default (engine/flow.py
DEFAULTS), and that cost differs.
- Windows (play a storm card now? call a traitor? cancel a reveal?): asked of several players at once, most answer
  "no", and the default is that "no": the shortest, so the table does not wait on a pass.
- Picks (the storm dial, a prescience question, which battle, a captured leader): one small choice read off the
  card; its default is a fair one (a middle dial, the first battle).
- Bids: an auction goes round the table many times, each bid waiting for one player; the default is a pass. Short,
  or one card's auction takes days.
- Moves (revival, shipment, movement, the BT's traps and gifts): the turn's plan; the default (doing nothing)
  costs a turn.
- Plans (a battle plan, alliances at the Nexus, the setup's choices): the game is decided here and the default
  is poor (a plan with no leader and dial 0): the longest.
The paces: `fast` for a live evening with everyone at the table (minutes), `daily` for players who look in a few
times a day, `weekly` for players who look in every other day or so. `none` sets no deadline (the games created
before paces existed have none): decisions wait until answered or forced by a moderator.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.model import PromptKind
from engine.names import decision_topic

MINUTE, HOUR, DAY = 60, 3600, 86400
ANY_KIND = "*"  # the deadline key for every prompt kind without a deadline of its own


class Pace(StrEnum):
    FAST = "fast"
    DAILY = "daily"
    WEEKLY = "weekly"
    NONE = "none"


WINDOWS = (PromptKind.STORM_CARDS, PromptKind.TRAITOR_CALL, PromptKind.BT_REVEAL_WINDOW, PromptKind.BT_REVEAL_KARAMA,
           PromptKind.BT_MARK, PromptKind.TRUTHTRANCE, PromptKind.WORM_RIDE, PromptKind.GUILD_TIMING)
BIDS = (PromptKind.BID,)
MOVES = (PromptKind.REVIVAL, PromptKind.SHIPMENT, PromptKind.MOVEMENT, PromptKind.BT_TRAPS_AND_GIFTS)
PLANS = (PromptKind.BATTLE_PLAN, PromptKind.NEXUS, PromptKind.TRAITOR_PICK, PromptKind.BG_PREDICTION,
         PromptKind.BT_TRAPS, PromptKind.STARTING_PLACEMENT)
# Picks: every other kind (the storm dial, prescience, the Voice, which battle, a spiritual advisor, Shai-Hulud's
# placement, a captured leader, cards given back, the BT attack and impairment), and any kind added later.


@dataclass(frozen=True)
class PaceTimes:
    """Seconds a decision of each group waits."""

    windows: int
    picks: int
    bids: int
    moves: int
    plans: int

    def deadlines(self) -> dict[str, int]:
        """As the game's settings keep them: picks as the deadline of every kind ("*"), the others by kind."""
        groups = ((WINDOWS, self.windows), (BIDS, self.bids), (MOVES, self.moves), (PLANS, self.plans))
        return {ANY_KIND: self.picks} | {kind.value: seconds for kinds, seconds in groups for kind in kinds}

    def text(self) -> str:
        return (f"{duration(self.windows)} for a yes or no asked of everyone (a storm card, a traitor call), "
                f"{duration(self.picks)} for a small choice (the storm dial, a prescience question), "
                f"{duration(self.bids)} for a bid, {duration(self.moves)} for revival, shipment and movement, "
                f"{duration(self.plans)} for battle plans, alliances and the setup's choices")


PACES: dict[Pace, PaceTimes] = {
    Pace.FAST: PaceTimes(windows=1 * MINUTE, picks=2 * MINUTE, bids=1 * MINUTE, moves=4 * MINUTE, plans=6 * MINUTE),
    Pace.DAILY: PaceTimes(windows=4 * HOUR, picks=8 * HOUR, bids=6 * HOUR, moves=1 * DAY, plans=1 * DAY),
    Pace.WEEKLY: PaceTimes(windows=12 * HOUR, picks=1 * DAY, bids=12 * HOUR, moves=3 * DAY, plans=3 * DAY),
}
PACE_TITLES = {Pace.FAST: "a live evening", Pace.DAILY: "a look in every day", Pace.WEEKLY: "a look in every few days",
               Pace.NONE: "no deadlines"}


def pace_deadlines(pace: Pace) -> dict[str, int]:
    """The deadlines a new game of this pace starts with (none for `none`)."""
    times = PACES.get(pace)
    return times.deadlines() if times is not None else {}


def pace_text(pace: Pace) -> str:
    """The pace as the lobby shows it: "daily (a look in every day): 4 h for a yes or no asked of everyone ..."."""
    times = PACES.get(pace)
    return f"{pace.value} ({PACE_TITLES[pace]})" + (f": {times.text()}" if times is not None else "")


def settings_pace_text(settings: dict[str, Any]) -> str:
    """The game's pace as /game status shows it, with what a moderator changed since (/admin deadline): the kinds
    changed, or the deadlines as they are when none of the pace's is left."""
    pace = Pace(settings.get("pace", Pace.NONE))
    deadlines: dict[str, int] = settings.get("deadlines", {})
    wanted = pace_deadlines(pace)
    text = f"Pace: {pace_text(pace)}"
    if deadlines == wanted:
        return f"{text}."
    if not any(deadlines.get(kind) == seconds for kind, seconds in wanted.items()):
        alone = list(deadlines) == [ANY_KIND]
        shown = "; ".join(f"{'every decision' if alone else kind_words(kind)}: {duration(seconds)}"
                          for kind, seconds in sorted(deadlines.items())) or "none"
        return f"{text}. Deadlines set by a moderator since: {shown}."
    changed = sorted(kind for kind in wanted.keys() | deadlines.keys() if wanted.get(kind) != deadlines.get(kind))
    changes = "; ".join(f"{kind_words(kind)}: {duration(deadlines[kind]) if kind in deadlines else 'none'}"
                        for kind in changed)
    return f"{text}. Changed by a moderator: {changes}."


def kind_words(kind: str) -> str:
    """A deadline's key as the table reads it: "battle plan decisions"; "*" is for the kinds without their own."""
    return "other decisions" if kind == ANY_KIND else f"{decision_topic(PromptKind(kind))} decisions"


def duration(seconds: float) -> str:
    """A length of time in the largest unit it fills: "45 s", "6 min", "1.5 h", "3 days"."""
    for unit, size in (("days", DAY), ("h", HOUR), ("min", MINUTE)):
        if seconds >= size and (unit != "days" or seconds % DAY == 0):
            return f"{seconds / size:.3g} {unit}" if unit != "days" or seconds != DAY else "1 day"
    return f"{seconds:.3g} s"
