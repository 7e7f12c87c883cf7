"""A game's bot settings (GameRecordRow.settings), named and typed: what each key holds, and who keeps it.

The stored form stays the JSON object the writers build (bot/app/service.py and the modules named below), so the
games stored before this model read unchanged and no write changes a byte of them. The model is how that object is
checked when a game row is read (GameRecordRow validates it) and how a reader gets typed values (`GameSettings.of`).

A decision, in the per-decision maps, is "<faction>/<prompt kind>/<version it opened at>" (bot/app/service.py
`_decision`); games stored by an older Mentat kept "<prompt id>" there, which reads the same.

Keys the model does not name are kept (extra="allow"), not refused nor dropped: a game written by a newer Mentat, then
read by this one after a rollback, must neither fail to load nor lose what the newer one keeps on its next write.
The test that every key the bot reads or writes is a field (tests/test_settings_model.py) keeps that door for
rollbacks only.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.app.paces import Pace

Decision = str  # "<faction>/<prompt kind>/<version it opened at>" (or an older game's "<prompt id>")
Stage = Literal["half", "last"]  # the reminder a decision got (bot/app/service.py HALF, LAST)


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Cancellation(_Part):
    """Who cancelled the game and why (bot/app/service.py cancel)."""

    by: str
    reason: str


class QuietOwed(_Part):
    """A DM owed to a player whose quiet hours silenced messages of the game (bot/app/hours.py)."""

    until: datetime  # when their quiet hours end: the DM goes out then
    silenced: int  # how many messages went out silently


class Absence(_Part):
    """A faction's running absence (/me away, bot/app/absence.py start)."""

    since: datetime
    until: datetime  # the end the player asked for
    ends: datetime  # when its deadlines stop waiting: `until`, or earlier at the game's cap
    stops: list[tuple[datetime, datetime]] = Field(default_factory=list)  # the game's own stops (pauses) meanwhile


class TableVote(_Part):
    """The table's open vote (bot/app/votes.py new_vote)."""

    number: int
    kind: Literal["pause", "resume", "extend", "replace", "end"]  # bot/app/votes.py VoteKind
    caller: str  # the faction that called it
    opened: datetime
    closes: datetime
    hours: float | None = None  # a pause's or an extension's length
    faction: str | None = None  # the seat a replacement vote is about
    answers: dict[str, bool] = Field(default_factory=dict)  # faction -> yes


class TablePause(_Part):
    """A pause the table voted, which ends by itself (bot/app/votes.py pause_end)."""

    since: datetime | None = None  # the paused_at of the pause it belongs to
    until: datetime


class GameSettings(BaseModel):
    """Every key of a game's settings in use. Absent keys read as their defaults, as the readers' `.get` did."""

    model_config = ConfigDict(extra="allow", frozen=True)

    # The clock (bot/app/service.py create_game, set_deadline, grace, pause, tick; bot/app/paces.py).
    pace: Pace = Pace.NONE
    deadlines: dict[str, int] = Field(default_factory=dict)  # prompt kind or "*" (paces.ANY_KIND) -> seconds
    # decision -> the reminder it got; a game reminded before the stages existed kept a list of the decisions
    # reminded at half time
    reminded: dict[Decision, Stage] | list[Decision] = Field(default_factory=dict)
    grace: dict[Decision, int] = Field(default_factory=dict)  # decision -> extra seconds a moderator gave
    paused_at: datetime | None = None  # when the running pause began; absent while the game runs
    paused_for: dict[Decision, int] = Field(default_factory=dict)  # seconds its clock stood still since it opened
    default_refused: dict[Decision, str] = Field(default_factory=dict)  # the rules' reason, told once
    stalled_at: datetime | None = None  # since when the channel refuses the bot (bot/app/delivery.py)
    # The people (bot/app/service.py create_game, cancel, the DM checks; bot/app/seats.py).
    creator: int | None = None  # the Discord user who made the game: they may start it like a moderator
    cancelled: Cancellation | None = None
    unreachable: list[str] = Field(default_factory=list)  # factions whose player's DMs are closed
    former_players: dict[str, list[int]] = Field(default_factory=dict)  # faction -> users who handed it over
    seat_calls: dict[str, int] = Field(default_factory=dict)  # faction -> the number of its open call
    seat_calls_made: int = 0
    # Players away and asleep (bot/app/absence.py, bot/app/hours.py).
    absence: Literal["wait", "defaults"] = "wait"  # what an absence does (absence.WAIT, absence.DEFAULTS)
    away: dict[str, Absence] = Field(default_factory=dict)  # faction -> its running absence
    away_past: dict[str, list[tuple[datetime, datetime]]] = Field(default_factory=dict)  # faction -> ended ones
    away_for: dict[Decision, int] = Field(default_factory=dict)  # seconds an absence alone stopped its clock
    quiet_owed: dict[str, QuietOwed] = Field(default_factory=dict)  # faction -> the DM owed after quiet hours
    # The table's votes (bot/app/votes.py) and the troubles told to moderators (bot/app/trouble.py).
    table_vote: TableVote | None = None
    table_vote_passed: TableVote | None = None  # a vote that passed, until it is carried out (votes.VOTE_PASSED)
    table_votes_made: int = 0
    table_pause: TablePause | None = None
    troubles_told: dict[str, datetime] = Field(default_factory=dict)  # trouble key -> when moderators were told

    @classmethod
    def of(cls, settings: dict[str, Any]) -> GameSettings:
        """The typed view of a game's stored settings (ValidationError when a key holds what it never held)."""
        return cls.model_validate(settings)
